"""The opening explorer (issue 24): counts kept when a game ends, through play's one ending
path, in the pool of rated games between people or of games with the computer; nothing for a
game with no result; a takeback before the end changes nothing; bad requests refused."""
import pytest
from django.core.management import call_command
from django.urls import reverse

import games
from bots import accounts
from explorer import counts
from explorer.models import OpeningNode
from play import services, takeback
from play.clock import TimeControl
from tests.site.played import play_out, start

pytestmark = pytest.mark.django_db


def rated(first, second, options=None):
    return services.start_game(game="hadron", options=options or {"size": 5},
                               players=(first, second),
                               time_control=TimeControl.untimed(), rated=True)


def play(game, *actions):
    for action in actions:
        game = services.load(game.pk)
        mover = game.players()[game.player_of(game.state().to_move)]
        services.play(game.pk, mover, game.ply_count, action)
    return services.load(game.pk)


def node(client, moves="", pool="people", **options):
    params = {"size": 5, "pool": pool, **options}
    if moves:
        params["moves"] = moves
    return client.get(reverse("explorer:node_json", args=["hadron"]), params)


def table(client, moves="", pool="people"):
    response = node(client, moves, pool)
    assert response.status_code == 200
    return {row["action"]: (row["games"], row["wins"], row["draws"])
            for row in response.json()["next"]}


def test_a_rated_game_between_people_is_counted_when_it_ends(client, alice, bob):
    game = play(rated(alice, bob), "c3", "b2", "a1")
    assert OpeningNode.objects.count() == 0  # nothing while it goes on
    services.resign(game.pk, bob, game.ply_count)  # bob (side 1) resigns: side 0 wins
    assert table(client) == {"c3": (1, [1, 0], 0)}
    assert table(client, "c3") == {"b2": (1, [1, 0], 0)}
    assert table(client, "c3,b2") == {"a1": (1, [1, 0], 0)}
    assert table(client, "c3,b2,a1") == {}
    assert table(client, pool="computer") == {}
    # A second game adds to the same nodes, with its own result.
    second = play(rated(bob, alice), "c3", "a1")
    services.resign(second.pk, bob, second.ply_count)  # bob moved first: side 1 wins
    assert table(client) == {"c3": (2, [1, 1], 0)}
    assert table(client, "c3") == {"b2": (1, [1, 0], 0), "a1": (1, [0, 1], 0)}


def test_a_game_played_out_counts_only_its_first_actions(client, alice, bob):
    game = play_out(rated(alice, bob), seed=3)
    assert not game.is_active and game.ply_count > counts.DEPTH
    assert OpeningNode.objects.filter(games=1).count() == counts.DEPTH
    side = game.side_of(game.winner)
    line = game.state().actions
    assert table(client, ",".join(line[:5])) == {line[5]: (1, [int(side == 0), int(side == 1)],
                                                           0)}
    deep = node(client, ",".join(line[:counts.DEPTH])).json()
    assert deep["next"] == [] and deep["depth"] == counts.DEPTH


def test_aborted_and_casual_games_count_nothing(alice, bob, carol):
    aborted = play(rated(alice, bob), "c3")
    services.abort(aborted.pk, bob, aborted.ply_count)
    assert services.load(aborted.pk).status == "aborted"
    casual = play(start(alice, carol, "hadron", {"size": 5}), "c3", "b2")
    services.resign(casual.pk, alice, casual.ply_count)
    assert OpeningNode.objects.count() == 0


def test_a_takeback_before_the_end_changes_nothing(client, alice, bob):
    game = play(rated(alice, bob), "c3", "b2")
    # bob takes back his b2 and plays a1 instead
    assert takeback.propose(game.pk, bob, game.ply_count) == []
    assert takeback.accept(game.pk, alice, game.ply_count) == []
    assert services.load(game.pk).ply_count == 1
    game = play(game, "a1")
    services.resign(game.pk, alice, game.ply_count)
    assert table(client, "c3") == {"a1": (1, [0, 1], 0)}
    assert OpeningNode.objects.filter(action="b2").count() == 0


def test_games_with_the_computer_count_in_their_own_pool(client, alice):
    """A person against a computer: the `computer` pool, not the people's."""
    computer = accounts.bot_for(1)
    game = play(start(alice, computer, "hadron", {"size": 5}), "c3")
    services.resign(game.pk, alice, services.load(game.pk).ply_count)
    assert table(client, pool="computer") == {"c3": (1, [0, 1], 0)}
    assert table(client) == {}
    # The computers' exhibition (two computers) is no one's game: counted nowhere.
    exhibition = play(start(accounts.bot_for(2), accounts.bot_for(3), "hadron", {"size": 5}),
                      "a1")
    services.resign(exhibition.pk, accounts.bot_for(3), exhibition.ply_count)
    assert services.load(exhibition.pk).has_result
    assert table(client, pool="computer") == {"c3": (1, [0, 1], 0)}


