"""The live game websocket through channels' communicator and the real ASGI application
(session authentication, origin check, routing, in-memory channel layer)."""
import asyncio
import random

import pytest
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator
from django.utils import timezone

import games
from play import services
from play.clock import TimeControl
from play.models import Game
from tests.ws.messages import WAIT, all_quiet
from tests.ws.sockets import HOST, ORIGIN, Socket, application, headers_for, run

pytestmark = pytest.mark.django_db(transaction=True)


@database_sync_to_async
def fetch(game_id):
    game = Game.objects.get(pk=game_id)
    game.state()  # load the position here, not in the event loop
    return game


@database_sync_to_async
def stored_actions(game_id):
    return Game.objects.get(pk=game_id).action_list()


async def from_both(first, second, count, timeout=WAIT):
    """The next `count` messages (presence news aside) from two tabs together, whichever of
    them has them, in order of arrival per tab."""
    heard = []
    deadline = asyncio.get_running_loop().time() + timeout
    while len(heard) < count:
        assert asyncio.get_running_loop().time() < deadline, f"only {heard} within {timeout} s"
        for tab in (first, second):
            heard += await tab.drain(0.05)
    return heard


def test_two_players_and_a_spectator_see_every_action(users, new_game):
    alice, bob, carol = users("alice", "bob", "carol")
    game = new_game([alice, bob], "hadron", {"size": 5})
    tabs = {"alice": Socket(game.pk, alice), "bob": Socket(game.pk, bob),
            "carol": Socket(game.pk, carol), "anon": Socket(game.pk, None)}

    async def scenario():
        snapshots = {name: await tab.open() for name, tab in tabs.items()}
        assert [snapshots[n]["you"] for n in tabs] == [0, 1, None, None]
        assert snapshots["anon"]["players"][0] == {"username": "alice", "side": 0, "online": True,
                                                   "rating": {"rating": 1500, "provisional": True}}
        # alice's tab heard everyone arrive, across the same group.
        await tabs["alice"].presence_becomes(players_online=[True, True], watchers=2)
        rng, state, ply = random.Random(5), games.get("hadron").new(size=5), 0
        while not state.is_over:
            action = rng.choice(state.legal_actions())
            mover = ("alice", "bob")[state.to_move]
            await tabs[mover].send(type="play", ply=ply, action=action)
            state = state.play(action)
            for name, tab in tabs.items():
                message = await tab.expect("action")
                assert (message["ply"], message["action"], message["player"]) == (
                    ply, action, ("alice", "bob").index(mover))
                assert message["state"]["ply"] == ply + 1
                assert message["state"]["actions"] == list(state.actions)
                assert (message["result"] is not None) == state.is_over
            ply += 1
        final = await fetch(game.pk)
        assert final.status == "finished" and final.ply_count == ply
        assert message["result"] == {"winner": state.winner, "reason": "normal",
                                     "text": final.result_text}
        await all_quiet(tabs.values())
        await tabs["bob"].close()
        presence = await tabs["alice"].expect("presence")
        assert presence["players_online"] == [True, False] and presence["watchers"] == 2
        for name in ("alice", "carol", "anon"):
            await tabs[name].close()

    run(scenario)


