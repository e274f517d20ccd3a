from django.apps import AppConfig


class ExplorerConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "explorer"
    verbose_name = "Opening explorer"

    def ready(self):
        # The counts change inside the transaction that ends a game (play.signals.game_ending),
        # exactly once, and play itself knows nothing of the explorer.
        from explorer.counts import game_ended
        from play.signals import game_ending

        game_ending.connect(game_ended, dispatch_uid="explorer.counts")
