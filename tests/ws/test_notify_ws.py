"""The notification socket /ws/notify/ through channels' communicator and the real ASGI
application: a logged-in player's every page hears their challenges and is sent to a game that
started, while only the lobby socket counts as waiting in the lobby."""
import json

import pytest
from channels.db import database_sync_to_async

from live.models import Presence
from play.models import Game
from tests.ws.sockets import LobbyClient, PageSocket, proposal, run, seek_status

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("no_lobby_grace")]


def tab_of(user, path="/ws/notify/"):
    """One browser tab of a player: on any page its notification socket, on the Play page
    its lobby socket (path="/ws/lobby/")."""
    return PageSocket(path, user)


@database_sync_to_async
def lobby_connections():
    return Presence.objects.filter(kind=Presence.LOBBY).count()


def test_challenge_reaches_the_challenged_players_notify_socket(users):
    alice, bob, carol = users("alice", "bob", "carol")
    browsers = {"alice": LobbyClient(alice), "bob": LobbyClient(bob)}
    alice_tab, bob_tab, carol_tab = tab_of(alice), tab_of(bob), tab_of(carol)

    async def scenario():
        snapshot = await bob_tab.open()
        assert snapshot == {"type": "snapshot", "you": "bob", "your_ratings": {},
                            "your_turn": [], "challenges": []}
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
    browsers = {"alice": LobbyClient(alice), "bob": LobbyClient(bob)}
    bob_tab = tab_of(bob)

    async def scenario():
        await browsers["alice"].post("seek_create", **proposal(time_kind="correspondence"))
        received = (await browsers["alice"].post("challenge_create",
                                                 **proposal(opponent="bob")))["challenge"]
        sent = (await browsers["bob"].post("challenge_create",
                                           **proposal("tripen", opponent="alice")))["challenge"]
        # A challenge that arrived while bob was away is there when his next page opens.
        snapshot = await bob_tab.open()
        assert snapshot == {"type": "snapshot", "you": "bob", "your_ratings": {}, "your_turn": [],
                            "challenges": [received, sent]}
        # Seeks are the lobby's business: a new one does not reach this socket.
        await browsers["alice"].post("seek_create", **proposal("copolymer",
                                                               time_kind="untimed"))
        await bob_tab.quiet()
        await bob_tab.close()

    run(scenario)


def test_anonymous_visitor_is_refused():
    anonymous = tab_of(None)

    async def scenario():
        # Closed before being accepted: the handshake fails (Daphne answers HTTP 403).
        assert not await anonymous.connect()

    run(scenario)


def test_notify_socket_does_not_keep_a_realtime_seek_open(users):
    alice, bob = users("alice", "bob")
    browser = LobbyClient(alice)
    alice_lobby, alice_page = tab_of(alice, "/ws/lobby/"), tab_of(alice)
    bob_lobby = tab_of(bob, "/ws/lobby/")

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
    browsers = {"alice": LobbyClient(alice), "bob": LobbyClient(bob)}
    alice_page, bob_page = tab_of(alice), tab_of(bob)

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


# The Play page's lobby socket and every other page's notification socket alike:

@pytest.mark.parametrize("path", ["/ws/lobby/", "/ws/notify/"])
def test_accepted_challenge_sends_the_challenger_to_the_game(users, path):
    alice, bob = users("alice", "bob")
    browsers = {"alice": LobbyClient(alice), "bob": LobbyClient(bob)}
    alice_page = tab_of(alice, path)

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


@pytest.mark.parametrize("path", ["/ws/lobby/", "/ws/notify/"])
def test_socket_takes_pings_only(users, path):
    (alice,) = users("alice")
    tab = tab_of(alice, path)

    async def scenario():
        await tab.open()
        await tab.send_text(json.dumps({"type": "ping"}))
        assert "server_time" in await tab.expect("pong")
        await tab.send_text("not json")
        assert (await tab.expect("error"))["code"] == "bad_json"
        await tab.send_text(json.dumps({"type": "accept", "id": 1}))
        assert (await tab.expect("error"))["code"] == "unknown_type"
        await tab.send_text(json.dumps({"type": "ping", "pad": "x" * 2000}))
        assert (await tab.expect("error"))["code"] == "too_large"
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
