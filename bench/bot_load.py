"""Do the computer players slow the site? People's move round trips with no computer game and
with 20 computer games thinking at once, on the same servers.

    python bench/bot_load.py                                   # embedded default (sqlite)
    python bench/bot_load.py --games 50 --think 1 --bots 20 --duration 20
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres REDIS_URL=redis://127.0.0.1:6379/5 \\
        python bench/bot_load.py --backends sqlite,pg1

The people's load is bench/live_load.py's (bench/loadgen.py): `--games` Hadron 7x7 games, two
players and two spectators a game, one websocket each, a move every `--think` seconds per game.
A move's round trip is the time from the mover sending it to its broadcast reaching the mover
(and the opponent, the spectators). Each backend is measured twice on fresh servers: with no
computer game, then with `--bots` games between two computers (levels 2 and 3, Tripen 13x13
and Colorful 7, paced at nothing) that think all the time: each of them always has its next
move queued or in work.

Backends: `sqlite`, the embedded default: one Daphne process whose own pool of worker
processes (BOT_WORKERS, 2) thinks; `pg1`: one Daphne process on PostgreSQL + Redis, and
BOT_WORKERS `manage.py jobs_worker` processes. The server (and its workers, which inherit or
are given the same core) are pinned to the first allowed core, the load generator to the
second: the workers, at the lowest CPU priority, compete with the server for its own core,
the hard case. It prints figures; it is not a test.

pg1 also gives the computers' turn -> worker start: from a `bot_move` job's sending (the turn
committed) to a jobs_worker starting it, ms p50/p99 of the jobs started in the measured
window (the workers' INFO lines, jobs.broker.Waits). With more computer games than workers
this is mostly the wait behind other games' thinking; `--bots 1` (a worker always free)
gives the mechanism's own.
"""
import argparse
import asyncio
import json
import os
import re
import statistics
from datetime import datetime
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent)]

import live_load  # noqa: E402
import loadgen  # noqa: E402

BOT_SETUP = """
import json, sys
from bots.accounts import bot_for
from play.clock import TimeControl
from play.services import start_game
first, second = bot_for(2), bot_for(3)
boards = [("tripen", {"size": 13}), ("colorful", {"size": 7})]
made = []
for n in range(int(sys.argv[-1])):
    game, options = boards[n % len(boards)]
    made.append(start_game(game=game, options=options, players=(first, second) if n % 2 else
                           (second, first), time_control=TimeControl("untimed")).pk)
print(json.dumps(made))
"""

BOT_ACTIONS = """
import sys
from bots.accounts import bot_ids
from play.models import Action
bots = bot_ids()
print(Action.objects.filter(game__player0_id__in=bots, game__player1_id__in=bots).count())
"""

# After a run with computers: their games end, so that the next run (without them, on the same
# database) has none left for the server's sweep to start thinking again.
BOT_GAMES_END = """
from bots.accounts import bot_ids
from play.models import Game
bots = bot_ids()
print(Game.objects.active().filter(player0_id__in=bots, player1_id__in=bots)
      .update(status=Game.ABORTED))
"""


class BotBackend(live_load.Backend):
    """live_load's backend, with the computer players' settings for its processes."""

    workers = 2
    worker_cpus = None

    def env(self, kind, run_label):
        env = super().env(kind, run_label)
        if self.worker_cpus is not None:
            env["BOT_CPUS"] = self.worker_cpus
        env.update(BOT_EXHIBITION="0", BOT_EXHIBITION_PACE="0",
                   JOBS_WORKERS=str(self.workers), JOBS_MODE="redis" if self.redis_url else "pool")
        return env

    def python(self, code, label, *args):
        result = subprocess.run([sys.executable, "-c", "import django, os; os.environ.setdefault("
                                 "'DJANGO_SETTINGS_MODULE', 'tessera.settings'); django.setup()\n"
                                 + code, *map(str, args)], cwd=self.site,
                                env=self.env("tessera", label), check=True, capture_output=True,
                                text=True, timeout=600)
        return result.stdout.strip().splitlines()[-1]


