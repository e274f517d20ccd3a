"""Game records and the services behind the live game socket (no websocket here)."""
import random
from datetime import timedelta

import pytest
from django.db import IntegrityError, transaction
from django.utils import timezone

import games
from live import presence as ledger
from live.models import Presence
from live.process import stale_after
from play import positions, presence, services
from play.clock import TimeControl
from play.models import Action, Game
from play.rematch import decline as decline_rematch, offer as offer_rematch
from play.services import PlayError
from tests.site.played import start

pytestmark = pytest.mark.django_db


def refresh(game):
    return Game.objects.get(pk=game.pk)


def error_of(call, *args):
    with pytest.raises(PlayError) as caught:
        call(*args)
    return caught.value


def set_clock(game, **fields):
    Game.objects.filter(pk=game.pk).update(**fields)


# -- records ----------------------------------------------------------------------------------

def test_start_game_normalises_options_and_sets_clocks(alice, bob):
    game = start(alice, bob, "colorful", {"size": "4"}, TimeControl.realtime(5, 3))
    game = refresh(game)
    assert game.options == {"board": "hexhex", "size": 4}
    assert game.players() == (alice, bob)
    assert game.status == "active" and game.ply_count == 0 and game.reason == ""
    assert game.remaining_ms == [300_000, 300_000]
    assert game.turn_started_at == game.created_at
    assert game.time_control == TimeControl.realtime(5, 3)
    assert game.running == 0
    assert game.get_absolute_url() == f"/game/{game.pk}/"


@pytest.mark.parametrize("kwargs, words", [
    ({"game": "chess"}, "no game"),
    ({"options": {"size": 6}}, "size must be one of"),
    ({"options": {"colour": "red"}}, "no option"),
])
def test_start_game_refuses_bad_games_and_options(alice, bob, kwargs, words):
    arguments = {"game": "hadron", "options": {}, "players": (alice, bob),
                 "time_control": TimeControl.untimed(), **kwargs}
    with pytest.raises(ValueError, match=words):
        services.start_game(**arguments)
    assert not Game.objects.exists()


def test_start_game_refuses_one_player_twice_and_bad_time(alice, bob):
    with pytest.raises(ValueError, match="two different players"):
        start(alice, alice)
    with pytest.raises(ValueError, match="1 to 14"):
        start(alice, bob, tc=TimeControl("correspondence", days=30))


def test_one_row_per_ply(alice, bob):
    game = start(alice, bob)
    Action.objects.create(game=game, ply=0, action="c3", player=0)
    with pytest.raises(IntegrityError), transaction.atomic():
        Action.objects.create(game=game, ply=0, action="a1", player=0)


def test_a_start_is_announced_after_commit(alice, bob, sent):
    with sent() as news:
        game = start(alice, bob)
    assert [(group, message) for group, message in news if group == "games"] == [
        ("games", {"type": "games.changed", "game_id": game.pk, "event": "started"})]


# -- playing ----------------------------------------------------------------------------------

def test_play_stores_rows_and_the_position_is_the_replay(alice, bob):
    game = start(alice, bob)
    assert services.play(game.pk, alice, 0, "C3") == []
    assert services.play(game.pk, bob, 1, "a1") == []
    game = refresh(game)
    assert game.ply_count == 2
    assert list(game.action_rows.values_list("ply", "action", "player")) == [
        (0, "c3", 0), (1, "a1", 1)]
    assert game.state().actions == ("c3", "a1")
    assert game.state().to_dict() == games.get("hadron").replay({"size": 5}, ["c3", "a1"]).to_dict()


def test_repeat_is_not_applied_twice(alice, bob):
    game = start(alice, bob)
    services.play(game.pk, alice, 0, "c3")
    assert services.play(game.pk, alice, 0, "C3") == [{"type": "repeat", "ply": 0, "action": "c3"}]
    assert refresh(game).ply_count == 1


