"""The API bots benchmark runs from a clean checkout: a tiny shape (2 bot games, 1 people's
game, 3 s measured per phase) through `bench/api_bots.py --smoke`. Not a timing test: it
checks that the bots' actions were carried through both doors (the API, the game socket with
their tokens) with no error, that the people's moves were too, and that the table has its
rows and ratios, not how fast anything was."""
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PHASES = ("people alone", "+ API bots", "+ socket bots")


def test_api_bots_smoke_shape_runs_and_prints_its_table(tmp_path):
    results_path = tmp_path / "results.json"
    finished = subprocess.run(
        [sys.executable, "bench/api_bots.py", "--smoke", "--json", str(results_path)],
        cwd=ROOT, capture_output=True, text=True, timeout=240,
    )
    assert finished.returncode == 0, finished.stdout + finished.stderr
    rows = json.loads(results_path.read_text())
    assert set(rows) == set(PHASES)
    for name, row in rows.items():
        assert row["bot_errors"] == {} and row["people_errors"] == {}, (name, row)
        assert row["people"]["n"] > 0, (name, row)
    assert rows["people alone"]["bots"] is None
    for name in PHASES[1:]:
        assert rows[name]["bots"]["n"] > 0, (name, rows[name])

    table = finished.stdout.splitlines()
    for name in PHASES:
        assert any(line.startswith(name) for line in table), table
    assert any(line.startswith("bots' round trip p99, API / socket:") for line in table), table
    assert any(line.startswith("people's move p99, with the API bots / alone:") for line in table)
