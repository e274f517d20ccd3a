"""The Archive page: finished games, newest first, filtered by a GET form, paginated, each row
with a thumbnail of the final position, the players, the result and its reason.

The games are played through play's services with random legal actions (the engine picks
them: tests/site/played.py), so the archive sees the same records real games leave behind.
"""
import random
import re
from datetime import date, datetime, timedelta, timezone

import pytest

import games
from archive import positions
from play import services
from play.models import Action, Game
from tests.site.played import finished, play_out, start

# -- helpers ---------------------------------------------------------------------------------


def listed(response):
    """The ids of the games in the Archive page's rows, in order."""
    return [int(n) for n in re.findall(r'class="archive-row" data-game="(\d+)"',
                                       response.content.decode())]


def errors(response):
    return response.context["form"].errors


# -- fixtures ---------------------------------------------------------------------------------

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fresh_cache")]


@pytest.fixture
def players(users):
    return dict(zip(("alice", "bob", "carol", "dave"), users("alice", "bob", "carol", "dave")))


@pytest.fixture
def shelf(players):
    """Seven finished games of every kind, one resigned, finished on different days; plus an
    active and an aborted game that the Archive must leave out."""
    a, b, c = players["alice"], players["bob"], players["carol"]
    made = {
        "hadron5": finished("hadron", (a, b), {"size": 5}, seed=1, when=date(2025, 1, 10)),
        "hadron7": finished("hadron", (b, c), {"size": 7}, seed=2, when=date(2025, 2, 10)),
        "copolymer": finished("copolymer", (c, a), {"size": 4}, seed=3, when=date(2025, 3, 10)),
        "colorful": finished("colorful", (a, c), {"size": 3}, seed=4, when=date(2025, 4, 10)),
        "long": finished("colorful", (b, a), {"board": "long", "size": 4}, seed=5,
                         when=date(2025, 5, 10)),
        "tripen": finished("tripen", (c, b), {"size": 5}, seed=6, when=date(2025, 6, 10)),
        "resigned": finished("hadron", (a, c), {"size": 5}, seed=7, when=date(2025, 7, 10),
                             resign_at=4),
    }
    made["active"] = play_out(start(a, b), stop_at=3)
    aborted = start(a, b)
    services.abort(aborted.pk, a, 0)
    made["aborted"] = services.load(aborted.pk)
    return made


@pytest.fixture
def one_finished(players):
    """A single finished game: enough to see that a refused search lists nothing."""
    return finished("hadron", (players["alice"], players["bob"]), {"size": 5}, seed=1)


def ids(shelf, *names):
    return [shelf[name].pk for name in names]


NEWEST_FIRST = ["resigned", "tripen", "long", "colorful", "copolymer", "hadron7", "hadron5"]


# -- the list ---------------------------------------------------------------------------------

def test_lists_finished_games_newest_first_for_a_visitor(client, shelf):
    response = client.get("/archive/")
    assert response.status_code == 200
    assert "archive/index.html" in [t.name for t in response.templates]
    assert listed(response) == ids(shelf, *NEWEST_FIRST)
    assert response.context["page"].paginator.count == 7
    assert "7 games" in response.content.decode()


def test_each_row_has_thumbnail_players_result_and_reason(client, shelf):
    html = client.get("/archive/").content.decode()
    game = shelf["resigned"]
    row = html.split(f'data-game="{game.pk}"')[1].split("</li>")[0]
    assert f'src="/game/{game.pk}/position/{game.ply_count}.svg?labels=0"' in row
    assert f'href="/game/{game.pk}/"' in row
    assert ">alice</a>" in row and ">carol</a>" in row
    assert game.result_text in row.replace("&#x27;", "'")
    assert "resignation" in row
    played_out = html.split(f'data-game="{shelf["hadron7"].pk}"')[1].split("</li>")[0]
    assert "played out" in played_out and "7×7" in played_out
    winner = shelf["hadron7"].players()[shelf["hadron7"].winner].get_username()
    assert re.search(rf'class="seat won">.*?>{winner}</a>', played_out, re.S)


