"""Snapshot load: a player's ping while 20 sockets of one address ask for snapshots of a Tripen
13 game, each within its per-socket message limit (issue 21, item 3), before and after the
snapshot budget and the position encoded once per ply (live.budget, play.positions).

    python bench/snapshot_load.py                       # before: the commit before live.budget
    python bench/snapshot_load.py --before 1a2b3c4 --flooders 20 --duration 10

For each variant (the `--before` commit, taken with `git archive` into a temporary directory,
then this checkout with the budget off, then as it is) it makes a fresh SQLite database, starts a Tripen 13 game and plays 40
random legal actions in it, starts one Daphne process, and measures:

* idle: the player's socket (address 198.51.100.1) sends a ping every 100 ms; ping -> pong;
* flood: the same while `--flooders` anonymous sockets from another address (203.0.113.9;
  Daphne is told to trust one proxy, so X-Forwarded-For names the address) each ask for a
  snapshot 9 times a second (the per-socket limit is 10).

It prints the ping's median, 95th percentile and maximum in ms, the snapshots served and
refused per second, and the server's CPU seconds per second. It is not a test: figures on a
loaded machine are noisy.
"""
import argparse
import asyncio
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import websockets

ROOT = Path(__file__).resolve().parents[1]
PLAYER_ADDRESS, FLOOD_ADDRESS = "198.51.100.1", "203.0.113.9"
SETUP = """
import random
from django.contrib.auth import get_user_model
from play import services
from play.clock import TimeControl
User = get_user_model()
players = [User.objects.create_user(name, password="bench-password-1729") for name in ("ann", "ben")]
game = services.start_game(game="tripen", options={"size": 13}, players=tuple(players),
                           time_control=TimeControl.untimed())
rng = random.Random(1)
for _ in range(40):
    game = services.load(game.pk)
    state = game.state()
    services.play(game.pk, game.players()[game.player_to_move()], game.ply_count,
                  rng.choice(state.legal_actions()))
print(game.pk)
"""


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def before_commit():
    """The commit before the one that added live/budget.py."""
    added = subprocess.run(["git", "log", "--diff-filter=A", "--format=%H", "--",
                            "site/live/budget.py"], cwd=ROOT, capture_output=True, text=True,
                           check=True).stdout.split()
    if not added:
        raise SystemExit("live/budget.py is not committed: give --before")
    return added[-1] + "~1"


def checkout(rev, into):
    archive = subprocess.run(["git", "archive", rev], cwd=ROOT, capture_output=True, check=True)
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive.stdout, check=True)
    return into


def environment(root, database):
    env = {k: v for k, v in os.environ.items()
           if k not in {"DATABASE_URL", "REDIS_URL", "DEBUG", "BOT_JOBS", "JOBS_MODE"}}
    env.update(SECRET_KEY="bench-only-" + "k3y-" * 12, ALLOWED_HOSTS="127.0.0.1",
               DATABASE_URL=f"sqlite:///{database}", PYTHONPATH=str(root / "site"),
               TRUSTED_PROXY_COUNT="1", LIVE_SOCKETS_PER_ADDRESS="1000", PYTHONUNBUFFERED="1")
    return env


def cpu_seconds(pid):
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def player(url, origin, stop, pings):
    headers = {"X-Forwarded-For": PLAYER_ADDRESS}
    async with websockets.connect(url, origin=origin, additional_headers=headers,
                                  max_size=2 ** 24) as ws:
        while json.loads(await ws.recv())["type"] != "snapshot":
            pass
        while not stop.is_set():
            sent = time.perf_counter()
            await ws.send('{"type":"ping"}')
            while json.loads(await ws.recv())["type"] != "pong":
                pass
            pings.append((time.perf_counter() - sent) * 1000)
            await asyncio.sleep(0.1)