def test_error_paths_answer_the_sender_alone(users, new_game):
    alice, bob, carol = users("alice", "bob", "carol")
    game = new_game([alice, bob], "hadron", {"size": 5})
    a, b, c, anon = (Socket(game.pk, alice), Socket(game.pk, bob), Socket(game.pk, carol),
                     Socket(game.pk, None))

    async def scenario():
        for tab in (a, b, c, anon):
            await tab.open()
        await a.send_text("this is not json")
        await a.error("bad_json")
        await a.send_text("[1, 2]")
        await a.error("bad_json")
        await a.communicator.send_to(bytes_data=b'{"type": "ping"}')
        await a.error("bad_json")
        await a.send_text('{"type": "ping", "pad": "' + "x" * 8200 + '"}')
        await a.error("too_large")
        await a.send(ply=0, action="c3")
        await a.error("bad_message")
        await a.send(type="dance")
        await a.error("unknown_type")
        for bad in ({"ply": True, "action": "c3"}, {"ply": "0", "action": "c3"},
                    {"ply": 0.0, "action": "c3"}, {"ply": -1, "action": "c3"},
                    {"ply": 0, "action": 5}, {"ply": 0, "action": ""},
                    {"ply": 0, "action": "c" * 33}, {"action": "c3"}):
            await a.send(type="play", **bad)
            await a.error("bad_message")
        await a.send(type="resign", ply=None)
        await a.error("bad_message")
        await anon.send(type="play", ply=0, action="c3")
        await anon.error("login_required")
        await anon.send(type="rematch")
        await anon.error("login_required")
        await c.send(type="play", ply=0, action="c3")
        await c.error("not_a_player")
        await c.send(type="resign", ply=0)
        await c.error("not_a_player")
        await b.send(type="play", ply=0, action="c3")
        await b.error("not_your_turn")
        await a.send(type="rematch")
        await a.error("not_allowed")
        await a.send(type="decline_rematch")
        await a.error("not_allowed")
        # Nobody else heard any of that, and nothing changed.
        await all_quiet((a, b, c, anon))
        assert (await fetch(game.pk)).ply_count == 0

        await a.send(type="play", ply=0, action="c3")
        for tab in (a, b, c, anon):
            await tab.expect("action")
        await b.send(type="play", ply=1, action="C3")
        illegal = await b.error("illegal")
        assert illegal["message"] == "c3 is not empty"
        await b.send(type="play", ply=1, action="q9")
        assert "q9" in (await b.error("illegal"))["message"]
        await b.send(type="play", ply=4, action="a1")
        await b.error("stale")
        fresh = await b.expect("snapshot")
        assert fresh["game"]["actions"] == ["c3"] and fresh["game"]["you"] == 1
        await b.send(type="play", ply=1, action="a1")
        for tab in (a, b, c, anon):
            await tab.expect("action")
        await a.send(type="abort", ply=2)
        assert "resign" in (await a.error("not_allowed"))["message"]
        await b.send(type="resign", ply=2)
        for tab in (a, b, c, anon):
            end = await tab.expect("end")
            assert end["result"]["reason"] == "resign" and end["result"]["winner"] == 0
        await a.send(type="play", ply=2, action="e5")
        await a.error("game_over")
        await a.send(type="ping")
        assert (await a.expect("pong"))["server_time"]
        await anon.send(type="snapshot")
        assert (await anon.expect("snapshot"))["game"]["status"] == "finished"
        await all_quiet((a, b, c, anon))
        for tab in (a, b, c, anon):
            await tab.close()
        game_now = await fetch(game.pk)
        assert game_now.ply_count == 2 and game_now.reason == "resign"

    run(scenario)