def test_stale_plies(alice, bob):
    game = start(alice, bob)
    services.play(game.pk, alice, 0, "c3")
    behind = error_of(services.play, game.pk, alice, 0, "a1")  # not what was played at 0
    ahead = error_of(services.play, game.pk, bob, 5, "a1")
    other = error_of(services.play, game.pk, bob, 0, "c3")  # bob did not play ply 0
    for error in (behind, ahead, other):
        assert (error.code, error.snapshot) == ("stale", True)
    assert refresh(game).ply_count == 1


def test_refusals_change_nothing(alice, bob, carol):
    game = start(alice, bob)
    assert error_of(services.play, game.pk, bob, 0, "c3").code == "not_your_turn"
    assert error_of(services.play, game.pk, carol, 0, "c3").code == "not_a_player"
    services.play(game.pk, alice, 0, "c3")
    illegal = error_of(services.play, game.pk, bob, 1, "c3")
    assert (illegal.code, illegal.message) == ("illegal", "c3 is not empty")
    nonsense = error_of(services.play, game.pk, bob, 1, "zz")
    assert nonsense.code == "illegal" and "zz" in nonsense.message
    game = refresh(game)
    assert game.ply_count == 1 and game.action_rows.count() == 1


def test_a_finished_game_takes_no_more_actions(alice, bob):
    game = start(alice, bob)
    services.resign(game.pk, bob, 0)
    assert error_of(services.play, game.pk, alice, 0, "c3").code == "game_over"


def play_out(game, rng, limit=10_000):
    """Play random legal actions, each by the player whose turn it is, until the end."""
    for _ in range(limit):
        game = refresh(game)
        if not game.is_active:
            return game
        state = game.state()
        mover = game.players()[game.player_of(state.to_move)]
        services.play(game.pk, mover, game.ply_count, rng.choice(state.legal_actions()))
    raise AssertionError("the game did not end")


@pytest.mark.parametrize("name, options", [
    ("hadron", {"size": 5}), ("copolymer", {"size": 4}),
    ("colorful", {"size": 3}), ("tripen", {"size": 5}),
])
def test_whole_games_end_with_the_engines_result(alice, bob, name, options):
    game = play_out(start(alice, bob, name, options), random.Random(7))
    state = games.get(name).replay(options, game.action_list())
    assert state.is_over and game.status == "finished" and game.reason == "normal"
    assert game.finished_at is not None
    winner = None if state.winner is None else state.winner ^ int(game.swapped)
    assert game.winner == winner
    if winner is not None:
        assert game.result_text.startswith(game.players()[winner].username + " wins")


def test_tripen_swap_maps_players_to_sides(alice, bob):
    game = start(alice, bob, "tripen", {"size": 5})
    services.play(game.pk, alice, 0, "c3/0")
    services.play(game.pk, bob, 1, "swap")
    game = refresh(game)
    assert game.swapped and game.side_of(0) == 1 and game.side_of(1) == 0
    # Blue moves next, and Blue is now alice, who placed the red token.
    assert game.state().to_move == 1 and game.running is None
    assert error_of(services.play, game.pk, bob, 2, "a1/0").code == "not_your_turn"
    services.play(game.pk, alice, 2, "a1/0")
    services.play(game.pk, bob, 3, "e5/0")
    snapshot = services.snapshot_for(game.pk, alice)
    assert snapshot["swapped"] is True
    assert [p["side"] for p in snapshot["players"]] == [1, 0]
    assert snapshot["you"] == 0


def test_tripen_winner_is_a_player_index_after_swap(alice, bob):
    game = start(alice, bob, "tripen", {"size": 5})
    services.play(game.pk, alice, 0, "a1/0")
    services.play(game.pk, bob, 1, "swap")
    game = play_out(game, random.Random(3))
    side = game.state().winner
    assert game.winner == 1 - side  # swapped: side 0 (Red) is players[1]


