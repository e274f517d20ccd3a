from django.apps import AppConfig
from django.conf import settings


class PlayConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "play"
    verbose_name = "Games in play"

    def ready(self):
        from live import process
        from play import sweeper

        process.every(settings.LIVE_SWEEP, sweeper.sweep)
        process.on_outage(sweeper.move_clocks_on)
