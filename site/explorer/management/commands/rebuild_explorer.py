"""Recount the opening explorer from the archive: for a site whose games ended before the
explorer kept counts, or to repair them. Idempotent: the counts are replaced, not added to."""
from django.core.management.base import BaseCommand

from explorer import counts


class Command(BaseCommand):
    help = __doc__.splitlines()[0]

    def handle(self, *args, **options):
        counted = counts.rebuild()
        self.stdout.write(f"Counted {counted} games (first {counts.DEPTH} actions each).")
