from django.apps import AppConfig


class WatchConfig(AppConfig):
    name = "watch"
    verbose_name = "Watch"