class BotWorkers:
    """`manage.py jobs_worker` processes (pg1), on `core`."""

    def __init__(self, backend, count, core, label, niced=False):
        argv = [sys.executable, "manage.py", "jobs_worker", "-v", "0"]
        if niced:
            # This bench's own niceness instead of SCHED_IDLE (--workers-niced).
            argv.append("--normal-priority")
        if core is not None and shutil.which("taskset"):
            argv = ["taskset", "-c", str(core)] + argv
        self.processes = []
        self.logs = [backend.scratch / f"{label}-worker{n}.log" for n in range(count)]
        # INFO: each job's wait (jobs.broker.Waits), read back by waits().
        env = {**backend.env("tessera", label), "LOG_LEVEL": "INFO", "LOG_FORMAT": "text"}
        for path in self.logs:
            with open(path, "ab") as log:
                self.processes.append(subprocess.Popen(
                    argv, cwd=backend.site, env=env, stdout=log,
                    stderr=subprocess.STDOUT, preexec_fn=live_load.die_with_parent))

    WAIT_LINE = re.compile(r"^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}) .*job bot_move started "
                           r"([\d.]+) ms after it was sent")

    def waits(self, start, end):
        """The bot_move jobs' waits (ms) of the jobs started between two datetimes (local)."""
        found = []
        for path in self.logs:
            for line in path.read_text(errors="replace").splitlines():
                match = self.WAIT_LINE.match(line)
                if match:
                    at = datetime.strptime(match[1], "%Y-%m-%d %H:%M:%S,%f")
                    if start <= at <= end:
                        found.append(float(match[2]))
        return found

    def cpu_seconds(self):
        """The workers' CPU seconds so far (all their threads)."""
        return sum(live_load.process_cpu_seconds(process.pid) for process in self.processes
                   if process.poll() is None)

    def stop(self):
        for process in self.processes:
            if process.poll() is None:
                process.terminate()
        for process in self.processes:
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def measure(args, backend, bench, bots, label):
    run = {"name": label, "kind": "paced", "games": args.games, "think": args.think}
    per_slot = live_load.games_per_slot(run, "tessera", args.warmup, args.duration)
    made = bench.tessera_setup(backend, run, label, per_slot)
    slots = [loadgen.Slot(rooms=s["games"], moves=[bench.next_moves() for _ in s["games"]],
                          sessions=tuple(s["sessions"])) for s in made["slots"]]
    if bots:
        backend.python(BOT_SETUP, label, bots)
    servers = bench.start_servers(backend, "tessera", label)
    workers = BotWorkers(backend, backend.workers, bench.server_core, label,
                         niced=args.workers_niced) if bots and backend.redis_url else None
    marks = []  # (when, the servers' CPU seconds, the jobs workers') at the window's edges
    sample_servers = live_load.sampler(servers)

    def sample():
        found = sample_servers()
        marks.append((time.monotonic(), found[0], workers.cpu_seconds() if workers else 0.0))
        return found

    try:
        before, since = int(backend.python(BOT_ACTIONS, label)), time.monotonic()
        target = loadgen.Target("tessera", [s.url for s in servers])
        load_start = datetime.now()
        stats, measured = asyncio.run(loadgen.run_load(
            target, slots, args.think, args.warmup, args.duration, sample))
        load_end = datetime.now()
        after = int(backend.python(BOT_ACTIONS, label))
        figures = loadgen.summary(stats, measured, args.games / args.think, args.duration)
        # The computers' actions stored a second, from just before the load to just after.
        figures["bot_actions"] = (after - before) / (time.monotonic() - since)
        # In the measured window (after the workers' start-up), the CPU in cores of the servers
        # and of the jobs workers (pg1; the pool's workers are not counted): are the workers
        # short of CPU, or idle beside waiting jobs?
        (start, servers_at_start, workers_at_start), (end, servers_at_end, workers_at_end) = \
            marks[:2]
        figures["server_cores"] = (servers_at_end - servers_at_start) / (end - start)
        figures["worker_cores"] = ((workers_at_end - workers_at_start) / (end - start)
                                   if workers else None)
        if workers:
            workers.stop()
            from datetime import timedelta

            waits = sorted(workers.waits(load_start + timedelta(seconds=args.warmup), load_end))
            if waits:
                figures["job_wait"] = {
                    "n": len(waits), "p50": statistics.median(waits),
                    "p99": waits[min(len(waits) - 1, int(len(waits) * 0.99))], "max": waits[-1]}
        return figures
    finally:
        if workers:
            workers.stop()
        for server in servers:
            server.stop()
        if bots:
            backend.python(BOT_GAMES_END, label)


def text(figures):
    return "/".join(f"{figures[k]:.1f}" for k in ("p50", "p90", "p99")) if figures else "-"


