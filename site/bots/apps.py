from django.apps import AppConfig
from django.conf import settings


class BotsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "bots"
    verbose_name = "Computer players"

    def ready(self):
        from bots import accounts, moves  # noqa: F401 (moves: the bot_move job)
        from bots import services as computer_services
        from live import process
        from play.signals import computer_rematch
        from ratings.display import computers

        # A rematch against a computer: the same cap on computer games as the form.
        computer_rematch.connect(computer_services.rematch_refusal,
                                 dispatch_uid="bots.rematch_refusal")
        # The BOT mark beside a rating, with the level.
        computers.level_of = accounts.level_of
        computers.level_name = accounts.level_name

        if settings.BOT_EXHIBITION:
            from bots import services

            process.every(settings.JOBS_SWEEP, services.keep_an_exhibition, aside=True)
