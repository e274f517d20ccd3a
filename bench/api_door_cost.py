"""Benchmark: the event loop's CPU for one API game action through api.door (issue 27's
"no effect on people's moves": a bot's HTTP action shares the loop with people's sockets).

    python bench/api_door_cost.py                                  # this tree
    python bench/api_door_cost.py --site /tmp/base --site . --rounds 5   # side by side, medians

Each round runs each site's tree in a process of its own (its own imports), in turn: a
`POST /api/v1/games/{id}/play` with a bearer token, called `--actions` times straight on
tessera.asgi's application (no socket, no Daphne: what the door, the ninja operation, the
token's copy and rate and the answer cost on the loop), the action's own job replaced by a
fixed answer (what runs on the writers is not the loop's). It prints the loop's CPU per action
(time.thread_time) per site and round, then each site's median. Not a test; compare sites of
one run only.
"""
import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SECRET_KEY = "api-door-cost-benchmark-only-key-never-used-by-a-site-0123456789"
WARM_UP = 200


def measure(actions):
    """(in the site's process) Microseconds of the loop's CPU per action."""
    from django.conf import settings

    from tessera.asgi import application  # noqa: F401  (the site as Daphne loads it)

    from api import endpoints, tokens
    from api.models import ApiToken
    from django.contrib.auth import get_user_model

    settings.API_TOKEN_RATE = "1000000000/s"  # the rate is counted, never reached
    secret = "tsr_" + "b" * 43
    tokens.keep(tokens.digest_of(secret), ApiToken(pk=1, user=get_user_model()(pk=1),
                                                   scopes=["bot"], digest="-"))
    answer = {"repeat": False, "game": {"id": 5, "ply": 3, "status": "playing"}}

    async def job_done(key, fn, *args, **kwargs):
        return answer

    endpoints.lanes.program_in_lane = job_done
    door = application.application.application_mapping["http"]
    body = b'{"ply": 3, "action": "c4"}'
    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1",
             "method": "POST", "scheme": "http", "path": "/api/v1/games/5/play",
             "raw_path": b"/api/v1/games/5/play", "query_string": b"", "root_path": "",
             "headers": [(b"host", b"127.0.0.1:8000"),
                         (b"authorization", b"Bearer " + secret.encode()),
                         (b"content-type", b"application/json"),
                         (b"content-length", str(len(body)).encode())],
             "client": ("127.0.0.1", 5555), "server": ("127.0.0.1", 8000)}
    statuses = set()

    async def receive():
        return {"type": "http.request", "body": body, "more_body": False}

    async def send(message):
        if message["type"] == "http.response.start":
            statuses.add(message["status"])

    async def run(count):
        for _ in range(count):
            await door(scope, receive, send)

    async def timed():
        await run(WARM_UP)
        start = time.thread_time()
        await run(actions)
        return (time.thread_time() - start) / actions * 1e6

    per_action = asyncio.run(timed())
    if statuses != {200}:
        raise SystemExit(f"answered {statuses}, not 200")
    print(f"{per_action:.1f}")


def in_site(root, actions):
    db = Path(tempfile.mkdtemp(prefix="api-door-cost-")) / "db.sqlite3"
    env = {**os.environ, "SECRET_KEY": SECRET_KEY, "DATABASE_URL": f"sqlite:///{db}",
           "DJANGO_SETTINGS_MODULE": "tessera.settings",
           "PYTHONPATH": os.pathsep.join([str(root / "site"), str(root)])}
    env.pop("LIVE_PROFILE", None)
    env.pop("REDIS_URL", None)
    out = subprocess.run([sys.executable, __file__, "--measure", str(actions)], cwd=root,
                         env=env, check=True, capture_output=True, text=True, timeout=600)
    return float(out.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--site", action="append", help="a checkout (default: this one)")
    parser.add_argument("--actions", type=int, default=4000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--measure", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        return measure(args.measure)
    sites = [Path(site).resolve() for site in args.site or [Path(__file__).parent.parent]]
    figures = {site: [] for site in sites}
    for round_ in range(1, args.rounds + 1):
        for site in sites:
            figures[site].append(in_site(site, args.actions))
            print(f"round {round_} {site}: {figures[site][-1]:.1f} us of loop CPU per action",
                  flush=True)
    print("site | loop CPU us per action, median (rounds)")
    for site, values in figures.items():
        print(f"{site} | {statistics.median(values):.1f} "
              f"({', '.join(f'{v:.0f}' for v in values)})")


if __name__ == "__main__":
    main()
