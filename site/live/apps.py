from django.apps import AppConfig


class LiveConfig(AppConfig):
    name = "live"
    verbose_name = "Live connections"

    def ready(self):
        from live import sessions

        sessions.connect_signals()