async def flooder(url, origin, stop, counts):
    headers = {"X-Forwarded-For": FLOOD_ADDRESS}
    try:
        async with websockets.connect(url, origin=origin, additional_headers=headers,
                                      max_size=2 ** 24) as ws:

            async def read():
                async for text in ws:
                    # Messages start with their type (live.outbox.encoded keeps the order).
                    kind = text[9:text.index('"', 9)] if text.startswith('{"type":"') else "?"
                    counts[kind] = counts.get(kind, 0) + 1

            reader = asyncio.create_task(read())
            while not stop.is_set():
                await ws.send('{"type":"snapshot"}')
                await asyncio.sleep(1 / 9)
            reader.cancel()
    except (websockets.InvalidStatus, websockets.ConnectionClosed, OSError):
        counts["refused_handshakes"] = counts.get("refused_handshakes", 0) + 1


async def phase(url, origin, flooders, seconds, pid):
    stop, pings, counts = asyncio.Event(), [], {}
    tasks = [asyncio.create_task(player(url, origin, stop, pings))]
    tasks += [asyncio.create_task(flooder(url, origin, stop, counts)) for _ in range(flooders)]
    await asyncio.sleep(1)  # connections made, the player's first snapshot in
    pings.clear()
    counts.clear()
    cpu, start = cpu_seconds(pid), time.monotonic()
    await asyncio.sleep(seconds)
    stop.set()
    elapsed, used = time.monotonic() - start, cpu_seconds(pid) - cpu
    await asyncio.wait(tasks, timeout=5)
    return pings, counts, elapsed, used


def summary(label, phase_name, pings, counts, elapsed, used):
    pings = sorted(pings) or [float("nan")]
    p95 = pings[min(len(pings) - 1, int(0.95 * len(pings)))]
    return (f"| {label} | {phase_name} | {statistics.median(pings):.1f} | {p95:.1f} | "
            f"{pings[-1]:.1f} | {counts.get('snapshot', 0) / elapsed:.0f} | "
            f"{counts.get('error', 0) / elapsed:.0f} | {used / elapsed:.2f} |")


def run_variant(label, root, args, **extra_env):
    scratch = Path(tempfile.mkdtemp(prefix="snapshot-load-"))
    env = {**environment(root, scratch / "db.sqlite3"), **extra_env}
    subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v0"], cwd=root,
                   env=env, check=True)
    game_id = subprocess.run([sys.executable, "manage.py", "shell", "-v", "0", "-c", SETUP],
                             cwd=root, env=env, check=True, capture_output=True,
                             text=True).stdout.split()[-1]
    port = free_port()
    log = open(scratch / "daphne.log", "w")
    server = subprocess.Popen([sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p",
                               str(port), "tessera.asgi:application"], cwd=root, env=env,
                              stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 90
        while True:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/rules/", timeout=2)
                break
            except Exception:
                if time.monotonic() > deadline or server.poll() is not None:
                    raise SystemExit(f"{label}: the server did not start, see {log.name}")
                time.sleep(0.3)
        url, origin = f"ws://127.0.0.1:{port}/ws/game/{game_id}/", f"http://127.0.0.1:{port}"
        rows = []
        for name, flooders in (("idle", 0), ("flood", args.flooders)):
            rows.append(summary(label, name, *asyncio.run(
                phase(url, origin, flooders, args.duration, server.pid))))
        return rows
    finally:
        server.terminate()
        server.wait(10)
        log.close()
        shutil.rmtree(scratch, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", help="the commit to compare with (default: the one "
                                         "before live/budget.py was added)")
    parser.add_argument("--flooders", type=int, default=20)
    parser.add_argument("--duration", type=float, default=10)
    args = parser.parse_args()
    rev = args.before or before_commit()
    rows = []
    with tempfile.TemporaryDirectory(prefix="snapshot-before-") as old:
        rows += run_variant(f"before ({rev})", checkout(rev, Path(old)), args)
    # The position encoded once, without the budget: what the encoding alone does.
    rows += run_variant("after, budget off", ROOT, args, LIVE_SNAPSHOT_BURST="1000000",
                        LIVE_SNAPSHOT_PER_SECOND="1000000")
    rows += run_variant("after (this checkout)", ROOT, args)
    print(f"Tripen 13, {args.flooders} snapshot flooders from one address, "
          f"{args.duration:g} s per phase\n")
    print("| code | phase | ping median ms | ping p95 ms | ping max ms | snapshots served/s | "
          "refused/s | server CPU s/s |")
    print("|---|---|---|---|---|---|---|---|")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
