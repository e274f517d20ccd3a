"""The lobby websocket through channels' communicator and the real ASGI application: seeks
appear and vanish live, the seeker is sent to the new game, challenges reach the challenged
player, and a real-time seek closes when its owner's last lobby socket does."""
import asyncio
import json

import pytest
from channels.db import database_sync_to_async

from live import process
from live.models import Presence
from play.models import Game
from tests.ws.messages import WAIT, all_quiet
from tests.ws.sockets import LobbyClient, PageSocket, proposal, run, seek_status

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("no_lobby_grace")]


def lobby_tab(user=None):
    """One browser tab on the Play page."""
    return PageSocket("/ws/lobby/", user)


def make_browsers(**users):
    """Log in outside the event loop (the ORM refuses to run inside it)."""
    return {name: LobbyClient(user) for name, user in users.items()}


def test_seeks_appear_and_vanish_live(users):
    alice, bob = users("alice", "bob")
    browsers = make_browsers(alice=alice, bob=bob)
    tabs = {"bob": lobby_tab(bob), "anon": lobby_tab(None)}

    async def scenario():
        for tab in tabs.values():
            assert (await tab.open())["seeks"] == []
        answer = await browsers["alice"].post("seek_create",
                                              **proposal(minutes="3", increment="2"))
        assert answer["ok"], answer
        for tab in tabs.values():
            message = await tab.expect("seek_added")
            assert message["seek"] == answer["seek"]
            assert message["seek"]["owner"] == "alice"
            assert message["seek"]["options_text"] == "7×7"
            assert message["seek"]["time_control"]["text"] == "3+2"
            assert message["seek"]["side_text"] == "alice moves first"
        seek_id = answer["seek"]["id"]
        assert (await browsers["alice"].post("seek_cancel", seek_id))["ok"]
        for tab in tabs.values():
            assert await tab.expect("seek_removed") == {
                "type": "seek_removed", "id": seek_id, "reason": "cancelled"}
            await tab.quiet()
        # A refused action announces nothing.
        assert not (await browsers["bob"].post("seek_cancel", seek_id))["ok"]
        await all_quiet(tabs.values())
        for tab in tabs.values():
            await tab.close()

    run(scenario)


def test_snapshot_on_connect(users):
    alice, bob, carol = users("alice", "bob", "carol")
    browsers = make_browsers(alice=alice, bob=bob)
    bob_tab, carol_tab, anon_tab = lobby_tab(bob), lobby_tab(carol), lobby_tab(None)

    async def scenario():
        # Correspondence: alice has no lobby socket, so a real-time seek of hers would close.
        seek = (await browsers["alice"].post(
            "seek_create", **proposal("tripen", time_kind="correspondence")))["seek"]
        challenge = (await browsers["alice"].post("challenge_create",
                                               **proposal(opponent="bob")))["challenge"]
        snapshot = await bob_tab.open()
        assert snapshot["you"] == "bob"
        assert snapshot["seeks"] == [seek]
        assert snapshot["challenges"] == [challenge]
        assert challenge["from"] == "alice" and challenge["to"] == "bob"
        snapshot = await carol_tab.open()
        assert snapshot["seeks"] == [seek] and snapshot["challenges"] == []
        snapshot = await anon_tab.open()
        assert snapshot["you"] is None and snapshot["challenges"] == []
        for tab in (bob_tab, carol_tab, anon_tab):
            await tab.close()

    run(scenario)


def test_seeker_is_sent_to_the_new_game(users):
    alice, bob = users("alice", "bob")
    browsers = make_browsers(alice=alice, bob=bob)
    alice_tab, bob_tab = lobby_tab(alice), lobby_tab(bob)

    async def scenario():
        await alice_tab.open()
        await bob_tab.open()
        seek_id = (await browsers["alice"].post("seek_create", **proposal()))["seek"]["id"]
        await alice_tab.expect("seek_added")
        await bob_tab.expect("seek_added")
        answer = await browsers["bob"].post("seek_accept", seek_id)
        game = await database_sync_to_async(Game.objects.get)()
        assert answer["redirect"] == game.get_absolute_url()
        removed = {"type": "seek_removed", "id": seek_id, "reason": "taken"}
        assert await bob_tab.expect("seek_removed") == removed
        await bob_tab.quiet()  # the accepter follows the HTTP answer, not the socket
        messages = await alice_tab.take(2)
        assert removed in messages
        started = next(m for m in messages if m["type"] == "game_started")
        assert started["url"] == game.get_absolute_url() and started["game_id"] == game.pk
        assert started["message"] == "bob accepted your seek"
        await alice_tab.close()
        await bob_tab.close()

    run(scenario)


