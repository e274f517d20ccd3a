"""The CPU a 500-player arena's turnover asks of a server's writer, piece by piece, in one
process on a throw-away SQLite database (CPU time: less at the mercy of a shared machine than
bench/arena_load.py's wall-clock latencies).

    python bench/arena_costs.py                       # this checkout
    python bench/arena_costs.py --site /path/to/old   # another checkout's code, to compare
    python bench/arena_costs.py --site /path/to/old --site . --repeat 3
        # side by side: each checkout in a process of its own, alternately, 3 times each,
        # then the median of each figure per checkout and their ratio (old / new)

An arena of 500 players and its first wave (bench/arena_setup.py's shape), every game ended
once (so each player has rating rows), then 4 rounds of: the 25 oldest games ended by their
first player's resignation (play.services.resign, the socket's door), and one pairing wave.
A wave is timed per writer transaction: the server's two halves where the checkout has them
(tournaments.services.plan on the aside thread, start_wave per slice on a writer), else the
one-call tick (one transaction on the aside thread, holding SQLite's one writer). Last, the
event page's standings (tournaments.standings.table, read once a second per event and process
while anyone watches). A game's end is also counted in SQL statements (BEGIN and COMMIT
included), as a check on what the CPU figure says. It prints figures, it is not a test.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--site", type=Path, action="append",
                        help="checkout to measure (this one by default); several: side by side")
    parser.add_argument("--rounds", type=int, default=4, help="ends + wave rounds (4)")
    parser.add_argument("--repeat", type=int, default=1,
                        help="runs per checkout, alternating, each in a process of its own")
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    sites = [site.resolve() for site in args.site or [HERE.parent]]
    if len(sites) > 1 or args.repeat > 1:
        return side_by_side(sites, args.rounds, args.repeat)
    measure(sites[0], args.rounds, args.json)


def side_by_side(sites, rounds, repeat):
    """Each site `repeat` times, alternating (so the machine's load falls on all alike), each
    run a process of its own (one checkout's code per interpreter); then medians and ratios."""
    runs = {site: [] for site in sites}
    for number in range(repeat):
        for site in sites:
            began = time.strftime("%H:%M:%S", time.gmtime())
            output = subprocess.run(
                [sys.executable, __file__, "--site", str(site), "--rounds", str(rounds),
                 "--json"], check=True, capture_output=True, text=True).stdout
            figures = json.loads(output.strip().splitlines()[-1])
            runs[site].append(figures)
            print(f"run {number + 1}, {began} UTC, {site}: " + ", ".join(
                f"{name} {value:g}" for name, value in figures.items()), flush=True)
    names = list(runs[sites[0]][0])
    medians = {site: {name: statistics.median(run[name] for run in runs[site])
                      for name in names} for site in sites}
    print(f"\nmedians of {repeat} run(s) each (CPU ms; statements per end)")
    print("| figure | " + " | ".join(str(site) for site in sites)
          + (f" | {sites[0].name} / {sites[-1].name} |" if len(sites) > 1 else " |"))
    print("|---" * (len(sites) + 1 + (len(sites) > 1)) + "|")
    for name in names:
        cells = [f"{medians[site][name]:.1f}" for site in sites]
        if len(sites) > 1:
            last = medians[sites[-1]][name]
            cells.append(f"{medians[sites[0]][name] / last:.2f}" if last else "-")
        print(f"| {name} | " + " | ".join(cells) + " |")


def measure(root, rounds, as_json):
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

    from django.db import connection
    statements = []

    def counted(execute, sql, params, many, context):
        statements[-1] += 1
        return execute(sql, params, many, context)

    def end_oldest(count):
        spent = []
        for game_id, player_id in (Pairing.objects.filter(ended_at__isnull=True)
                                   .order_by("created_at", "pk")
                                   .values_list("game_id", "game__player0_id")[:count]):
            statements.append(1)  # the COMMIT, which the wrapper does not see
            began = time.process_time()
            with connection.execute_wrapper(counted), Outbox():
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
    del statements[:]
    for _ in range(rounds):
        ends += end_oldest(25)
        waves.append(wave())
    began = time.process_time()
    rows = table(Tournament.objects.get(pk=arena.pk))
    standings = time.process_time() - began
    if as_json:
        starts = [spent for jobs in waves for what, spent in jobs if what in ("start", "tick")]
        plans = [spent for jobs in waves for what, spent in jobs if what == "plan"]
        print(json.dumps({
            "end median": 1000 * statistics.median(ends), "end max": 1000 * max(ends),
            "statements per end": statistics.median(statements),
            "wave on writers": 1000 * statistics.median(
                [sum(spent for what, spent in jobs if what != "plan") for jobs in waves]),
            "wave longest writer job": 1000 * statistics.median(
                [max(spent for what, spent in jobs if what != "plan") for jobs in waves]),
            "wave plan": 1000 * statistics.median(plans) if plans else 0.0,
            "standings": 1000 * standings}))
        return

    def ms(seconds):
        return f"{1000 * seconds:.1f}"

    print(f"{root}: CPU ms")
    print(f"  a game's end (resign, writer): median {ms(statistics.median(ends))}, "
          f"max {ms(max(ends))}; {statistics.median(statements):g} statements")
    for jobs in waves:
        starts = [spent for what, spent in jobs if what == "start"]
        text = ", ".join(f"{what} {ms(spent)}" for what, spent in jobs if what != "start")
        if starts:
            text += (f"; {len(starts)} start jobs (writer): median {ms(statistics.median(starts))}"
                     f", max {ms(max(starts))}, sum {ms(sum(starts))}")
        print(f"  a wave: {text}")
    print(f"  standings: {len(rows)} rows, {Pairing.objects.count()} pairings: "
          f"{ms(standings)}")


if __name__ == "__main__":
    main()
