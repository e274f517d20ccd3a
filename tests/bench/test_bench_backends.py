"""The benchmarks' backends (bench/live_load.py's Backend): each is a fresh database, also two
of the same kind in one scratch folder (bench/arena_load.py makes one per repeat)."""
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

import live_load  # noqa: E402


def test_two_sqlite_backends_in_one_scratch_folder_have_databases_of_their_own(tmp_path):
    first = live_load.Backend("sqlite", ROOT, tmp_path)
    second = live_load.Backend("sqlite", ROOT, tmp_path)
    assert first.database_url != second.database_url
    for backend in (first, second):
        assert backend.database_url.startswith(f"sqlite:///{tmp_path}/")
