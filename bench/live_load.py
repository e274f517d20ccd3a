"""Live load: moves per second, latency and server CPU of Tessera's game sockets, beside a bare
Channels echo room (bench/echo_room.py) under the same load, on the same channel layer.

    python bench/live_load.py                                  # sqlite, every run
    python bench/live_load.py --runs 50x1,sat100 --duration 5
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres REDIS_URL=redis://127.0.0.1:6379/5 \\
        python bench/live_load.py --backends sqlite,pg1,pg2
    python bench/live_load.py --site /tmp/old                  # another checkout's servers
    python bench/live_load.py --base /tmp/old                  # echo, /tmp/old and this one

Backends: `sqlite` (the embedded defaults: a SQLite file, the in-memory channel layer, one
process); with DATABASE_URL (PostgreSQL) and REDIS_URL also `pg1` (one process on PostgreSQL +
Redis) and `pg2` (two processes on the same database and Redis; a game's two players on
different processes, spectators on both). Each backend gets a fresh database (a temporary
SQLite file, or a throw-away PostgreSQL database `bench_<random>` on DATABASE_URL's server,
dropped afterwards) and each run fresh server processes with their own Redis prefix.

Runs (a game = 2 players + 2 spectators, one websocket each; players send legal Hadron 7x7
moves precomputed with the engine, game after game):

  GxT      G games, each moving once every T seconds (50x1, 200x1, 500x5)
  satG     G games with no think time: a game's next move leaves as soon as the previous one
           came back to its mover; a probe socket times ping->pong and snapshot round trips
  idleN    N idle spectator sockets (N/4 games x 4): memory per socket and CPU per handshake

Each run is measured for the echo room, then (with `--base`) for another checkout's Tessera,
then for Tessera: ~3 s of warm-up, then `--duration` seconds measured. For each Tessera server
the periodic work that ran in the window (heartbeat, keep-alive, sweeps: the log lines of
live.periodic) is listed with how long each run held the event loop and its database threads. Server processes are pinned to the first allowed core (taskset), the load
generator to the second, when there are two; it prints figures, it is not a test.
"""
import argparse
import asyncio
import ctypes
import json
import math
import os
import re
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path[:0] = [str(HERE), str(ROOT)]

import loadgen  # noqa: E402

DEFAULT_RUNS = "50x1,200x1,500x5,sat100,idle1000"
# Sizing the games of a saturation run: moves per second a server might carry at most (well
# above what was ever measured), and what one game can do on its own (a move's round trip).
SATURATION_CAPACITY = {"tessera": 1500, "base": 1500, "echo": 6000}
ONE_GAME_MOVES_PER_SECOND = 500
SHORTEST_GAME = 20               # Hadron 7x7 games last 23-36 moves: sized on fewer
MAX_GAMES = {"tessera": 3000, "base": 3000, "echo": 100_000}   # bound on games (rooms) made for one run
TICKS = os.sysconf("SC_CLK_TCK")


