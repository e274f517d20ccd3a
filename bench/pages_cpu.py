"""Each page's CPU time in-process (Django's test client, time.process_time), checkouts
interleaved on one copy of a site: steadier than a load run on a shared machine.

    python bench/pages_cpu.py SITE.sqlite3 GAMES.json --site /tmp/old --site . [--rounds 2] [--gzip]

SITE.sqlite3 and GAMES.json: a site bench/pages_setup.py made (for example with
{"archived": 100000, "playing": 2000}); each checkout serves a copy of it, round after round.
Prints, per checkout and round, each page's median CPU ms over --repeat requests (after 3
not counted) and its number of queries. --gzip: ask for gzip like a browser (and Locust) does,
so each page's compression is counted. It prints figures; it is not a test.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
SECRET_KEY = "pages-cpu-bench-only-key-never-used-by-any-real-site-0123456789abcdef"


def pages(game):
    return [("home", "/"), ("watch", "/watch/"), ("archive", "/archive/"),
            ("archive page 2", "/archive/?page=2"), ("archive player", "/archive/?player=pages3"),
            ("archive tripen", "/archive/?game=tripen"), ("game", f"/game/{game}/"),
            ("game?ply=5", f"/game/{game}/?ply=5"), ("snapshot", f"/game/{game}/snapshot.json"),
            ("leaderboard", "/leaderboard/"), ("rules", "/rules/hadron/")]


def probe(games_path, repeat, gzip=False):
    """In the child: each page's median CPU ms and its queries, as JSON lines."""
    import django
    django.setup()
    from django.conf import settings
    from django.db import connection, reset_queries
    from django.test import Client

    game = json.loads(Path(games_path).read_text())["finished"][0]
    client = Client(**({"HTTP_ACCEPT_ENCODING": "gzip, deflate"} if gzip else {}))
    for name, path in pages(game):
        for _ in range(3):
            assert client.get(path).status_code == 200, path
        times = []
        for _ in range(repeat):
            start = time.process_time()
            client.get(path)
            times.append(time.process_time() - start)
        settings.DEBUG = True
        reset_queries()
        client.get(path)
        queries = len(connection.queries)
        settings.DEBUG = False
        print(json.dumps([name, statistics.median(times) * 1000, queries]), flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("database", type=Path)
    parser.add_argument("games", type=Path)
    parser.add_argument("--site", type=Path, action="append")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--gzip", action="store_true", help="ask for gzip, as browsers do")
    args = parser.parse_args()
    sites = [path.resolve() for path in (args.site or [HERE.parent])]
    with tempfile.TemporaryDirectory(prefix="tessera-pages-cpu-") as folder:
        for round_ in range(1, args.rounds + 1):
            for checkout in sites:
                copy = Path(folder) / "site.sqlite3"
                shutil.copyfile(args.database, copy)
                env = {k: v for k, v in os.environ.items()
                       if k not in {"DATABASE_URL", "REDIS_URL", "REDIS_PREFIX", "DEBUG"}}
                env.update(SECRET_KEY=SECRET_KEY, ALLOWED_HOSTS="testserver",
                           DATABASE_URL=f"sqlite:///{copy}", DJANGO_SETTINGS_MODULE="pages_settings",
                           PYTHONPATH=os.pathsep.join([str(HERE), str(checkout / "site"),
                                                       str(checkout)]))
                found = subprocess.run(
                    [sys.executable, str(Path(__file__).resolve()), "--probe", str(args.games),
                     str(args.repeat), *(["gzip"] if args.gzip else [])], cwd=checkout, env=env, check=True, capture_output=True,
                    text=True)
                print(f"== {checkout} round {round_}")
                for line in found.stdout.splitlines():
                    name, ms, queries = json.loads(line)
                    print(f"{name:16} {ms:8.2f} ms CPU {queries:4d} queries")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--probe"]:
        probe(sys.argv[2], int(sys.argv[3]), sys.argv[4:5] == ["gzip"])
    else:
        main()
