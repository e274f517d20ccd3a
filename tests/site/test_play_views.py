"""The game page, its JSON snapshot, the startgame command and the news of a game."""
import json
from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

from play import services, sweeper
from play.clock import TimeControl
from play.models import Game

pytestmark = pytest.mark.django_db


def test_game_page_embeds_the_snapshot(client, alice, bob):
    game = services.start_game(game="hadron", options={}, players=(alice, bob),
                               time_control=TimeControl.realtime(5, 3))
    services.play(game.pk, alice, 0, "c3")
    client.force_login(bob)
    response = client.get(f"/game/{game.pk}/")
    assert response.status_code == 200
    assert [t.name for t in response.templates][0] == "play/game.html"
    assert response.context["game"] == game
    snapshot = response.context["snapshot"]
    assert snapshot["you"] == 1 and snapshot["actions"] == ["c3"]
    embedded = response.content.decode().split('<script id="snapshot" type="application/json">')[1]
    assert json.loads(embedded.split("</script>")[0])["id"] == game.pk


def test_unknown_game_is_404(client):
    assert client.get("/game/999999/").status_code == 404
    assert client.get("/game/999999/snapshot.json").status_code == 404
    assert client.get("/game/99999999999999999999999/").status_code == 404


def test_snapshot_json_for_an_anonymous_visitor(client, alice, bob):
    game = services.start_game(game="colorful", options={"size": 3}, players=(alice, bob),
                               time_control=TimeControl.correspondence(2))
    response = client.get(f"/game/{game.pk}/snapshot.json")
    assert response.status_code == 200
    data = response.json()
    assert data["you"] is None and data["game"] == "colorful"
    assert data["state"]["board"]["kind"] == "hex"
    assert data["clocks"]["deadline"] is not None
    assert client.post(f"/game/{game.pk}/snapshot.json").status_code == 405


def test_a_page_load_shows_the_flag_fallen_and_the_sweeper_ends_the_game(client, alice, bob):
    game = services.start_game(game="hadron", options={}, players=(alice, bob),
                               time_control=TimeControl.realtime(1, 0))
    services.play(game.pk, alice, 0, "c3")
    services.play(game.pk, bob, 1, "a1")
    Game.objects.filter(pk=game.pk).update(remaining1_ms=60_000, remaining0_ms=60_000,
                                           turn_started_at=timezone.now() - timedelta(minutes=2),
                                           expires_at=timezone.now() - timedelta(minutes=1))
    # A read never ends the game (live.lanes): it shows alice's flag down.
    data = client.get(f"/game/{game.pk}/snapshot.json").json()
    assert data["status"] == "active" and data["result"] is None
    assert data["clocks"]["remaining_ms"] == [0, 60_000] and data["clocks"]["running"] == 0
    assert Game.objects.get(pk=game.pk).is_active
    sweeper.sweep(timezone.now())
    data = client.get(f"/game/{game.pk}/snapshot.json").json()
    assert data["status"] == "finished"
    assert data["result"] == {"winner": 1, "reason": "time",
                              "text": "alice ran out of time — bob wins"}
    assert data["clocks"]["remaining_ms"] == [0, 60_000] and data["clocks"]["running"] is None


def test_startgame_command(alice, bob):
    out = StringIO()
    call_command("startgame", "tripen", "Alice", "bob", "--option", "size=9", "--time", "5+3",
                 stdout=out)
    game = Game.objects.get()
    assert out.getvalue().strip() == f"/game/{game.pk}/"
    assert game.options == {"size": 9} and game.players() == (alice, bob)
    assert game.time_control == TimeControl.realtime(5, 3)
    call_command("startgame", "hadron", "bob", "alice", "--days", "3", stdout=StringIO())
    assert Game.objects.order_by("-pk").first().time_control.text == "3 days per move"


@pytest.mark.parametrize("args, words", [
    (["hadron", "alice", "nobody"], "no player"),
    (["hadron", "alice", "bob", "--option", "size=6"], "size must be one of"),
    (["hadron", "alice", "bob", "--option", "size"], "name=value"),
    (["hadron", "alice", "bob", "--time", "5"], r"looks like 5\+3"),
    (["hadron", "alice", "bob", "--days", "20"], "1 to 14"),
    (["hadron", "alice", "alice"], "two different players"),
])
def test_startgame_command_errors(alice, bob, args, words):
    with pytest.raises(CommandError, match=words):
        call_command("startgame", *args, stdout=StringIO())


def test_the_games_group_follows_a_game(alice, bob, sent):
    with sent() as news:
        game = services.start_game(game="hadron", options={}, players=(alice, bob),
                                   time_control=TimeControl.untimed())
        services.play(game.pk, alice, 0, "c3")
        services.resign(game.pk, bob, 1)
        # Refused: no news.
        with pytest.raises(services.PlayError):
            services.play(game.pk, bob, 1, "a1")
    assert [message["event"] for group, message in news if group == "games"] == [
        "started", "action", "ended"]
    assert [message["type"] for group, message in news if group == f"game-{game.pk}"] == [
        "action", "end"]


def test_admin_lists_games_with_their_actions(admin_client, alice, bob):
    game = services.start_game(game="hadron", options={}, players=(alice, bob),
                               time_control=TimeControl.untimed())
    services.play(game.pk, alice, 0, "c3")
    assert admin_client.get("/admin/play/game/?status=active").status_code == 200
    page = admin_client.get(f"/admin/play/game/{game.pk}/change/")
    assert page.status_code == 200 and b"c3" in page.content
