"""Benchmark: a move's round trip through the HTTP API (POST /api/v1/games/{id}/play until its
answer) beside the same move over the game socket (a `play` frame until the mover's own
`action` message), on one real Daphne server (tests/siteservers.py: a scratch SQLite file and
the in-memory channel layer, the embedded default).

    python bench/api_latency.py                  # 6 Hadron 7x7 games, 3 by each door
    python bench/api_latency.py --games 10 --moves 30

The games are played one move at a time, the API's and the socket's in turn, so both doors
see the same server and the same machine load; moves come from the engine's search, chosen
before the clock starts. Both players are people (cookie for the socket, token for the API).
It prints p50/p90/p99 per door and the ratio of the p99s; it is not a test.
"""
import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]
os.environ.setdefault("SECRET_KEY", "api-latency-benchmark-only-key-never-used-by-a-site-0123456789")

from siteservers import SiteServer, free_port, migrate, server_env  # noqa: E402
from tests.ws.api_client import Api  # noqa: E402
from tests.ws.live_client import LiveSocket, log_in  # noqa: E402
import games  # noqa: E402
from games import bots  # noqa: E402

PASSWORD = "api-latency-pass-3391"


def percentile(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def line(name, seconds):
    ms = [s * 1000 for s in seconds]
    return (f"{name:<8} n={len(ms):<4} p50={statistics.median(ms):7.2f} ms  "
            f"p90={percentile(ms, 90):7.2f} ms  p99={percentile(ms, 99):7.2f} ms")


def tokens_for(server, names):
    code = ("import json\nfrom django.contrib.auth import get_user_model\nfrom api import tokens\n"
            f"print(json.dumps([tokens.create(get_user_model().objects.get(username=n), 'bench', "
            f"['read', 'play', 'challenge'])[1] for n in {names!r}]))\n")
    return json.loads(server.shell(code).strip().splitlines()[-1])


def start_game(first, second, second_name):
    made = first.ok("POST", "/challenges", {"opponent": second_name, "game": "hadron",
                                            "hadron_size": 7, "time_kind": "untimed",
                                            "side": "first", "rated": "casual"})
    return second.ok("POST", f"/challenges/{made['challenge']['id']}/accept")["game_id"]


def next_action(game):
    state = games.get(game["game"]).replay(game["options"], game["actions"])
    return bots.choose(state, level=1)


async def run(args):
    tmp = Path(tempfile.mkdtemp(prefix="api-latency-"))
    env = server_env(f"sqlite:///{tmp / 'db.sqlite3'}", API_TOKEN_RATE="1000000/m")
    migrate(env)
    server = SiteServer(env, free_port(), tmp / "daphne.log").start()
    try:
        names = ["benchalice", "benchbob"]
        server.create_users(names, PASSWORD)
        apis = [Api(server, secret) for secret in tokens_for(server, names)]
        cookies = [log_in(server, name, PASSWORD) for name in names]
        timings = {"api": [], "socket": []}
        for round_ in range(0, args.games, 2):
            api_game = start_game(apis[0], apis[1], names[1])
            socket_game = start_game(apis[0], apis[1], names[1])
            sockets = [LiveSocket(server, f"/game/{socket_game}/", cookie) for cookie in cookies]
            for socket in sockets:
                await socket.open()
            for ply in range(args.moves):
                mover = ply % 2
                game = apis[mover].ok("GET", f"/games/{api_game}")
                if game["status"] == "active":
                    action = next_action(game)
                    started = time.perf_counter()
                    apis[mover].ok("POST", f"/games/{api_game}/play",
                                   {"ply": ply, "action": action})
                    timings["api"].append(time.perf_counter() - started)
                game = apis[mover].ok("GET", f"/games/{socket_game}")
                if game["status"] == "active":
                    action = next_action(game)
                    started = time.perf_counter()
                    await sockets[mover].send(type="play", ply=ply, action=action)
                    while True:
                        heard = await sockets[mover].expect("action")
                        if heard["ply"] == ply:
                            break
                    timings["socket"].append(time.perf_counter() - started)
            for socket in sockets:
                await socket.close()
        print(f"{args.games} Hadron 7x7 games, up to {args.moves} moves each, one at a time")
        for door in ("api", "socket"):
            print(line(door, timings[door]))
        print(f"p99 api / socket: "
              f"{percentile(timings['api'], 99) / percentile(timings['socket'], 99):.2f}")
    finally:
        server.stop()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=6)
    parser.add_argument("--moves", type=int, default=30)
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
