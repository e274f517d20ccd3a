"""Benchmark of the opening explorer's node answer with 100,000 games counted.

    nice python bench/explorer_node.py                 # 100,000 games, scratch SQLite file
    python bench/explorer_node.py --games 20000        # fewer
    DATABASE_URL=postgres://user:pw@host/tessera python bench/explorer_node.py
        # PostgreSQL: makes (and drops) a scratch database tessera_explorer_bench_<pid>

It plays 100,000 synthetic openings (the first explorer.counts.DEPTH actions, legal, chosen
by the engine from its legal actions with a skew toward a few favourites at each position, as
people's openings are: a full top of the tree and a long tail of lines played once), spread
over the four games at their default boards and both pools, counts them in memory exactly as
explorer.counts.rows_of does and bulk-inserts the node rows. Then it times a node's answer:
the JSON view through Django's test client (the engine's check of the line, the one indexed
query, the JSON), for lines of every length taken from the games, and prints p50/p99 and the
query plan. It prints figures; it is not a test.
"""
import argparse
import os
import random
import statistics
import sys
import tempfile
import time
import zlib
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "site")]
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tessera.settings")
os.environ.setdefault("SECRET_KEY", "explorer-benchmark-only-key-never-used-by-any-real-site-0123456789")

WEIGHTS = {"copolymer": 3, "hadron": 3, "tripen": 2, "colorful": 2}


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--requests", type=int, default=400, help="timed node answers")
    parser.add_argument("--seed", type=int, default=1)
    return parser.parse_args()


def scratch_database():
    if os.environ.get("DATABASE_URL"):
        return None
    folder = tempfile.mkdtemp(prefix="tessera-explorer-bench-")
    os.environ["DATABASE_URL"] = f"sqlite:///{folder}/bench.sqlite3"
    return Path(folder)


def setup():
    import django
    from django.core.management import call_command
    from django.db import connection

    django.setup()
    if connection.vendor == "sqlite":
        call_command("migrate", verbosity=0, interactive=False)
        return lambda: None
    old_name = connection.settings_dict["NAME"]
    connection.settings_dict["TEST"]["NAME"] = f"tessera_explorer_bench_{os.getpid()}"
    connection.creation.create_test_db(verbosity=0, autoclobber=True)
    return lambda: connection.creation.destroy_test_db(old_name, verbosity=0)


def opening(engine, rng, depth):
    """One synthetic opening: at each position a legal action, a few favourites (the same
    ones each time the position comes up) far more often than the rest."""
    state = engine.new()
    while state.ply < depth and not state.is_over:
        actions = state.legal_actions()
        rank = min(int(rng.paretovariate(0.8)), 50)
        favourite = zlib.crc32(f"{','.join(state.actions)}#{rank}".encode()) % len(actions)
        # The playout path (legal actions as listed, nothing parsed): the fill is the slow part.
        state = state.clone()
        state.apply_action(actions[favourite])
    return state.actions


class Synthetic:
    """What explorer.counts.rows_of reads of a finished game."""

    def __init__(self, name, winner):
        self.game, self.options, self.winner = name, {}, winner

    def side_of(self, player):
        return player


def fill(count, rng):
    import games
    from explorer import counts
    from explorer.models import OpeningNode

    totals = defaultdict(lambda: [0, 0, 0, 0])
    lines = defaultdict(list)
    names = list(WEIGHTS)
    weights = [WEIGHTS[n] for n in names]
    for _ in range(count):
        name = rng.choices(names, weights)[0]
        pool = OpeningNode.PEOPLE if rng.random() < 0.7 else OpeningNode.COMPUTER
        winner = None if name == "colorful" and rng.random() < 0.03 else rng.randrange(2)
        actions = opening(games.get(name), rng, counts.DEPTH)
        lines[(name, pool)].append(actions)
        for row in counts.rows_of(Synthetic(name, winner), actions, pool):
            sums = totals[tuple(row[k] for k in (*counts.KEY, "ply"))]
            for k, column in enumerate(("games", "wins0", "draws", "wins1")):
                sums[k] += row[column]
    OpeningNode.objects.bulk_create(
        (OpeningNode(game=k[0], variant=k[1], pool=k[2], line_hash=k[3], action=k[4],
                     ply=k[5], games=s[0], wins0=s[1], draws=s[2], wins1=s[3])
         for k, s in totals.items()), batch_size=5000)
    return lines, len(totals)


def main():
    args = parse_args()
    folder = scratch_database()
    teardown = setup()
    from django.db import connection
    from django.test import Client
    from django.test.utils import setup_test_environment

    setup_test_environment()
    try:
        rng = random.Random(args.seed)
        print(f"database: {connection.vendor} {connection.settings_dict['NAME']}")
        start = time.perf_counter()
        lines, nodes = fill(args.games, rng)
        print(f"counted {args.games} synthetic games into {nodes} node rows "
              f"in {time.perf_counter() - start:.1f} s")
        client = Client()
        for name, pool in sorted(lines):  # warm: imports, URL resolution, engine tables
            client.get(f"/explorer/{name}/node.json", {"pool": pool})
        keys = sorted(lines)
        timings, by_ply = [], defaultdict(list)
        for _ in range(args.requests):
            name, pool = rng.choice(keys)
            actions = rng.choice(lines[(name, pool)])
            ply = rng.randrange(len(actions) + 1)
            url = f"/explorer/{name}/node.json"
            params = {"pool": pool, "moves": ",".join(actions[:ply])}
            began = time.perf_counter()
            response = client.get(url, params)
            took = (time.perf_counter() - began) * 1000
            assert response.status_code == 200, response.content
            timings.append(took)
            by_ply[ply].append(took)
        timings.sort()
        p = lambda q: timings[min(len(timings) - 1, int(q * len(timings)))]  # noqa: E731
        print(f"node answer (JSON view, test client), {len(timings)} requests: "
              f"p50 {p(0.5):.2f} ms, p99 {p(0.99):.2f} ms, max {timings[-1]:.2f} ms")
        for ply in sorted(by_ply):
            print(f"  line of {ply:2} actions: median {statistics.median(by_ply[ply]):6.2f} ms "
                  f"({len(by_ply[ply])} requests)")
        from explorer import counts
        from explorer.models import OpeningNode
        plan = (OpeningNode.objects.filter(game="hadron", variant="size=5", pool="people",
                                           line_hash=counts.line_hash(()))
                .order_by("-games", "action").explain())
        print("query plan:", plan)
    finally:
        connection.close()
        teardown()
        if folder:
            for path in folder.iterdir():
                path.unlink()
            folder.rmdir()


if __name__ == "__main__":
    main()