def test_the_rebuild_command_recounts_the_archive_idempotently(client, alice, bob):
    game = play(rated(alice, bob), "c3", "b2")
    services.resign(game.pk, bob, game.ply_count)
    aborted = play(rated(alice, bob), "a1")
    services.abort(aborted.pk, bob, aborted.ply_count)
    kept = sorted(OpeningNode.objects.values_list("line_hash", "action", "games", "wins0"))
    OpeningNode.objects.all().delete()
    call_command("rebuild_explorer", stdout=open("/dev/null", "w"))
    assert sorted(OpeningNode.objects.values_list("line_hash", "action", "games",
                                                  "wins0")) == kept
    call_command("rebuild_explorer", stdout=open("/dev/null", "w"))
    assert table(client) == {"c3": (1, [1, 0], 0)}


def test_bad_requests_get_a_clear_400_and_unknown_games_404(client):
    illegal = node(client, "c3,c3")
    assert illegal.status_code == 400
    assert illegal.json()["index"] == 1 and "c3" in illegal.json()["message"]
    assert node(client, "zz9").status_code == 400
    size = node(client, size=6)
    assert size.status_code == 400 and "size" in size.json()["message"]
    assert node(client, pool="robots").status_code == 400
    too_long = node(client, ",".join(["a1"] * (counts.DEPTH + 1)))
    assert too_long.status_code == 400 and str(counts.DEPTH) in too_long.json()["message"]
    assert client.get("/explorer/chess/node.json").status_code == 404
    assert client.get("/explorer/chess/").status_code == 404
    page = client.get(reverse("explorer:node", args=["hadron"]), {"moves": "c3,c3"})
    assert page.status_code == 400 and b"illegal" in page.content


def test_the_page_shows_the_position_and_links_each_next_move(client, alice, bob):
    game = play(rated(alice, bob), "c3", "b2")
    services.resign(game.pk, bob, game.ply_count)
    page = client.get(reverse("explorer:node", args=["hadron"]), {"size": 5, "moves": "c3"})
    assert page.status_code == 200
    text = page.content.decode()
    assert "<svg" in text and "?size=5&amp;pool=people&amp;moves=c3%2Cb2" in text
    assert "100.0%" in text
    assert client.get(reverse("explorer:index")).status_code == 200


# -- the analysis board --------------------------------------------------------------------------

def test_the_analysis_board_shows_a_line_given_in_its_address(client):
    url = reverse("explorer:analysis", args=["tripen"])
    page = client.get(url, {"size": 5, "moves": "c3/0"})
    assert page.status_code == 200
    text = page.content.decode()
    assert "<svg" in text and "legal move" in text
    # Each legal move extends the line; the line's steps lead back.
    assert "?size=5&amp;moves=c3%2F0%2C" in text and 'href="?size=5"' in text
    data = client.get(reverse("explorer:analysis_json", args=["tripen"]),
                      {"size": 5, "moves": "c3/0"}).json()
    assert data["actions"] == ["c3/0"] and data["ply"] == 1 and data["legal"]


def test_a_move_typed_on_the_analysis_board_gives_the_line_its_address(client):
    url = reverse("explorer:analysis", args=["hadron"])
    response = client.get(url, {"size": 7, "moves": "c3", "next": "d4"})
    assert response.status_code == 302
    assert response["Location"] == url + "?size=7&moves=c3%2Cd4"
    reopened = client.get(response["Location"])
    assert reopened.status_code == 200 and "c3,d4" in reopened.content.decode()


def test_the_analysis_board_refuses_illegal_lines_with_the_engines_reason(client):
    url = reverse("explorer:analysis", args=["hadron"])
    refused = client.get(url, {"moves": "c3", "next": "c3"})
    assert refused.status_code == 400
    assert b"Action 2 (c3) is illegal: c3 is not empty" in refused.content
    data = client.get(reverse("explorer:analysis_json", args=["hadron"]),
                      {"moves": "c3,c3"})
    assert data.status_code == 400 and data.json()["error"] == "illegal"
    assert data.json()["index"] == 1
    assert client.get(url, {"size": 4}).status_code == 400
    assert client.get("/analysis-board/chess/").status_code == 404


