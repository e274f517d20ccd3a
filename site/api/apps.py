from django.apps import AppConfig


class ApiConfig(AppConfig):
    name = "api"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from api.receivers import plays_elsewhere
        from play.signals import plays_elsewhere as asked

        asked.connect(plays_elsewhere, dispatch_uid="api-bot-accounts-play-through-the-api")