def test_repeated_and_racing_plies(users, new_game):
    alice, bob = users("alice", "bob")
    game = new_game([alice, bob], "hadron", {"size": 5})
    a1, a2 = Socket(game.pk, alice, "alice-1"), Socket(game.pk, alice, "alice-2")
    b1, b2 = Socket(game.pk, bob, "bob-1"), Socket(game.pk, bob, "bob-2")
    tabs = (a1, a2, b1, b2)

    async def scenario():
        for tab in tabs:
            await tab.open()
        await a1.send(type="play", ply=0, action="c3")
        for tab in tabs:
            assert (await tab.expect("action"))["ply"] == 0
        # A resend of the accepted action (say after a reconnect) is a repeat, not a new move.
        await a2.send(type="play", ply=0, action="C3")
        assert await a2.expect("repeat") == {"type": "repeat", "ply": 0, "action": "c3"}
        await a1.send(type="play", ply=0, action="c3")
        await a1.expect("repeat")
        await all_quiet(tabs)

        # Two tabs of bob race for ply 1 with different moves: exactly one is stored; both
        # tabs hear it, and the loser also gets `stale` and a fresh snapshot.
        await asyncio.gather(b1.send(type="play", ply=1, action="a1"),
                             b2.send(type="play", ply=1, action="e5"))
        stored_move = (await a1.expect("action"))["action"]
        winner, loser = (b1, b2) if stored_move == "a1" else (b2, b1)
        heard = {winner: await winner.take(1), loser: await loser.take(3)}
        stored = await stored_actions(game.pk)
        assert stored == ["c3", stored_move]
        assert [m["type"] for m in heard[winner]] == ["action"]
        assert sorted(m["type"] for m in heard[loser]) == ["action", "error", "snapshot"]
        assert [m["code"] for m in heard[loser] if m["type"] == "error"] == ["stale"]
        snapshot = next(m for m in heard[loser] if m["type"] == "snapshot")
        assert snapshot["game"]["actions"] == stored
        assert (await a2.expect("action"))["action"] == stored_move
        await all_quiet(tabs)

        # The same move racing from two tabs: one action for everyone, one repeat.
        await asyncio.gather(a1.send(type="play", ply=2, action="a5"),
                             a2.send(type="play", ply=2, action="a5"))
        heard = await from_both(a1, a2, count=3)
        assert sorted(m["type"] for m in heard) == ["action", "action", "repeat"]
        for tab in (b1, b2):
            assert (await tab.expect("action"))["ply"] == 2
        await all_quiet(tabs)
        assert await stored_actions(game.pk) == ["c3", stored[1], "a5"]
        for tab in tabs:
            await tab.close()

    run(scenario)


def test_abort_and_rematch_with_swapped_colours(users, new_game):
    alice, bob, carol = users("alice", "bob", "carol")
    game = new_game([alice, bob], "colorful", {"size": 3}, TimeControl.realtime(3, 2))
    a, b, c = Socket(game.pk, alice), Socket(game.pk, bob), Socket(game.pk, carol)

    async def scenario():
        for tab in (a, b, c):
            await tab.open()
        await a.send(type="play", ply=0, action="R@B2")
        for tab in (a, b, c):
            await tab.expect("action")
        await b.send(type="abort", ply=1)
        for tab in (a, b, c):
            end = await tab.expect("end")
            assert end["result"] == {"winner": None, "reason": "abort", "text": "Aborted by bob"}
            assert end["clocks"]["running"] is None
        await a.send(type="rematch")
        for tab in (a, b, c):
            assert await tab.expect("rematch") == {"type": "rematch", "offered_by": 0}
        await b.send(type="rematch")
        started = [await tab.expect("rematch_started") for tab in (a, b, c)]
        assert started[0] == started[1] == started[2]
        url, new_id = started[0]["url"], started[0]["id"]
        assert url == f"/game/{new_id}/"
        for tab in (a, b, c):
            await tab.close()

        # The rematch: bob moves first now; the same options and clock.
        a2 = Socket(new_id, alice, headers=await database_sync_to_async(headers_for)(alice))
        b2 = Socket(new_id, bob, headers=await database_sync_to_async(headers_for)(bob))
        snap = await b2.open()
        await a2.open()
        assert [p["username"] for p in snap["players"]] == ["bob", "alice"]
        assert snap["you"] == 0 and snap["options"] == {"board": "hexhex", "size": 3}
        assert snap["time_control"]["text"] == "3+2"
        await b2.send(type="play", ply=0, action="P@A1")
        await a2.expect("action")
        await b2.expect("action")
        await b2.send(type="rematch")
        await b2.error("not_allowed")
        await a2.send(type="resign", ply=1)
        for tab in (a2, b2):
            end = await tab.expect("end")
            assert end["result"]["reason"] == "resign" and end["result"]["winner"] == 0
            assert end["result"]["text"] == "alice resigned — bob wins"
        await a2.send(type="resign", ply=1)
        assert await a2.expect("repeat") == {"type": "repeat", "ply": 1, "action": "resign"}
        # Offer, then decline.
        await b2.send(type="rematch")
        for tab in (a2, b2):
            assert (await tab.expect("rematch"))["offered_by"] == 0
        await a2.send(type="decline_rematch")
        for tab in (a2, b2):
            assert (await tab.expect("rematch"))["offered_by"] is None
        await all_quiet((a2, b2))
        for tab in (a2, b2):
            await tab.close()

    run(scenario)