def test_moves_do_not_replay_the_game(alice, bob, monkeypatch, django_assert_max_num_queries,
                                      django_capture_on_commit_callbacks):
    game = start(alice, bob)
    with django_capture_on_commit_callbacks(execute=True):
        services.play(game.pk, alice, 0, "c3")

    def no_replay(*args):
        raise AssertionError("replayed the whole game")

    monkeypatch.setattr(type(games.get("hadron")), "replay", no_replay)
    with django_capture_on_commit_callbacks(execute=True):
        services.play(game.pk, bob, 1, "a1")
    with django_capture_on_commit_callbacks(execute=True):
        services.play(game.pk, alice, 2, "e5")
    # Another process stored an action: the cached position one ply back plus that action.
    Action.objects.create(game=game, ply=3, action="a5", player=1)
    Game.objects.filter(pk=game.pk).update(ply_count=4)
    assert refresh(game).state().actions == ("c3", "a1", "e5", "a5")
    # Nothing cached at all: the one replay.
    positions.states.clear()
    monkeypatch.undo()
    assert refresh(game).state().ply == 4


def test_an_action_rolled_back_never_reaches_the_position_cache(alice, bob):
    game = start(alice, bob)
    with pytest.raises(RuntimeError), transaction.atomic():
        services.play(game.pk, alice, 0, "c3")
        raise RuntimeError("the commit failed")
    assert refresh(game).ply_count == 0
    # Another server process stores a different first action.
    Action.objects.create(game=game, ply=0, action="a1", player=0)
    Game.objects.filter(pk=game.pk).update(ply_count=1)
    assert refresh(game).state().actions == ("a1",)
    assert services.snapshot_for(game.pk)["state"]["actions"] == ["a1"]


# -- clocks -----------------------------------------------------------------------------------

def test_realtime_clock_charges_the_mover_and_adds_the_increment(alice, bob):
    game = start(alice, bob, tc=TimeControl.realtime(1, 2))
    set_clock(game, turn_started_at=timezone.now() - timedelta(seconds=10))
    services.play(game.pk, alice, 0, "c3")
    game = refresh(game)
    left = game.remaining_ms
    assert 51_500 <= left[0] <= 52_000 and left[1] == 60_000
    assert game.running == 1
    snapshot = services.snapshot_for(game.pk)
    assert snapshot["clocks"]["running"] == 1
    assert snapshot["clocks"]["remaining_ms"][0] == left[0]


def test_colorful_two_stone_turn_earns_one_increment(alice, bob):
    game = start(alice, bob, "colorful", {"size": 3}, TimeControl.realtime(1, 5))
    services.play(game.pk, alice, 0, "R@A1")
    set_clock(game, turn_started_at=timezone.now() - timedelta(seconds=3))
    services.play(game.pk, bob, 1, "B@C3")
    assert refresh(game).running == 1  # still bob: the second stone of the turn
    services.play(game.pk, bob, 2, "G@E3")
    left = refresh(game).remaining_ms[1]
    assert 61_500 <= left <= 62_000  # 60 s - 3 s + 5 s once


def test_time_running_out_ends_the_game_even_when_the_message_is_refused(alice, bob):
    game = start(alice, bob, tc=TimeControl.realtime(1, 0))
    services.play(game.pk, alice, 0, "c3")
    services.play(game.pk, bob, 1, "a1")
    set_clock(game, turn_started_at=timezone.now() - timedelta(seconds=61))
    error = error_of(services.play, game.pk, alice, 2, "e5")
    assert error.code == "game_over"
    game = refresh(game)
    assert (game.status, game.reason, game.winner) == ("finished", "time", 1)
    assert game.remaining_ms[0] == 0 and game.action_rows.count() == 2
    assert "alice ran out of time" in game.result_text


def test_expire_is_idempotent_and_reports_the_expiry(alice, bob, sent):
    game = start(alice, bob, tc=TimeControl.realtime(1, 0))
    services.play(game.pk, alice, 0, "c3")
    services.play(game.pk, bob, 1, "a1")
    expires = services.expire(game.pk)
    game = refresh(game)
    assert expires == game.expires_at == (game.turn_started_at
                                          + timedelta(milliseconds=game.remaining0_ms))
    set_clock(game, remaining0_ms=5, turn_started_at=timezone.now() - timedelta(seconds=1))
    with sent() as news:
        assert services.expire(game.pk) is None
        assert services.expire(game.pk) is None
    assert [(group, message["type"]) for group, message in news
            if not group.startswith("user-")] == [(f"game-{game.pk}", "end"), ("games", "games.changed")]
    game = refresh(game)
    assert (game.reason, game.winner) == ("time", 1)


