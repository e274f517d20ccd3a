"""The lobby websocket through channels' communicator and the real ASGI application: seeks
appear and vanish live, the seeker is sent to the new game, challenges reach the challenged
player, and a real-time seek closes when its owner's last lobby socket does."""
import asyncio
import json

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import Client
from django.urls import reverse

from conftest import WAIT, application, headers_for  # tests/ws/conftest.py
from lobby.models import LobbyConnection, Seek
from play.models import Game

pytestmark = pytest.mark.django_db(transaction=True)

JSON = {"HTTP_ACCEPT": "application/json"}


def run(scenario):
    async_to_sync(scenario)()


@pytest.fixture(autouse=True)
def fresh_layer(settings):
    # A new in-memory channel layer per test (changing the setting drops the cached one).
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    settings.LOBBY_PRESENCE_GRACE = 0


class Lobby:
    """One browser tab on the Play page."""

    def __init__(self, user=None):
        self.name = user.username if user else "anonymous"
        self.communicator = WebsocketCommunicator(application(), "/ws/lobby/",
                                                  headers=headers_for(user))

    async def open(self):
        connected, _ = await self.communicator.connect(timeout=WAIT)
        assert connected, f"{self.name} could not connect"
        snapshot = await self.expect("snapshot")
        return snapshot

    async def receive(self, timeout=WAIT):
        return json.loads(await self.communicator.receive_from(timeout))

    async def expect(self, kind, timeout=WAIT):
        message = await self.receive(timeout)
        assert message["type"] == kind, f"{self.name} expected {kind}, got {message}"
        return message

    async def quiet(self, timeout=0.3):
        assert await self.communicator.receive_nothing(timeout), \
            f"{self.name} got {await self.receive()}"

    async def send_text(self, text):
        await self.communicator.send_to(text_data=text)

    async def close(self, timeout=WAIT):
        await self.communicator.disconnect(timeout=timeout)


class Browser:
    """A logged-in player's HTTP side: the page's fetch calls."""

    def __init__(self, user):
        self.client = Client()
        self.client.force_login(user)

    async def post(self, name, *args, **data):
        response = await sync_to_async(self.client.post)(reverse(f"lobby:{name}", args=args),
                                                         data, **JSON)
        return response.json()


def make_browsers(**users):
    """Log in outside the event loop (the ORM refuses to run inside it)."""
    return {name: Browser(user) for name, user in users.items()}


def seek_form(game="hadron", **extra):
    data = {"game": game, "hadron_size": "7", "copolymer_size": "5", "tripen_size": "7",
            "colorful_board": "hexhex", "colorful_size": "5", "time_kind": "realtime",
            "minutes": "3", "increment": "2", "days": "3", "side": "first"}
    data.update(extra)
    return data


@database_sync_to_async
def seek_status(seek_id):
    return Seek.objects.get(pk=seek_id).status


def test_seeks_appear_and_vanish_live(users):
    alice, bob = users("alice", "bob")
    browsers = make_browsers(alice=alice, bob=bob)
    tabs = {"bob": Lobby(bob), "anon": Lobby(None)}

    async def scenario():
        for tab in tabs.values():
            assert (await tab.open())["seeks"] == []
        answer = await browsers["alice"].post("seek_create", **seek_form())
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
        for tab in tabs.values():
            await tab.quiet()
            await tab.close()

    run(scenario)


def test_snapshot_on_connect(users):
    alice, bob, carol = users("alice", "bob", "carol")
    browsers = make_browsers(alice=alice, bob=bob)
    bob_tab, carol_tab, anon_tab = Lobby(bob), Lobby(carol), Lobby(None)

    async def scenario():
        # Correspondence: alice has no lobby socket, so a real-time seek of hers would close.
        seek = (await browsers["alice"].post(
            "seek_create", **seek_form("tripen", time_kind="correspondence")))["seek"]
        challenge = (await browsers["alice"].post("challenge_create",
                                               **seek_form(opponent="bob")))["challenge"]
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
    alice_tab, bob_tab = Lobby(alice), Lobby(bob)

    async def scenario():
        await alice_tab.open()
        await bob_tab.open()
        seek_id = (await browsers["alice"].post("seek_create", **seek_form()))["seek"]["id"]
        await alice_tab.expect("seek_added")
        await bob_tab.expect("seek_added")
        answer = await browsers["bob"].post("seek_accept", seek_id)
        game = await database_sync_to_async(Game.objects.get)()
        assert answer["redirect"] == game.get_absolute_url()
        removed = {"type": "seek_removed", "id": seek_id, "reason": "taken"}
        assert await bob_tab.expect("seek_removed") == removed
        await bob_tab.quiet()  # the accepter follows the HTTP answer, not the socket
        messages = [await alice_tab.receive(), await alice_tab.receive()]
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
    first_tab, second_tab, bob_tab = Lobby(alice), Lobby(alice), Lobby(bob)

    async def scenario():
        await first_tab.open()
        await second_tab.open()
        await bob_tab.open()
        assert await database_sync_to_async(LobbyConnection.objects.count)() == 3
        browser = browsers["alice"]
        realtime = (await browser.post("seek_create", **seek_form()))["seek"]["id"]
        mail = await browser.post("seek_create", **seek_form(time_kind="correspondence"))
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
    old_tab, new_tab, bob_tab = Lobby(alice), Lobby(alice), Lobby(bob)

    async def scenario():
        await old_tab.open()
        await bob_tab.open()
        seek = (await browsers["alice"].post("seek_create", **seek_form()))["seek"]["id"]
        await bob_tab.expect("seek_added")
        await asyncio.sleep(1.2)  # older than the grace itself
        # The page reloads: the old socket closes, the new one opens at once. The old one's
        # disconnect waits out the grace, then finds her back.
        closing = asyncio.ensure_future(old_tab.close(timeout=WAIT))
        await asyncio.sleep(0.2)
        await new_tab.open()
        await closing
        await bob_tab.quiet(1.5)
        assert await seek_status(seek) == "open"
        # Gone for good: after the grace the seek closes.
        await new_tab.close(timeout=WAIT)
        assert (await bob_tab.expect("seek_removed"))["id"] == seek
        await bob_tab.close()

    run(scenario)