def process_cpu_seconds(pid):
    """utime + stime of a process, all its threads, from /proc/<pid>/stat (fields 14 and 15,
    after the command name)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS
PR_SET_PDEATHSIG = 1


# -- runs -------------------------------------------------------------------------------------

def parse_run(name):
    """`50x1` -> 50 games, 1 s think time; `sat100`; `idle1000`."""
    if m := re.fullmatch(r"(\d+)x(\d+(?:\.\d+)?)", name):
        return {"name": name, "kind": "paced", "games": int(m[1]), "think": float(m[2])}
    if m := re.fullmatch(r"sat(\d+)", name):
        return {"name": name, "kind": "saturation", "games": int(m[1]), "think": 0.0}
    if m := re.fullmatch(r"idle(\d+)", name):
        return {"name": name, "kind": "idle", "sockets": int(m[1]), "games": math.ceil(int(m[1]) / 4)}
    raise SystemExit(f"unknown run {name!r}: GxT (50x1), satG (sat100) or idleN (idle1000)")


def games_per_slot(run, kind, warmup, duration, processes=1):
    """Enough games for a slot to play through warm-up and window (bounded: MAX_GAMES); a slot
    that still runs out stops, and the table says so ("out of games"). `processes`: server
    processes sharing the load (bench/scaling.py), each with the capacity and bound of one."""
    if run["kind"] == "idle":
        return 0
    if run["think"]:
        rate = 1 / run["think"]
    else:
        rate = min(ONE_GAME_MOVES_PER_SECOND, SATURATION_CAPACITY[kind] * processes / run["games"])
    wanted = math.ceil((warmup + duration + 1) * rate / SHORTEST_GAME) + 1
    return max(1, min(wanted, MAX_GAMES[kind] * processes // run["games"]))


# -- processes --------------------------------------------------------------------------------

def die_with_parent():
    """In the child before exec: SIGTERM when the bench dies, however it dies."""
    try:
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    except OSError:
        pass


def free_port():
    import socket
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Server:
    """One Daphne process, pinned to `core` when given."""

    def __init__(self, app, env, cwd, log_path, core):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        argv = [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(self.port), app]
        if core is not None and shutil.which("taskset"):
            argv = ["taskset", "-c", str(core)] + argv   # taskset execs: same pid
        self.log_path = log_path
        with open(log_path, "ab") as log:
            self.process = subprocess.Popen(argv, cwd=cwd, env=env, stdout=log,
                                            stderr=subprocess.STDOUT, preexec_fn=die_with_parent)
        LIVE_SERVERS.append(self)

    def wait_until_up(self, timeout=90):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"daphne exited with {self.process.returncode}:\n{self.log()}")
            try:
                with urllib.request.urlopen(self.url + "/", timeout=2) as response:
                    if response.status == 200:
                        return self
            except urllib.error.HTTPError as error:
                raise RuntimeError(f"{self.url}/ answers {error.code}:\n{self.log()}")
            except (urllib.error.URLError, OSError):
                pass
            time.sleep(0.2)
        raise RuntimeError(f"daphne did not answer on {self.url} within {timeout} s:\n{self.log()}")

    def log(self):
        return Path(self.log_path).read_text(errors="replace")[-3000:]

    def cpu_seconds(self):
        return process_cpu_seconds(self.process.pid)

    def rss_bytes(self):
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
        return 0

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self in LIVE_SERVERS:
            LIVE_SERVERS.remove(self)


LIVE_SERVERS = []        # every process started and not yet stopped: stopped on any exit


# A fixed piece of pure Python, timed on the servers' core before and after each backend: the
# host of a virtual machine runs faster or slower from hour to hour, and this says how fast it
# ran while the table was made (absolute figures of two runs compare only at the same speed;
# the Tessera/echo ratios compare anyway).
SPEED_PROBE = ("import time\nt = time.process_time()\ns = 0\n"
               "for i in range(5_000_000):\n    s += i\nprint(time.process_time() - t)")


def speed_probe(core):
    """CPU seconds the probe took on `core` (the servers' core)."""
    argv = [sys.executable, "-c", SPEED_PROBE]
    if core is not None and shutil.which("taskset"):
        argv = ["taskset", "-c", str(core)] + argv
    return float(subprocess.run(argv, capture_output=True, text=True, check=True).stdout)


def sampler(servers, log_marks=None):
    """(cpu seconds, rss bytes) summed over the servers; each call also appends the servers'
    log sizes to `log_marks` (the window's edges in their logs)."""
    def sample():
        if log_marks is not None:
            log_marks.append([Path(s.log_path).stat().st_size for s in servers])
        return (sum(s.cpu_seconds() for s in servers), sum(s.rss_bytes() for s in servers))
    return sample


PERIODIC_LINE = re.compile(
    r"periodic (\S+) held the event loop ([\d.]+) ms \(longest step ([\d.]+) ms, (\d+) steps\), "
    r"database ([\d.]+) ms, ([\d.]+) ms in all")


def periodic_runs(servers, marks):
    """{work: {"held": [...], "longest": [...], "database": [...], "took": [...]}} (ms) of the
    live.periodic lines the servers logged between the first two `marks`."""
    works = {}
    if len(marks) < 2:
        return works
    for index, server in enumerate(servers):
        with open(server.log_path, "rb") as log:
            log.seek(marks[0][index])
            text = log.read(marks[1][index] - marks[0][index]).decode(errors="replace")
        for m in PERIODIC_LINE.finditer(text):
            runs = works.setdefault(m[1], {"held": [], "longest": [], "database": [], "took": []})
            for key, value in zip(("held", "longest", "steps", "database", "took"), m.groups()[1:]):
                if key != "steps":
                    runs[key].append(float(value) / 1000)  # percentiles() takes seconds
    return {work: {key: loadgen.percentiles(values) for key, values in runs.items()}
            for work, runs in works.items()}


# -- backends ---------------------------------------------------------------------------------

class Backend:
    """A database (and Redis) for one backend, and the environment of its server processes."""

    def __init__(self, name, site, scratch, base=None, template=None):
        self.name, self.site, self.scratch, self.base = name, site, scratch, base
        self.processes = 2 if name == "pg2" else 1
        self.token = secrets.token_hex(4)
        self.database = None
        self.redis_prefixes = []
        if name == "sqlite":
            # A file of its own: arena_load makes a backend per repeat in one scratch folder,
            # and a shared file left the first repeat's arena running (its waves and its
            # games' ends) under the second repeat's run "without" an arena.
            self.database_url = f"sqlite:///{scratch / f'{name}-{self.token}.sqlite3'}"
            self.redis_url = ""
        else:
            self.database = f"bench_{self.token}"
            self.database_url = os.environ["DATABASE_URL"].rsplit("/", 1)[0] + "/" + self.database
            self.redis_url = os.environ["REDIS_URL"]
            # A copy of an already migrated database (bench/scaling.py): a file copy, where
            # migrating takes many seconds.
            self.admin("CREATE DATABASE", f' TEMPLATE "{template}"' if template else "")

    def admin(self, statement, clause=""):
        import dj_database_url
        import psycopg
        config = dj_database_url.parse(os.environ["DATABASE_URL"])
        with psycopg.connect(dbname="postgres", user=config["USER"] or None,
                             password=config["PASSWORD"] or None, host=config["HOST"] or None,
                             port=config["PORT"] or None, autocommit=True) as connection:
            suffix = " WITH (FORCE)" if statement.startswith("DROP") else ""
            connection.execute(f'{statement} "{self.database}"{clause}{suffix}')

    def site_of(self, kind):
        """The checkout whose code serves (and sets up) `kind`: `base` is --base's."""
        return self.base if kind == "base" else self.site

    def env(self, kind, run_label):
        """Environment of a server (or the setup script) of this backend."""
        # LIVE_* settings pass through (e.g. LIVE_DB_WRITERS=8 to compare), but the caps below.
        env = {k: v for k, v in os.environ.items()
               if k not in {"DATABASE_URL", "REDIS_URL", "REDIS_PREFIX", "DEBUG"}}
        paths = [str(HERE)] if kind == "echo" else []
        env.update(
            SECRET_KEY=BENCH_SECRET_KEY, ALLOWED_HOSTS="127.0.0.1",
            DATABASE_URL=self.database_url, PYTHONUNBUFFERED="1",
            # The bench's own PYTHONPATH after the site's: where the packages are when they are
            # not in the interpreter's site-packages (bench/scaling_device.sh's kit).
            PYTHONPATH=os.pathsep.join(paths + [str(self.site_of(kind) / "site"), str(self.site_of(kind))]
                                       + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]),
            # The periodic work's own cost, one line a run (live.periodic).
            LOG_LEVEL="INFO",
            # The load comes from one address and is meant to be carried, not refused.
            LIVE_SOCKETS_PER_ADDRESS="100000", LIVE_SOCKETS_PER_USER="1000",
            LIVE_RATE_BURST="100000", LIVE_RATE_PER_SECOND="100000", LIVE_FLOOD_CLOSE="100000",
            LIVE_SNAPSHOT_BURST="1000000", LIVE_SNAPSHOT_PER_SECOND="1000000",
        )
        if self.redis_url:
            prefix = f"bench-{self.token}-{run_label}"
            self.redis_prefixes.append(prefix)
            env.update(REDIS_URL=self.redis_url, REDIS_PREFIX=prefix)
        return env

    def migrate(self):
        subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v0"], cwd=self.site,
                       env=self.env("tessera", "migrate"), check=True, timeout=600)

    def cleanup(self):
        if self.database:
            try:
                self.admin("DROP DATABASE IF EXISTS")
            except Exception as error:
                print(f"could not drop database {self.database}: {error}", file=sys.stderr)
        if self.redis_prefixes:
            try:
                import redis
                client = redis.Redis.from_url(self.redis_url)
                for prefix in self.redis_prefixes:
                    for key in client.scan_iter(match=f"{prefix}*", count=1000):
                        client.delete(key)
                client.close()
            except Exception as error:
                print(f"could not clean Redis keys: {error}", file=sys.stderr)