def test_correspondence_deadline_shows_on_page_load_and_the_expiry_ends_it(alice, bob):
    game = start(alice, bob, tc=TimeControl.correspondence(1))
    services.play(game.pk, alice, 0, "c3")
    services.play(game.pk, bob, 1, "a1")
    game = refresh(game)
    snapshot = services.snapshot_for(game.pk)
    assert snapshot["clocks"]["remaining_ms"] is None
    assert snapshot["clocks"]["deadline"] == (game.turn_started_at + timedelta(days=1)).isoformat()
    set_clock(game, turn_started_at=timezone.now() - timedelta(days=1, seconds=1))
    # The page load reads: the deadline shows passed, the game still stands.
    snapshot = services.snapshot_for(game.pk)
    assert snapshot["status"] == "active" and snapshot["clocks"]["expires_at"] < snapshot[
        "clocks"]["server_time"]
    # The sweeper (or the room of a socket on the game) ends it, in its lane.
    services.expire(game.pk)
    snapshot = services.snapshot_for(game.pk)
    assert snapshot["status"] == "finished"
    assert snapshot["result"]["reason"] == "time" and snapshot["result"]["winner"] == 1
    assert "alice missed the move deadline" in snapshot["result"]["text"]


def test_untimed_games_have_no_clock(alice, bob):
    game = start(alice, bob)
    clocks = services.snapshot_for(game.pk)["clocks"]
    assert clocks["remaining_ms"] is None and clocks["running"] is None
    assert clocks["deadline"] is None


# -- resign, abort, rematch ------------------------------------------------------------------

def test_resign_any_time_and_repeat(alice, bob):
    game = start(alice, bob, tc=TimeControl.realtime(5, 0))
    services.play(game.pk, alice, 0, "c3")
    services.resign(game.pk, alice, 1)  # not alice's turn: resigning is allowed anyway
    game = refresh(game)
    assert (game.status, game.reason, game.winner) == ("finished", "resign", 1)
    assert game.result_text == "alice resigned — bob wins"
    assert game.turn_started_at is None and game.running is None
    assert services.resign(game.pk, alice, 1) == [{"type": "repeat", "ply": 1, "action": "resign"}]
    assert error_of(services.resign, game.pk, bob, 1).code == "game_over"


def test_resign_with_a_stale_ply(alice, bob):
    game = start(alice, bob)
    services.play(game.pk, alice, 0, "c3")
    assert error_of(services.resign, game.pk, bob, 0).code == "stale"
    assert refresh(game).is_active


def test_abort_only_before_both_have_acted(alice, bob):
    game = start(alice, bob, "colorful", {"size": 3})
    services.play(game.pk, alice, 0, "R@A1")
    services.abort(game.pk, bob, 1)
    game = refresh(game)
    assert (game.status, game.reason, game.winner) == ("aborted", "abort", None)
    assert game.result_text == "Aborted by bob"
    assert services.abort(game.pk, alice, 1)[0]["type"] == "repeat"

    game = start(alice, bob, "colorful", {"size": 3})
    services.play(game.pk, alice, 0, "R@A1")
    services.play(game.pk, bob, 1, "B@C3")
    error = error_of(services.abort, game.pk, alice, 2)
    assert error.code == "not_allowed" and "resign" in error.message
    assert refresh(game).is_active


