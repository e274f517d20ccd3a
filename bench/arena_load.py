"""People's moves beside a running arena: the live-load benchmark's move round trip (bench/
live_load.py, bench/loadgen.py) measured without an arena, then on the same server with a
500-player arena running, side by side. Issue 23's target: p99 with the arena within 1.5x.

    python bench/arena_load.py                               # sqlite, 50x1, 500 arena players
    python bench/arena_load.py --runs 100x1 --arena 500 --repeat 3 --duration 10
    python bench/arena_load.py --repeat 3 --base /tmp/base          # another checkout beside
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres REDIS_URL=redis://127.0.0.1:6379/5 \\
        python bench/arena_load.py --backends pg1

Each repeat gets a fresh backend (live_load.Backend: a temporary SQLite file, or a
throw-away PostgreSQL database) per checkout (with `--base DIR`, that checkout's first, then
this one, so that the two are measured minutes apart under the same load) and measures, on
fresh server processes:

  without  the people's load alone: G games (2 players + 2 spectators, one socket each)
           moving once every T seconds (`--runs GxT`, as live_load's paced runs)
  with     the same load, and a running arena of `--arena` players (bench/arena_setup.py:
           every player in, the first wave paired: arena/2 games in play). While measuring,
           a churn process (this file, --churn; from `--churn-delay` s after the people's
           sockets are in, which the bench tells it by a file) ends `--ends` arena games a second, the
           oldest first, each by its first player's resignation over the game's socket (the
           site's own path: the end, its standings recount and push); the server's own
           pairing job (TOURNAMENT_TICK, 2 s) pairs the freed players in waves, so about
           arena/2 games stay in play and every wave starts a few dozen games.

Servers on the first allowed core, the load generator (and the churn process) on the second,
as live_load does. It prints figures, it is not a test.
"""
import argparse
import asyncio
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path[:0] = [str(HERE), str(ROOT)]

import live_load  # noqa: E402
import loadgen  # noqa: E402


# -- the churn: arena games ended over their sockets -----------------------------------------

def in_play(database_url, tournament_id, limit, skip):
    """The oldest arena games in play: [(game id, player0 id)], leaving out `skip`."""
    query = ("SELECT p.game_id, g.player0_id FROM tournaments_pairing p JOIN play_game g "
             "ON g.id = p.game_id WHERE p.tournament_id = {0} AND p.ended_at IS NULL "
             "ORDER BY p.created_at, p.id LIMIT {0}")
    wanted = limit + len(skip)
    if database_url.startswith("sqlite:///"):
        import sqlite3
        with sqlite3.connect(database_url[len("sqlite:///"):], timeout=5) as connection:
            rows = connection.execute(query.format("?"), (tournament_id, wanted)).fetchall()
    else:
        import psycopg
        with psycopg.connect(database_url.replace("postgres://", "postgresql://", 1)) as connection:
            rows = connection.execute(query.format("%s"), (tournament_id, wanted)).fetchall()
    return [(game, player) for game, player in rows if game not in skip][:limit]


async def resign_over_socket(server, game_id, session, counts):
    """Open the game's socket as its first player, resign at the snapshot's ply, wait for the
    end's news (or a second), close."""
    from websockets.asyncio.client import connect
    url = server.replace("http://", "ws://") + f"/ws/game/{game_id}/"
    try:
        async with connect(url, origin=server, additional_headers={"Cookie": f"sessionid={session}"},
                           open_timeout=10, compression=None, max_size=2 ** 22,
                           ping_interval=None) as ws:
            while True:
                message = json.loads(await asyncio.wait_for(ws.recv(), 10))
                if message.get("type") == "snapshot":
                    break
            game = message["game"]
            if game.get("status") != "active":
                counts["already_over"] += 1
                return
            await ws.send(json.dumps({"type": "resign", "ply": game["state"]["ply"]}))
            deadline = time.monotonic() + 2
            while time.monotonic() < deadline:
                reply = json.loads(await asyncio.wait_for(ws.recv(), deadline - time.monotonic()))
                if reply.get("type") == "error":
                    counts[f"error {reply.get('code')}"] += 1
                    return
                if reply.get("type") == "end":
                    break
            counts["ended"] += 1
    except Exception as error:  # noqa: BLE001 - counted, reported
        counts[f"failed {type(error).__name__}"] += 1