BENCH_SECRET_KEY = "live-load-bench-" + secrets.token_urlsafe(48)


# -- one measurement --------------------------------------------------------------------------

class Bench:
    def __init__(self, args, cores):
        self.args = args
        self.server_core, self.loadgen_core = cores
        self.room_numbers = iter(range(1, 10 ** 9))   # echo rooms, never reused in a process
        self.moves = loadgen.hadron_games(512, seed=2024)
        self.moves_used = 0

    def next_moves(self):
        self.moves_used += 1
        return self.moves[self.moves_used % len(self.moves)]

    def start_servers(self, backend, kind, label):
        """Fresh processes for each measurement: nothing cached from the previous run."""
        env = backend.env(kind, label)
        app = "echo_room:application" if kind == "echo" else "tessera.asgi:application"
        servers = [Server(app, env, backend.site_of(kind), backend.scratch / f"{label}-{kind}-{i}.log",
                          self.server_core) for i in range(backend.processes)]
        for server in servers:
            server.wait_until_up()
        return servers

    def tessera_setup(self, backend, run, label, per_slot, kind="tessera"):
        """Users, sessions and games in the backend's database, before its servers start."""
        plan = {"prefix": f"b{label}{'b' if kind == 'base' else ''}", "slots": run["games"] if run["kind"] != "idle" else 0,
                "games_per_slot": per_slot,
                "spectator_games": run["games"] if run["kind"] == "idle" else 1}
        plan_path = backend.scratch / f"{label}-{kind}-plan.json"
        result_path = backend.scratch / f"{label}-{kind}-games.json"
        plan_path.write_text(json.dumps(plan))
        subprocess.run([sys.executable, str(HERE / "tessera_setup.py"), str(plan_path), str(result_path)],
                       cwd=backend.site_of(kind), env=backend.env(kind, label + "-setup"), check=True,
                       timeout=900)
        return json.loads(result_path.read_text())

    def measure(self, backend, run, kind, label):
        per_slot = games_per_slot(run, kind, self.args.warmup, self.args.duration)
        if kind != "echo":
            made = self.tessera_setup(backend, run, label, per_slot, kind)
            slots = [loadgen.Slot(rooms=s["games"], moves=[self.next_moves() for _ in s["games"]],
                                  sessions=tuple(s["sessions"])) for s in made["slots"]]
            spare_rooms = made["spectator_games"]
        else:
            slots = []
            for _ in range(run["games"] if run["kind"] != "idle" else 0):
                rooms = [next(self.room_numbers) for _ in range(per_slot)]
                slots.append(loadgen.Slot(rooms=rooms, moves=[self.next_moves() for _ in rooms]))
            spare_rooms = [next(self.room_numbers) for _ in range(run["games"] if run["kind"] == "idle" else 1)]

        servers = self.start_servers(backend, kind, label)
        try:
            target = loadgen.Target(kind, [s.url for s in servers])
            marks = []
            sample = sampler(servers, marks)
            if run["kind"] == "idle":
                idle = asyncio.run(loadgen.open_idle(target, spare_rooms, 4, sample))
                return {"sockets": idle["sockets"],
                        "kb_per_socket": idle["rss_delta"] / 1024 / max(1, idle["sockets"]),
                        "cpu_ms_per_handshake": idle["cpu_s"] * 1000 / max(1, idle["sockets"]),
                        "rss_mb": idle["server_rss"] / 2 ** 20, "errors": dict(idle["errors"])}
            stats, measured = asyncio.run(loadgen.run_load(
                target, slots, run["think"], self.args.warmup, self.args.duration, sample,
                probe_room=spare_rooms[0] if run["kind"] == "saturation" else None))
            offered = run["games"] / run["think"] if run["think"] else None
            figures = loadgen.summary(stats, measured, offered, self.args.duration)
            figures["periodic"] = periodic_runs(servers, marks)
            return figures
        finally:
            for server in servers:
                server.stop()


