"""Scaling: the live-load benchmark with 1, 2, 4 and 8 Daphne processes on one PostgreSQL and
one Redis, each process on a core of its own; what each part costs a move and which part
saturates first.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres REDIS_URL=redis://127.0.0.1:6379/6 \\
        python bench/scaling.py --processes 1,2,4,8 --postgres-pid PID --redis-pid PID --json out.json
    bash bench/scaling_device.sh          # on a bare machine, with the kit of bench/scaling_kit.sh

For each number N of processes: a fresh database (a copy of one migrated once), N Daphne
processes on the same database and Redis prefix, and two runs of bench/live_load.py's shapes
scaled by N (a game = 2 players + 2 spectators, one websocket each, Hadron 7x7):

  paced   `--paced` games per process, each moving once every T seconds (500x5: live_load's
          500x5 on every process): the latency at a load every process carries
  sat     `--sat` games per process with no think time (live_load's sat100 on every process):
          the moves per second the N processes carry at most

A game's two players are on different processes (its slot's pair: process i and i+1, live
load's pg2), its spectators on both; with N = 1 all four on the one. The load comes from one
load generator process per `--per-loadgen` server processes (3) (bench/loadgen.py in each, sharing
one measured window), so that the clients are never what saturates.

Cores (when there are enough: N_max + load generators + 2): server process i on core i, the
load generators on the next cores, Redis on the last core, PostgreSQL (the processes given by
--postgres-pid and --redis-pid, re-pinned here with all their threads) on the cores between;
with fewer cores nothing is pinned and the table says so.

CPU in the measured window, from /proc: each server process's, PostgreSQL's (the postmaster,
its live children, and what its exited children left it), Redis's, each load generator's. A
part is busy at its CPU over (window x its cores); the busiest is named in the table, and a part
above 90% is saturated. Phase times (set-up, start, connect, runs) are printed and written to
the JSON so that a run can be budgeted.
"""
import argparse
import asyncio
import json
import math
import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path[:0] = [str(HERE), str(ROOT)]

import live_load  # noqa: E402
import loadgen  # noqa: E402

SATURATED = 0.9          # a part busier than this (of its cores) is saturated
CONNECT_TIMEOUT = 240    # seconds for a load generator to open its first games' sockets
TICKS = os.sysconf("SC_CLK_TCK")


# -- CPU of processes ------------------------------------------------------------------------

def stat_fields(pid):
    """/proc/<pid>/stat's fields after the command name (field 3 first)."""
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()


def children(pid):
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if int(stat_fields(entry.name)[1]) == pid:
                    found.append(int(entry.name))
            except (OSError, IndexError, ValueError):
                pass
    return found


def tree_cpu_seconds(pid):
    """CPU of a process and its children, living or exited: PostgreSQL's postmaster forks a
    backend per connection, and a backend that exits in the window leaves its time to the
    postmaster's cutime/cstime (fields 16 and 17)."""
    fields = stat_fields(pid)
    total = sum(int(f) for f in fields[11:15])
    for child in children(pid):
        try:
            total += sum(int(f) for f in stat_fields(child)[11:15])
        except OSError:
            pass   # exited between the listing and the read: counted in the cutime next time
    return total / TICKS


def pin_tree(pid, cores):
    """Every thread of `pid` and of its children on `cores` (their future children inherit)."""
    for process in [pid] + children(pid):
        for task in Path(f"/proc/{process}/task").iterdir():
            try:
                os.sched_setaffinity(int(task.name), cores)
            except OSError:
                pass


# -- cores -----------------------------------------------------------------------------------

def sibling_rank(cpu):
    """0 for the first hardware thread of a physical core, 1 for its second (SMT), ..."""
    try:
        text = Path(f"/sys/devices/system/cpu/cpu{cpu}/topology/thread_siblings_list").read_text().strip()
    except OSError:
        return 0
    siblings = []
    for part in text.split(","):
        first, _, last = part.partition("-")
        siblings += range(int(first), int(last or first) + 1)
    return sorted(siblings).index(cpu) if cpu in siblings else 0


