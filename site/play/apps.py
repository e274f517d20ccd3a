from django.apps import AppConfig
from django.conf import settings


class PlayConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "play"
    verbose_name = "Games in play"

    def ready(self):
        from live import presence as ledger
        from live import process
        from live.models import Presence
        from play import presence, sweeper

        process.every(settings.LIVE_SWEEP, sweeper.sweep, due=sweeper.anything_due)
        ledger.when_gone(Presence.GAME, presence.announce)
        process.on_outage(sweeper.move_clocks_on)
