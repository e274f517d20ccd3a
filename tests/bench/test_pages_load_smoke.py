"""The pages load benchmark runs from a clean checkout: a tiny shape (3 finished games, 4
visitors, 2 s measured) through `bench/pages_load.py --smoke --prime`. Not a timing test: it checks
that every page of the mix and the plain view were served without a failure and that the
tables have their rows, not how fast anything was."""
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MIX = {"home", "watch", "archive", "game", "game?ply=5", "snapshot", "leaderboard", "rules"}


def test_pages_load_smoke_shape_runs_and_prints_its_tables(tmp_path):
    results_path = tmp_path / "results.json"
    finished = subprocess.run(
        [sys.executable, "bench/pages_load.py", "--smoke", "--prime", "--json",
         str(results_path)],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )
    assert finished.returncode == 0, finished.stdout + finished.stderr
    [result] = json.loads(results_path.read_text())

    assert set(result["alone"]) == MIX
    assert all(size > 0 and cpu >= 0 for _, size, cpu in result["alone"].values())
    for load in ("mix", "plain"):
        assert result[load]["requests"] > 0 and result[load]["failures"] == 0, result[load]
    # Locust names each page: every page of the mix was asked for at least once is too
    # much to ask of 2 s on a loaded machine, but only pages of the mix were.
    assert set(result["mix"]["pages"]) <= MIX and set(result["plain"]["pages"]) == {"plain"}

    # --prime: every address of the mix asked for once before it, the slowest noted.
    assert len(result["first_drawn"]) == 3 and all(ms > 0 for ms, _ in result["first_drawn"])

    table = finished.stdout
    assert "served alone" in table and "mix/plain" in table
    assert "first drawings before the mix" in table and "p99 ms" in table
    assert any(line.split()[1:2] == ["mix"] for line in table.splitlines()), table
    assert any(line.split()[1:2] == ["plain"] for line in table.splitlines()), table
