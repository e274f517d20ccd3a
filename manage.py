#!/usr/bin/env python
"""Django's command-line utility for Tessera."""
import os
import sys
from pathlib import Path

# site/ is a source root, not a package: the standard library's `site` module is imported at
# interpreter start-up, so a package named `site` could never be imported. Putting the folder
# itself on sys.path makes `tessera`, `accounts`, `play`... top-level packages.
sys.path.insert(0, str(Path(__file__).resolve().parent / "site"))


def main():
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tessera.settings")
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
