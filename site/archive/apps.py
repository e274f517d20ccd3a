from django.apps import AppConfig


class ArchiveConfig(AppConfig):
    name = "archive"
    verbose_name = "Archive"

    def ready(self):
        from frontend import kept
        from play import pages

        # A finished game's page is the archive's: drawn once for what it shows, for visitors
        # who are not signed in, as the Archive's own pages are.
        pages.keep_with(kept.page)