# -- the table --------------------------------------------------------------------------------

def latency_text(figures):
    if not figures:
        return "-"
    return "/".join(f"{figures[k]:.0f}" if figures[k] >= 10 else f"{figures[k]:.1f}"
                    for k in ("p50", "p90", "p99", "max"))


def ratio(tessera, echo):
    return f"{tessera / echo:.2f}" if tessera and echo else "-"


MOVE_HEADER = (f"{'backend':7} {'run':8} {'server':7} {'offered':>7} {'carried':>7}  "
               f"{'mover p50/p90/p99/max ms':>25} {'opponent':>22} {'spectators':>22}  "
               f"{'cpu ms/mv':>9} {'rss MB':>6} {'T/E cpu':>7} {'T/E mv/s':>8} {'gen cpu':>7} errors")


def move_row(backend, run, kind, r, echo):
    offered = f"{r['offered']:.0f}" if r.get("offered") else "max"
    cpu = f"{r['cpu_ms_per_move']:.2f}" if r.get("cpu_ms_per_move") else "-"
    cpu_ratio = ratio(r.get("cpu_ms_per_move"), echo.get("cpu_ms_per_move")) if kind != "echo" and echo else ""
    carried_ratio = ratio(r.get("carried"), echo.get("carried")) if kind != "echo" and echo else ""
    trouble = sum(r["errors"].values()) if r["errors"] else 0
    notes = [f"{trouble} {r['errors']}" if trouble else "0"]
    if r.get("stuck"):
        notes.append(f"stuck {r['stuck']:.0f}")
    if r.get("exhausted"):
        notes.append(f"out of games {r['exhausted']:.0f}")
    lat = r["latency"]
    return (f"{backend:7} {run:8} {kind:7} {offered:>7} {r['carried']:7.1f}  "
            f"{latency_text(lat['mover']):>25} {latency_text(lat['opponent']):>22} "
            f"{latency_text(lat['spectator']):>22}  {cpu:>9} {r['rss_mb']:6.0f} {cpu_ratio:>7} "
            f"{carried_ratio:>8} {r['loadgen_cpu'] * 100:6.0f}% {' '.join(notes)}")


