from django.apps import AppConfig


class LiveConfig(AppConfig):
    name = "live"
    verbose_name = "Live connections"

    def ready(self):
        from django.db.backends.signals import connection_created

        from live import lanes, sessions

        sessions.connect_signals()
        connection_created.connect(lanes.read_only_readers, dispatch_uid="live.read_only_readers")
