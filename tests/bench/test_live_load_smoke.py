"""The live load benchmark runs from a clean checkout: a tiny shape (2 games, 2 s measured,
SQLite only) through `bench/live_load.py --smoke`. Not a timing test: it checks that moves were
carried, that no error came back and that the table has its rows, not how fast anything was."""
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_live_load_smoke_shape_runs_and_prints_its_table(tmp_path):
    results_path = tmp_path / "results.json"
    finished = subprocess.run(
        [sys.executable, "bench/live_load.py", "--smoke", "--json", str(results_path)],
        cwd=ROOT, capture_output=True, text=True, timeout=180,
    )
    assert finished.returncode == 0, finished.stdout + finished.stderr
    results = json.loads(results_path.read_text())

    rows = {(r["backend"], r["run"], r["server"]) for r in results}
    assert rows == {("sqlite", run, server) for run in ("2x1", "sat2", "idle8")
                    for server in ("echo", "tessera")}
    for result in results:
        figures = result["figures"]
        assert figures["errors"] == {}, result
        if result["run"] == "idle8":
            assert figures["sockets"] == 8, result
        else:
            assert figures["carried"] > 0, result
            assert figures["latency"]["spectator"]["n"] > 0, result
    saturated = [r for r in results if r["run"] == "sat2"]
    assert all(r["figures"]["probes"]["ping"] and r["figures"]["probes"]["snapshot"] for r in saturated)

    table = finished.stdout
    for run in ("2x1", "sat2"):
        for server in ("echo", "tessera"):
            assert any(line.split()[:3] == ["sqlite", run, server] for line in table.splitlines()), table
    assert "kB/socket" in table and "ping" in table