def test_challenge_reaches_the_challenged_player(users):
    alice, bob, carol = users("alice", "bob", "carol")
    browsers = make_browsers(alice=alice, bob=bob)
    alice_tab, bob_tab, carol_tab = Lobby(alice), Lobby(bob), Lobby(carol)

    async def scenario():
        for tab in (alice_tab, bob_tab, carol_tab):
            await tab.open()
        answer = await browsers["alice"].post("challenge_create",
                                           **seek_form("colorful", colorful_board="long",
                                                       colorful_size="4", opponent="bob"))
        assert answer["ok"], answer
        for tab in (alice_tab, bob_tab):
            message = await tab.expect("challenge_added")
            assert message["challenge"] == answer["challenge"]
            assert message["challenge"]["options_text"] == "long board 4"
        await carol_tab.quiet()
        challenge_id = answer["challenge"]["id"]
        assert (await browsers["bob"].post("challenge_decline", challenge_id))["ok"]
        for tab in (alice_tab, bob_tab):
            assert await tab.expect("challenge_removed") == {
                "type": "challenge_removed", "id": challenge_id, "reason": "declined"}
        await carol_tab.quiet()
        # Another one, withdrawn by alice.
        answer = await browsers["alice"].post("challenge_create", **seek_form(opponent="bob"))
        await bob_tab.expect("challenge_added")
        await alice_tab.expect("challenge_added")
        assert (await browsers["alice"].post("challenge_withdraw", answer["challenge"]["id"]))["ok"]
        assert (await bob_tab.expect("challenge_removed"))["reason"] == "withdrawn"
        for tab in (alice_tab, bob_tab, carol_tab):
            await tab.close()

    run(scenario)


def test_accepted_challenge_sends_the_challenger_to_the_game(users):
    alice, bob = users("alice", "bob")
    browsers = make_browsers(alice=alice, bob=bob)
    alice_tab = Lobby(alice)

    async def scenario():
        await alice_tab.open()
        answer = await browsers["alice"].post("challenge_create", **seek_form(opponent="bob"))
        await alice_tab.expect("challenge_added")
        accepted = await browsers["bob"].post("challenge_accept", answer["challenge"]["id"])
        game = await database_sync_to_async(Game.objects.get)()
        assert accepted["redirect"] == game.get_absolute_url()
        assert (await alice_tab.expect("challenge_removed"))["reason"] == "accepted"
        started = await alice_tab.expect("game_started")
        assert started["url"] == game.get_absolute_url()
        assert started["message"] == "bob accepted your challenge"
        await alice_tab.close()

    run(scenario)


def test_socket_takes_pings_only(users):
    (alice,) = users("alice")
    tab = Lobby(alice)

    async def scenario():
        await tab.open()
        await tab.send_text(json.dumps({"type": "ping"}))
        assert "server_time" in await tab.expect("pong")
        await tab.send_text("not json")
        assert (await tab.expect("error"))["code"] == "bad_json"
        await tab.send_text(json.dumps({"type": "accept", "id": 1}))
        assert (await tab.expect("error"))["code"] == "unknown_type"
        await tab.send_text(json.dumps({"type": "ping", "pad": "x" * 2000}))
        assert (await tab.expect("error"))["code"] == "bad_message"
        await tab.close()

    run(scenario)


def test_ping_keeps_the_connection_fresh(users):
    (alice,) = users("alice")
    tab = Lobby(alice)

    async def scenario():
        await tab.open()
        before = await database_sync_to_async(lambda: LobbyConnection.objects.get().last_seen)()
        await asyncio.sleep(0.05)
        await tab.send_text(json.dumps({"type": "ping"}))
        await tab.expect("pong")
        after = await database_sync_to_async(lambda: LobbyConnection.objects.get().last_seen)()
        assert after > before
        await tab.close()
        row = await database_sync_to_async(LobbyConnection.objects.first)()
        assert row is None or row.closed_at is not None

    run(scenario)
