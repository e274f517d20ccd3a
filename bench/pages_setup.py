"""A site to serve pages from, for bench/pages_load.py: finished games, games in progress for
Watch, and optionally many archived games.

    python bench/pages_setup.py PLAN.json RESULT.json     # with the server's environment

Run with the environment of the Tessera server to be measured (DATABASE_URL, SECRET_KEY, ...)
and that checkout's site/ on PYTHONPATH, like bench/tessera_setup.py. PLAN.json:

    {"finished": 43, "live": 25, "archived": 0, "playing": 0}

`finished` games are played to their end through play's services with random legal moves (so
their records, ratings and explorer counts are the ones real games leave), cycling through the
four games; `live` games are left a few moves in (Watch lists them); `archived` more finished
games are written in bulk (rows only, no moves, finished before the played ones, as
bench/archive_query.py makes them), so the Archive's query runs over that many games while its
first page shows the played ones; `playing` more games in progress are written the same way
(rows at their first position, no moves, started and saved now: within the liveliness
window, and the newest of Watch's list), for Watch's ranking on a big site. RESULT.json:

    {"finished": [id, ...], "live": [id, ...], "players": [username, ...]}
"""
import json
import os
import random
import sys
from datetime import timedelta

import django

KINDS = [("hadron", {"size": 7}), ("copolymer", {"size": 5}), ("colorful", {"size": 4}),
         ("tripen", {"size": 7})]
PLAYERS = 10


def setup_django():
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tessera.settings")
    django.setup()


def players():
    from django.contrib.auth import get_user_model
    User = get_user_model()
    made = []
    for k in range(PLAYERS):
        user, _ = User.objects.get_or_create(username=f"pages{k}")
        made.append(user)
    return made


def play(game, rng, stop_at=None):
    """Random legal actions for whoever is to move, through play's services, until the game
    ends (or has `stop_at` actions)."""
    from play import services
    while True:
        game = services.load(game.pk)
        state = game.state()
        if state.is_over or (stop_at is not None and state.ply >= stop_at):
            return game
        mover = game.players()[game.player_of(state.to_move)]
        services.play(game.pk, mover, state.ply, rng.choice(state.legal_actions()))


def start(rng, people, k):
    from play import services
    from play.clock import TimeControl
    name, options = KINDS[k % len(KINDS)]
    first, second = rng.sample(people, 2)
    return services.start_game(game=name, options=options, players=(first, second),
                               time_control=TimeControl.untimed())


def archived(count, people, rng):
    """`count` finished games as rows only, finished before any played game."""
    from django.utils import timezone
    from play.models import Game
    oldest = Game.objects.order_by("created_at").values_list("created_at", flat=True).first()
    before = oldest or timezone.now()
    rows = []
    for _ in range(count):
        name, options = KINDS[rng.randrange(len(KINDS))]
        first, second = rng.sample(people, 2)
        finished = before - timedelta(seconds=rng.randrange(60, 2 * 365 * 86400))
        winner = rng.randrange(2)
        rows.append(Game(game=name, options=options, player0_id=first.pk, player1_id=second.pk,
                         status=Game.FINISHED, winner=winner, reason="resign",
                         result_text=f"player {winner} wins", ply_count=rng.randrange(8, 60),
                         finished_at=finished, created_at=finished - timedelta(minutes=30)))
        if len(rows) == 5000:
            Game.objects.bulk_create(rows)
            rows = []
    Game.objects.bulk_create(rows)


def playing(count, people, rng):
    """`count` games in progress as rows only: no moves yet, started and saved now."""
    from play.clock import TimeControl
    from play.models import Game
    untimed = TimeControl.untimed()
    rows = []
    for _ in range(count):
        name, options = KINDS[rng.randrange(len(KINDS))]
        first, second = rng.sample(people, 2)
        rows.append(Game(game=name, options=options, player0_id=first.pk, player1_id=second.pk,
                         status=Game.ACTIVE, time_kind=untimed.kind, ply_count=0))
        if len(rows) == 5000:
            Game.objects.bulk_create(rows)
            rows = []
    Game.objects.bulk_create(rows)


def main(plan_path, result_path):
    setup_django()
    plan = json.loads(open(plan_path).read())
    rng = random.Random(plan.get("seed", 29))
    people = players()
    if plan.get("archived"):
        archived(plan["archived"], people, rng)
    if plan.get("playing"):
        playing(plan["playing"], people, rng)
    finished = [play(start(rng, people, k), rng).pk for k in range(plan.get("finished", 43))]
    live = [play(start(rng, people, k), rng, stop_at=rng.randrange(2, 8)).pk
            for k in range(plan.get("live", 25))]
    with open(result_path, "w") as out:
        json.dump({"finished": finished, "live": live,
                   "players": [p.username for p in people]}, out)


if __name__ == "__main__":
    main(*sys.argv[1:3])