def machine():
    """The CPU model, logical CPUs allowed, and hardware threads a physical core."""
    model = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                  if line.startswith("model name")), "?")
    allowed = sorted(os.sched_getaffinity(0))
    return {"model": model, "cpus": len(allowed),
            "threads_per_core": max(sibling_rank(cpu) for cpu in allowed) + 1}


def layout(most_processes, per_loadgen):
    """{"servers": [...], "loadgens": [...], "postgres": [...], "redis": [...]} cores, or None
    where there are too few to give each its own. With SMT, first threads first: the servers
    then get physical cores of their own as long as there are enough."""
    allowed = sorted(os.sched_getaffinity(0), key=lambda cpu: (sibling_rank(cpu), cpu))
    loadgens = math.ceil(most_processes / per_loadgen)
    if len(allowed) < most_processes + loadgens + 2:
        return None
    return {"servers": allowed[:most_processes],
            "loadgens": allowed[most_processes:most_processes + loadgens],
            "postgres": allowed[most_processes + loadgens:-1], "redis": allowed[-1:]}


def taskset(core, argv):
    return ["taskset", "-c", str(core)] + argv if core is not None and shutil.which("taskset") else argv


# -- set-up ----------------------------------------------------------------------------------

def set_up_games(backend, jobs, chunks, cores):
    """bench/tessera_setup.py in `chunks` processes a job, all at once (each its own users).
    `jobs`: {label: (slots, games per slot, spectator games)}; returns {label: (slots'
    sessions and games, spectator games)}."""
    # Without REDIS_URL: the games' start news reach no one either way (no server is up yet),
    # and the in-process channel layer spares the ~25 ms a game of a publish through Redis.
    env = {k: v for k, v in backend.env("tessera", "setup").items() if k not in ("REDIS_URL", "REDIS_PREFIX")}
    env["LOG_LEVEL"] = "WARNING"
    pending = []
    for label, (slots, per_slot, spectator_games) in jobs.items():
        for i in range(chunks):
            size = len(range(i, slots, chunks))
            if size == 0 and (i or not spectator_games):
                continue
            plan = {"prefix": f"{label}c{i}", "slots": size, "games_per_slot": per_slot,
                    "spectator_games": spectator_games if i == 0 else 0}
            plan_path = backend.scratch / f"{label}-plan-{i}.json"
            result_path = backend.scratch / f"{label}-games-{i}.json"
            plan_path.write_text(json.dumps(plan))
            core = cores[len(pending) % len(cores)] if cores else None
            pending.append((label, result_path, subprocess.Popen(
                taskset(core, [sys.executable, str(HERE / "tessera_setup.py"), str(plan_path), str(result_path)]),
                cwd=backend.site, env=env, preexec_fn=live_load.die_with_parent)))
    made = {label: ([], []) for label in jobs}
    for label, result_path, process in pending:
        if process.wait(timeout=900) != 0:
            raise RuntimeError(f"tessera_setup.py exited with {process.returncode}")
        result = json.loads(result_path.read_text())
        made[label][0].extend(result["slots"])
        made[label][1].extend(result["spectator_games"])
    return made


# -- one run: load generator processes sharing a window ---------------------------------------

class Parts:
    """The processes whose CPU is measured: servers, PostgreSQL, Redis."""

    def __init__(self, servers, postgres_pid, redis_pid):
        self.servers, self.postgres_pid, self.redis_pid = servers, postgres_pid, redis_pid

    def sample(self):
        return {"servers": [s.cpu_seconds() for s in self.servers],
                "rss": sum(s.rss_bytes() for s in self.servers),
                "postgres": tree_cpu_seconds(self.postgres_pid) if self.postgres_pid else None,
                "redis": tree_cpu_seconds(self.redis_pid) if self.redis_pid else None}