def test_rematch_offer_accept_swaps_the_players(alice, bob, carol):
    game = start(alice, bob, "tripen", {"size": 6}, TimeControl.realtime(3, 2))
    assert error_of(offer_rematch, game.pk, alice).code == "not_allowed"
    services.resign(game.pk, alice, 0)
    assert error_of(offer_rematch, game.pk, carol).code == "not_a_player"
    assert offer_rematch(game.pk, bob) == []
    assert refresh(game).rematch_offer == 1
    assert offer_rematch(game.pk, bob) == [{"type": "rematch", "offered_by": 1}]
    assert offer_rematch(game.pk, alice) == []
    rematch = Game.objects.get(rematch_of=game)
    assert rematch.players() == (bob, alice)
    assert rematch.options == {"size": 6} and rematch.game == "tripen"
    assert rematch.time_control == TimeControl.realtime(3, 2)
    assert refresh(game).rematch_offer is None
    # A late second acceptance points at the same rematch instead of starting another.
    again = offer_rematch(game.pk, bob)
    assert again == [{"type": "rematch_started", "url": rematch.get_absolute_url(),
                      "id": rematch.pk}]
    assert Game.objects.filter(rematch_of=game).count() == 1
    assert services.snapshot_for(game.pk)["rematch"] == {"offered_by": None,
                                                    "url": rematch.get_absolute_url()}


def test_rematch_decline(alice, bob):
    game = start(alice, bob)
    services.resign(game.pk, bob, 0)
    assert error_of(decline_rematch, game.pk, alice).code == "not_allowed"
    offer_rematch(game.pk, alice)
    decline_rematch(game.pk, bob)
    assert refresh(game).rematch_offer is None
    assert not Game.objects.filter(rematch_of=game).exists()


# -- snapshot and presence ------------------------------------------------------------------

def test_snapshot_shape(alice, bob, carol):
    game = start(alice, bob, tc=TimeControl.realtime(5, 3))
    services.play(game.pk, alice, 0, "c3")
    snap = services.snapshot_for(game.pk, carol)
    assert set(snap) == {"id", "url", "game", "title", "options", "players", "swapped", "rated", "you",
                         "time_control", "clocks", "status", "result", "actions",
                         "by_condition", "state",
                         "presence", "rematch", "takeback", "takebacks", "chat", "premove",
                         "conditions", "house_rules", "event"}
    assert snap["you"] is None and snap["title"] == "Hadron"
    newcomer = {"rating": 1500, "provisional": True}
    assert snap["players"] == [{"username": "alice", "side": 0, "online": False, "rating": newcomer},
                               {"username": "bob", "side": 1, "online": False, "rating": newcomer}]
    assert snap["actions"] == ["c3"] and snap["state"]["ply"] == 1
    assert snap["by_condition"] == []  # only correspondence games have conditional moves
    assert snap["time_control"]["text"] == "5+3"
    assert snap["takeback"] == {"offered_by": None, "ply": 1} and snap["takebacks"] == 0
    assert snap["house_rules"] == {} and snap["event"] is None  # not a tournament game
    assert snap["presence"] == {"players_online": [False, False], "watchers": 0,
                                "claimable_at": [None, None]}


def test_presence_counts_fresh_connections(alice, bob, carol):
    game = start(alice, bob)
    services.join(game.pk, "chan.a", alice)
    services.join(game.pk, "chan.c", carol)
    services.join(game.pk, "chan.anon", None)
    assert presence.presence_of(game) == {"players_online": [True, False], "watchers": 2,
                                          "claimable_at": [None, None]}
    # A row nobody refreshes (its process died) stops counting.
    Presence.objects.filter(channel_name="chan.a").update(
        seen_at=timezone.now() - stale_after() - timedelta(seconds=1))
    assert presence.presence_of(game)["players_online"] == [False, False]
    ledger.still_here(["chan.a"])
    assert presence.presence_of(game)["players_online"] == [True, False]
    assert ledger.leave(["chan.c"]) == {game.pk}
    assert presence.presence_of(game)["watchers"] == 1