def print_table(rows, args):
    print(f"\nPeople's moves: {args.games} Hadron 7x7 games, a move every {args.think:g} s per "
          f"game, {args.duration:g} s measured after {args.warmup:g} s; round trip send -> "
          f"broadcast, ms p50/p90/p99" + (f", medians of {args.repeat} runs" if args.repeat > 1
                                          else "") + ". Computer games: between levels 2 and "
          f"3, thinking without pause.")
    print(f"{'backend':8} {'computer games':>14} {'carried/s':>9} {'mover':>18} "
          f"{'opponent':>18} {'spectators':>18} {'bot acts/s':>11} {'p99 ratio':>9} errors")
    for backend, bots, f in rows:
        base = next(r[2] for r in rows if r[0] == backend and r[1] == 0)
        ratio = (f["latency"]["mover"]["p99"] / base["latency"]["mover"]["p99"]
                 if f["latency"]["mover"] and base["latency"]["mover"] else None)
        print(f"{backend:8} {bots:>14} {f['carried']:9.1f} {text(f['latency']['mover']):>18} "
              f"{text(f['latency']['opponent']):>18} {text(f['latency']['spectator']):>18} "
              f"{f['bot_actions']:>11.1f} {(f'{ratio:.2f}' if ratio else '-'):>9} "
              f"{sum(f['errors'].values()) + f['stuck']}")
    for backend, bots, f in rows:
        if f.get("worker_cores"):
            print(f"{backend} with {bots} computer games: servers {f['server_cores']:.2f} cores, "
                  f"jobs workers {f['worker_cores']:.2f} cores, "
                  f"{f['bot_actions'] / f['worker_cores']:.2f} computer actions per worker CPU s")
    for backend, bots, f in rows:
        for wait in f.get("job_waits", []):
            print(f"{backend} with {bots} computer games: turn -> worker start, {wait['n']} "
                  f"jobs, ms p50 {wait['p50']:.2f} p99 {wait['p99']:.2f} max {wait['max']:.2f}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backends", default=None, help="sqlite,pg1 (default: sqlite, and pg1 "
                        "with DATABASE_URL and REDIS_URL)")
    parser.add_argument("--games", type=int, default=50, help="people's games (50)")
    parser.add_argument("--think", type=float, default=1.0, help="seconds between a game's moves")
    parser.add_argument("--bots", type=int, default=20, help="computer games thinking (20)")
    parser.add_argument("--duration", type=float, default=20)
    parser.add_argument("--warmup", type=float, default=8,
                        help="seconds before measuring: the server's first sweep (BOT_SWEEP, 5 s) "
                             "starts the computers")
    parser.add_argument("--workers", type=int, default=2, help="BOT_WORKERS (2)")
    parser.add_argument("--workers-apart", action="store_true",
                        help="the workers on the load generator's core (BOT_CPUS), not the "
                             "server's")
    parser.add_argument("--workers-niced", action="store_true",
                        help="pg1: the jobs workers at this bench's niceness, not SCHED_IDLE: on a "
                             "machine shared with other niced work, where SCHED_IDLE workers get "
                             "no CPU at all, to compare job mechanisms (not the people's p99)")
    parser.add_argument("--repeat", type=int, default=1,
                        help="measure each setting N times, without and with the computers in "
                             "turn (so both see the host alike); the table shows medians")
    parser.add_argument("--site", type=Path, default=HERE.parent)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    with_pg = (os.environ.get("DATABASE_URL", "").startswith(("postgres://", "postgresql://"))
               and os.environ.get("REDIS_URL"))
    names = (args.backends or ("sqlite,pg1" if with_pg else "sqlite")).split(",")
    for name in names:
        if name not in ("sqlite", "pg1") or (name == "pg1" and not with_pg):
            raise SystemExit(f"backend {name!r}: sqlite, or pg1 with DATABASE_URL and REDIS_URL")
    BotBackend.workers = args.workers
    signal.signal(signal.SIGTERM, live_load.terminate_on_signal)
    cores = live_load.pin_cores()
    if args.workers_apart and cores[1] is not None:
        BotBackend.worker_cpus = str(cores[1])
    print(f"servers on core {cores[0]}, load generator on core {cores[1]}, computer workers on "
          f"core {BotBackend.worker_cpus or cores[0]}"
          if cores[0] is not None else "one core: nothing pinned", flush=True)
    scratch = Path(tempfile.mkdtemp(prefix="tessera-bot-load-"))
    bench = live_load.Bench(argparse.Namespace(warmup=args.warmup, duration=args.duration), cores)
    rows, backends = [], []
    try:
        for name in names:
            backend = BotBackend(name, args.site.resolve(), scratch)
            backends.append(backend)
            backend.migrate()
            measured = {0: [], args.bots: []}
            for attempt in range(args.repeat):
                for bots in measured:
                    started = time.monotonic()
                    measured[bots].append(measure(args, backend, bench, bots, f"b{bots}-{attempt}"))
                    p99 = measured[bots][-1]["latency"]["mover"] or {}
                    print(f"  {name} #{attempt + 1} with {bots} computer games: "
                          f"{time.monotonic() - started:.0f} s, mover p99 "
                          f"{p99.get('p99', float('nan')):.1f} ms", file=sys.stderr, flush=True)
            for bots, figures in measured.items():
                summary = loadgen.median_summary(figures)
                # Each run's waits as measured (not medians of percentiles).
                summary["job_waits"] = [f["job_wait"] for f in figures if "job_wait" in f]
                rows.append((name, bots, summary))
        print_table(rows, args)
        if args.json:
            args.json.write_text(json.dumps(rows, indent=1))
    finally:
        for server in list(live_load.LIVE_SERVERS):
            server.stop()
        for backend in backends:
            backend.cleanup()
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        sys.exit(130)
