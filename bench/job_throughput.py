"""The job mechanism's throughput alone: bot_load's 20 computer games (levels 2 and 3, Tripen
13x13 and Colorful 7, unpaced) played by 2 `manage.py jobs_worker` processes pinned to one
core, with no server and no people: computer actions a second, the workers' CPU (cores) and
actions per worker CPU second, for several checkouts in turn (side by side on a shared
machine).

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/h3 REDIS_URL=redis://127.0.0.1:6379/3 \\
        nice -n 19 python bench/job_throughput.py --site /tmp/base --site . --repeat 3

The database must be migrated (by the newest checkout); each run uses a Redis prefix of its
own and ends its games. The workers run at this process's niceness (`--normal-priority`):
on a machine shared with other niced work SCHED_IDLE workers get no CPU at all, so `--idle`
(their default, SCHED_IDLE) only says something on a quiet machine. It prints figures; it is
not a test.
"""
import argparse
import os
import statistics
import subprocess
import sys
import time
import uuid
from datetime import datetime, timezone
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE)]

from bot_load import BOT_ACTIONS, BOT_GAMES_END, BOT_SETUP  # noqa: E402
from live_load import BENCH_SECRET_KEY, process_cpu_seconds  # noqa: E402


def env(site, prefix):
    return {**os.environ, "PYTHONPATH": f"{site / 'site'}{os.pathsep}{site}",
            "REDIS_PREFIX": prefix, "SECRET_KEY": BENCH_SECRET_KEY, "JOBS_MODE": "redis",
            "BOT_EXHIBITION": "0", "BOT_EXHIBITION_PACE": "0"}


def python(site, code, prefix, *args):
    result = subprocess.run(
        [sys.executable, "-c", "import django, os; os.environ.setdefault("
         "'DJANGO_SETTINGS_MODULE', 'tessera.settings'); django.setup()\n" + code,
         *map(str, args)], cwd=site, env=env(site, prefix), check=True, capture_output=True,
        text=True, timeout=600)
    return result.stdout.strip().splitlines()[-1]


def measure(site, seconds, idle, core, games):
    prefix = f"job-throughput-{uuid.uuid4().hex[:8]}"
    python(site, BOT_SETUP, prefix, games)
    argv = [sys.executable, "manage.py", "jobs_worker", "-v", "0"]
    if not idle:
        argv.append("--normal-priority")
    workers = [subprocess.Popen(["taskset", "-c", str(core), *argv], cwd=site,
                                env=env(site, prefix), stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL) for _ in range(2)]
    try:
        time.sleep(5)  # their start-up, not counted
        before, cpu_before, since = (int(python(site, BOT_ACTIONS, prefix)),
                                     sum(process_cpu_seconds(w.pid) for w in workers),
                                     time.monotonic())
        time.sleep(seconds)
        cpu_after, until = sum(process_cpu_seconds(w.pid) for w in workers), time.monotonic()
        after = int(python(site, BOT_ACTIONS, prefix))
    finally:
        for worker in workers:
            worker.terminate()
        for worker in workers:
            try:
                worker.wait(60)
            except subprocess.TimeoutExpired:
                worker.kill()
                worker.wait()
        python(site, BOT_GAMES_END, prefix)
        import redis
        client = redis.Redis.from_url(os.environ["REDIS_URL"])
        for key in client.scan_iter(match=f"{prefix}*", count=1000):
            client.delete(key)
    # The actions span the CPU window plus one read of the count.
    rate = (after - before) / (time.monotonic() - since)
    cores = (cpu_after - cpu_before) / (until - since)
    return rate, cores


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--site", type=Path, action="append", required=True,
                        help="a checkout (give several: measured in turn)")
    parser.add_argument("--seconds", type=float, default=25)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--idle", action="store_true", help="the workers at SCHED_IDLE")
    args = parser.parse_args()
    core = sorted(os.sched_getaffinity(0))[0]
    rows = {site: [] for site in args.site}
    for attempt in range(args.repeat):
        for site in args.site:
            rate, cores = measure(site.resolve(), args.seconds, args.idle, core, args.games)
            rows[site].append((rate, cores))
            print(f"{datetime.now(timezone.utc):%H:%M:%S} {site}: {rate:.2f} actions/s, workers "
                  f"{cores:.2f} cores, {rate / cores if cores else 0:.2f} actions per CPU s, "
                  f"load {os.getloadavg()[0]:.1f}", flush=True)
    print(f"\n2 jobs_workers on core {core}, {args.games} computer games, {args.seconds:g} s "
          f"windows, medians of {args.repeat}:")
    for site, found in rows.items():
        rates, cores = [r for r, _ in found], [c for _, c in found]
        print(f"{str(site):40} {statistics.median(rates):6.2f} actions/s  "
              f"{statistics.median(cores):5.2f} cores  "
              f"{statistics.median(r / c for r, c in found if c):5.2f} actions per CPU s")


if __name__ == "__main__":
    main()
