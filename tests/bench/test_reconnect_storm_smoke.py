"""The reconnect storm benchmark runs from a clean checkout: a tiny shape (20 sockets cut at
once, 2 games moving, SQLite) through `bench/reconnect_storm.py`. Not a timing test: it checks
that every cut socket came back, that the games moved meanwhile, that the table has its
row and that the server's stamps of each move's steps (`--trace`, live.tracing) were read,
not how fast anything was."""
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_reconnect_storm_small_shape_runs_and_prints_its_table(tmp_path):
    results_path = tmp_path / "results.json"
    finished = subprocess.run(
        [sys.executable, "bench/reconnect_storm.py", "--sockets", "20", "--games", "2",
         "--warmup", "1", "--duration", "3", "--json", str(results_path),
         "--trace", str(tmp_path)],
        cwd=ROOT, capture_output=True, text=True, timeout=180,
    )
    assert finished.returncode == 0, finished.stdout + finished.stderr
    [result] = json.loads(results_path.read_text())
    figures = result["figures"]
    assert figures["sockets"] == 20 and figures["back"]["n"] == 20 and figures["not_back"] == 0
    assert figures["errors"] == {}, figures
    assert figures["carried"] > 0 and figures["moves"]["opponent"]["n"] > 0
    assert any(line.split()[:3] == ["sqlite", "tessera", "20"]
               for line in finished.stdout.splitlines()), finished.stdout
    # Every move the load counted in the window was stamped at each step by the server.
    waits = figures["waits"]
    assert set(waits) == {"laned", "started", "ended", "back", "sent"}
    assert all(spans["n"] == waits["laned"]["n"] for spans in waits.values())
    assert 0 < waits["laned"]["n"] <= figures["moves"]["opponent"]["n"] + 2