def test_thumbnails_are_the_final_position(client, shelf):
    for name in ("hadron5", "copolymer", "colorful", "tripen"):
        game = shelf[name]
        response = client.get(f"/game/{game.pk}/position/{game.ply_count}.svg?labels=0")
        assert response.status_code == 200
        assert response["Content-Type"].startswith("image/svg+xml")
        text = response.content.decode()
        board = game.state().to_dict()["board"]
        if name == "tripen":
            assert text.count('class="token side-') == len(board["tokens"]) > 0
        elif name == "colorful":
            stones = [cell for cell in board["cells"] if cell["colour"]]
            # (The final position marks its deciding groups: "decisive".)
            assert len(re.findall(r'class="cell colour-[RPBG]( decisive)?"', text)) == len(stones) > 0
        else:
            owned = [cell for cell in board["cells"] if cell["owner"] is not None]
            marks = re.findall(r'class="(?:cell|tile) side-[01]( decisive)?"', text)
            assert len(marks) == len(owned) > 0
        assert '<text class="label"' not in text  # thumbnails leave the labels out
        assert '<text class="caption"' not in text  # and the ending's words


def total(response):
    """The count the page says (a page kept whole, frontend.kept, has no context to read)."""
    return int(re.search(r'id="archive-count">\s*(\d+) game', response.content.decode()).group(1))


def counted(queries):
    return [q["sql"] for q in queries if "COUNT(" in q["sql"]]


def test_a_searchs_count_is_kept_until_a_game_finishes(client, shelf, players):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    assert total(client.get("/archive/")) == 7
    assert total(client.get("/archive/?game=hadron")) == 3
    with CaptureQueriesContext(connection) as again:
        assert total(client.get("/archive/")) == 7
    assert counted(again.captured_queries) == []
    finished("hadron", (players["dave"], players["bob"]), {"size": 5}, seed=8,
             when=date(2024, 1, 1))  # finished now, dated before all the others
    assert total(client.get("/archive/")) == 8
    assert total(client.get("/archive/?game=hadron")) == 4
    assert total(client.get("/archive/?game=tripen")) == 1


def test_a_page_of_rows_does_not_replay_games(client, shelf, django_assert_max_num_queries):
    # The list itself needs a fixed handful of queries whatever the number of rows: the
    # count, the page's ids, what the rows are drawn from (archive.listing.facts: the games'
    # shown columns with their players' and events' names, their rating changes, the
    # players' ratings), the events of the filter (plus the bot accounts' per-process copy
    # for the BOT mark, read at most once a minute: the test starts with it empty), the
    # archive's stamp that the count is kept under (queries.count_of), and the games whose
    # rows are not kept yet, read whole; a repeated view reads no game whole.
    with django_assert_max_num_queries(9):
        first = client.get("/archive/")
    with django_assert_max_num_queries(7):
        again = client.get("/archive/")
    rows = b'class="archive-row"'
    assert again.content.count(rows) == first.content.count(rows) > 0
    game = shelf["tripen"]
    url = f"/game/{game.pk}/position/{game.ply_count}.svg?labels=0"
    first = client.get(url)
    positions.replay_states.clear()
    with django_assert_max_num_queries(1):  # the game row; the drawing comes from the cache
        again = client.get(url)
    assert again.content == first.content
    assert "max-age" in again["Cache-Control"]


# -- filters ----------------------------------------------------------------------------------

def test_filter_by_game(client, shelf):
    hadron = ids(shelf, "resigned", "hadron7", "hadron5")
    assert listed(client.get("/archive/?game=hadron")) == hadron
    assert listed(client.get("/archive/?game=tripen")) == ids(shelf, "tripen")


