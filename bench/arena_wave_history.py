"""The CPU of working out one arena wave (tournaments.services.wave_pairs, the plan's read and
pairing) in an arena with a long history, against the old way kept here as the base (every
pairing the event has had read to find who is busy, each entry's last opponent and its side
balance), on the same throw-away SQLite database, alternately, in one process.

    python bench/arena_wave_history.py                    # 500 players, 29,000 pairings
    python bench/arena_wave_history.py --pairings 5000 --repeat 20

The history: random pairs of the 500 entries, all ended but the last 200 (400 players busy,
100 free); the entries' kept fields filled by migration 0008's own function. Both ways must
give the same wave. It prints figures; it is not a test.
"""
import argparse
import importlib
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=500)
    parser.add_argument("--pairings", type=int, default=29000)
    parser.add_argument("--in-play", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=10)
    args = parser.parse_args()
    sys.path[:0] = [str(HERE), str(ROOT / "site"), str(ROOT)]
    scratch = Path(tempfile.mkdtemp(prefix="tessera-wave-history-"))
    os.environ.update(DATABASE_URL=f"sqlite:///{scratch / 'db.sqlite3'}",
                      SECRET_KEY="wave-history-" + "0123456789abcdef" * 4,
                      ALLOWED_HOSTS="127.0.0.1", LOG_LEVEL="WARNING")
    for name in ("REDIS_URL", "DEBUG"):
        os.environ.pop(name, None)
    from tessera_setup import create_players, setup_django
    setup_django()
    from django.apps import apps
    from django.core.management import call_command
    from django.db import transaction
    from django.utils import timezone
    from play.clock import TimeControl
    from play.models import Game
    from tournaments import services
    # The wave as it was, from every pairing: the test's reference is the base here too.
    from tests.tournaments.test_arena_wave_history import (
        wave_from_every_pairing as every_pairing)
    from tournaments.models import Entry, Pairing

    call_command("migrate", "--noinput", verbosity=0)
    rng = random.Random(23)
    with transaction.atomic():
        users = [user for pair in create_players("w", args.players // 2) for user in pair]
        arena = services.create(None, name="Bench arena", kind="arena", game="hadron",
                                options={"size": 7}, time_control=TimeControl.realtime(3, 2),
                                rated=True, starts_at=timezone.now(), minutes=120)
        Entry.objects.bulk_create([Entry(tournament=arena, player=user) for user in users])
        entries = list(arena.entries.values_list("pk", "player_id"))
        pairs = [rng.sample(entries, 2) for _ in range(args.pairings - args.in_play)]
        in_play = rng.sample(entries, 2 * args.in_play)
        pairs += [in_play[at:at + 2] for at in range(0, len(in_play), 2)]
        games = Game.objects.bulk_create(
            [Game(game="hadron", options={"size": 7}, player0_id=a[1], player1_id=b[1],
                  status=Game.FINISHED) for a, b in pairs], batch_size=1000)
        now = timezone.now()
        ended = len(pairs) - args.in_play
        Pairing.objects.bulk_create(
            [Pairing(tournament=arena, game=game, first_id=a[0], second_id=b[0],
                     result=1.0 if number < ended else None,
                     ended_at=now if number < ended else None)
             for number, (game, (a, b)) in enumerate(zip(games, pairs))], batch_size=1000)
        importlib.import_module("tournaments.migrations.0008_entry_last_opponent") \
            .from_pairings(apps, None)
    assert services.wave_pairs(arena) == every_pairing(arena)
    times = {"every pairing (base)": [], "kept on the entries": []}
    for _ in range(args.repeat):
        for (label, spent), wave in zip(times.items(), (every_pairing, services.wave_pairs)):
            began = time.process_time()
            wave(arena)
            spent.append(time.process_time() - began)
    load = os.getloadavg()[0]
    print(f"{time.strftime('%Y-%m-%d %H:%M', time.gmtime())} UTC, load {load:.1f}; "
          f"{args.players} players, {args.pairings} pairings, {args.in_play} in play, "
          f"{len(services.wave_pairs(arena))} pairs a wave")
    print("| wave_pairs read | median CPU ms | max |\n|---|---|---|")
    for label, spent in times.items():
        print(f"| {label} | {statistics.median(spent) * 1000:.1f} | {max(spent) * 1000:.1f} |")


if __name__ == "__main__":
    main()