def run_once(args, parts, urls, slots, think, probe_room, cores, scratch, label):
    """Spread `slots` over the load generator processes, open their games, play one window;
    returns loadgen.summary's figures with each part's CPU added."""
    count = min(len(slots), math.ceil(len(urls) / args.per_loadgen)) or 1
    workers = []
    for i in range(count):
        config = {"servers": urls, "think": think, "warmup": args.warmup, "duration": args.duration,
                  "probe_room": probe_room if i == 0 else None,
                  "slots": [vars(s) for s in slots[i::count]],
                  "result": str(scratch / f"{label}-loadgen-{i}.json")}
        path = scratch / f"{label}-loadgen-{i}-config.json"
        path.write_text(json.dumps(config))
        core = cores["loadgens"][i % len(cores["loadgens"])] if cores else None
        workers.append(subprocess.Popen(taskset(core, [sys.executable, str(Path(__file__).resolve()),
                                                       "--worker", str(path)]),
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                        preexec_fn=live_load.die_with_parent))
    try:
        started = time.perf_counter()
        for worker in workers:     # each says "connected" once its first games' sockets are in
            line = worker.stdout.readline()
            if line.strip() != "connected":
                raise RuntimeError(f"a load generator did not connect (exit {worker.poll()})")
        connect_s = time.perf_counter() - started
        go = time.perf_counter() + 0.2
        for worker in workers:
            worker.stdin.write(f"{go!r}\n")
            worker.stdin.flush()
        time.sleep(max(0.0, go + args.warmup - time.perf_counter()))
        before = parts.sample()
        time.sleep(max(0.0, go + args.warmup + args.duration - time.perf_counter()))
        after = parts.sample()
        for worker in workers:
            worker.wait(timeout=loadgen.BROADCAST_TIMEOUT + 60)
    finally:
        for worker in workers:
            if worker.poll() is None:
                worker.kill()
                worker.wait()
    stats, loadgen_shares = loadgen.Stats(), []
    for i in range(count):
        result = json.loads((scratch / f"{label}-loadgen-{i}.json").read_text())
        for role in loadgen.ROLES:
            stats.latencies[role] += result["latencies"][role]
        for kind in stats.probes:
            stats.probes[kind] += result["probes"][kind]
        stats.carried += result["carried"]
        stats.sent += result["sent"]
        stats.stuck += result["stuck"]
        stats.exhausted += result["exhausted"]
        stats.errors.update(result["errors"])
        loadgen_shares.append(result["loadgen_cpu_share"])
    window = args.duration
    server_cpu = [b - a for a, b in zip(before["servers"], after["servers"])]
    measured = {"server_cpu_s": sum(server_cpu), "server_rss": after["rss"],
                "loadgen_cpu_share": max(loadgen_shares)}
    figures = loadgen.summary(stats, measured, len(slots) / think if think else None, window)
    moves = stats.carried or None
    figures.update(
        connect_s=connect_s, loadgens=count, loadgen_shares=loadgen_shares,
        server_shares=[c / window for c in server_cpu],
        postgres_cpu_s=(after["postgres"] - before["postgres"]) if parts.postgres_pid else None,
        redis_cpu_s=(after["redis"] - before["redis"]) if parts.redis_pid else None)
    for part in ("postgres", "redis"):
        cpu = figures[f"{part}_cpu_s"]
        figures[f"{part}_ms_per_move"] = cpu * 1000 / moves if cpu is not None and moves else None
    return figures


