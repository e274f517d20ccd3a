from django.apps import AppConfig


class LiveConfig(AppConfig):
    name = "live"
    verbose_name = "Live connections"

    def ready(self):
        from django.conf import settings

        from live import presence, process, sessions

        sessions.connect_signals()
        process.every(settings.LIVE_SWEEP, presence.sweep)
