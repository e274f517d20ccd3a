"""Reconnect storm: thousands of sockets dropped at once and coming back (as after a restart of
a server process) while other games go on moving. Prints how long the sockets took to be back
and the other games' move latency meanwhile.

    python bench/reconnect_storm.py                          # 100 games x 1 move/s, 2,000 sockets
    python bench/reconnect_storm.py --sockets 500 --games 20 --duration 5
    python bench/reconnect_storm.py --base /tmp/old          # another checkout too, side by side

On one Tessera server (SQLite and the in-memory layer, or with `--backend pg1` PostgreSQL +
Redis as bench/live_load.py's), `--games` games move once every `--think` seconds (2 players
and 2 spectators each, bench/loadgen.py), and `--sockets` more spectator sockets watch
`--sockets / 4` other games, from a process of their own (forked: the moving games' latencies
are not the crowd's load on the load generator's loop). After `--warmup` seconds every one of
those sockets is cut at once (the TCP connection aborted, as a dying server's are) and
reconnects as the site's page does (static/js/socket.js): after 500 ms x 0.75-1.25, then
doubling on each failure. A socket is back once its first snapshot arrived. Over the
`--duration` seconds from the cut: the time for the sockets to be back (p50/p99/max, from the
cut), and the moving games' latency.

Loopback only; handshakes in flight are bounded by `--at-once` (the clients' own jitter spreads
them besides). The open-file limit is raised to its hard limit; fewer sockets than asked are
used if that is too low (the script says so). Server on one core and load generator on the
other, as bench/live_load.py; it prints figures, it is not a test.
"""
import argparse
import asyncio
import json
import multiprocessing
import os
import random
import resource
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

FIRST_DELAY = 0.5        # seconds: static/js/socket.js FIRST_DELAY_MS
MAX_DELAY = 15.0         # seconds: MAX_DELAY_MS
SOCKETS_PER_GAME = 4     # storm sockets watching each of their games
FILES_PER_SOCKET = 2     # the client's end and the server's, on one machine
SPARE_FILES = 500        # the servers' own files, databases, logs


def raise_file_limit(wanted):
    """Raise the soft open-file limit (inherited by the servers) to the hard one; returns how
    many sockets fit."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or hard > soft:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
        soft = hard
    return min(wanted, max(0, (soft - SPARE_FILES) // FILES_PER_SOCKET))


class StormSocket(loadgen.RoomSocket):
    """A spectator socket that can be cut and comes back as the site's page does."""

    async def cut(self):
        if self.reader:
            self.reader.cancel()
        if self.ws is not None:
            self.ws.transport.abort()   # no closing handshake: the connection just dies
            self.ws = None

    async def come_back(self, target, room, cut_at, gate, rng):
        """Reconnect with the page's backoff; the seconds from the cut to the first snapshot
        (None if not back within MAX_DELAY of tries)."""
        attempt = 0
        while True:
            delay = min(MAX_DELAY, FIRST_DELAY * 2 ** attempt) * rng.uniform(0.75, 1.25)
            await asyncio.sleep(delay)
            attempt += 1
            try:
                async with gate:
                    await self.open(target, room, None)
                return time.perf_counter() - cut_at
            except Exception as error:
                self.ws = None
                self.game.stats.errors[f"reconnect_failed ({type(error).__name__})"] += 1
                if time.perf_counter() - cut_at > 4 * MAX_DELAY:
                    return None


