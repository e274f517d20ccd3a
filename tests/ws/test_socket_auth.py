"""Who a socket belongs to (live.auth): the session of its handshake, read on the live path's
own database threads, with Django's checks. Through the real ASGI application."""
import pytest
from django.contrib.sessions.models import Session
from django.test import Client

from tests.ws.sockets import HOST, ORIGIN, Socket, headers_for, run

pytestmark = pytest.mark.django_db(transaction=True)


def cookie(value):
    return [ORIGIN, HOST, (b"cookie", f"sessionid={value}".encode())]


def seat_of(game_id, headers):
    """`you` in the snapshot a socket with these handshake headers gets: the player index
    (0, 1), or None for anyone else."""
    found = {}

    async def scenario():
        tab = Socket(game_id, headers=headers)
        found["you"] = (await tab.open())["you"]
        await tab.close()

    run(scenario)
    return found["you"]


def test_a_logged_in_socket_is_its_player(users, new_game):
    alice, bob = users("alice", "bob")
    game = new_game([alice, bob], "hadron", {"size": 5})
    assert seat_of(game.pk, headers_for(alice)) == 0
    assert seat_of(game.pk, headers_for(bob)) == 1
    assert seat_of(game.pk, headers_for(None)) is None


def test_an_unknown_or_ended_session_is_a_visitor(users, new_game):
    alice, bob = users("alice", "bob")
    game = new_game([alice, bob], "hadron", {"size": 5})
    assert seat_of(game.pk, cookie("no-such-session")) is None
    client = Client()
    client.force_login(alice)
    key = client.cookies["sessionid"].value
    assert seat_of(game.pk, cookie(key)) == 0
    client.logout()
    assert seat_of(game.pk, cookie(key)) is None


def test_a_password_changed_elsewhere_shuts_old_sessions_out(users, new_game):
    alice, bob = users("alice", "bob")
    game = new_game([alice, bob], "hadron", {"size": 5})
    old = headers_for(alice)
    alice.set_password("a new password for alice")
    alice.save()
    assert seat_of(game.pk, old) is None
    # The socket only reads the session: what to do with it is the next page load's business.
    assert Session.objects.count() == 1


def test_a_session_of_a_backend_no_longer_configured_is_a_visitor(users, new_game, settings):
    alice, bob = users("alice", "bob")
    game = new_game([alice, bob], "hadron", {"size": 5})
    headers = headers_for(alice)
    settings.AUTHENTICATION_BACKENDS = ["django.contrib.auth.backends.ModelBackend"]
    assert seat_of(game.pk, headers) is None
