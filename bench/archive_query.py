"""Benchmark of the Archive query on many finished games, with and without the indexes.

    python bench/archive_query.py                 # 100,000 games in a scratch SQLite file
    python bench/archive_query.py --games 20000   # fewer
    DATABASE_URL=postgres://user:pw@host/tessera python bench/archive_query.py
        # PostgreSQL: makes (and drops) a scratch database tessera_archive_bench_<pid>

It creates the games with bulk_create (random games, sizes, players, results and dates over
two years), then times what the Archive page runs for typical searches (the count and one
page of 25, through archive.queries.page_of, exactly as the view does), first with play's
indexes, then with every secondary index of play_game dropped, and prints the query plans.
It prints figures; it is not a test.
"""
import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "site")]
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tessera.settings")
os.environ.setdefault("SECRET_KEY", "archive-benchmark-only-key-never-used-by-any-real-site-0123456789")

PLAYERS = 2000
BATCH = 5000
WEIGHTS = {"copolymer": 3, "hadron": 3, "tripen": 2, "colorful": 2}


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=15, help="timed runs per query")
    parser.add_argument("--seed", type=int, default=1)
    return parser.parse_args()


def scratch_database():
    """SQLite unless DATABASE_URL says otherwise: a temporary file, removed at the end."""
    if os.environ.get("DATABASE_URL"):
        return None
    folder = tempfile.mkdtemp(prefix="tessera-archive-bench-")
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
    # A server database: never write into the named one; a scratch database of our own,
    # named so that no test run's test_<name> database is touched.
    old_name = connection.settings_dict["NAME"]
    connection.settings_dict["TEST"]["NAME"] = f"tessera_archive_bench_{os.getpid()}"
    connection.creation.create_test_db(verbosity=0, autoclobber=True)
    return lambda: connection.creation.destroy_test_db(old_name, verbosity=0)


def make_players():
    from django.contrib.auth import get_user_model

    User = get_user_model()
    User.objects.bulk_create(
        [User(username=f"player{k:04d}", password="!") for k in range(PLAYERS)], batch_size=BATCH)
    return list(User.objects.order_by("id").values_list("id", flat=True))


def random_options(rng, name):
    import games

    engine = games.get(name)
    while True:
        choices = engine.option_choices()
        options = {key: rng.choice(values) for key, values in choices.items()}
        try:
            return engine.normalize_options(**options)
        except ValueError:
            continue  # e.g. a long Colorful board of size 7


def make_games(count, players, rng):
    from django.utils import timezone
    from play.models import Game

    names = list(WEIGHTS)
    weights = [WEIGHTS[n] for n in names]
    now = timezone.now()
    rows = []
    for _ in range(count):
        name = rng.choices(names, weights)[0]
        first, second = rng.sample(players, 2)
        finished = now - timedelta(seconds=rng.randrange(2 * 365 * 86400))
        winner = None if name == "colorful" and rng.random() < 0.03 else rng.randrange(2)
        reason = rng.choices(["normal", "resign", "time"], [70, 20, 10])[0]
        rows.append(Game(
            game=name, options=random_options(rng, name), player0_id=first, player1_id=second,
            status=Game.FINISHED, winner=winner, reason=reason,
            result_text="draw" if winner is None else f"player {winner} wins",
            ply_count=rng.randrange(8, 160), finished_at=finished,
            created_at=finished - timedelta(minutes=rng.randrange(5, 300)),
        ))
        if len(rows) == BATCH:
            Game.objects.bulk_create(rows)
            rows = []
    Game.objects.bulk_create(rows)