def crowd(target, storm_rooms, args, line):
    """The storm's sockets, in a process of their own (forked before the movers' loop starts):
    in the movers' process, the crowd's 2,000 handshakes and snapshots held that process's
    loop for up to 450 ms at a time, and the moves it measured meanwhile counted the load
    generator's own wait. Opens the sockets, says how many are open, cuts them all when told
    (`("cut", at)`), and sends back each socket's seconds to its first snapshot again."""
    async def run():
        stats = loadgen.Stats()
        watchers = loadgen.LiveGame(stats, loadgen.Window(10 ** 9, 0))   # they count no moves
        gate = asyncio.Semaphore(loadgen.CONNECTS_AT_ONCE)
        sockets = [(StormSocket(watchers, None, 0), room)
                   for room in storm_rooms for _ in range(SOCKETS_PER_GAME)]

        async def first_open(socket, room):
            async with gate:
                try:
                    await socket.open(target, room, None)
                except Exception:
                    stats.errors["connect_failed"] += 1
        await asyncio.gather(*(first_open(s, room) for s, room in sockets))
        sockets = [(s, room) for s, room in sockets if s.ws is not None]
        loop = asyncio.get_running_loop()
        line.send(("open", len(sockets)))
        order, _ = await loop.run_in_executor(None, line.recv)
        assert order == "cut"
        cut_at = time.perf_counter()
        cpu_before = time.process_time()
        for socket, _ in sockets:
            await socket.cut()
        rng = random.Random(11)
        back_gate = asyncio.Semaphore(args.at_once)
        comebacks = await asyncio.gather(*(socket.come_back(target, room, cut_at, back_gate, rng)
                                           for socket, room in sockets))
        all_back = time.perf_counter() - cut_at
        line.send(("back", {"comebacks": comebacks, "all_back_s": all_back,
                            "cpu_s": time.process_time() - cpu_before, "errors": dict(stats.errors)}))
        await loop.run_in_executor(None, line.recv)   # closed when the window is over
        await asyncio.gather(*(socket.close() for socket, _ in sockets))
    asyncio.run(run())


async def storm(target, slots, args, sample_servers, line):
    stats = loadgen.Stats()
    gate = asyncio.Semaphore(loadgen.CONNECTS_AT_ONCE)
    window = loadgen.Window(time.perf_counter() + 10 ** 6, args.duration)
    loop = asyncio.get_running_loop()
    firsts = []
    for slot in slots:
        game = loadgen.LiveGame(stats, window)
        firsts.append((game, loadgen.open_sockets(target, slot.rooms[0], slot.sessions, game, gate)))
    opened = await asyncio.gather(*(coroutine for _, coroutine in firsts))
    _, storm_sockets = await loop.run_in_executor(None, line.recv)

    rng = random.Random(11)
    tasks = [asyncio.create_task(loadgen.play_slot(target, slot, stats, window, args.think,
                                                   rng.uniform(0, args.think), gate, (game, sockets)))
             for slot, (game, _), sockets in zip(slots, firsts, opened)]
    await asyncio.sleep(args.warmup)

    # The cut: every storm socket at once (in the crowd's process), then each comes back on
    # its own.
    cut_at = time.perf_counter()
    window.start, window.end = cut_at, cut_at + args.duration
    cpu_before, _ = sample_servers()
    load_before = time.process_time()
    line.send(("cut", cut_at))
    _, crowd = await loop.run_in_executor(None, line.recv)
    await asyncio.sleep(max(0.0, window.end - time.perf_counter()))
    cpu_after, rss = sample_servers()
    load_cpu = time.process_time() - load_before

    await asyncio.wait(tasks, timeout=loadgen.BROADCAST_TIMEOUT + 5)
    for task in tasks:
        task.cancel()
    line.send(("close", None))
    comebacks = crowd["comebacks"]
    back = [seconds for seconds in comebacks if seconds is not None]
    for error, count in crowd["errors"].items():
        stats.errors[error] += count
    return {
        "sockets": storm_sockets,
        "back": loadgen.percentiles(back),
        "not_back": len(comebacks) - len(back),
        "all_back_s": crowd["all_back_s"],
        "moves": {role: loadgen.percentiles(stats.latencies[role]) for role in loadgen.ROLES},
        "carried": stats.carried / args.duration,
        "stuck": stats.stuck,
        "errors": dict(stats.errors),
        "server_cpu_s": cpu_after - cpu_before,
        # The load generator's own CPU over the window (both its processes): near the
        # window's length, its one core was full and the latencies it reports include its
        # own wait.
        "load_cpu_s": load_cpu + crowd["cpu_s"],
        "cut_at": cut_at,
        "rss_mb": rss / 2 ** 20,
    }


