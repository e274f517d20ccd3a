"""Vacations across a restart of a real Daphne: the site goes down while a correspondence
player is on vacation with their deadline long past; once it is back, its sweeper ends a game
whose deadline passed (the control) but not the one of the player away; their return gives
the turn the time it had when they left."""
import json
import time

from tests.ws.live_client import snapshot_json

PASSWORD = "vacation-daphne-pass-5519"

SETUP = """
from datetime import timedelta
from django.contrib.auth import get_user_model
from django.utils import timezone
from play import services, vacations
from play.models import Game
U = get_user_model()
now = timezone.now()
for game_id, first in (({away}, "vic"), ({control}, "cal")):
    services.play(game_id, U.objects.get(username=first), 0, "c3")
    game = Game.objects.get(pk=game_id)
    game.turn_started_at = now - timedelta(days=2)   # a day past its one-day deadline
    game.save(update_fields=["turn_started_at"])
vacations.start(U.objects.get(username="val"), now=now - timedelta(days=1, hours=12))
"""


def game_id_of(path):
    return int(path.strip("/").split("/")[-1])


def status_of(server, game_id):
    return server.shell("from play.models import Game\n"
                        f"print(Game.objects.get(pk={game_id}).status)").strip().splitlines()[-1]


def test_a_vacation_outlives_a_restart_and_the_sweeper_honours_it(site_servers):
    server = site_servers()
    server.create_users(["vic", "val", "cal", "cob"], PASSWORD)
    away = server.manage("startgame", "hadron", "vic", "val", "--days", "1").stdout.strip()
    control = server.manage("startgame", "hadron", "cal", "cob", "--days", "1").stdout.strip()
    server.stop()
    server.shell(SETUP.format(away=game_id_of(away), control=game_id_of(control)))
    server.start()
    # The control game's deadline passed a day ago: the sweeper ends it (both games were
    # due to it in the same pass), and leaves alone the game of the player away.
    waited = time.monotonic() + 30
    while status_of(server, game_id_of(control)) == "active" and time.monotonic() < waited:
        time.sleep(0.5)
    assert status_of(server, game_id_of(control)) == "aborted"  # cob never moved
    assert status_of(server, game_id_of(away)) == "active"
    clocks = snapshot_json(server, away)["clocks"]
    assert clocks["away"] == [False, True] and clocks["deadline"] is None
    # Back: the turn had used half a day of its one when val left; half a day is left.
    out = server.shell(
        "import json\nfrom django.contrib.auth import get_user_model\n"
        "from play import vacations\nfrom play.models import Game\n"
        "v = vacations.end(get_user_model().objects.get(username='val'))\n"
        f"g = Game.objects.get(pk={game_id_of(away)})\n"
        "print(json.dumps([(g.deadline - v.ended_at).total_seconds(), g.status]))")
    assert json.loads(out.strip().splitlines()[-1]) == [43200.0, "active"]
    assert snapshot_json(server, away)["clocks"]["away"] == [False, False]
