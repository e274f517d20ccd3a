"""Benchmark of the GIF export (issue 21, item 4): what concurrent requests for one game's GIF
cost the site, and what a GIF costs again after many cheap requests.

    nice python bench/gif_export.py                  # a scratch SQLite file, removed at the end
    nice python bench/gif_export.py --concurrent 8 --cheap 600 --game tripen --options '{"size": 13}'

It plays a game of `--game` (default Tripen 13×13, the longest GIF of the default sizes'
neighbours) and a few Colorful Connection games for the cheap requests, then:

1. `--concurrent` processes (as many server processes would) each ask for the GIF through
   Django's test client at the same moment; each reports the CPU seconds of its request.
2. One process asks for the GIF, then makes `--cheap` cheap requests (positions of the other
   games as JSON, each a new entry in Django's cache), then asks for the GIF again.

It prints figures; it is not a test. Run it from another checkout to compare (copy it there).
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SECRET = "gif-benchmark-only-key-never-used-by-any-real-site-0123456789abcdef"

SETUP = """
from django.contrib.auth import get_user_model
from tests.site.played import finished
User = get_user_model()
players = (User.objects.create_user("alice"), User.objects.create_user("bob"))
game = finished({game!r}, players, {options!r}, seed=1)
for seed in range({games}):
    finished("colorful", players, {{}}, seed=seed)
print(game.pk, game.ply_count)
"""

CONCURRENT = """
import json, os, time
from pathlib import Path
from django.test import Client
client = Client(REMOTE_ADDR="10.9.0.{n}")
Path({ready!r}).touch()
while not os.path.exists({go!r}):
    time.sleep(0.002)
cpu, wall = time.process_time(), time.perf_counter()
response = client.get("/game/{game}/game.gif")
print(json.dumps([response.status_code, time.process_time() - cpu, time.perf_counter() - wall]))
"""

AFTER_CHEAP = """
import json, time
from django.test import Client
from play.models import Game
client = Client()
def gif():
    cpu = time.process_time()
    status = client.get("/game/{game}/game.gif").status_code
    return status, time.process_time() - cpu
first = gif()
cheap, cpu = 0, time.process_time()
for other in Game.objects.exclude(pk={game}).order_by("pk"):
    for ply in range(other.ply_count + 1):
        for static in (0, 1):
            if cheap < {cheap}:
                client.get(f"/game/{{other.pk}}/position/{{ply}}.json?static={{static}}")
                cheap += 1
cheap_cpu = time.process_time() - cpu
print(json.dumps([first, cheap, cheap_cpu, gif()]))
"""


def shell(env, code):
    return subprocess.Popen([sys.executable, "manage.py", "shell", "-v", "0", "-c", code],
                            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)


def last_line(process):
    out, err = process.communicate(timeout=600)
    if process.returncode:
        sys.exit(err)
    return out.strip().splitlines()[-1]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--concurrent", type=int, default=8)
    parser.add_argument("--cheap", type=int, default=600)
    parser.add_argument("--game", default="tripen")
    parser.add_argument("--options", type=json.loads, default={"size": 13})
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="tessera-gif-bench-"))
    env = {**os.environ, "SECRET_KEY": SECRET, "DATABASE_URL": f"sqlite:///{folder}/db.sqlite3",
           "PYTHONPATH": os.pathsep.join([str(ROOT / "site"), str(ROOT)]),
           "EXPORT_GIF_RATE": "1000/m", "JOBS_MODE": "eager", "ALLOWED_HOSTS": "testserver"}
    env.pop("REDIS_URL", None)
    try:
        subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v0"], cwd=ROOT,
                       env=env, check=True)
        # Enough other games that the cheap requests are all different positions.
        games = 1 + args.cheap // 120   # 61 positions of each, as JSON with and without geometry
        game, plies = map(int, last_line(shell(env, SETUP.format(
            game=args.game, options=args.options, games=games))).split())
        print(f"checkout {ROOT}; the GIF of {args.game} {args.options}, {plies} actions; "
              f"{games} Colorful games for the cheap requests")

        go = folder / "go"
        ready = [folder / f"{n}.ready" for n in range(args.concurrent)]
        runs = [shell(env, CONCURRENT.format(n=n, ready=str(path), go=str(go), game=game))
                for n, path in enumerate(ready)]
        while not all(path.exists() for path in ready):
            time.sleep(0.05)
        go.touch()
        results = [json.loads(last_line(run)) for run in runs]
        statuses = sorted({r[0] for r in results})
        cpu = [r[1] for r in results]
        print(f"{args.concurrent} concurrent GIF requests: statuses {statuses}, CPU s in all "
              f"{sum(cpu):.2f} (each: {', '.join(f'{c:.2f}' for c in sorted(cpu))}), "
              f"slowest answer {max(r[2] for r in results):.2f} s")

        first, cheap, cheap_cpu, again = json.loads(last_line(shell(env, AFTER_CHEAP.format(
            game=game, cheap=args.cheap))))
        print(f"one process: GIF {first[0]} in {first[1]:.2f} CPU s; {cheap} cheap requests "
              f"({cheap_cpu:.2f} CPU s); the GIF again: {again[0]} in {again[1]:.3f} CPU s")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