def test_realtime_seek_closes_when_its_owner_leaves(users):
    alice, bob = users("alice", "bob")
    browsers = make_browsers(alice=alice, bob=bob)
    first_tab, second_tab, bob_tab = lobby_tab(alice), lobby_tab(alice), lobby_tab(bob)

    async def scenario():
        await first_tab.open()
        await second_tab.open()
        await bob_tab.open()
        assert await database_sync_to_async(Presence.objects.count)() == 3
        browser = browsers["alice"]
        realtime = (await browser.post("seek_create", **proposal()))["seek"]["id"]
        mail = await browser.post("seek_create", **proposal(time_kind="correspondence"))
        mail = mail["seek"]["id"]
        for _ in range(2):
            await bob_tab.expect("seek_added")
        # One of her two tabs closes: she is still in the lobby.
        await first_tab.close()
        await bob_tab.quiet()
        assert await seek_status(realtime) == "open"
        # The last one closes: her real-time seek goes, her correspondence seek stays.
        await second_tab.close()
        assert await bob_tab.expect("seek_removed") == {
            "type": "seek_removed", "id": realtime, "reason": "expired"}
        await bob_tab.quiet()
        assert await seek_status(realtime) == "expired"
        assert await seek_status(mail) == "open"
        await bob_tab.close()

    run(scenario)


def test_reload_within_the_grace_keeps_the_seek(users, settings):
    settings.LOBBY_PRESENCE_GRACE = 1
    alice, bob = users("alice", "bob")
    browsers = make_browsers(alice=alice, bob=bob)
    old_tab, new_tab, bob_tab = lobby_tab(alice), lobby_tab(alice), lobby_tab(bob)

    async def scenario():
        await old_tab.open()
        await bob_tab.open()
        seek = (await browsers["alice"].post("seek_create", **proposal()))["seek"]["id"]
        await bob_tab.expect("seek_added")
        await asyncio.sleep(1.2)  # older than the grace itself
        # The page reloads: the old socket closes, the new one opens at once. The old one's
        # disconnect waits out the grace, then finds her back.
        closing = asyncio.ensure_future(old_tab.close(timeout=WAIT))
        await asyncio.sleep(0.2)
        await new_tab.open()
        await closing  # the disconnect itself waits out the grace, then decides
        await bob_tab.quiet()
        assert await seek_status(seek) == "open"
        # Gone for good: after the grace the seek closes.
        await new_tab.close(timeout=WAIT)
        assert (await bob_tab.expect("seek_removed"))["id"] == seek
        await bob_tab.close()

    run(scenario)


def test_challenge_reaches_the_challenged_player(users):
    alice, bob, carol = users("alice", "bob", "carol")
    browsers = make_browsers(alice=alice, bob=bob)
    alice_tab, bob_tab, carol_tab = lobby_tab(alice), lobby_tab(bob), lobby_tab(carol)

    async def scenario():
        for tab in (alice_tab, bob_tab, carol_tab):
            await tab.open()
        answer = await browsers["alice"].post("challenge_create",
                                           **proposal("colorful", colorful_board="long",
                                                       colorful_size="4", opponent="bob"))
        assert answer["ok"], answer
        for tab in (alice_tab, bob_tab):
            message = await tab.expect("challenge_added")
            assert message["challenge"] == answer["challenge"]
            assert message["challenge"]["options_text"] == "long board side 4"
        await carol_tab.quiet()
        challenge_id = answer["challenge"]["id"]
        assert (await browsers["bob"].post("challenge_decline", challenge_id))["ok"]
        for tab in (alice_tab, bob_tab):
            assert await tab.expect("challenge_removed") == {
                "type": "challenge_removed", "id": challenge_id, "reason": "declined"}
        await carol_tab.quiet()
        # Another one, withdrawn by alice.
        answer = await browsers["alice"].post("challenge_create", **proposal(opponent="bob"))
        await bob_tab.expect("challenge_added")
        await alice_tab.expect("challenge_added")
        assert (await browsers["alice"].post("challenge_withdraw", answer["challenge"]["id"]))["ok"]
        assert (await bob_tab.expect("challenge_removed"))["reason"] == "withdrawn"
        for tab in (alice_tab, bob_tab, carol_tab):
            await tab.close()

    run(scenario)


def test_the_process_heartbeat_keeps_the_connection_fresh(users):
    (alice,) = users("alice")
    tab = lobby_tab(alice)

    async def scenario():
        await tab.open()
        before = await database_sync_to_async(lambda: Presence.objects.get().seen_at)()
        await asyncio.sleep(0.05)
        await tab.send_text(json.dumps({"type": "ping"}))
        await tab.expect("pong")
        # A ping costs the database nothing: the process refreshes all its sockets at once.
        pinged = await database_sync_to_async(lambda: Presence.objects.get().seen_at)()
        assert pinged == before
        await process.beat()
        after = await database_sync_to_async(lambda: Presence.objects.get().seen_at)()
        assert after > before
        await tab.close()
        row = await database_sync_to_async(Presence.objects.first)()
        assert row is None or row.counts_until is not None

    run(scenario)
