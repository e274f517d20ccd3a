"""Helpers for the websocket tests driven through channels' WebsocketCommunicator: a page's
socket (game, lobby, notifications, Watch) and a player's HTTP side of the lobby.

The tests are plain functions that build their data with the ORM, then run one async
scenario with `run` (asgiref's async_to_sync, no extra pytest plugin). Inside the scenario the
consumers reach the database through database_sync_to_async, which async_to_sync runs back
in the test's own thread, on the test's database connection.
"""
import json

from asgiref.sync import async_to_sync, sync_to_async
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import Client
from django.urls import reverse

from lobby.models import Seek
from tests.ws.messages import WAIT, MessageReader

ORIGIN = (b"origin", b"http://testserver")
# A browser's handshake names the host it went to; the origin check compares the two.
HOST = (b"host", b"testserver")
JSON = {"HTTP_ACCEPT": "application/json"}


def run(scenario):
    async_to_sync(scenario)()


def application():
    """The site's real ASGI application, imported when a test runs, not at collection:
    the site's modules read settings when they are imported, and pytest-django adds
    "testserver" to it only once the test session has started."""
    from tessera.asgi import application

    return application


def headers_for(user):
    """Handshake headers of a browser logged in as `user` (None: an anonymous visitor)."""
    if user is None:
        return [ORIGIN, HOST]
    client = Client()
    client.force_login(user)
    return [ORIGIN, HOST, (b"cookie", f"sessionid={client.cookies['sessionid'].value}".encode())]


class PageSocket(MessageReader):
    """One socket of a browser tab, on `path` ("/ws/lobby/"). A new connection's first
    message is of type `first`."""

    first = "snapshot"
    # The dashboard's `turn` news reaches a player's lobby and notification sockets whenever
    # one of their games starts, moves on or ends (the latest is kept in .turn).
    background = ("turn",)

    def __init__(self, path, user=None, name="", headers=None):
        """`headers`: from headers_for(user), computed beforehand when the caller runs in the
        event loop (logging in touches the database)."""
        self.name = name or f"{user.username if user else 'anonymous'} on {path}"
        self.communicator = WebsocketCommunicator(
            application(), path, headers=headers if headers is not None else headers_for(user))

    async def connect(self):
        connected, _ = await self.communicator.connect(timeout=WAIT)
        return connected

    async def open(self):
        assert await self.connect(), f"{self.name} could not connect"
        return await self.expect(self.first)

    async def send(self, **message):
        await self.communicator.send_json_to(message)

    async def send_text(self, text):
        await self.communicator.send_to(text_data=text)

    async def receive(self, timeout=WAIT):
        return json.loads(await self.communicator.receive_from(timeout))

    async def next_message(self, timeout):
        # receive_nothing, unlike a receive that times out, leaves the consumer running.
        if await self.communicator.receive_nothing(timeout):
            return None
        return await self.receive()

    async def close(self, timeout=WAIT):
        # The consumer's disconnect does database work: channels' default of 1 s is too short
        # on a busy machine.
        await self.communicator.disconnect(timeout=timeout)


class Socket(PageSocket):
    """One browser tab on a game page: presence news may come at any time (the latest is
    kept in .presence); open() returns the snapshot's game."""

    background = ("presence", "sync")

    def __init__(self, game_id, user=None, name="", headers=None):
        super().__init__(f"/ws/game/{game_id}/", user,
                         name or (user.username if user else "anonymous"), headers)
        self.presence = None

    async def open(self):
        return (await super().open())["game"]


class LobbyClient:
    """A logged-in player's HTTP side of the lobby: the fetch calls of the Play page or of a
    challenge toast. Made outside the event loop (logging in touches the database)."""

    def __init__(self, user):
        self.client = Client()
        self.client.force_login(user)

    async def post(self, name, *args, **data):
        response = await sync_to_async(self.client.post)(reverse(f"lobby:{name}", args=args),
                                                         data, **JSON)
        return response.json()


def proposal(game="hadron", **fields):
    """The Play page's form for a seek (or, with opponent=..., a challenge): Hadron 7×7, 5+3,
    the proposer moves first, unless `fields` say otherwise."""
    data = {"game": game, "hadron_size": "7", "copolymer_size": "5", "tripen_size": "7",
            "colorful_board": "hexhex", "colorful_size": "5", "time_kind": "realtime",
            "minutes": "5", "increment": "3", "days": "3", "side": "first"}
    data.update(fields)
    return data


@database_sync_to_async
def seek_status(seek_id):
    return Seek.objects.get(pk=seek_id).status