def test_filter_by_player_ignores_case(client, shelf):
    response = client.get("/archive/?player=BOB")
    assert listed(response) == ids(shelf, "tripen", "long", "hadron7", "hadron5")
    assert listed(client.get("/archive/?player=dave")) == []
    assert "No finished game matches" in client.get("/archive/?player=dave").content.decode()


def test_filter_by_result(client, shelf):
    everything = [shelf[name] for name in NEWEST_FIRST]
    for result, keep in [("first", lambda g: g.winner == 0), ("second", lambda g: g.winner == 1),
                         ("draw", lambda g: g.winner is None)]:
        expected = [g.pk for g in everything if keep(g)]
        assert listed(client.get(f"/archive/?result={result}")) == expected, result
    alice = shelf["hadron5"].player0
    decided = [g for g in everything if alice in g.players() and g.winner is not None]
    won = [g.pk for g in decided if g.players()[g.winner] == alice]
    lost = [g.pk for g in decided if g.players()[g.winner] != alice]
    assert listed(client.get("/archive/?player=alice&result=won")) == won
    assert listed(client.get("/archive/?player=alice&result=lost")) == lost
    assert set(won + lost) <= set(ids(shelf, "hadron5", "copolymer", "colorful", "long",
                                          "resigned"))
    assert won and lost


def test_filter_by_reason(client, shelf):
    assert listed(client.get("/archive/?reason=resign")) == ids(shelf, "resigned")
    assert listed(client.get("/archive/?reason=normal")) == ids(shelf, *NEWEST_FIRST[1:])
    assert listed(client.get("/archive/?reason=time")) == []


def test_filter_by_board_size_and_variant(client, shelf):
    assert listed(client.get("/archive/?size=7")) == ids(shelf, "hadron7")
    assert listed(client.get("/archive/?size=5")) == ids(shelf, "resigned", "tripen", "hadron5")
    assert listed(client.get("/archive/?game=hadron&size=5")) == ids(shelf, "resigned", "hadron5")
    assert listed(client.get("/archive/?variant=long")) == ids(shelf, "long")
    assert listed(client.get("/archive/?variant=hexhex")) == ids(shelf, "colorful")
    assert listed(client.get("/archive/?game=colorful&variant=long&size=4")) == ids(shelf, "long")
    assert listed(client.get("/archive/?game=colorful&variant=long&size=5")) == []


def test_filter_by_date_range_includes_both_days(client, shelf):
    response = client.get("/archive/?date_from=2025-02-10&date_to=2025-04-10")
    assert listed(response) == ids(shelf, "colorful", "copolymer", "hadron7")
    assert listed(client.get("/archive/?date_from=2025-06-01")) == ids(shelf, "resigned", "tripen")
    assert listed(client.get("/archive/?date_to=2025-01-10")) == ids(shelf, "hadron5")


def test_filters_combine(client, shelf):
    query = "game=hadron&player=carol&date_from=2025-02-01&reason=normal"
    assert listed(client.get(f"/archive/?{query}")) == ids(shelf, "hadron7")
    query = "player=alice&size=5&result=first"
    expected = [g.pk for g in (shelf["resigned"], shelf["hadron5"]) if g.winner == 0]
    assert listed(client.get(f"/archive/?{query}")) == expected


