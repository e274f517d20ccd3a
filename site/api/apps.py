from django.apps import AppConfig


class ApiConfig(AppConfig):
    name = "api"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from api.receivers import plays_elsewhere
        from api.tokens import marked_bot_account
        from play.signals import plays_elsewhere as asked
        from ratings.display import computers

        asked.connect(plays_elsewhere, dispatch_uid="api-bot-accounts-play-through-the-api")
        # The BOT mark beside a bot account's name (ratings sits below api).
        computers.is_bot_account = marked_bot_account