def worker(config_path):
    """One load generator process: its slots, the window the parent sends on stdin."""
    config = json.loads(Path(config_path).read_text())
    slots = [loadgen.Slot(rooms=s["rooms"], moves=s["moves"], sessions=tuple(s["sessions"]),
                          servers=s["servers"]) for s in config["slots"]]

    async def start():
        print("connected", flush=True)
        line = await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
        return float(line)

    load = loadgen.run_load(
        loadgen.Target("tessera", config["servers"]), slots, config["think"], config["warmup"],
        config["duration"], lambda: (0.0, 0), probe_room=config["probe_room"], start=start)
    if os.environ.get("SCALING_PROFILE"):   # where a load generator's CPU goes: a cProfile dump
        import cProfile
        profile = cProfile.Profile()
        stats, measured = profile.runcall(asyncio.run, load)
        profile.dump_stats(config["result"] + ".prof")
    else:
        stats, measured = asyncio.run(load)
    Path(config["result"]).write_text(json.dumps({
        "latencies": stats.latencies, "probes": stats.probes, "carried": stats.carried,
        "sent": stats.sent, "stuck": stats.stuck, "exhausted": stats.exhausted,
        "errors": dict(stats.errors), "loadgen_cpu_share": measured["loadgen_cpu_share"]}))


# -- one N -----------------------------------------------------------------------------------

def slots_of(made, moves, urls):
    """loadgen slots from tessera_setup's; slot i's players on processes i and i + 1."""
    n = len(urls)
    return [loadgen.Slot(rooms=s["games"], moves=[moves() for _ in s["games"]],
                         sessions=tuple(s["sessions"]), servers=[urls[i % n], urls[(i + 1) % n]])
            for i, s in enumerate(made)]


def measure_processes(args, n, template, scratch, cores, all_moves, phases, result, saved, late):
    """Both runs with `n` processes, into `result` as they end (`saved()` after each); the
    paced run is left out when `late()` (past --deadline)."""
    backend = live_load.Backend("pg1", args.site, scratch, template=template)
    counter = iter(range(10 ** 9))

    def moves():
        return all_moves[next(counter) % len(all_moves)]
    servers = []
    try:
        paced = {"kind": "paced", "games": args.paced_games * n, "think": args.paced_think}
        sat = {"kind": "saturation", "games": args.sat * n, "think": 0.0}
        started = time.perf_counter()
        setup_cores = cores["servers"] + cores["loadgens"] if cores else None
        jobs = {}
        if sat["games"]:
            jobs[f"n{n}s"] = (sat["games"], live_load.games_per_slot(sat, "tessera", args.warmup, args.duration, n), 1)
        if paced["games"]:
            jobs[f"n{n}p"] = (paced["games"], live_load.games_per_slot(paced, "tessera", args.warmup, args.duration, n), 0)
        made = set_up_games(backend, jobs, args.setup_processes, setup_cores)
        phases[f"n{n} set-up"] = time.perf_counter() - started

        started = time.perf_counter()
        env = backend.env("tessera", f"n{n}")
        servers = [live_load.Server("tessera.asgi:application", env, args.site,
                                    scratch / f"n{n}-server-{i}.log", cores["servers"][i] if cores else None)
                   for i in range(n)]
        for server in servers:
            server.wait_until_up()
        phases[f"n{n} start"] = time.perf_counter() - started
        urls = [s.url for s in servers]
        parts = Parts(servers, args.postgres_pid, args.redis_pid)
        # The saturation run first: the scaling table's own figure, kept when time runs out.
        for name, run in (("sat", sat), ("paced", paced)):
            slots, spare = made.get(f"n{n}{name[0]}", ([], []))
            if not slots:
                continue
            if name == "paced" and late():
                print(f"  N={n} paced: left out, past the deadline", file=sys.stderr, flush=True)
                continue
            started = time.perf_counter()
            result[name] = run_once(args, parts, urls, slots_of(slots, moves, urls), run["think"],
                                    spare[0] if spare else None, cores, scratch, f"n{n}{name}")
            phases[f"n{n} {name}"] = time.perf_counter() - started
            print(f"  N={n} {name}: {result[name]['carried']:.0f} moves/s, "
                  f"{time.perf_counter() - started:.0f} s (connect {result[name]['connect_s']:.1f} s)",
                  file=sys.stderr, flush=True)
            saved()
    finally:
        started = time.perf_counter()
        for server in servers:
            server.stop()
        result["server_log_errors"] = sum(log_errors(server.log_path) for server in servers)
        phases[f"n{n} stop"] = time.perf_counter() - started
        backend.cleanup()


