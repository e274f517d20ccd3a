"""Takebacks over the live game socket (channels' communicator, the real ASGI application): two
players and a spectator hear every step live; races between acceptances and moves."""
import asyncio

import pytest
from channels.db import database_sync_to_async

from play import rooms
from play.models import Game
from tests.ws.messages import all_quiet
from tests.ws.sockets import Socket, run

pytestmark = pytest.mark.django_db(transaction=True)


@database_sync_to_async
def stored(game_id):
    game = Game.objects.get(pk=game_id)
    return game.action_list(), game.takebacks, game.takeback_offer


def test_propose_decline_propose_accept_heard_by_everyone(users, new_game):
    alice, bob, carol = users("alice", "bob", "carol")
    game = new_game([alice, bob], "hadron", {"size": 5})
    a, b, c = Socket(game.pk, alice), Socket(game.pk, bob), Socket(game.pk, carol)
    everyone = (a, b, c)
    late = Socket(game.pk, carol, "carol-2")

    async def scenario():
        for tab in everyone:
            await tab.open()
        for ply, (tab, action) in enumerate([(a, "c3"), (b, "a1")]):
            await tab.send(type="play", ply=ply, action=action)
            for each in everyone:
                assert (await each.expect("action"))["ply"] == ply

        # Bob's turn was taken: it is alice's turn, so bob's last turn goes back alone.
        await b.send(type="takeback", ply=2)
        for each in everyone:
            assert await each.expect("takeback_offered") == {
                "type": "takeback_offered", "by": 1, "ply": 2, "back_to": 1}
        await a.send(type="decline_takeback")
        for each in everyone:
            assert await each.expect("takeback_declined") == {
                "type": "takeback_declined", "by": 0, "proposed_by": 1, "ply": 2}
        await a.send(type="accept_takeback", ply=2)
        await a.error("not_allowed")
        await all_quiet(everyone)

        await b.send(type="takeback", ply=2)
        for each in everyone:
            await each.expect("takeback_offered")
        await b.send(type="accept_takeback", ply=2)  # his own
        await b.error("not_allowed")
        await a.send(type="accept_takeback", ply=2)
        for each in everyone:
            message = await each.expect("taken_back")
            assert (message["ply"], message["from_ply"], message["by"]) == (1, 2, 1)
            assert message["state"]["actions"] == ["c3"] and message["state"]["to_move"] == 1
            assert message["takebacks"] == 1 and message["clocks"]["server_time"]
        await all_quiet(everyone)
        assert await stored(game.pk) == (["c3"], 1, None)
        # This process's room knows the ply went back: a pong does not send clients looking
        # for a ply that is gone.
        assert rooms.ply_of(game.pk) == 1

        # Another move at the same ply: everyone hears it as ply 1, and a fresh socket's
        # snapshot has it.
        await b.send(type="play", ply=1, action="e5")
        for each in everyone:
            assert (await each.expect("action"))["state"]["actions"] == ["c3", "e5"]
        snapshot = await late.open()
        assert snapshot["actions"] == ["c3", "e5"] and snapshot["takebacks"] == 1
        assert snapshot["takeback"] == {"offered_by": None, "ply": 2}
        for tab in (*everyone, late):
            await tab.close()

    run(scenario)


def test_fields_are_checked_and_visitors_cannot_propose(users, new_game):
    alice, bob = users("alice", "bob")
    game = new_game([alice, bob], "hadron", {"size": 5})
    a, anonymous = Socket(game.pk, alice), Socket(game.pk, None)

    async def scenario():
        await a.open()
        await anonymous.open()
        for bad in ({}, {"ply": "1"}, {"ply": -1}, {"ply": True}, {"ply": 1.0}):
            await a.send(type="takeback", **bad)
            await a.error("bad_message")
            await a.send(type="accept_takeback", **bad)
            await a.error("bad_message")
        for kind in ("takeback", "accept_takeback", "decline_takeback"):
            await anonymous.send(type=kind, ply=0)
            await anonymous.error("login_required")
        await a.send(type="takeback", ply=0)
        await a.error("not_allowed")  # no turn yet
        await a.send(type="play", ply=0, action="c3")
        for tab in (a, anonymous):
            await tab.expect("action")
        await a.send(type="takeback", ply=0)
        await a.error("stale")
        await a.expect("snapshot")
        await all_quiet((a, anonymous))
        for tab in (a, anonymous):
            await tab.close()

    run(scenario)


def test_two_acceptances_race_and_one_wins(users, new_game):
    alice, bob = users("alice", "bob")
    game = new_game([alice, bob], "hadron", {"size": 5})
    a = Socket(game.pk, alice)
    b1, b2 = Socket(game.pk, bob, "bob-1"), Socket(game.pk, bob, "bob-2")
    tabs = (a, b1, b2)

    async def scenario():
        for tab in tabs:
            await tab.open()
        for ply, (tab, action) in enumerate([(a, "c3"), (b1, "a1"), (a, "e5")]):
            await tab.send(type="play", ply=ply, action=action)
            for each in tabs:
                assert (await each.expect("action"))["ply"] == ply
        await a.send(type="takeback", ply=3)
        for tab in tabs:
            await tab.expect("takeback_offered")
        await asyncio.gather(b1.send(type="accept_takeback", ply=3),
                             b2.send(type="accept_takeback", ply=3))
        assert (await a.expect("taken_back"))["ply"] == 2
        heard = sorted([m["type"] for m in await b1.drain(1)] + [m["type"] for m in await b2.drain(1)])
        # One acceptance took it back; the other referred to ply 3, which is gone.
        assert heard == ["error", "snapshot", "taken_back", "taken_back"]
        assert await stored(game.pk) == (["c3", "a1"], 1, None)
        for tab in tabs:
            await tab.close()

    run(scenario)


def test_an_acceptance_racing_a_move(users, new_game):
    alice, bob = users("alice", "bob")
    game = new_game([alice, bob], "hadron", {"size": 5})
    a, b = Socket(game.pk, alice), Socket(game.pk, bob)

    async def scenario():
        for tab in (a, b):
            await tab.open()
        for ply, (tab, action) in enumerate([(a, "c3"), (b, "a1")]):
            await tab.send(type="play", ply=ply, action=action)
            for each in (a, b):
                assert (await each.expect("action"))["ply"] == ply
        # Alice's turn: she proposes (her turn and bob's reply would go), then plays on
        # while bob accepts: exactly one of the two happens.
        await a.send(type="takeback", ply=2)
        for tab in (a, b):
            await tab.expect("takeback_offered")
        await asyncio.gather(a.send(type="play", ply=2, action="e5"),
                             b.send(type="accept_takeback", ply=2))
        # (A refusal goes to its sender at once, the news through the group: either first.)
        heard_a = sorted(m["type"] for m in await a.drain(1))
        heard_b = sorted(m["type"] for m in await b.drain(1))
        actions, takebacks, offer = await stored(game.pk)
        assert offer is None
        if takebacks:  # the acceptance first: the move referred to ply 2, now gone
            assert actions == []
            assert heard_a == ["error", "snapshot", "taken_back"] and heard_b == ["taken_back"]
        else:  # the move first: it lapsed the proposal
            assert actions == ["c3", "a1", "e5"]
            assert heard_a == ["action", "takeback_lapsed"]
            assert heard_b == ["action", "error", "snapshot", "takeback_lapsed"]
        for tab in (a, b):
            await tab.close()

    run(scenario)
