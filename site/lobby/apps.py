from django.apps import AppConfig
from django.conf import settings


class LobbyConfig(AppConfig):
    name = "lobby"
    verbose_name = "Lobby"

    def ready(self):
        from live import process
        from lobby import presence

        process.every(settings.LIVE_SWEEP, presence.close_abandoned_seeks,
                      due=presence.any_abandoned_seek)