async def churn(config):
    counts = Counter()
    sessions = config["sessions"]
    done = set()
    every = config["every"]
    per_wave = max(1, round(config["ends_per_second"] * every))
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGTERM, stop.set)
    # The people's sockets connect first (the bench makes the file `go` once they are in): a
    # server busy with the churn answers handshakes late, and Daphne drops one that waits too
    # long (its websocket connect timeout); on a loaded machine a fixed delay was not enough.
    while not stop.is_set() and not Path(config["go"]).exists():
        try:
            await asyncio.wait_for(stop.wait(), 0.1)
        except asyncio.TimeoutError:
            pass
    try:
        await asyncio.wait_for(stop.wait(), config["delay"])
    except asyncio.TimeoutError:
        pass
    started = time.monotonic()
    while not stop.is_set():
        wave_start = time.monotonic()
        games = in_play(config["database_url"], config["tournament"], per_wave, done)
        done.update(game for game, _ in games)
        counts["in_play_seen"] = max(counts["in_play_seen"], len(games))
        await asyncio.gather(*(resign_over_socket(config["server"], game, sessions[str(player)],
                                                  counts) for game, player in games))
        try:
            await asyncio.wait_for(stop.wait(), max(0.0, every - (time.monotonic() - wave_start)))
        except asyncio.TimeoutError:
            pass
    counts["seconds"] = round(time.monotonic() - started)
    Path(config["report"]).write_text(json.dumps(counts))


# -- one measurement -------------------------------------------------------------------------

def arena_setup(backend, label, players):
    plan_path = backend.scratch / f"{label}-arena-plan.json"
    result_path = backend.scratch / f"{label}-arena.json"
    plan_path.write_text(json.dumps({"prefix": f"a{label}", "players": players}))
    subprocess.run([sys.executable, str(HERE / "arena_setup.py"), str(plan_path), str(result_path)],
                   cwd=backend.site, env=backend.env("tessera", label + "-arena"), check=True,
                   timeout=900)
    return json.loads(result_path.read_text())


def arena_counts(backend, tournament_id):
    """(games in play, games ended) of the arena now."""
    query = ("SELECT COUNT(*) FILTER (WHERE ended_at IS NULL), COUNT(*) FILTER (WHERE ended_at "
             "IS NOT NULL) FROM tournaments_pairing WHERE tournament_id = {}")
    if backend.database_url.startswith("sqlite:///"):
        import sqlite3
        with sqlite3.connect(backend.database_url[len("sqlite:///"):], timeout=5) as connection:
            return connection.execute(query.format("?"), (tournament_id,)).fetchone()
    import psycopg
    with psycopg.connect(backend.database_url.replace("postgres://", "postgresql://", 1)) as c:
        return c.execute(query.format("%s"), (tournament_id,)).fetchone()


