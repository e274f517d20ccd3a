"""The notification socket /ws/notify/ through channels' communicator and the real ASGI
application: a logged-in player's every page hears their challenges and is sent to a game that
started, while only the lobby socket counts as waiting in the lobby."""
import json

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import Client
from django.urls import reverse

from lobby.models import LobbyConnection, Seek
from play.models import Game
from tests.ws.sockets import WAIT, application, headers_for

pytestmark = pytest.mark.django_db(transaction=True)

JSON = {"HTTP_ACCEPT": "application/json"}


@pytest.fixture(autouse=True)
def no_grace(settings):
    # A real-time seek closes as soon as its owner's last lobby socket does.
    settings.LOBBY_PRESENCE_GRACE = 0


def run(scenario):
    async_to_sync(scenario)()


class Tab:
    """One browser tab of a player: on any page its notification socket, on the Play page
    its lobby socket (path="/ws/lobby/")."""

    def __init__(self, user, path="/ws/notify/"):
        self.name = f"{user.username if user else 'anonymous'} on {path}"
        self.communicator = WebsocketCommunicator(application(), path, headers=headers_for(user))

    async def open(self):
        connected, _ = await self.communicator.connect(timeout=WAIT)
        assert connected, f"{self.name} could not connect"
        return await self.expect("snapshot")

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

    async def close(self):
        await self.communicator.disconnect(timeout=WAIT)


class Browser:
    """A logged-in player's HTTP side: the fetch calls of the page or its toasts."""

    def __init__(self, user):
        self.client = Client()
        self.client.force_login(user)

    async def post(self, name, *args, **data):
        response = await sync_to_async(self.client.post)(reverse(f"lobby:{name}", args=args),
                                                         data, **JSON)
        return response.json()


def proposal(game="hadron", **extra):
    data = {"game": game, "hadron_size": "7", "copolymer_size": "5", "tripen_size": "7",
            "colorful_board": "hexhex", "colorful_size": "5", "time_kind": "realtime",
            "minutes": "5", "increment": "3", "days": "3", "side": "first"}
    data.update(extra)
    return data


@database_sync_to_async
def lobby_connections():
    return LobbyConnection.objects.count()


@database_sync_to_async
def seek_status(seek_id):
    return Seek.objects.get(pk=seek_id).status


def test_challenge_reaches_the_challenged_players_notify_socket(users):
    alice, bob, carol = users("alice", "bob", "carol")
    browsers = {"alice": Browser(alice), "bob": Browser(bob)}
    alice_tab, bob_tab, carol_tab = Tab(alice), Tab(bob), Tab(carol)

    async def scenario():
        snapshot = await bob_tab.open()
        assert snapshot == {"type": "snapshot", "you": "bob", "challenges": []}
        await alice_tab.open()
        await carol_tab.open()
        answer = await browsers["alice"].post("challenge_create", **proposal(opponent="bob"))
        assert answer["ok"], answer
        for tab in (bob_tab, alice_tab):
            message = await tab.expect("challenge_added")
            assert message["challenge"] == answer["challenge"]
        challenge = answer["challenge"]
        assert (challenge["from"], challenge["to"]) == ("alice", "bob")
        assert (challenge["game_title"], challenge["options_text"]) == ("Hadron", "7×7")
        assert challenge["time_control"]["text"] == "5+3"
        await carol_tab.quiet()

        # bob declines from his toast: alice's page hears it.
        assert (await browsers["bob"].post("challenge_decline", challenge["id"]))["ok"]
        declined = {"type": "challenge_removed", "id": challenge["id"], "reason": "declined"}
        assert await alice_tab.expect("challenge_removed") == declined
        assert await bob_tab.expect("challenge_removed") == declined

        # Another one, withdrawn by alice: bob's toast hears that.
        answer = await browsers["alice"].post("challenge_create", **proposal(opponent="bob"))
        await bob_tab.expect("challenge_added")
        await alice_tab.expect("challenge_added")
        assert (await browsers["alice"].post("challenge_withdraw", answer["challenge"]["id"]))["ok"]
        assert (await bob_tab.expect("challenge_removed"))["reason"] == "withdrawn"
        assert (await alice_tab.expect("challenge_removed"))["reason"] == "withdrawn"
        await carol_tab.quiet()
        for tab in (alice_tab, bob_tab, carol_tab):
            await tab.close()

    run(scenario)


def test_snapshot_lists_the_pending_challenges_but_no_seeks(users):
    alice, bob = users("alice", "bob")
    browsers = {"alice": Browser(alice), "bob": Browser(bob)}
    bob_tab = Tab(bob)

    async def scenario():
        await browsers["alice"].post("seek_create", **proposal(time_kind="correspondence"))
        received = (await browsers["alice"].post("challenge_create",
                                                 **proposal(opponent="bob")))["challenge"]
        sent = (await browsers["bob"].post("challenge_create",
                                           **proposal("tripen", opponent="alice")))["challenge"]
        # A challenge that arrived while bob was away is there when his next page opens.
        snapshot = await bob_tab.open()
        assert snapshot == {"type": "snapshot", "you": "bob", "challenges": [received, sent]}
        # Seeks are the lobby's business: a new one does not reach this socket.
        await browsers["alice"].post("seek_create", **proposal("copolymer",
                                                               time_kind="untimed"))
        await bob_tab.quiet()
        await bob_tab.close()

    run(scenario)


