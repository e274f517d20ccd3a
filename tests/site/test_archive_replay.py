"""Positions for the replay viewer, exploration from any position, and exports (records in the
engine's text and JSON formats, SVG images), through Django's test client.

A visitor who never signed up uses all of these: no test here logs in.
"""
import json
import re

import pytest

import games
from archive import positions
from games import records
from play import services
from play.clock import TimeControl
from play import positions as live_positions
from play.models import Action
from tests.site.played import finished, play_out, start

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fresh_cache")]


@pytest.fixture
def hadron(alice, bob):
    return finished("hadron", (alice, bob), {"size": 5}, seed=11)


def engine_dict(game, ply, static=True):
    actions = game.action_list()[:ply]
    return game.engine.replay(game.options, actions).to_dict(static=static)


# -- positions --------------------------------------------------------------------------------

def test_position_at_every_ply_is_the_engines(client, hadron):
    for ply in range(hadron.ply_count + 1):
        response = client.get(f"/game/{hadron.pk}/position/{ply}.json")
        assert response.status_code == 200
        assert response["Content-Type"] == "application/json"
        assert response.json() == engine_dict(hadron, ply)
    assert response.json()["is_over"] and response.json()["ply"] == hadron.ply_count


def test_position_without_static_geometry(client, alice, bob):
    game = finished("tripen", (alice, bob), {"size": 5}, seed=3)
    ply = game.ply_count // 2
    full = client.get(f"/game/{game.pk}/position/{ply}.json").json()
    light = client.get(f"/game/{game.pk}/position/{ply}.json?static=0").json()
    assert "poses" in full["board"] and "cells" in full["board"]
    assert "poses" not in light["board"] and "viewbox" not in light["board"]
    assert light["board"]["tokens"] == full["board"]["tokens"]
    assert light == engine_dict(game, ply, static=False)


def test_positions_of_a_live_game_up_to_its_ply(client, alice, bob):
    game = start(alice, bob, "copolymer", {"size": 4})
    game = play_out(game, seed=2, stop_at=5)
    assert client.get(f"/game/{game.pk}/position/5.json").json() == engine_dict(game, 5)
    response = client.get(f"/game/{game.pk}/position/6.json")
    assert response.status_code == 404
    assert response.json()["error"] == "no_such_ply"


def test_bad_ply_and_unknown_game(client, hadron):
    beyond = hadron.ply_count + 1
    assert client.get(f"/game/{hadron.pk}/position/{beyond}.json").status_code == 404
    assert "plies 0 to" in client.get(f"/game/{hadron.pk}/position/{beyond}.json").json()["message"]
    assert client.get(f"/game/{hadron.pk}/position/-1.json").status_code == 404
    assert client.get(f"/game/{hadron.pk}/position/two.json").status_code == 404
    assert client.get("/game/999999/position/0.json").json()["error"] == "not_found"
    assert client.get(f"/game/{hadron.pk}/position/{beyond}.svg").status_code == 404
    assert client.get("/game/999999/position/0.svg").status_code == 404
    assert client.post(f"/game/{hadron.pk}/position/0.json").status_code == 405


def test_positions_are_cached(client, hadron, django_assert_max_num_queries):
    ply = hadron.ply_count - 3
    first = client.get(f"/game/{hadron.pk}/position/{ply}.json")
    positions.replay_states.clear()
    with django_assert_max_num_queries(1):  # the game row only: no actions read, no replay
        again = client.get(f"/game/{hadron.pk}/position/{ply}.json")
    assert again.content == first.content
    assert "max-age" in again["Cache-Control"]


def test_stepping_forward_plays_one_action_on_the_cached_state(hadron, django_assert_num_queries):
    live_positions.states.clear()  # play's cache kept every state as the game was played
    positions.state_at(hadron, 3)
    with django_assert_num_queries(1):  # the one action between ply 3 and ply 4
        state = positions.state_at(hadron, 4)
    assert list(state.actions) == hadron.action_list()[:4]


# -- exploring --------------------------------------------------------------------------------

def test_explore_a_line_from_a_middle_position(client, hadron):
    ply = 6
    base = games.get("hadron").replay(hadron.options, hadron.action_list()[:ply])
    line = []
    state = base
    for _ in range(3):
        action = sorted(state.legal_actions())[-1]
        line.append(action)
        state = state.play(action)
    before = Action.objects.count()
    response = client.get(f"/game/{hadron.pk}/explore.json", {"ply": ply, "moves": ",".join(line)})
    assert response.status_code == 200
    data = response.json()
    assert data == state.to_dict()
    assert data["actions"] == hadron.action_list()[:ply] + line
    assert Action.objects.count() == before  # nothing stored
    assert services.load(hadron.pk).ply_count == hadron.ply_count


def test_explore_with_no_moves_is_the_position(client, hadron):
    response = client.get(f"/game/{hadron.pk}/explore.json?ply=2&moves=")
    assert response.json() == engine_dict(hadron, 2)


def test_illegal_explored_move_gives_the_engines_reason(client, hadron):
    ply = 4
    base = games.get("hadron").replay(hadron.options, hadron.action_list()[:ply])
    taken = hadron.action_list()[0]  # a cell with a tile on it already
    first = base.legal_actions()[0]
    with pytest.raises(games.IllegalAction) as refusal:
        base.play(first).play(taken)
    response = client.get(f"/game/{hadron.pk}/explore.json?ply={ply}&moves={first},{taken}")
    assert response.status_code == 400
    data = response.json()
    assert data == {"error": "illegal", "message": str(refusal.value), "index": 1, "action": taken}
    nonsense = client.get(f"/game/{hadron.pk}/explore.json?ply={ply}&moves=zz99").json()
    assert nonsense["error"] == "illegal" and "zz99" in nonsense["message"]