def test_one_move_costs_three_statements(alice, bob, django_capture_on_commit_callbacks):
    """Lock the game row, insert the action, update the game: nothing more on the move path, so
    queries cannot creep back (play.statements; the players and the position are cached). On
    PostgreSQL the insert and the update are one statement (WITH ... INSERT ... UPDATE)."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    game = start(alice, bob)
    with django_capture_on_commit_callbacks(execute=True):
        services.play(game.pk, alice, 0, "c3")  # the per-process caches learn the position
    with CaptureQueriesContext(connection) as move:
        services.play(game.pk, bob, 1, "a1")
    # The test runs inside a transaction: the move's own atomic block is a savepoint.
    sent = [query["sql"] for query in move.captured_queries
            if not query["sql"].startswith(("SAVEPOINT", "RELEASE SAVEPOINT"))]
    if connection.vendor == "postgresql":
        assert [sql.split()[0] for sql in sent] == ["SELECT", "WITH"], sent
        stored, updated = sent[1].split(") UPDATE ")
        assert '"play_game"' in sent[0] and '"play_action"' in stored and '"play_game"' in updated
    else:
        assert [sql.split()[0] for sql in sent] == ["SELECT", "INSERT", "UPDATE"], sent
        assert '"play_game"' in sent[0] and '"play_action"' in sent[1] and '"play_game"' in sent[2]


def test_a_socket_joining_costs_five_statements(alice, bob):
    """Load the game, insert the socket's presence row, count who is there, the players'
    ratings, the chat: a thousand sockets arriving after a restart pay no more than that each."""
    from django.contrib.auth.models import AnonymousUser
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    game = start(alice, bob)
    services.join(game.pk, "chan.first", alice)  # the per-process caches learn the game
    with CaptureQueriesContext(connection) as joining:
        snapshot = services.join(game.pk, "chan.watcher", AnonymousUser())
    sent = [query["sql"] for query in joining.captured_queries]
    assert [sql.split()[0] for sql in sent] == ["SELECT", "INSERT", "SELECT", "SELECT", "SELECT"], sent
    assert snapshot["presence"]["watchers"] == 1


def test_sockets_arriving_together_are_counted_in_one_job(alice, bob, carol):
    """The game socket's arrival (services.arrive, gathered by live.lanes.Gathered): one read
    of the games and one INSERT for the whole crowd; a socket on a game that does not exist is
    not counted, and a player back on the page is no longer away."""
    from django.contrib.auth.models import AnonymousUser
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    first, second = start(alice, bob), start(carol, bob)
    assert first.absent0_since is not None
    arrivals = [(first.pk, "chan.a", alice), (first.pk, "chan.c", carol),
                (second.pk, "chan.anon", AnonymousUser()), (10**9, "chan.nowhere", alice)]
    with CaptureQueriesContext(connection) as arriving:
        counted = services.arrive(arrivals)
    assert counted == {"chan.a", "chan.c", "chan.anon"}
    sent = [query["sql"].split()[0] for query in arriving.captured_queries
            if not query["sql"].startswith(("SAVEPOINT", "RELEASE SAVEPOINT"))]
    assert sent == ["SELECT", "INSERT", "UPDATE"], sent  # UPDATE: alice is back
    assert not Presence.objects.filter(channel_name="chan.nowhere").exists()
    first.refresh_from_db()
    assert first.absent0_since is None and first.absent1_since is not None
    assert presence.presence_of(first) == services.snapshot_for(first.pk, alice)["presence"] == {
        "players_online": [True, False], "watchers": 1, "claimable_at": [None, None]}
    assert services.snapshot_for(second.pk, None)["presence"]["watchers"] == 1


def test_a_crowds_presence_rows_go_in_a_few_statements_each_row_whole(alice, bob, monkeypatch):
    """live.sql.insert_rows: ROWS_PER_INSERT rows per statement (SQLite's parameter limit),
    the last one shorter; every row stored as the ORM would have stored it."""
    from django.contrib.auth.models import AnonymousUser
    from django.db import connection
    from django.test.utils import CaptureQueriesContext
    from live import sql

    monkeypatch.setattr(sql, "ROWS_PER_INSERT", 2)
    game = start(alice, bob)
    names = [f"chan.crowd{number}" for number in range(5)]
    with CaptureQueriesContext(connection) as arriving:
        counted = services.arrive([(game.pk, name, AnonymousUser()) for name in names[:4]]
                                  + [(game.pk, names[4], alice)])
    assert counted == set(names)
    inserts = [query["sql"] for query in arriving.captured_queries
               if query["sql"].startswith("INSERT")]
    assert len(inserts) == 3
    rows = {row.channel_name: row for row in Presence.objects.filter(channel_name__in=names)}
    assert set(rows) == set(names)
    assert [rows[name].user_id for name in names] == [None, None, None, None, alice.pk]
    assert {(row.kind, row.game_id, row.counts_until) for row in rows.values()} == {
        (presence.KIND, game.pk, None)}
    assert all(row.opened_at == row.seen_at is not None for row in rows.values())
    assert presence.presence_of(game)["watchers"] == 4


def test_sockets_arriving_together_take_the_games_rows_in_their_order(alice, bob, carol):
    """Players back on their games' pages UPDATE those rows: one job takes them in the
    games' order, whatever order the sockets came in, so two jobs on two writers (or two
    processes) never take two rows in opposite orders and deadlock."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    first, second = start(alice, bob), start(carol, bob)
    with CaptureQueriesContext(connection) as arriving:
        services.arrive([(second.pk, "chan.c", carol), (first.pk, "chan.a", alice)])
    updated = [query["sql"] for query in arriving.captured_queries
               if query["sql"].startswith("UPDATE")]
    assert len(updated) == 2
    assert updated[0].endswith(str(first.pk)) and updated[1].endswith(str(second.pk)), updated