def measure(bench, backend, run, label, arena_players, ends_per_second, args):
    per_slot = live_load.games_per_slot(run, "tessera", args.warmup, args.duration)
    made = bench.tessera_setup(backend, run, label, per_slot)
    slots = [loadgen.Slot(rooms=s["games"], moves=[bench.next_moves() for _ in s["games"]],
                          sessions=tuple(s["sessions"])) for s in made["slots"]]
    arena = arena_setup(backend, label, arena_players) if arena_players else None
    servers = bench.start_servers(backend, "tessera", label)
    churner, report = None, backend.scratch / f"{label}-churn.json"
    go = backend.scratch / f"{label}-churn-go"
    try:
        if arena:
            config = backend.scratch / f"{label}-churn-config.json"
            config.write_text(json.dumps({
                "database_url": backend.database_url, "tournament": arena["tournament"],
                "server": servers[0].url, "sessions": arena["sessions"], "every": 1.0,
                "ends_per_second": ends_per_second, "report": str(report),
                "delay": args.churn_delay, "go": str(go)}))
            argv = [sys.executable, str(Path(__file__).resolve()), "--churn", str(config)]
            if bench.loadgen_core is not None:
                argv = ["taskset", "-c", str(bench.loadgen_core)] + argv
            churner = subprocess.Popen(argv, preexec_fn=live_load.die_with_parent)
            before = arena_counts(backend, arena["tournament"])
        target = loadgen.Target("tessera", [s.url for s in servers])
        stats, measured = asyncio.run(loadgen.run_load(
            target, slots, run["think"], args.warmup, args.duration, live_load.sampler(servers),
            connected=go.touch))
        figures = loadgen.summary(stats, measured, run["games"] / run["think"], args.duration)
        if arena:
            after = arena_counts(backend, arena["tournament"])
            figures["arena"] = {"in_play_end": after[0], "ended": after[1] - before[1],
                                "started": (after[0] + after[1]) - (before[0] + before[1])}
        return figures
    finally:
        if churner is not None:
            churner.send_signal(signal.SIGTERM)
            try:
                churner.wait(timeout=30)
            except subprocess.TimeoutExpired:
                churner.kill()
        if arena and report.exists():
            figures_churn = json.loads(report.read_text())
            print(f"    churn: {figures_churn}", file=sys.stderr, flush=True)
        for server in servers:
            server.stop()


# -- main ------------------------------------------------------------------------------------