def test_anonymous_visitor_is_refused():
    communicator = WebsocketCommunicator(application(), "/ws/notify/", headers=headers_for(None))

    async def scenario():
        # Closed before being accepted: the handshake fails (Daphne answers HTTP 403).
        connected, _ = await communicator.connect(timeout=WAIT)
        assert not connected

    run(scenario)


def test_notify_socket_does_not_keep_a_realtime_seek_open(users):
    alice, bob = users("alice", "bob")
    browser = Browser(alice)
    alice_lobby, alice_page, bob_lobby = Tab(alice, "/ws/lobby/"), Tab(alice), Tab(bob, "/ws/lobby/")

    async def scenario():
        await alice_page.open()
        assert await lobby_connections() == 0
        await alice_page.send_text(json.dumps({"type": "ping"}))
        assert "server_time" in await alice_page.expect("pong")
        assert await lobby_connections() == 0

        await alice_lobby.open()
        await bob_lobby.open()
        assert await lobby_connections() == 2
        seek = (await browser.post("seek_create", **proposal()))["seek"]["id"]
        await bob_lobby.expect("seek_added")
        # She leaves the Play page for the rules: her other page's notification socket is
        # still open, but she is no longer waiting in the lobby, so the seek closes.
        await alice_lobby.close()
        assert await bob_lobby.expect("seek_removed") == {
            "type": "seek_removed", "id": seek, "reason": "expired"}
        assert await seek_status(seek) == "expired"
        await alice_page.quiet()
        for tab in (alice_page, bob_lobby):
            await tab.close()

    run(scenario)


def test_accepted_seek_sends_the_seeker_to_the_game(users):
    alice, bob = users("alice", "bob")
    browsers = {"alice": Browser(alice), "bob": Browser(bob)}
    alice_page, bob_page = Tab(alice), Tab(bob)

    async def scenario():
        await alice_page.open()
        await bob_page.open()
        # Correspondence: it stays open while alice reads the rules.
        seek = (await browsers["alice"].post(
            "seek_create", **proposal(time_kind="correspondence")))["seek"]["id"]
        answer = await browsers["bob"].post("seek_accept", seek)
        game = await database_sync_to_async(Game.objects.get)()
        assert answer["redirect"] == game.get_absolute_url()
        assert await alice_page.expect("game_started") == {
            "type": "game_started", "game_id": game.pk, "url": f"/game/{game.pk}/",
            "message": "bob accepted your seek"}
        await alice_page.quiet()
        await bob_page.quiet()  # the accepter follows the HTTP answer
        for tab in (alice_page, bob_page):
            await tab.close()

    run(scenario)


def test_accepted_challenge_sends_the_challenger_to_the_game(users):
    alice, bob = users("alice", "bob")
    browsers = {"alice": Browser(alice), "bob": Browser(bob)}
    alice_page = Tab(alice)

    async def scenario():
        await alice_page.open()
        challenge = (await browsers["alice"].post("challenge_create",
                                                  **proposal(opponent="bob")))["challenge"]
        await alice_page.expect("challenge_added")
        accepted = await browsers["bob"].post("challenge_accept", challenge["id"])
        game = await database_sync_to_async(Game.objects.get)()
        assert accepted["redirect"] == game.get_absolute_url()
        assert await alice_page.expect("challenge_removed") == {
            "type": "challenge_removed", "id": challenge["id"], "reason": "accepted"}
        started = await alice_page.expect("game_started")
        assert started["url"] == game.get_absolute_url()
        assert started["message"] == "bob accepted your challenge"
        await alice_page.close()

    run(scenario)


def test_socket_takes_pings_only(users):
    (alice,) = users("alice")
    tab = Tab(alice)

    async def scenario():
        await tab.open()
        await tab.send_text("not json")
        assert (await tab.expect("error"))["code"] == "bad_json"
        await tab.send_text(json.dumps({"type": "accept", "id": 1}))
        assert (await tab.expect("error"))["code"] == "unknown_type"
        await tab.send_text(json.dumps({"type": "ping", "pad": "x" * 2000}))
        assert (await tab.expect("error"))["code"] == "bad_message"
        await tab.close()

    run(scenario)


def test_pages_load_the_notifier_for_players_away_from_the_lobby(client, users):
    (alice,) = users("alice")
    script = "js/notify.js"
    assert script not in client.get("/rules/").content.decode()
    client.force_login(alice)
    assert script in client.get("/rules/").content.decode()
    assert script in client.get(f"/u/{alice.username}/").content.decode()
    # The lobby's own pages tell the same news through lobby.js: no second socket there.
    for path in ("/play/", "/play/challenges/"):
        html = client.get(path).content.decode()
        assert script not in html and "js/lobby.js" in html