def measure(bench, backend, kind, args):
    run = {"name": "storm", "kind": "paced", "games": args.games, "think": args.think}
    storm_games = -(-args.sockets // SOCKETS_PER_GAME)
    per_slot = live_load.games_per_slot(run, kind, args.warmup, args.duration)
    label = f"storm-{kind}"
    plan = {"prefix": f"s{kind[0]}", "slots": args.games, "games_per_slot": per_slot,
            "spectator_games": storm_games}
    plan_path, result_path = backend.scratch / f"{label}-plan.json", backend.scratch / f"{label}-games.json"
    plan_path.write_text(json.dumps(plan))
    subprocess.run([sys.executable, str(HERE / "tessera_setup.py"), str(plan_path), str(result_path)],
                   cwd=backend.site_of(kind), env=backend.env(kind, label + "-setup"), check=True,
                   timeout=900)
    made = json.loads(result_path.read_text())
    slots = [loadgen.Slot(rooms=s["games"], moves=[bench.next_moves() for _ in s["games"]],
                          sessions=tuple(s["sessions"])) for s in made["slots"]]
    trace = args.trace / f"{label}.jsonl" if args.trace else None
    if trace:
        os.environ["LIVE_TRACE"] = str(trace)   # the servers' environment (live.tracing)
    try:
        servers = bench.start_servers(backend, kind, label)
    finally:
        os.environ.pop("LIVE_TRACE", None)
    try:
        target = loadgen.Target("tessera", [s.url for s in servers])
        line, crowd_line = multiprocessing.Pipe()
        crowd_process = multiprocessing.get_context("fork").Process(
            target=crowd, args=(target, made["spectator_games"], args, crowd_line))
        crowd_process.start()
        crowd_line.close()   # the crowd's end is its own: its exit is an EOF here
        try:
            figures = asyncio.run(storm(target, slots, args, live_load.sampler(servers), line))
        finally:
            crowd_process.join(timeout=30)
            if crowd_process.is_alive():
                crowd_process.kill()
    finally:
        for server in servers:
            server.stop()
    if trace:
        figures["waits"] = waits(trace, figures["cut_at"], args.duration)
    return figures


def measure_apart(bench, backend, kind, args):
    """measure() in a forked process of its own: run one after the other in this process, the
    second tree's storm met a load generator that had run one already, and the same tree
    measured twice read other moves' p99 1003 ms first and 317 ms second (its crowd came
    back more slowly). Forked, each starts from the same state."""
    reading, writing = multiprocessing.Pipe(duplex=False)

    def run():
        try:
            writing.send(("figures", measure(bench, backend, kind, args)))
        except BaseException as error:
            writing.send(("error", repr(error)))

    child = multiprocessing.get_context("fork").Process(target=run)
    child.start()
    writing.close()
    try:
        outcome, value = reading.recv()
    except EOFError:
        outcome, value = "error", f"the measuring process ended with {child.exitcode}"
    child.join()
    if outcome == "error":
        raise RuntimeError(f"{kind}: {value}")
    return value


STEPS = ("received", "laned", "started", "ended", "back", "sent")


def waits(trace, cut_at, duration):
    """From the server's stamps (live.tracing) of the moves received within the window: each
    step's time from the one before, ms percentiles; None where the server wrote none (a tree
    without live.tracing)."""
    if not trace.exists():
        return None
    spans = {later: [] for later in STEPS[1:]}
    for line in trace.read_text().splitlines():
        record = json.loads(line)
        if record.get("kind") != "play" or not cut_at <= record["received"] < cut_at + duration:
            continue
        if not all(step in record for step in STEPS):
            continue
        for earlier, later in zip(STEPS, STEPS[1:]):
            spans[later].append(record[later] - record[earlier])
    return {step: loadgen.percentiles(values) for step, values in spans.items()}


def text(figures):
    return live_load.latency_text(figures)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sockets", type=int, default=2000, help="sockets cut at once (2000)")
    parser.add_argument("--games", type=int, default=100, help="games moving meanwhile (100)")
    parser.add_argument("--think", type=float, default=1.0, help="seconds between a game's moves (1)")
    parser.add_argument("--warmup", type=float, default=3.0, help="seconds before the cut (3)")
    parser.add_argument("--duration", type=float, default=10.0, help="seconds measured from the cut (10)")
    parser.add_argument("--at-once", type=int, default=2000, help="reconnecting handshakes in flight at most (2000)")
    parser.add_argument("--backend", default="sqlite", choices=("sqlite", "pg1"))
    parser.add_argument("--site", type=Path, default=ROOT, help="checkout whose servers run (default: this one)")
    parser.add_argument("--base", type=Path, default=None, help="another checkout measured first")
    parser.add_argument("--json", type=Path, help="also write the results to this file")
    parser.add_argument("--keep", action="store_true", help="keep the servers' logs and say where")
    parser.add_argument("--trace", type=Path, help="have the servers stamp each move's steps "
                        "(live.tracing) into this folder, and print where the storm's moves waited")
    args = parser.parse_args(argv)
    if args.trace:
        args.trace.mkdir(parents=True, exist_ok=True)   # the servers write into it, or nothing
    fitting = raise_file_limit(args.sockets + 4 * args.games)
    if fitting < args.sockets + 4 * args.games:
        args.sockets = max(0, fitting - 4 * args.games)
        print(f"open-file limit too low: {args.sockets} storm sockets instead", flush=True)

    cores = live_load.pin_cores()
    scratch = Path(tempfile.mkdtemp(prefix="tessera-storm-"))
    bench_args = argparse.Namespace(warmup=args.warmup, duration=args.duration)
    bench = live_load.Bench(bench_args, cores)
    site, base = args.site.resolve(), args.base.resolve() if args.base else None
    backend = live_load.Backend(args.backend, site, scratch, base)
    results = []
    print(f"site {site}" + (f", base {base}" if base else "") + f"; {args.games} games x 1 move / "
          f"{args.think:g} s, {args.sockets} sockets cut at once, {args.duration:g} s from the cut; "
          + (f"server on core {cores[0]}, load generator on core {cores[1]}" if cores[0] is not None
             else "one core: nothing pinned"), flush=True)
    try:
        backend.migrate()
        for kind in ("base", "tessera") if base else ("tessera",):
            started = time.monotonic()
            figures = measure_apart(bench, backend, kind, args)
            results.append({"backend": args.backend, "server": kind, "figures": figures})
            print(f"  {kind}: {time.monotonic() - started:.0f} s", file=sys.stderr, flush=True)
        print("\nBack: from the cut to each socket's first snapshot, ms (p50/p90/p99/max). "
              "Moves: the moving games' latency from the cut on, ms (p50/p90/p99/max).")
        print(f"{'backend':7} {'server':7} {'sockets':>7} {'back p50/p90/p99/max ms':>25} {'not back':>8} "
              f"{'all back s':>10}  {'opponent':>22} {'spectators':>22} {'mv/s':>6} {'cpu s':>6} {'load s':>6} errors")
        for r in results:
            f = r["figures"]
            print(f"{r['backend']:7} {r['server']:7} {f['sockets']:7} {text(f['back']):>25} "
                  f"{f['not_back']:8} {f['all_back_s']:10.2f}  {text(f['moves']['opponent']):>22} "
                  f"{text(f['moves']['spectator']):>22} {f['carried']:6.1f} {f['server_cpu_s']:6.1f} "
                  f"{f['load_cpu_s']:6.1f} {sum(f['errors'].values())} {f['errors'] or ''}{' stuck ' + str(f['stuck']) if f['stuck'] else ''}")
        if any(r["figures"].get("waits") for r in results):
            print("\nWhere the moves received in the window waited, server side, ms from the step "
                  "before (p50/p90/p99/max): laned = the game's lane, started = the writers' "
                  "queue, ended = the job, back = the loop taking it up, sent = its news out")
            for r in results:
                spans = r["figures"].get("waits")
                if spans:
                    print(f"{r['server']:7} " + "  ".join(
                        f"{step} {text(spans[step])}" for step in STEPS[1:]))
        if args.json:
            args.json.write_text(json.dumps(results, indent=1))
        return results
    finally:
        live_load.tear_down([backend], scratch, args.keep)


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        sys.exit(130)