def test_exploring_past_the_end_of_a_finished_game(client, hadron):
    response = client.get(f"/game/{hadron.pk}/explore.json",
                          {"ply": hadron.ply_count, "moves": "a1"})
    assert response.status_code == 400
    assert response.json()["message"] == "the game is over"


@pytest.mark.parametrize("query, field", [
    ("moves=c3", "ply"),
    ("ply=-1", "ply"),
    ("ply=many", "ply"),
    ("ply=999", "ply"),
    ("ply=0&moves=" + ",".join(["a1"] * (positions.MAX_EXPLORE + 1)), "moves"),
])
def test_bad_explore_requests_are_400_with_the_form_errors(client, hadron, query, field):
    response = client.get(f"/game/{hadron.pk}/explore.json?{query}")
    assert response.status_code == 400
    data = response.json()
    assert data["error"] == "bad_request" and field in data["fields"] and data["message"]


def test_explore_unknown_game(client):
    assert client.get("/game/999999/explore.json?ply=0").status_code == 404


# -- exports ----------------------------------------------------------------------------------

@pytest.mark.parametrize("name, options", [
    ("hadron", {"size": 5}), ("copolymer", {"size": 4}), ("colorful", {"size": 3}),
    ("colorful", {"board": "long", "size": 4}), ("tripen", {"size": 5}),
])
def test_exported_records_replay_to_the_stored_game(client, alice, bob, name, options):
    game = finished(name, (alice, bob), options, seed=21)
    final = game.state().to_dict()
    text = client.get(f"/game/{game.pk}/record.txt")
    assert text.status_code == 200
    assert text["Content-Type"] == "text/plain; charset=utf-8"
    assert text["Content-Disposition"] == f'attachment; filename="tessera-{game.pk}-{name}.txt"'
    from_text = records.parse(text.content.decode())
    assert list(from_text.actions) == game.action_list()
    assert from_text.state.to_dict() == final
    assert from_text.tags["Site"] == "Tessera"
    assert from_text.tags["Url"] == f"http://testserver/game/{game.pk}/"
    data = client.get(f"/game/{game.pk}/record.json")
    assert data["Content-Disposition"] == f'attachment; filename="tessera-{game.pk}-{name}.json"'
    from_json = records.parse(data.content.decode())
    assert from_json.state.to_dict() == final
    assert json.loads(data.content)["result"] == final["result"]


def test_record_names_players_by_side_after_a_tripen_swap(client, alice, bob):
    game = start(alice, bob, "tripen", {"size": 5})
    first = game.state().legal_actions()[0]
    services.play(game.pk, alice, 0, first)
    services.play(game.pk, bob, 1, "swap")
    game = play_out(services.load(game.pk), seed=4)
    assert game.swapped
    record = records.parse(client.get(f"/game/{game.pk}/record.txt").content.decode())
    # After the swap bob plays Red (side 0) and alice Blue.
    assert record.players == ("bob", "alice")
    assert record.state.to_dict() == game.state().to_dict()


def test_record_of_a_resigned_game_says_how_it_ended(client, alice, bob):
    game = finished("hadron", (alice, bob), {"size": 5}, seed=5, resign_at=6)
    text = client.get(f"/game/{game.pk}/record.txt").content.decode()
    assert '[Result "*"]' in text  # the engine's result: the position was not played out
    assert f'[Termination "{game.result_text}"]' in text
    assert records.parse(text).actions == tuple(game.action_list())


def test_record_of_a_live_game_so_far(client, alice, bob):
    game = play_out(start(alice, bob, tc=TimeControl.realtime(5, 3)), stop_at=4)
    text = client.get(f"/game/{game.pk}/record.txt").content.decode()
    assert '[TimeControl "5+3"]' in text and "Termination" not in text
    assert len(records.parse(text).actions) == 4


def test_position_image_export(client, hadron):
    ply = 5
    response = client.get(f"/game/{hadron.pk}/position/{ply}.svg")
    assert response.status_code == 200
    assert response["Content-Type"] == "image/svg+xml; charset=utf-8"
    assert response["Content-Disposition"] == (
        f'attachment; filename="tessera-{hadron.pk}-hadron-ply{ply}.svg"')
    text = response.content.decode()
    assert text.startswith('<svg xmlns="http://www.w3.org/2000/svg"')
    # Standalone: its own style with the colours written out, light and dark.
    style = re.search(r"<style>(.*?)</style>", text, re.S).group(1)
    assert "#d64545" in style and "prefers-color-scheme:dark" in style and "var(" not in style
    tiles = re.findall(r'class="tile side-([01])"', text)
    cells = engine_dict(hadron, ply)["board"]["cells"]
    owners = [cell["owner"] for cell in cells if cell["owner"] is not None]
    assert sorted(map(int, tiles)) == sorted(owners) and len(tiles) == ply
    assert '<text class="label"' in text  # the export keeps the coordinates


def test_unknown_game_exports_are_404(client):
    for path in ("record.txt", "record.json", "position/0.svg"):
        assert client.get(f"/game/999999/{path}").status_code == 404


def test_the_game_page_mounts_the_replay_viewer(client, hadron):
    html = client.get(f"/game/{hadron.pk}/?ply=3").content.decode()
    assert '<div id="replay"></div>' in html
    assert "/static/css/game.css" in html
    style = client.get("/static/css/game.css")
    assert b".replay-bar" in b"".join(style.streaming_content)
    def source(path):
        script = client.get(path)
        return b"".join(script.streaming_content) if script.streaming else script.content

    # The replay bar comes with the panels, which the page imports once its board is drawn.
    assert b'import("./game/panels.js")' in source("/static/js/game.js")
    assert b'export { createReplay } from "../replay.js"' in source("/static/js/game/panels.js")
