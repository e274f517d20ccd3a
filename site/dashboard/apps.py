from django.apps import AppConfig


class DashboardConfig(AppConfig):
    name = "dashboard"
    verbose_name = "Your games at a glance"

    def ready(self):
        from dashboard import receivers  # noqa: F401 - connects to play.signals
