"""`python manage.py backup PATH`: a consistent copy of the embedded SQLite database, taken
while the site runs and games are played (SQLite's online backup API: pages are copied in
steps, between which writers go on; a step that sees the database changed by another
connection starts the copy over, so the result is one moment's database). On PostgreSQL use
its own tools (pg_dump, or base backups and WAL archiving): docs/operations.md."""
import sqlite3
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from django.db import connections

PAGES_PER_STEP = 1024  # 4 MB a step at SQLite's default page size
PAUSE_SECONDS = 0.01   # between steps, so writers are never held up long


class Command(BaseCommand):
    help = "Copy the SQLite database to PATH while the site runs (PostgreSQL: use pg_dump)."

    def add_arguments(self, parser):
        parser.add_argument("path", help="the file to write; it must not exist")
        parser.add_argument("--database", default="default")

    def handle(self, *args, path, database, **options):
        settings_dict = connections[database].settings_dict
        engine = settings_dict["ENGINE"]
        if engine != "django.db.backends.sqlite3":
            raise CommandError(
                f"backup copies the embedded SQLite database; this site uses {engine}. "
                "Use PostgreSQL's own tools, e.g. pg_dump --format=custom (docs/operations.md).")
        target = Path(path)
        if target.exists():
            raise CommandError(f"{target} exists: give a new file, a backup never overwrites")
        source = sqlite3.connect(settings_dict["NAME"], timeout=20)
        copy = sqlite3.connect(str(target.with_name(target.name + ".partial")))
        try:
            source.backup(copy, pages=PAGES_PER_STEP, sleep=PAUSE_SECONDS)
            check = copy.execute("PRAGMA integrity_check").fetchone()[0]
        finally:
            copy.close()
            source.close()
        if check != "ok":
            target.with_name(target.name + ".partial").unlink()
            raise CommandError(f"the copy failed SQLite's integrity check: {check}")
        # A complete copy only ever appears under its name.
        target.with_name(target.name + ".partial").rename(target)
        self.stdout.write(f"backed up {settings_dict['NAME']} to {target}")