def test_a_move_heard_from_another_process_is_not_read_back(alice, bob, django_assert_num_queries):
    """With the players on two processes, each move follows one stored by the other process:
    its news names the action, so the next move here steps the position on without reading
    it back (play.positions.heard)."""
    from play import statements

    game = start(alice, bob)
    services.play(game.pk, alice, 0, "c3")
    services.play(game.pk, bob, 1, "a1")   # stored "by another process": not cached here
    after_c3 = games.get("hadron").replay(game.options, ["c3"])

    def position_read_with(queries):
        positions.states.clear()
        positions.remember(game, after_c3)   # what this process had cached
        game_now = statements.game(game.pk)
        with django_assert_num_queries(queries):
            assert game_now.state().actions == ("c3", "a1")
        return game_now

    game_now = position_read_with(1)   # not heard: the action is read back
    positions.heard(game.pk, [*positions.history(game_now), 1, "a1"])
    position_read_with(0)


def test_the_news_of_a_move_names_the_stored_action(alice, bob, django_capture_on_commit_callbacks):
    from live.outbox import Outbox
    from live.groups import game as group_name

    game = start(alice, bob)
    with Outbox() as box, django_capture_on_commit_callbacks(execute=True):
        services.play(game.pk, alice, 0, "c3")
    news = [news for group, news in box.events if group == group_name(game.pk)]
    assert news[0]["stored"] == [game.created_at.isoformat(), 0, 0, "c3"]


# -- a restart's gap (services.closed_for_restart, back_after_restart) --------------------------

def under_way(alice, bob, minutes=5):
    """A realtime game both have moved in (no first-move limit left): alice to move."""
    game = start(alice, bob, tc=TimeControl.realtime(minutes))
    services.play(game.pk, alice, 0, "c3")
    services.play(game.pk, bob, 1, "a1")
    return refresh(game)


def restart_closed(game, seat, closed_ago, turn_ago):
    """The game as a restart left it: player `seat`'s page closed `closed_ago` seconds before
    the moment returned, the running turn started `turn_ago` seconds before it. Returns
    (that moment, the turn's start)."""
    now = timezone.now()
    began = now - timedelta(seconds=turn_ago)
    set_clock(game, turn_started_at=began,
              **{f"server_closed{seat}_at": now - timedelta(seconds=closed_ago)})
    return now, began


def test_a_player_back_after_a_restart_is_not_charged_for_the_gap(alice, bob, settings):
    settings.PLAY_RESTART_GRACE_SECONDS = 5
    game = under_way(alice, bob)
    now, began = restart_closed(game, 0, closed_ago=2, turn_ago=10)
    assert services.back_after_restart(game.pk, 0, now) == timedelta(seconds=2)
    game = refresh(game)
    assert game.turn_started_at == began + timedelta(seconds=2)
    assert game.server_closed0_at is None
    # Once: a second page of theirs gets nothing more.
    assert services.back_after_restart(game.pk, 0, now) is None
    assert refresh(game).turn_started_at == began + timedelta(seconds=2)