@pytest.mark.parametrize("query, field, words", [
    ("game=chess", "game", "Select a valid choice"),
    ("size=huge", "size", "Select a valid choice"),
    ("size=6&game=hadron", "size", "Hadron is played on sizes 5, 7, 9, 11, not 6"),
    ("variant=long&game=hadron", "variant", "Only Colorful Connection has board variants"),
    ("variant=round", "variant", "Select a valid choice"),
    ("result=won", "result", "Name a player"),
    ("result=lost&player=", "result", "Name a player"),
    ("player=nobody", "player", "There is no player called “nobody”"),
    ("player=" + "x" * 200, "player", "at most 150 characters"),
    ("reason=boredom", "reason", "Select a valid choice"),
    ("date_from=2025-13-01", "date_from", "Enter a valid date"),
    ("date_from=2025-05-01&date_to=2025-04-01", "date_to", "before the start date"),
    # Extreme dates are valid dates but outside any game's life: once an OverflowError (500).
    ("date_to=9999-12-31", "date_to", "Enter a date from 2000-01-01 to 2999-12-31"),
    ("date_from=9999-12-31", "date_from", "Enter a date from 2000-01-01 to 2999-12-31"),
    ("date_from=0001-01-01", "date_from", "Enter a date from 2000-01-01 to 2999-12-31"),
    ("date_to=0001-01-01", "date_to", "Enter a date from 2000-01-01 to 2999-12-31"),
    ("date_from=1999-12-31&date_to=3000-01-01", "date_to", "Enter a date from 2000-01-01"),
    ("date_from=10000-01-01", "date_from", "Enter a valid date"),
    ("date_to=0000-00-00", "date_to", "Enter a valid date"),
    ("date_to=-1", "date_to", "Enter a valid date"),
    ("date_to=2025-02-30", "date_to", "Enter a valid date"),
    ("date_from=%00", "date_from", "Enter a valid date"),
    ("date_from=" + "9" * 5000, "date_from", "Enter a valid date"),
])
def test_bad_filters_are_form_errors_not_server_errors(client, one_finished, query, field,
                                                       words):
    assert listed(client.get("/archive/")) == [one_finished.pk]
    response = client.get(f"/archive/?{query}")
    assert response.status_code == 200
    assert any(words in message for message in errors(response)[field]), errors(response)
    assert listed(response) == []
    html = response.content.decode()
    assert "Fix the search above" in html and 'class="errorlist"' in html


def test_form_keeps_the_search_in_its_fields(client, shelf):
    html = client.get("/archive/?game=hadron&player=alice&date_from=2025-01-01").content.decode()
    assert '<option value="hadron" selected>' in html
    assert 'name="player" value="alice"' in html
    assert 'name="date_from" value="2025-01-01"' in html


# -- pagination -------------------------------------------------------------------------------

@pytest.fixture
def many(players):
    """30 finished Hadron games (bulk: their rows only) on consecutive days, newest last."""
    engine = games.get("hadron")
    state = engine.new(size=5)
    rng = random.Random(9)
    while not state.is_over:
        state = state.play(rng.choice(state.legal_actions()))
    start = datetime(2024, 1, 1, tzinfo=timezone.utc)
    made = []
    for k in range(30):
        pair = (players["alice"], players["bob"]) if k % 2 else (players["carol"], players["dave"])
        game = Game.objects.create(
            game="hadron", options={"size": 5}, player0=pair[0], player1=pair[1],
            status=Game.FINISHED, winner=state.winner,
            reason="normal", result_text=state.result_text(), ply_count=state.ply,
            finished_at=start + timedelta(days=k))
        Action.objects.bulk_create(Action(game=game, ply=i, action=a, player=i % 2)
                                   for i, a in enumerate(state.actions))
        made.append(game.pk)
    return made[::-1]


def test_pagination_pages_of_25(client, many):
    first = client.get("/archive/")
    assert listed(first) == many[:25]
    assert "page 1 of 2" in first.content.decode()
    second = client.get("/archive/?page=2")
    assert listed(second) == many[25:]
    assert listed(client.get("/archive/?page=99")) == many[25:]  # past the end: the last page
    assert listed(client.get("/archive/?page=zero")) == many[:25]  # not a number: the first


def test_page_links_keep_the_filters(client, many):
    alice = client.get("/archive/?player=alice&game=hadron")
    assert listed(alice) == many[0::2]  # her 15 games: one page, no links
    assert 'rel="next"' not in alice.content.decode()
    html = client.get("/archive/?game=hadron").content.decode()
    next_link = re.search(r'href="([^"]+)" rel="next"', html).group(1).replace("&amp;", "&")
    assert "game=hadron" in next_link and "page=2" in next_link
    assert listed(client.get("/archive/" + next_link)) == many[25:]
