from django.apps import AppConfig


class FrontendConfig(AppConfig):
    """How pages load their static files: the ES module graph as preload links (no build
    step)."""

    name = "frontend"
