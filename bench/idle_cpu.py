"""What an idle server costs: one Daphne with production-like settings (DEBUG off, the
periodic work's default periods: LIVE_SWEEP 2 s, heartbeat 10 s, keep-alive 30 s), no game,
no socket, no request, on a fresh database. Its CPU seconds (utime + stime of the server and
of every process it started: the job pool's workers) over `--windows` windows of `--seconds`
each, after `--warmup` seconds, reported as seconds per minute (each window, and the median);
and each periodic work's runs in the windows (its live.periodic log lines, LOG_LEVEL=INFO):
how long a run held the event loop, p50 / p99 / max.

    python bench/idle_cpu.py                      # SQLite, a file in a scratch folder
    DATABASE_URL=postgres://... REDIS_URL=redis://... python bench/idle_cpu.py
                                                  # a fresh database made beside that one's
    python bench/idle_cpu.py --env LIVE_SWEEP=0.5 # the tests' sweep period
"""
import argparse
import os
import statistics
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path[:0] = [str(ROOT / "tests"), str(HERE)]

from live_load import PERIODIC_LINE  # noqa: E402
from siteservers import (SiteServer, fresh_postgres_database, free_port, migrate,  # noqa: E402
                         server_env)

TICKS = os.sysconf("SC_CLK_TCK")
# server_env's quick periods for tests: left out, so the settings' defaults apply.
TEST_PERIODS = ("LIVE_HEARTBEAT", "LIVE_KEEPALIVE", "LIVE_SWEEP")


def family(pid):
    """`pid` and every process under it (the job pool's workers)."""
    children = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry.name))
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        found.append(current)
        todo.extend(children.get(current, []))
    return found


def cpu_seconds(pid):
    """utime + stime of `pid` and its descendants (each with all its threads)."""
    total = 0
    for member in family(pid):
        try:
            fields = Path(f"/proc/{member}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])
    return total / TICKS


def percentile(values, q):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--windows", type=int, default=3)
    parser.add_argument("--warmup", type=float, default=15)
    parser.add_argument("--env", action="append", default=[], help="NAME=VALUE for the server")
    args = parser.parse_args()
    extra = dict(item.split("=", 1) for item in args.env)
    url = os.environ.get("DATABASE_URL", "")
    with tempfile.TemporaryDirectory(prefix="idle-cpu-") as scratch, ExitStack() as stack:
        if url.startswith("postgres"):
            url = stack.enter_context(fresh_postgres_database(url, "idle_cpu"))[0]
            backend = "postgresql" + (" + redis" if os.environ.get("REDIS_URL") else "")
        else:
            url = f"sqlite:///{scratch}/idle.sqlite3"
            backend = "sqlite"
        env = server_env(url, LOG_LEVEL="INFO", **extra)
        for name in TEST_PERIODS:
            if name not in extra:
                env.pop(name, None)
        migrate(env)
        log_path = Path(scratch) / "server.log"
        server = SiteServer(env, free_port(), log_path).start()
        stack.callback(server.stop)
        time.sleep(args.warmup)
        mark = log_path.stat().st_size
        rates = []
        for _ in range(args.windows):
            began, spent = time.monotonic(), cpu_seconds(server.process.pid)
            time.sleep(args.seconds)
            used = cpu_seconds(server.process.pid) - spent
            rates.append(used * 60 / (time.monotonic() - began))
        with open(log_path, "rb") as log:
            log.seek(mark)
            text = log.read().decode(errors="replace")
    works = {}
    for m in PERIODIC_LINE.finditer(text):
        works.setdefault(m[1], []).append((float(m[2]), float(m[5])))
    print(f"{backend}: idle CPU s/min per window "
          f"{', '.join(f'{r:.2f}' for r in rates)}; median {statistics.median(rates):.2f}"
          f" ({' '.join(args.env) or 'default periods'})")
    print("periodic work, per run, ms: runs | held the event loop p50 / p99 / max | "
          "database threads p50 / p99 / max")
    for work, runs in sorted(works.items()):
        held = [r[0] for r in runs]
        db = [r[1] for r in runs]
        print(f"  {work}: {len(runs)} | {percentile(held, .5):.3f} / {percentile(held, .99):.3f}"
              f" / {max(held):.3f} | {percentile(db, .5):.3f} / {percentile(db, .99):.3f} / "
              f"{max(db):.3f}")


if __name__ == "__main__":
    main()