def test_time_running_out_with_nobody_claiming_it(users, new_game):
    alice, bob, carol = users("alice", "bob", "carol")
    game = new_game([alice, bob], "hadron", {"size": 5}, TimeControl.realtime(1, 0))
    for ply, (player, action) in enumerate([(alice, "c3"), (bob, "a1"), (alice, "e5")]):
        services.play(game.pk, player, ply, action)
    # Test-only shortcut: bob's clock has 0.4 s left (the smallest real control is a minute).
    Game.objects.filter(pk=game.pk).update(remaining1_ms=400, turn_started_at=timezone.now())
    a, c = Socket(game.pk, alice), Socket(game.pk, carol)

    async def scenario():
        snap = await a.open()
        await c.open()
        assert snap["clocks"]["running"] == 1 and snap["clocks"]["remaining_ms"][1] <= 400
        # Nobody sends anything: the server's own timer ends the game.
        ends = [await tab.expect("end", timeout=WAIT) for tab in (a, c)]
        for end in ends:
            assert end["result"] == {"winner": 0, "reason": "time",
                                     "text": "bob ran out of time — alice wins"}
            assert end["clocks"]["remaining_ms"][1] == 0 and end["clocks"]["running"] is None
        # Exactly one end, although both sockets' timers rang.
        await all_quiet((a, c), 0.5)
        final = await fetch(game.pk)
        assert (final.status, final.reason, final.winner) == ("finished", "time", 0)
        for tab in (a, c):
            await tab.close()

    run(scenario)


def test_the_process_timer_is_rearmed_after_each_action(users, new_game):
    alice, bob = users("alice", "bob")
    game = new_game([alice, bob], "hadron", {"size": 5}, TimeControl.realtime(1, 0))
    a, b = Socket(game.pk, alice), Socket(game.pk, bob)

    async def scenario():
        await a.open()
        await b.open()
        for ply, (tab, action) in enumerate([(a, "c3"), (b, "a1"), (a, "e5")]):
            await tab.send(type="play", ply=ply, action=action)
            for each in (a, b):
                message = await each.expect("action")
        assert message["clocks"]["running"] == 1
        # Shorten bob's clock behind everyone's back; the next action's clocks carry it.
        await database_sync_to_async(Game.objects.filter(pk=game.pk).update)(
            remaining1_ms=600, turn_started_at=timezone.now())
        await b.send(type="snapshot")
        assert (await b.expect("snapshot"))["game"]["clocks"]["remaining_ms"][1] <= 600
        # The process's one timer on the game moved on with that snapshot, and ends the game
        # for both.
        for tab in (a, b):
            assert (await tab.expect("end"))["result"]["reason"] == "time"
        for tab in (a, b):
            await tab.close()

    run(scenario)


def test_tripen_actions_leave_out_the_static_board(users, new_game):
    alice, bob = users("alice", "bob")
    game = new_game([alice, bob], "tripen", {"size": 5})
    a, b = Socket(game.pk, alice), Socket(game.pk, bob)

    async def scenario():
        snap = await a.open()
        await b.open()
        assert "poses" in snap["state"]["board"]
        await a.send(type="play", ply=0, action="c3/0")
        await a.expect("action")
        message = await b.expect("action")
        static = {"viewbox", "labels", "size", "cells", "borders", "poses"}
        assert static <= set(snap["state"]["board"])
        assert not static & set(message["state"]["board"])
        assert message["state"]["board"]["tokens"][0]["action"] == "c3/0"
        await b.send(type="play", ply=1, action="swap")
        await b.expect("action")
        message = await a.expect("action")
        assert message["swapped"] is True and message["player"] == 1
        await a.send(type="snapshot")
        snap = (await a.expect("snapshot"))["game"]
        assert snap["swapped"] and [p["side"] for p in snap["players"]] == [1, 0]
        for tab in (a, b):
            await tab.close()

    run(scenario)