def print_results(results):
    moves = [r for r in results if "carried" in r["figures"]]
    if moves:
        print("\nLatency: send -> matching broadcast at each socket, ms (p50/p90/p99/max). "
              "CPU: server processes' utime+stime in the window / moves carried. "
              "T/E: Tessera / echo. gen cpu: the load generator's own CPU share (100% = its core is full).")
        print(MOVE_HEADER)
        for r in moves:
            echo = next((e["figures"] for e in results if e["backend"] == r["backend"]
                         and e["run"] == r["run"] and e["server"] == "echo"), None) or {}
            print(move_row(r["backend"], r["run"], r["server"], r["figures"], echo))
    paired = [r for r in moves if r["server"] != "echo" and r["figures"].get("each")]
    if paired:
        print("\nEach repeat against the echo room's of the same repeat (they took turns): "
              "moves/s T/E, CPU per move T/E")
        for r in paired:
            echo = next((e["figures"] for e in results if e["backend"] == r["backend"]
                         and e["run"] == r["run"] and e["server"] == "echo"), {})
            cells = [f"{ratio(t['carried'], e['carried'])}/{ratio(t['cpu_ms_per_move'], e['cpu_ms_per_move'])}"
                     for t, e in zip(r["figures"]["each"], echo.get("each", []))]
            print(f"  {r['backend']:7} {r['run']:8} {r['server']:7} {'  '.join(cells)}")
    periodic = [r for r in results if r["figures"].get("periodic")]
    if periodic:
        print("\nPeriodic work in the window (live.periodic), per run, ms p99/max: the event loop "
              "held in all, its longest step; database threads; start to end")
        for r in periodic:
            for work, f in sorted(r["figures"]["periodic"].items()):
                cells = "   ".join(f"{name} {f[key]['p99']:.2f}/{f[key]['max']:.2f}"
                                   for name, key in (("held", "held"), ("step", "longest"),
                                                     ("db", "database"), ("took", "took")))
                print(f"  {r['backend']:7} {r['run']:8} {r['server']:7} {work:38} "
                      f"{f['held']['n']:3} runs   {cells}")
    probes = [r for r in results if r["figures"].get("probes") and any(r["figures"]["probes"].values())]
    if probes:
        print("\nProbe during saturation, round trips in ms (p50/p99/max), every ~100 ms:")
        for r in probes:
            p = r["figures"]["probes"]
            text = "   ".join(f"{kind} {'/'.join(f'{p[kind][k]:.1f}' for k in ('p50', 'p99', 'max'))}"
                               if p.get(kind) else f"{kind} -" for kind in ("ping", "snapshot"))
            print(f"  {r['backend']:7} {r['run']:8} {r['server']:7} {text}")
    idle = [r for r in results if "kb_per_socket" in r["figures"]]
    if idle:
        print("\nIdle sockets (spectators, 4 a game): RSS delta per socket, server CPU per handshake:")
        for r in idle:
            f = r["figures"]
            errors = sum(f["errors"].values())
            print(f"  {r['backend']:7} {r['run']:8} {r['server']:7} {f['sockets']:5.0f} open  "
                  f"{f['kb_per_socket']:6.1f} kB/socket  {f['cpu_ms_per_handshake']:6.2f} ms CPU/handshake  "
                  f"rss {f['rss_mb']:.0f} MB  errors {errors}")