def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", default="50x1", help="people's load, GxT (default 50x1)")
    parser.add_argument("--arena", type=int, default=500, help="arena players (500)")
    parser.add_argument("--ends", type=float, default=12.5,
                        help="arena games ended a second (12.5: about 20 s a game at 250 in play)")
    parser.add_argument("--churn-delay", type=float, default=1,
                        help="seconds from the people's sockets being in to the churn's first "
                             "ending (1; keep the warm-up longer)")
    parser.add_argument("--backends", default="sqlite", help="sqlite, pg1 (default sqlite)")
    parser.add_argument("--duration", type=float, default=10, help="measured seconds (10)")
    parser.add_argument("--warmup", type=float, default=8,
                        help="seconds before measuring (8: the churn is going by then)")
    parser.add_argument("--repeat", type=int, default=1, help="fresh backend, both runs, N times")
    parser.add_argument("--base", type=Path,
                        help="another checkout (e.g. main's) measured the same way, alternating "
                             "with this one within each repeat")
    parser.add_argument("--json", type=Path, help="also write the results to this file")
    parser.add_argument("--smoke", action="store_true",
                        help="a tiny shape for the smoke test: 2x1, 8 arena players, 2 s, sqlite")
    parser.add_argument("--churn", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.smoke:
        args.runs, args.arena, args.ends = "2x1", 8, 2
        args.duration, args.warmup, args.backends, args.churn_delay = 2, 2, "sqlite", 0.5
    args.runs = [live_load.parse_run(name) for name in args.runs.split(",")]
    for run in args.runs:
        if run["kind"] != "paced":
            raise SystemExit("arena_load measures paced runs (GxT) only")
    args.backends = args.backends.split(",")
    for name in args.backends:
        if name not in ("sqlite", "pg1"):
            raise SystemExit(f"unknown backend {name!r}: sqlite or pg1")
    args.site = ROOT
    args.trees = ([("base", args.base.resolve())] if args.base else []) + [("tessera", ROOT)]
    return args


def main(argv=None):
    args = parse_args(argv)
    if args.churn:
        return asyncio.run(churn(json.loads(args.churn.read_text())))
    signal.signal(signal.SIGTERM, live_load.terminate_on_signal)
    cores = live_load.pin_cores()
    scratch = Path(tempfile.mkdtemp(prefix="tessera-arena-load-"))
    bench = live_load.Bench(args, cores)
    results, backends = [], []
    print(f"warm-up {args.warmup:g} s, measured {args.duration:g} s, repeat {args.repeat}; "
          f"arena of {args.arena} players, {args.ends:g} arena games ended a second; "
          + (f"servers on core {cores[0]}, load generator and churn on core {cores[1]}"
             if cores[0] is not None else "one core: nothing pinned"), flush=True)
    try:
        for backend_name in args.backends:
            for run in args.runs:
                rows = {(tree, variant): [] for tree, _ in args.trees
                        for variant in ("without", "with")}
                for attempt in range(args.repeat):
                    for tree, site in args.trees:
                        backend = live_load.Backend(backend_name, site, scratch)
                        backends.append(backend)
                        backend.migrate()
                        for variant, players in (("without", 0), ("with", args.arena)):
                            label = f"{tree}-{run['name']}-{attempt}-{variant}"
                            started = time.monotonic()
                            try:
                                figures = measure(bench, backend, run, label, players,
                                                  args.ends, args)
                            except Exception as error:  # noqa: BLE001 - told, the others go on
                                # A handshake dropped by an overloaded server ends one run,
                                # not the hour's table.
                                print(f"  {backend_name} {run['name']} {tree} {variant} "
                                      f"#{attempt + 1}: failed ({type(error).__name__}: "
                                      f"{error})", file=sys.stderr, flush=True)
                                continue
                            rows[tree, variant].append(figures)
                            mover = figures["latency"]["mover"]
                            print(f"  {backend_name} {run['name']} {tree} {variant} #{attempt + 1}: "
                                  f"{time.monotonic() - started:.0f} s, mover "
                                  f"{live_load.latency_text(mover)}", file=sys.stderr, flush=True)
                for (tree, variant), figures in rows.items():
                    if not figures:
                        continue
                    results.append({"backend": backend_name, "run": run["name"], "arena": variant,
                                    "tree": tree, "figures": loadgen.median_summary(figures),
                                    "mover_p99s": [f["latency"]["mover"]["p99"] if
                                                   f["latency"]["mover"] else None
                                                   for f in figures]})
        print_results(results)
        if args.json:
            args.json.write_text(json.dumps(results, indent=1))
        return results
    finally:
        for server in list(live_load.LIVE_SERVERS):
            server.stop()
        for backend in backends:
            backend.cleanup()
        import shutil
        shutil.rmtree(scratch, ignore_errors=True)


def print_results(results):
    print("\nMover latency: send -> the move's broadcast back at the mover, ms (p50/p90/p99/max);"
          " with/without: p99 ratio. Arena: games ended and started from the churn's start to "
          "the window's end (warm-up included), in play at its end.")
    print(f"{'backend':7} {'run':6} {'arena':8} {'tree':7} {'carried':>7}  {'mover p50/p90/p99/max ms':>25} "
          f"{'spectators':>22}  {'cpu ms/mv':>9}  {'p99 ratio':>9}  arena games  errors  "
          "mover p99 of each repeat")
    for r in results:
        f = r["figures"]
        alone = next((x["figures"] for x in results if x["backend"] == r["backend"]
                      and x["run"] == r["run"] and x["arena"] == "without"
                      and x.get("tree") == r.get("tree")), None)
        p99, base = f["latency"]["mover"], alone and alone["latency"]["mover"]
        ratio = f"{p99['p99'] / base['p99']:.2f}" if r["arena"] == "with" and p99 and base else ""
        arena = f.get("arena")
        arena_text = (f"ended {arena['ended']:.0f} started {arena['started']:.0f} "
                      f"in play {arena['in_play_end']:.0f}") if arena else "-"
        cpu = f"{f['cpu_ms_per_move']:.2f}" if f.get("cpu_ms_per_move") else "-"
        errors = sum(f["errors"].values()) if f["errors"] else 0
        print(f"{r['backend']:7} {r['run']:6} {r['arena']:8} {r.get('tree', 'tessera'):7} {f['carried']:7.1f}  "
              f"{live_load.latency_text(p99):>25} {live_load.latency_text(f['latency']['spectator']):>22}  "
              f"{cpu:>9}  {ratio:>9}  {arena_text}  {errors}  "
              + "/".join(f"{p:.0f}" if p is not None else "-" for p in r.get("mover_p99s", [])))


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        sys.exit(130)
