"""The CPU a 500-player arena's turnover asks of a server's writer, piece by piece, in one
process on a throw-away SQLite database (CPU time: less at the mercy of a shared machine than
bench/arena_load.py's wall-clock latencies).

    python bench/arena_costs.py                       # this checkout
    python bench/arena_costs.py --site /path/to/old   # another checkout's code, to compare

An arena of 500 players and its first wave (bench/arena_setup.py's shape), every game ended
once (so each player has rating rows), then 4 rounds of: the 25 oldest games ended by their
first player's resignation (play.services.resign, the socket's door), and one pairing wave.
A wave is timed per writer transaction: the server's two halves where the checkout has them
(tournaments.services.plan on the aside thread, start_wave per slice on a writer), else the
one-call tick (one transaction on the aside thread, holding SQLite's one writer). Last, the
event page's standings (tournaments.standings.table, read once a second per event and process
while anyone watches). It prints figures, it is not a test.
"""
import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--site", type=Path, default=HERE.parent, help="checkout to measure")
    parser.add_argument("--rounds", type=int, default=4, help="ends + wave rounds (4)")
    args = parser.parse_args()
    root = args.site.resolve()
    sys.path[:0] = [str(HERE), str(root / "site"), str(root)]
    scratch = Path(tempfile.mkdtemp(prefix="tessera-arena-costs-"))
    os.environ.update(DATABASE_URL=f"sqlite:///{scratch / 'db.sqlite3'}",
                      SECRET_KEY="arena-costs-" + "0123456789abcdef" * 4,
                      ALLOWED_HOSTS="127.0.0.1", LOG_LEVEL="WARNING",
                      # The set-up is slow on a busy machine: no game may lapse meanwhile.
                      PLAY_FIRST_MOVE_SECONDS="36000")
    for name in ("REDIS_URL", "DEBUG"):
        os.environ.pop(name, None)
    from tessera_setup import create_players, setup_django
    setup_django()
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.db import transaction
    from django.utils import timezone

    from live.outbox import Outbox
    from play import services as play
    from play.clock import TimeControl
    from tournaments import services
    from tournaments.models import Entry, Pairing, Tournament
    from tournaments.standings import table

    call_command("migrate", "--noinput", verbosity=0)
    with transaction.atomic():
        users = [user for pair in create_players("c", 250) for user in pair]
        arena = services.create(None, name="Bench arena", kind="arena", game="hadron",
                                options={"size": 7}, time_control=TimeControl.realtime(3, 2),
                                rated=True, starts_at=timezone.now(), minutes=120)
        Entry.objects.bulk_create([Entry(tournament=arena, player=user) for user in users])
    with Outbox():
        services.tick()
    players = {user.pk: user for user in get_user_model().objects.all()}

    def end_oldest(count):
        spent = []
        for game_id, player_id in (Pairing.objects.filter(ended_at__isnull=True)
                                   .order_by("created_at", "pk")
                                   .values_list("game_id", "game__player0_id")[:count]):
            began = time.process_time()
            with Outbox():
                play.resign(game_id, players[player_id], 0)
            spent.append(time.process_time() - began)
        return spent

    def wave():
        """[(what, CPU seconds)] per transaction of one wave."""
        if not hasattr(services, "plan"):
            began = time.process_time()
            with Outbox():
                services.tick()
            return [("tick", time.process_time() - began)]
        began = time.process_time()
        planned = services.plan()
        jobs = [("plan", time.process_time() - began)]
        for tournament, pairs in services.slices(planned):
            began = time.process_time()
            with Outbox():
                services.start_wave(tournament, pairs)
            jobs.append(("start", time.process_time() - began))
        return jobs

    end_oldest(250)
    wave()
    ends, waves = [], []
    for _ in range(args.rounds):
        ends += end_oldest(25)
        waves.append(wave())

    def ms(seconds):
        return f"{1000 * seconds:.1f}"

    print(f"{root}: CPU ms")
    print(f"  a game's end (resign, writer): median {ms(statistics.median(ends))}, "
          f"max {ms(max(ends))}")
    for jobs in waves:
        starts = [spent for what, spent in jobs if what == "start"]
        text = ", ".join(f"{what} {ms(spent)}" for what, spent in jobs if what != "start")
        if starts:
            text += (f"; {len(starts)} start jobs (writer): median {ms(statistics.median(starts))}"
                     f", max {ms(max(starts))}, sum {ms(sum(starts))}")
        print(f"  a wave: {text}")
    began = time.process_time()
    rows = table(Tournament.objects.get(pk=arena.pk))
    print(f"  standings: {len(rows)} rows, {Pairing.objects.count()} pairings: "
          f"{ms(time.process_time() - began)}")


if __name__ == "__main__":
    main()