def test_unknown_game_refused_and_origin_checked(users, new_game):
    alice, bob = users("alice", "bob")
    game = new_game([alice, bob])

    async def scenario():
        for path in ("/ws/game/987654/", "/ws/game/99999999999999999999999/"):
            refused = WebsocketCommunicator(application(), path,
                                            headers=[ORIGIN, HOST])
            connected, _ = await refused.connect(timeout=WAIT)
            assert not connected
        foreign = WebsocketCommunicator(application(), f"/ws/game/{game.pk}/",
                                        headers=[(b"origin", b"http://evil.example")])
        connected, _ = await foreign.connect(timeout=WAIT)
        assert not connected

    run(scenario)


def test_the_games_group_hears_every_change(users, new_game):
    alice, bob = users("alice", "bob")
    headers = headers_for(alice)

    async def scenario():
        layer = get_channel_layer()
        follower = await layer.new_channel()
        await layer.group_add("games", follower)
        game = await database_sync_to_async(new_game)([alice, bob])
        a = Socket(game.pk, alice, headers=headers)
        await a.open()
        await a.send(type="play", ply=0, action="c3")
        await a.expect("action")
        await a.send(type="resign", ply=1)
        await a.expect("end")
        events = [await asyncio.wait_for(layer.receive(follower), WAIT) for _ in range(3)]
        assert events == [{"type": "games.changed", "game_id": game.pk, "event": event}
                          for event in ("started", "action", "ended")]
        await layer.group_discard("games", follower)
        await a.close()

    run(scenario)


def test_a_fault_of_the_server_is_answered_and_the_socket_keeps_serving(
        users, new_game, monkeypatch):
    alice, bob = users("alice", "bob")
    game = new_game([alice, bob], "hadron", {"size": 5})
    a = Socket(game.pk, alice)
    real_play = services.play
    faults = iter([RuntimeError("the database went away")])

    def failing_once(*args, **kwargs):
        fault = next(faults, None)
        if fault is not None:
            raise fault
        return real_play(*args, **kwargs)

    monkeypatch.setattr(services, "play", failing_once)

    async def scenario():
        await a.open()
        await a.send(type="play", ply=0, action="c3")
        error = await a.expect("error")
        assert error["code"] == "server_error" and "nothing was changed" in error["message"]
        await a.send(type="play", ply=0, action="c3")
        assert (await a.expect("action"))["action"] == "c3"
        await a.close()

    run(scenario)
    assert stored_actions_now(game.pk) == ["c3"]


def stored_actions_now(game_id):
    return list(Game.objects.get(pk=game_id).action_rows.order_by("ply")
                .values_list("action", flat=True))


def test_a_bot_account_watches_on_the_game_socket_but_plays_through_the_api(users, new_game):
    """issue 27: a bot account plays only through the API; its cookie's socket is refused
    every player's action with `bot_account`, and nothing changes."""
    from api.tokens import upgrade_to_bot

    alice, bot = users("alice", "botty")
    upgrade_to_bot(bot)
    game = new_game([alice, bot], "hadron", {"size": 5})
    tab = Socket(game.pk, bot)

    async def scenario():
        snapshot = await tab.open()
        assert snapshot["you"] == 1
        for message in ({"type": "resign", "ply": 0}, {"type": "abort", "ply": 0},
                        {"type": "takeback", "ply": 0}, {"type": "rematch"}):
            await tab.send(**message)
            refusal = await tab.expect("error")
            assert refusal["code"] == "bot_account", message
        await tab.close()
        assert (await fetch(game.pk)).status == "active"
        assert await stored_actions(game.pk) == []

    run(scenario)