def test_a_set_up_is_built_piece_by_piece_and_its_address_reopens_it(client):
    url = reverse("explorer:analysis", args=["tripen"])
    placed = client.get(url, {"size": 5, "place": "c3/0", "piece": "0"})
    assert placed.status_code == 302
    assert placed["Location"] == url + "?size=5&setup=c3%2F0%3A0&turn=1"
    both = client.get(placed["Location"] + "&place=b2/3&piece=1")
    assert both["Location"] == url + "?size=5&setup=b2%2F3%3A1%2Cc3%2F0%3A0&turn=0"
    # The side to move is chosen; a count the rules cannot reach is refused with the reason,
    # and the board stays as it was.
    refused = client.get(both["Location"] + "&set_turn=1")
    assert refused.status_code == 400
    assert b"Red has 1 and Blue 1" in refused.content
    assert b'name="setup" value="b2/3:1,c3/0:0"' in refused.content
    overlap = client.get(both["Location"] + "&place=c3/1&piece=0")
    assert overlap.status_code == 400 and b"overlaps the token already there" in overlap.content
    # Removing a piece; a move played on from the set-up keeps it in the address.
    removed = client.get(both["Location"] + "&remove=b2/3")
    assert removed["Location"] == url + "?size=5&setup=c3%2F0%3A0&turn=1"
    moved = client.get(removed["Location"] + "&next=a1/0")
    assert moved["Location"] == url + "?size=5&setup=c3%2F0%3A0&turn=1&moves=a1%2F0"
    # The shared address reopens the same position, page and JSON.
    page = client.get(moved["Location"])
    assert page.status_code == 200 and "c3/0: Red" in page.content.decode()
    # The page's move form carries the set-up, so a move typed there keeps it.
    assert '<input type="hidden" name="setup" value="c3/0:0">' in page.content.decode()
    data = client.get(reverse("explorer:analysis_json", args=["tripen"]),
                      {"size": 5, "setup": "c3/0:0", "turn": "1", "moves": "a1/0"}).json()
    reached = games.get("tripen").replay({"size": 5}, ["c3/0", "a1/0"]).to_dict()
    assert data["board"] == reached["board"] and data["to_move"] == reached["to_move"]


def test_an_illegal_set_up_is_refused_with_the_rules_reason(client):
    url = reverse("explorer:analysis", args=["tripen"])
    overlap = client.get(url, {"size": 5, "setup": "c3/0:0,c3/1:1", "turn": "0"})
    assert overlap.status_code == 400
    assert b"c3/1: pose 1 in c3 overlaps the token already there" in overlap.content
    hadron = reverse("explorer:analysis", args=["hadron"])
    counts = client.get(hadron, {"setup": "c3:0,d4:0", "turn": "0"})
    assert counts.status_code == 400 and b"Red has 2 and Blue 0" in counts.content
    bad = client.get(reverse("explorer:analysis_json", args=["hadron"]),
                     {"setup": "c3", "turn": "0"})
    assert bad.status_code == 400 and "not a piece" in bad.json()["message"]
    assert client.get(hadron, {"setup": "c3:0", "turn": "2"}).status_code == 400


def test_the_side_to_move_is_chosen_where_the_counts_leave_it_free(client):
    url = reverse("explorer:analysis", args=["copolymer"])
    chosen = client.get(url, {"size": 5, "setup": "c3:0", "turn": "0", "set_turn": "1"})
    assert chosen["Location"] == url + "?size=5&setup=C3%3A0&turn=1"  # as the engine writes it
    data = client.get(reverse("explorer:analysis_json", args=["copolymer"]),
                      {"size": 5, "setup": "c3:0", "turn": "1"}).json()
    assert data["to_move"] == 1 and "C3" not in data["legal"]


def test_a_win_counts_for_the_side_the_winner_played_after_a_swap(client, alice, bob):
    """Tripen's pie rule: bob, who moved second, swaps and plays Red (side 0) from then on."""
    game = services.start_game(game="tripen", options={"size": 5}, players=(alice, bob),
                               time_control=TimeControl.untimed(), rated=True)
    game = play(game, "c3/0", "swap")
    assert game.swapped
    services.resign(game.pk, alice, game.ply_count)
    answer = client.get(reverse("explorer:node_json", args=["tripen"]),
                        {"size": 5, "moves": "c3/0"}).json()
    assert [(row["action"], row["wins"]) for row in answer["next"]] == [("swap", [1, 0])]


def test_the_board_choices_are_the_boards_the_game_is_played_on(client):
    page = client.get(reverse("explorer:node", args=["colorful"])).content.decode()
    assert "hexhex side 7" in page and "long board side 6" in page
    assert "long board side 7" not in page and "long board side 3" not in page
