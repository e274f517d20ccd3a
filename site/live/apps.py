from django.apps import AppConfig


class LiveConfig(AppConfig):
    name = "live"
    verbose_name = "Live connections"

    def ready(self):
        from django.conf import settings
        from django.db.backends.signals import connection_created

        from live import lanes, layers, presence, process, sessions

        sessions.connect_signals()
        process.every(settings.LIVE_SWEEP, presence.sweep, due=presence.anything_gone)
        connection_created.connect(lanes.read_only_readers, dispatch_uid="live.read_only_readers")
        layers.news_missed.connect(process.resync, dispatch_uid="live.resync")
