"""The arena-load benchmark runs from a clean checkout: a tiny shape (2 people's games, an
arena of 8 players, 2 s measured, SQLite) through `bench/arena_load.py --smoke`. Not a timing
test: it checks that both rows were measured, that moves were carried without errors and that
the arena's games ended and were paired again while measuring, not how fast anything was."""
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_arena_load_smoke_shape_runs_and_prints_its_table(tmp_path):
    results_path = tmp_path / "results.json"
    finished = subprocess.run(
        [sys.executable, "bench/arena_load.py", "--smoke", "--json", str(results_path)],
        cwd=ROOT, capture_output=True, text=True, timeout=240,
    )
    assert finished.returncode == 0, finished.stdout + finished.stderr
    results = {r["arena"]: r["figures"] for r in json.loads(results_path.read_text())}
    assert set(results) == {"without", "with"}
    for figures in results.values():
        assert figures["errors"] == {} and figures["carried"] > 0
        assert figures["latency"]["mover"]["n"] > 0
    assert "arena" not in results["without"]
    assert results["with"]["arena"]["ended"] > 0
    rows = [line.split()[:3] for line in finished.stdout.splitlines()]
    assert ["sqlite", "2x1", "without"] in rows and ["sqlite", "2x1", "with"] in rows
