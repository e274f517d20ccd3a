"""The restart and failure benchmark runs from a clean checkout: its tiny shape (`--smoke`: 4
games through nginx, two Daphne processes, PostgreSQL, a private redis-server) through
`bench/failures.py`, on a fresh database of DATABASE_URL's server. Not a timing test: it checks
that every fault's row is there (printed as its fault ended), that the games moved through
each fault, that no acknowledged action was lost or duplicated, that the pages came back and
caught up, that the computer's move was made and the analysis finished, not how fast
anything was. Skipped without PostgreSQL, redis-server or nginx."""
import json
import os
import random
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from siteservers import fresh_postgres_database

ROOT = Path(__file__).resolve().parents[2]
DATABASE_URL = os.environ.get("DATABASE_URL", "")


def missing():
    if not DATABASE_URL.startswith(("postgres://", "postgresql://")):
        return "DATABASE_URL is not a PostgreSQL URL (the benchmark terminates its backends)"
    if not shutil.which("redis-server"):
        return "redis-server is not installed (the benchmark restarts a private one)"
    if not (shutil.which("nginx") or Path("/usr/sbin/nginx").exists()):
        return "nginx is not installed (apt-get install nginx; .ci/run does)"
    return None


pytestmark = pytest.mark.skipif(missing() is not None, reason=str(missing()))


@pytest.fixture
def fresh_database():
    with fresh_postgres_database(DATABASE_URL, "tessera_failures") as (url, _, _):
        yield url


def free_base():
    """A base for the bench's five ports (Daphne +1/+2, nginx +10/+11, Redis +20), all free
    now, below Linux's ephemeral ports (32768 up), which other connections take."""
    for _ in range(100):
        base = random.randrange(20000, 32000, 100)
        if all(port_free(base + offset) for offset in (1, 2, 10, 11, 20)):
            return base
    raise RuntimeError("no free ports for the bench")


def port_free(port):
    with socket.socket() as probe:
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def test_failures_small_shape_runs_and_prints_its_table(tmp_path, fresh_database):
    results_path = tmp_path / "results.json"
    base = int(os.environ.get("FAILURES_PORT_BASE") or free_base())
    env = {**os.environ, "DATABASE_URL": fresh_database}
    finished = subprocess.run(
        [sys.executable, "bench/failures.py", "--smoke", "--port-base", str(base),
         "--json", str(results_path)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=900,
    )
    assert finished.returncode == 0, finished.stdout[-4000:] + finished.stderr[-4000:]
    results = json.loads(results_path.read_text())
    assert list(results) == ["none", "rolling", "redis", "postgres", "worker"]
    for fault, row in results.items():
        assert "failed" not in row, (fault, row)
        assert row["lost"] == 0 and row["duplicated"] == 0, (fault, row)
        assert row["not_back"] == 0 and row["not_caught_up"] == 0, (fault, row)
    # The games moved through every fault but the last (the worker's: its own games).
    for fault in ("none", "rolling", "redis", "postgres"):
        assert results[fault]["acked"] > 0, (fault, results[fault])
    assert results["rolling"]["reconnects"] > 0
    assert results["redis"]["news_back_s"] is not None
    assert results["redis"]["pages_caught_up_s"] is not None
    assert results["worker"]["move"] == "made once"
    # The killed worker's analysis taken over by the new one: finished, or (on a busy machine,
    # where the workers' SCHED_IDLE leaves them little CPU) at least going on after the kill.
    worker = results["worker"]
    assert worker["analysis"] == "finished" or worker["positions_after_kill"] > 0, worker
    # Each row as its fault ends, before the summary and the whole table again.
    lines = finished.stdout.splitlines()
    rows = [i for i, line in enumerate(lines) if line.startswith("| none |")]
    summary = next(i for i, line in enumerate(lines) if "games through nginx" in line)
    assert len(rows) == 2 and rows[0] < summary < rows[1], finished.stdout