def test_a_restart_gives_back_only_what_ran_of_the_players_turn(alice, bob, settings):
    settings.PLAY_RESTART_GRACE_SECONDS = 5
    game = under_way(alice, bob)
    # Closed 12 s ago, the grace ended 7 s ago: at most 5 s.
    now, began = restart_closed(game, 0, closed_ago=12, turn_ago=20)
    assert services.back_after_restart(game.pk, 0, now) == timedelta(seconds=5)
    assert refresh(game).turn_started_at == began + timedelta(seconds=5)
    # Their turn began 1 s after the close (the opponent moved meanwhile): from then.
    now, began = restart_closed(game, 0, closed_ago=3, turn_ago=2)
    assert services.back_after_restart(game.pk, 0, now) == timedelta(seconds=2)


def test_a_restart_gives_nothing_to_the_player_not_to_move(alice, bob):
    game = under_way(alice, bob)
    now, began = restart_closed(game, 1, closed_ago=2, turn_ago=3)   # alice to move
    assert services.back_after_restart(game.pk, 1, now) is None
    game = refresh(game)
    assert game.turn_started_at == began and game.server_closed1_at is None


def test_a_restart_notes_the_realtime_games_of_the_pages_it_closes(alice, bob):
    timed = under_way(alice, bob)
    untimed = start(alice, bob)
    expires_at = refresh(timed).expires_at
    services.closed_for_restart([(timed.pk, 0), (untimed.pk, 1), (10**9, 0)], closing=())
    timed, untimed = refresh(timed), refresh(untimed)
    assert timed.server_closed0_at is not None and timed.server_closed1_at is None
    assert untimed.server_closed1_at is None
    # While the mover's page is away, their flag waits for the grace it may be given back.
    assert timed.expires_at > expires_at


def test_a_restart_notes_nothing_for_a_player_with_a_page_that_stays(alice, bob):
    """Alice has the game open in two tabs: one on the stopping process, one on another.
    Before, the restart noted her away all the same and her returning tab got up to the grace
    back, though she could play on in the other all along. Her tab on the stopping process, a
    second one there (closed in a later slice) and bob's do not keep anyone there."""
    game = under_way(alice, bob)
    presence.arrive(game, "stopping-alice", alice)
    presence.arrive(game, "stopping-alice-later", alice)
    presence.arrive(game, "stopping-bob", bob)
    closing = {"stopping-alice", "stopping-alice-later", "stopping-bob"}
    services.closed_for_restart([(game.pk, 0), (game.pk, 1)], closing)
    noted = refresh(game)
    assert noted.server_closed0_at is not None and noted.server_closed1_at is not None

    set_clock(game, server_closed0_at=None, server_closed1_at=None)
    presence.arrive(game, "elsewhere-alice", alice)
    services.closed_for_restart([(game.pk, 0), (game.pk, 1)], closing)
    game = refresh(game)
    assert game.server_closed0_at is None          # her other tab stays: not away
    assert game.server_closed1_at is not None      # bob's only page closes: away


def test_the_flag_waits_while_a_restart_keeps_the_mover_away(alice, bob, settings):
    """One second left, and the restart closed their page: the flag does not fall while the
    grace lasts (before, it fell during the reconnection)."""
    from play import lapses

    settings.PLAY_RESTART_GRACE_SECONDS = 5
    game = under_way(alice, bob)
    began = timezone.now()
    set_clock(game, turn_started_at=began, remaining0_ms=1000)
    services.closed_for_restart([(game.pk, 0)], closing=())
    game = refresh(game)
    assert lapses.lapse(game, began + timedelta(seconds=2)) is None
    assert lapses.lapse(game, began + timedelta(seconds=7)) == ("time", 1)