def searches(players):
    """Typical Archive searches: (label, filters, page number)."""
    from datetime import date

    from django.contrib.auth import get_user_model
    from django.utils import timezone

    busy = get_user_model().objects.get(pk=players[len(players) // 2])
    today = timezone.now().date()
    return [
        ("no filter, page 1", {}, 1),
        ("player", {"player": busy}, 1),
        ("player + won", {"player": busy, "result": "won"}, 1),
        ("game", {"game": "tripen"}, 1),
        ("game + size", {"game": "hadron", "size": 7}, 1),
        ("colorful long board", {"variant": "long"}, 1),
        ("date range (one month)", {"date_from": today - timedelta(days=200),
                                    "date_to": today - timedelta(days=170)}, 1),
        ("game + date range", {"game": "copolymer", "date_from": date(today.year - 1, 1, 1),
                               "date_to": date(today.year - 1, 3, 31)}, 1),
        ("size only", {"size": 5}, 1),
        ("colorful long board, size 5", {"game": "colorful", "variant": "long", "size": 5}, 1),
        ("resignations, page 1", {"reason": "resign"}, 1),
        ("no filter, page 2000 (deep)", {}, 2000),
    ]


def time_search(filters, number, repeat):
    from django.db import connection, reset_queries

    from archive.queries import page_of

    times = []
    for _ in range(repeat):
        reset_queries()
        start = time.perf_counter()
        page = page_of(filters, number)
        list(page.object_list)
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000, page.paginator.count, len(connection.queries)


def plan(filters, number):
    from archive.queries import PER_PAGE, matching

    ids = matching(filters).values_list("id", flat=True)
    offset = (number - 1) * PER_PAGE
    return ids[offset:offset + PER_PAGE].explain()


def run(label, cases, repeat, show_plans):
    from django.conf import settings

    settings.DEBUG = True  # count the queries each page takes
    print(f"\n== {label}")
    print(f"{'search':34} {'ms (median)':>12} {'matches':>9} {'queries':>8}")
    results = {}
    for name, filters, number in cases:
        ms, count, queries = time_search(filters, number, repeat)
        results[name] = ms
        print(f"{name:34} {ms:12.2f} {count:9d} {queries:8d}")
    if show_plans:
        for name, filters, number in cases:
            print(f"\n-- plan of the page query: {name}")
            print(plan(filters, number))
    return results


def secondary_indexes():
    """(name, CREATE statement) of every secondary index of play_game."""
    from django.db import connection

    with connection.cursor() as cursor:
        if connection.vendor == "sqlite":
            cursor.execute("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND "
                           "tbl_name = 'play_game' AND sql IS NOT NULL")
        else:
            cursor.execute("SELECT indexname, indexdef FROM pg_indexes WHERE tablename = "
                           "'play_game' AND indexname NOT IN (SELECT conname FROM pg_constraint)")
        return cursor.fetchall()


def execute(*statements):
    from django.db import connection

    with connection.cursor() as cursor:
        for statement in statements:
            cursor.execute(statement)
        if connection.vendor == "sqlite":
            cursor.execute("ANALYZE")
        else:
            cursor.execute("ANALYZE play_game")


def main():
    args = parse_args()
    folder = scratch_database()
    teardown = setup()
    from django.db import connection

    try:
        rng = random.Random(args.seed)
        print(f"database: {connection.vendor} {connection.settings_dict['NAME']}")
        start = time.perf_counter()
        players = make_players()
        make_games(args.games, players, rng)
        execute()
        print(f"created {PLAYERS} players and {args.games} finished games "
              f"in {time.perf_counter() - start:.1f} s")
        indexes = secondary_indexes()
        print("indexes of play_game: " + ", ".join(name for name, _ in indexes))
        cases = searches(players)
        with_indexes = run("with the indexes", cases, args.repeat, show_plans=True)
        execute(*(f'DROP INDEX "{name}"' for name, _ in indexes))
        without = run("without secondary indexes on play_game", cases,
                      max(3, args.repeat // 5), show_plans=False)
        execute(*(sql for _, sql in indexes))
        print(f"\n{'search':34} {'indexed ms':>11} {'no index ms':>12} {'speed-up':>9}")
        for name, _, _ in cases:
            ratio = without[name] / with_indexes[name] if with_indexes[name] else float("inf")
            print(f"{name:34} {with_indexes[name]:11.2f} {without[name]:12.2f} {ratio:8.1f}x")
    finally:
        connection.close()
        teardown()
        if folder:
            for path in folder.iterdir():
                path.unlink()
            folder.rmdir()


if __name__ == "__main__":
    main()