# -- main -------------------------------------------------------------------------------------

def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", "--loads", default=DEFAULT_RUNS, help=f"comma-separated (default {DEFAULT_RUNS})")
    parser.add_argument("--backends", default=None,
                        help="sqlite,pg1,pg2 (default: sqlite, and pg1,pg2 with DATABASE_URL and REDIS_URL)")
    parser.add_argument("--duration", type=float, default=10, help="measured seconds per run (10)")
    parser.add_argument("--warmup", type=float, default=3, help="seconds before measuring (3)")
    parser.add_argument("--repeat", type=int, default=1, help="repeat each run N times, print medians")
    parser.add_argument("--site", type=Path, default=ROOT, help="checkout whose servers run (default: this one)")
    parser.add_argument("--base", type=Path, default=None,
                        help="another checkout measured too, between the echo room and --site "
                             "(its rows: server 'base'), e.g. the issue's base commit")
    parser.add_argument("--json", type=Path, help="also write the results to this file")
    parser.add_argument("--keep", action="store_true",
                        help="keep the scratch folder (servers' logs, plans) and say where it is")
    parser.add_argument("--smoke", action="store_true",
                        help="a tiny shape for the smoke test: --runs 2x1,sat2,idle8 --duration 2 --warmup 1, sqlite")
    args = parser.parse_args(argv)
    if args.smoke:
        # The smoke shape, unless runs were named.
        args.runs = "2x1,sat2,idle8" if args.runs == DEFAULT_RUNS else args.runs
        args.duration, args.warmup, args.backends = 2, 1, args.backends or "sqlite"
    with_pg = (os.environ.get("DATABASE_URL", "").startswith(("postgres://", "postgresql://"))
               and os.environ.get("REDIS_URL"))
    if args.backends is None:
        args.backends = "sqlite,pg1,pg2" if with_pg else "sqlite"
    args.backends = args.backends.split(",")
    for name in args.backends:
        if name not in ("sqlite", "pg1", "pg2"):
            raise SystemExit(f"unknown backend {name!r}")
        if name != "sqlite" and not with_pg:
            raise SystemExit(f"{name} needs DATABASE_URL (postgres://...) and REDIS_URL")
    args.runs = [parse_run(name) for name in args.runs.split(",")]
    args.site = args.site.resolve()
    args.base = args.base.resolve() if args.base else None
    return args


