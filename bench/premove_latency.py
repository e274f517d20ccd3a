"""Benchmark: from the opponent's action stored to the premove stored (play.premoves), in the
server, at 200 realtime Hadron games moving once a second each.

    python bench/premove_latency.py                  # SQLite scratch file, in-memory layer
    python bench/premove_latency.py --games 50 --rounds 5
    DATABASE_URL=postgres://user:pw@host/tessera REDIS_URL=redis://host:6379/0 \
        python bench/premove_latency.py --backend postgres
        # PostgreSQL + Redis, as a site of several processes runs: makes (and drops) a scratch
        # database tessera_premove_bench_<pid>; the news goes through the Redis channel layer

Each round, every game has its waiting player queue a premove (a random cell legal now), then
its player to move moves through play.services.play, as the socket's lane job runs it; the
rounds are paced to one per second (200 games: 200 moves a second). A premove is played in the
transaction that stores the opponent's action, so the figure is the time from the opponent's
action rows sent to the database to the premove's, both inside that transaction (timestamps
taken around play.statements' store calls); the whole job (lock, both actions, commit) is
printed too, beside the same job for a move with no premove queued, and the job with its
news delivered to the channel layer afterwards (as the lane's event loop does; through Redis
with --backend postgres). It prints figures; it is not a test.
"""
import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "site")]
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tessera.settings")
# Starting 200 games on a loaded machine can take longer than the first move's 30 s limit,
# which would abort the last ones before their first round.
os.environ.setdefault("PLAY_FIRST_MOVE_SECONDS", "3600")
os.environ.setdefault("SECRET_KEY", "premove-benchmark-only-key-never-used-by-any-real-site-0123456789")


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=8, help="moves with a premove per game")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--backend", choices=("sqlite", "postgres"), default="sqlite",
                        help="sqlite: a scratch file and the in-memory channel layer; postgres: "
                             "DATABASE_URL's server and REDIS_URL's channel layer (both needed)")
    args = parser.parse_args()
    if args.backend == "sqlite":
        # Whatever the shell has set: the SQLite figures are of a one-process site.
        os.environ.pop("DATABASE_URL", None)
        os.environ.pop("REDIS_URL", None)
    elif not (os.environ.get("DATABASE_URL", "").startswith("postgres")
              and os.environ.get("REDIS_URL")):
        parser.error("--backend postgres needs DATABASE_URL=postgres://... and REDIS_URL")
    return args


def setup():
    import django
    from django.core.management import call_command
    from django.db import connection

    if not os.environ.get("DATABASE_URL"):
        folder = tempfile.mkdtemp(prefix="tessera-premove-bench-")
        os.environ["DATABASE_URL"] = f"sqlite:///{folder}/bench.sqlite3"
    django.setup()
    if connection.vendor == "sqlite":
        call_command("migrate", verbosity=0, interactive=False)
        return lambda: None
    old_name = connection.settings_dict["NAME"]
    connection.settings_dict["TEST"]["NAME"] = f"tessera_premove_bench_{os.getpid()}"
    connection.creation.create_test_db(verbosity=0, autoclobber=True)
    return lambda: connection.creation.destroy_test_db(old_name, verbosity=0)


def percentile(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def line(name, values):
    if not values:
        return f"{name:<44} (none)"
    ms = [v * 1000 for v in values]
    return (f"{name:<44} n={len(ms):<5} p50={statistics.median(ms):7.3f} ms  "
            f"p99={percentile(ms, 99):7.3f} ms  max={max(ms):7.3f} ms")


def main():
    args = parse_args()
    teardown = setup()
    from django.contrib.auth import get_user_model
    from django.db import connection

    from asgiref.sync import async_to_sync
    from channels.layers import get_channel_layer

    from live.outbox import Outbox
    from play import premoves, services, statements
    from play.clock import TimeControl
    from play.models import Game

    rng = random.Random(args.seed)
    stamps = []
    for name in ("store_move", "insert_action"):
        original = getattr(statements, name)

        def stamped(*a, _original=original, **k):
            result = _original(*a, **k)
            stamps.append(time.perf_counter())
            return result
        setattr(statements, name, stamped)
    # services and premoves call them through the module: patched above.

    User = get_user_model()
    users = User.objects.bulk_create(
        [User(username=f"pm{i}") for i in range(2 * args.games)])
    games = [services.start_game(game="hadron", options={"size": 9},
                                 players=(users[2 * i], users[2 * i + 1]),
                                 time_control=TimeControl.realtime(60, 0))
             for i in range(args.games)]
    gap, job_with, job_without, delivered, dropped = [], [], [], [], 0
    try:
        for round_number in range(2 * args.rounds):
            with_premove = round_number % 2 == 0
            started = time.perf_counter()
            for record in games:
                game = Game.objects.get(pk=record.pk)
                state = game.state()
                if state.is_over:
                    continue
                mover = game.player_of(state.to_move)
                waiting = (game.player0, game.player1)[1 - mover]
                moving = (game.player0, game.player1)[mover]
                if with_premove:
                    premoves.queue(game.pk, waiting, game.ply_count,
                                   [rng.choice(state.legal_actions())])
                action = rng.choice(state.legal_actions())
                del stamps[:]
                begin = time.perf_counter()
                # As a lane job runs it (live.lanes): news queued in an outbox, which the
                # event loop sends afterwards (to groups nobody listens to here).
                with Outbox() as outbox:
                    services.play(game.pk, moving, game.ply_count, action)
                took = time.perf_counter() - begin
                async_to_sync(outbox.deliver)()
                if not with_premove:
                    job_without.append(took)
                elif len(stamps) >= 2:
                    job_with.append(took)
                    gap.append(stamps[1] - stamps[0])
                    delivered.append(time.perf_counter() - begin)
                else:
                    dropped += 1
            # One move a second per game.
            time.sleep(max(0.0, 1.0 - (time.perf_counter() - started)))
        print(f"premove latency, {args.games} Hadron 9x9 games, one move per game per second, "
              f"{connection.vendor}, channel layer {type(get_channel_layer()).__name__}; "
              f"premoves dropped as illegal: {dropped}")
        print(line("opponent's action stored -> premove stored", gap))
        print(line("job: move + premove played (one transaction)", job_with))
        print(line("job: move, nobody premoved", job_without))
        print(line("job with premove + its news delivered", delivered))
    finally:
        teardown()


if __name__ == "__main__":
    main()