def log_errors(path):
    """ERROR lines in a server's log (not the WARNING lines, some with a traceback, of the
    snapshot budget's Redis pool filled by thousands of handshakes at once: allowed, as designed)."""
    try:
        text = Path(path).read_text(errors="replace")
    except OSError:
        return 0
    return sum(1 for line in text.splitlines() if " ERROR " in line)


# -- the table -------------------------------------------------------------------------------

def busiest(args, r, cores):
    """(part, share of its cores) of the saturation run, busiest first."""
    sat = r.get("sat")
    if not sat:
        return []
    window = args.duration
    shares = [("servers", max(sat["server_shares"])), ("load generators", max(sat["loadgen_shares"]))]
    if sat.get("postgres_cpu_s") is not None:
        shares.append(("postgres", sat["postgres_cpu_s"] / window / (len(cores["postgres"]) if cores else 1)))
    if sat.get("redis_cpu_s") is not None:
        shares.append(("redis", sat["redis_cpu_s"] / window))
    return sorted(shares, key=lambda s: -s[1])


def p99(figures, role):
    lat = figures.get("latency", {}).get(role) if figures else None
    return f"{lat['p99']:.0f}" if lat else "-"


def cell(value, form):
    return form.format(value) if value is not None else "-"


def table(args, results, cores):
    one = next((r["sat"]["carried"] for r in results if r["processes"] == 1 and r.get("sat")), None)
    pg_cores = len(cores["postgres"]) if cores else None
    lines = [
        "| processes | sat moves/s | per process | vs N x one | server CPU ms/move | server cores busy | "
        f"PostgreSQL ms/move (busy of {pg_cores or '?'} cores) | Redis ms/move (busy) | load gen busy (max) | "
        f"paced moves/s | paced p99 mover / opponent / spectator ms | errors | busiest |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in results:
        n, sat, paced = r["processes"], r.get("sat") or {}, r.get("paced") or {}
        window = args.duration
        carried = sat.get("carried")
        pg = sat.get("postgres_cpu_s")
        redis = sat.get("redis_cpu_s")
        shares = sat.get("server_shares") or []
        errors = sum((sat.get("errors") or {}).values()) + sum((paced.get("errors") or {}).values())
        trouble = [f"{errors}"]
        if r.get("server_log_errors"):
            trouble.append(f"server log errors {r['server_log_errors']}")
        for what, key in (("stuck", "stuck"), ("out of games", "exhausted")):
            count = (sat.get(key) or 0) + (paced.get(key) or 0)
            if count:
                trouble.append(f"{what} {count:.0f}")
        top = busiest(args, r, cores)
        verdict = (f"{top[0][0]} {top[0][1] * 100:.0f}%" + (" (saturated)" if top[0][1] >= SATURATED else "")
                   if top else "-")
        lines.append(
            f"| {n} | {cell(carried, '{:.0f}')} | {cell(carried / n if carried else None, '{:.0f}')} | "
            f"{cell(carried / (n * one) if carried and one else None, '{:.2f}')} | "
            f"{cell(sat.get('cpu_ms_per_move'), '{:.2f}')} | "
            f"{(f'{min(shares) * 100:.0f}-{max(shares) * 100:.0f}%' if shares else '-')} | "
            f"{cell(sat.get('postgres_ms_per_move'), '{:.2f}')} "
            f"({cell(pg / window / (pg_cores or 1) * 100 if pg is not None else None, '{:.0f}%')}) | "
            f"{cell(sat.get('redis_ms_per_move'), '{:.2f}')} ({cell(redis / window * 100 if redis is not None else None, '{:.0f}%')}) | "
            f"{cell(max(sat['loadgen_shares']) * 100 if sat.get('loadgen_shares') else None, '{:.0f}%')} | "
            f"{cell(paced.get('carried'), '{:.0f}')} of {cell(paced.get('offered'), '{:.0f}')} | "
            f"{p99(paced, 'mover')} / {p99(paced, 'opponent')} / {p99(paced, 'spectator')} | "
            f"{' '.join(trouble)} | {verdict} |")
    return "\n".join(lines)


# -- main ------------------------------------------------------------------------------------

def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--processes", default="1,2,4,8", help="Daphne processes, comma-separated (1,2,4,8)")
    parser.add_argument("--sat", type=int, default=100, help="saturation games per process (100)")
    parser.add_argument("--paced", default="500x5", help="paced games per process x think seconds (500x5; 0 for none)")
    parser.add_argument("--duration", type=float, default=10, help="measured seconds per run (10)")
    parser.add_argument("--warmup", type=float, default=3, help="seconds before measuring (3)")
    # 3: on 16 cores, 3 load generators and 4 cores for PostgreSQL at N = 8. Measured on 2 cores
    # (bench/scaling_device.sh, N = 1 and 2): per move a server process 4.3-4.6 ms of CPU,
    # PostgreSQL 1.6-1.7, a load generator 0.8, Redis 0.1; so 8 saturated processes ask ~3
    # PostgreSQL cores, and a load generator for 3 of them stays about half busy.
    parser.add_argument("--per-loadgen", type=int, default=3, help="server processes per load generator process (3)")
    parser.add_argument("--setup-processes", type=int, default=6,
                        help="set-up processes a run (6; the two runs' at once, on the servers' and load generators' cores)")
    parser.add_argument("--postgres-pid", type=int, help="PostgreSQL's postmaster: measured, and pinned with --pin-services")
    parser.add_argument("--redis-pid", type=int, help="redis-server: measured, and pinned with --pin-services")
    parser.add_argument("--pin-services", action="store_true",
                        help="move PostgreSQL and Redis (their pids above) to their cores: only for "
                             "servers started for the bench")
    parser.add_argument("--site", type=Path, default=ROOT, help="checkout whose servers run (this one)")
    parser.add_argument("--json", type=Path, help="also write the results to this file")
    parser.add_argument("--keep", action="store_true", help="keep the scratch folder (servers' logs)")
    parser.add_argument("--logs", type=Path, help="copy the servers' logs (their last 100 kB) here")
    parser.add_argument("--deadline", type=float,
                        help="seconds from the start after which no further N (nor paced run) begins")
    parser.add_argument("--worker", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if not args.worker:
        if not (os.environ.get("DATABASE_URL", "").startswith(("postgres://", "postgresql://"))
                and os.environ.get("REDIS_URL")):
            raise SystemExit("bench/scaling.py needs DATABASE_URL (postgres://...) and REDIS_URL")
        args.processes = [int(n) for n in args.processes.split(",")]
        games, _, think = args.paced.partition("x")
        args.paced_games, args.paced_think = int(games), float(think or 0)
        if args.paced_games and not args.paced_think:
            raise SystemExit("--paced GxT: a think time, e.g. 500x5")
        args.site = args.site.resolve()
    return args


def raise_open_files():
    """Thousands of sockets in one process: at least 65,536 open files where allowed (root may
    raise the hard limit), else the hard limit; the children inherit it."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    finite = hard != resource.RLIM_INFINITY
    for limits in ((max(hard, 65536), max(hard, 65536)) if finite else (65536, hard), (hard, hard)):
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, limits)
            break
        except (ValueError, OSError):
            pass
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def main(argv=None):
    args = parse_args(argv)
    if args.worker:
        return worker(args.worker)
    signal.signal(signal.SIGTERM, live_load.terminate_on_signal)
    began = time.perf_counter()
    files = raise_open_files()
    cores = layout(max(args.processes), args.per_loadgen)
    box = machine()
    if cores:
        os.sched_setaffinity(0, set(cores["postgres"]))
        if args.pin_services:
            if args.postgres_pid:
                pin_tree(args.postgres_pid, set(cores["postgres"]))
            if args.redis_pid:
                pin_tree(args.redis_pid, set(cores["redis"]))
        where = (f"servers on cores {cores['servers']}, load generators on {cores['loadgens']}, "
                 f"PostgreSQL on {cores['postgres']}, Redis on {cores['redis']}"
                 + ("" if args.pin_services else " (PostgreSQL and Redis as they were started)"))
    else:
        where = "too few cores to give each part its own: nothing pinned"
    print(f"{box['model']}, {box['cpus']} CPUs, {box['threads_per_core']} thread(s) a core; site {args.site}; "
          f"processes {args.processes}; sat{args.sat} and {args.paced} a process; warm-up {args.warmup:g} s, "
          f"measured {args.duration:g} s; {where}; open files {files}", flush=True)
    scratch = Path(tempfile.mkdtemp(prefix="tessera-scaling-"))
    phases, results, template, speeds = {}, [], None, []

    def saved():
        if args.json:   # as it goes: what was measured survives a later failure or time-out
            args.json.write_text(json.dumps({"results": results, "phases": phases, "cores": cores,
                                             "machine": box, "speeds": speeds,
                                             "args": {k: str(v) for k, v in vars(args).items()}}, indent=1))

    def late():
        return args.deadline is not None and time.perf_counter() - began > args.deadline
    try:
        started = time.perf_counter()
        template = live_load.Backend("pg1", args.site, scratch)
        template.migrate()
        phases["migrate"] = time.perf_counter() - started
        all_moves = loadgen.hadron_games(512, seed=2024)
        speeds.append(live_load.speed_probe(cores["servers"][0] if cores else None))
        for n in args.processes:
            if late():
                print(f"  N={n}: left out, past the deadline", file=sys.stderr, flush=True)
                continue
            results.append({"processes": n})
            measure_processes(args, n, template.database, scratch, cores, all_moves, phases,
                              results[-1], saved, late)
            saved()
            print(table(args, results[-1:], cores).splitlines()[-1], flush=True)
        speeds.append(live_load.speed_probe(cores["servers"][0] if cores else None))
    finally:
        for server in list(live_load.LIVE_SERVERS):
            server.stop()
        if template:
            template.cleanup()
        if args.logs:
            args.logs.mkdir(parents=True, exist_ok=True)
            for log in scratch.glob("*.log"):   # the servers', their last 100 kB
                with open(log, "rb") as source:
                    source.seek(max(0, log.stat().st_size - 100_000))
                    (args.logs / log.name).write_bytes(source.read())
        if args.keep:
            print(f"servers' logs kept in {scratch}", file=sys.stderr)
        else:
            shutil.rmtree(scratch, ignore_errors=True)
        phases["all"] = time.perf_counter() - began
        saved()
        # Also after an interruption (a time-out's SIGTERM): the table of what was measured.
        print("\n" + table(args, results, cores))
        print(f"\nsat: {args.sat} games a process, no think time; paced: {args.paced} a process (games x "
              f"seconds between a game's moves). Latency: a move's send to its broadcast at each socket, "
              f"ms. CPU in the {args.duration:g} s window of the sat run; busy: CPU / (window x the "
              f"part's cores), one core a server process, one for Redis. Machine speed: a "
              f"5-million-step Python loop took "
              + (f"{min(speeds) * 1000:.0f}-{max(speeds) * 1000:.0f} ms" if speeds else "-")
              + " on a server core.")
        print("Phases (s): " + ", ".join(f"{k} {v:.1f}" for k, v in phases.items()), flush=True)
    return results


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        sys.exit(130)