def pin_cores():
    """(server core, load generator core): the first two allowed cores, or (None, None) with
    only one (then nothing is pinned)."""
    allowed = sorted(os.sched_getaffinity(0))
    if len(allowed) < 2:
        return None, None
    os.sched_setaffinity(0, {allowed[1]})
    return allowed[0], allowed[1]


def terminate_on_signal(signum, frame):
    raise KeyboardInterrupt   # through every finally: servers stopped, databases dropped


def main(argv=None):
    args = parse_args(argv)
    signal.signal(signal.SIGTERM, terminate_on_signal)
    cores = pin_cores()
    scratch = Path(tempfile.mkdtemp(prefix="tessera-live-load-"))
    bench = Bench(args, cores)
    results, backends, speeds = [], [], []
    print(f"site {args.site}" + (f", base {args.base}" if args.base else "") + f"; warm-up {args.warmup:g} s, measured {args.duration:g} s, "
          f"repeat {args.repeat}; " + (f"servers on core {cores[0]}, load generator on core {cores[1]}"
                                       if cores[0] is not None else "one core: nothing pinned"), flush=True)
    if "pg2" in args.backends and cores[0] is not None:
        print(f"pg2: both server processes share core {cores[0]} (one core for the servers, "
              f"one for the load generator)", flush=True)
    try:
        for backend_name in args.backends:
            backend = Backend(backend_name, args.site, scratch, args.base)
            backends.append(backend)
            backend.migrate()
            speeds.append(speed_probe(cores[0]))
            for run in args.runs:
                kinds = ("echo", "base", "tessera") if args.base else ("echo", "tessera")
                repeats = {kind: [] for kind in kinds}
                # The servers take turns, repeat by repeat: a slow spell of the host falls on
                # all of them, not on the repeats of one.
                for attempt in range(args.repeat):
                    for kind in kinds:
                        label = f"{run['name']}-{attempt}"
                        started = time.monotonic()
                        try:
                            repeats[kind].append(bench.measure(backend, run, kind, label))
                        except Exception as error:
                            # One measurement that could not even connect (a handshake given
                            # up on a loaded machine) must not lose the others' figures.
                            print(f"  {backend_name} {run['name']} {kind} #{attempt + 1} failed: "
                                  f"{type(error).__name__}: {error}", file=sys.stderr, flush=True)
                            continue
                        print(f"  {backend_name} {run['name']} {kind} #{attempt + 1}: "
                              f"{time.monotonic() - started:.0f} s", file=sys.stderr, flush=True)
                for kind in kinds:
                    if not repeats[kind]:
                        continue
                    figures = loadgen.median_summary(repeats[kind])
                    if args.repeat > 1:
                        figures["each"] = [{"carried": r.get("carried"),
                                            "cpu_ms_per_move": r.get("cpu_ms_per_move")}
                                           for r in repeats[kind]]
                    results.append({"backend": backend_name, "run": run["name"], "server": kind,
                                    "processes": backend.processes, "figures": figures})
                    if args.json:   # as it goes: what was measured survives a later failure
                        args.json.write_text(json.dumps(results, indent=1))
            speeds.append(speed_probe(cores[0]))
        print_results(results)
        print(f"\nMachine speed: a 5-million-step Python loop took {min(speeds) * 1000:.0f}-"
              f"{max(speeds) * 1000:.0f} ms of CPU on the servers' core, before and after each "
              f"backend (lower is faster)")
        if args.json:
            args.json.write_text(json.dumps(results, indent=1))
        return results
    finally:
        tear_down(backends, scratch, args.keep)


def tear_down(backends, scratch, keep):
    """Stop every server still running, drop the backends' scratch databases, and remove the
    servers' logs unless `keep`."""
    for server in list(LIVE_SERVERS):
        server.stop()
    for backend in backends:
        backend.cleanup()
    if keep:
        print(f"servers' logs kept in {scratch}", file=sys.stderr)
    else:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        sys.exit(130)
