from django.apps import AppConfig
from django.conf import settings


class BotsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "bots"
    verbose_name = "Computer players and jobs"

    def ready(self):
        from bots import jobs, moves, pool  # noqa: F401 (moves: the bot_move job, its receiver)
        from live import process

        process.every(settings.BOT_SWEEP, jobs.sweep)
        if settings.BOT_EXHIBITION:
            from bots import services

            process.every(settings.BOT_SWEEP, services.keep_an_exhibition)
        if jobs.mode() == "pool":
            process.on_start(pool.start)
            process.on_stop(pool.stop)
