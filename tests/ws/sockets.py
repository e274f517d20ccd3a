"""Helpers for the live game socket tests driven through channels' WebsocketCommunicator.

The tests are plain functions that build their data with the ORM, then run one async
scenario with asgiref's async_to_sync (no extra pytest plugin). Inside the scenario the
consumers reach the database through database_sync_to_async, which async_to_sync runs back
in the test's own thread, on the test's database connection.
"""
import json

from channels.testing import WebsocketCommunicator
from django.test import Client

ORIGIN = (b"origin", b"http://testserver")
WAIT = 5  # seconds; generous, the machine is shared


def application():
    """The site's real ASGI application, imported when a test runs, not at collection:
    AllowedHostsOriginValidator reads ALLOWED_HOSTS when it is built, and pytest-django adds
    "testserver" to it only once the test session has started."""
    from tessera.asgi import application

    return application


def headers_for(user):
    """Handshake headers of a browser logged in as `user` (None: an anonymous visitor)."""
    if user is None:
        return [ORIGIN]
    client = Client()
    client.force_login(user)
    return [ORIGIN, (b"cookie", f"sessionid={client.cookies['sessionid'].value}".encode())]


class Socket:
    """One browser tab on a game page."""

    def __init__(self, game_id, user=None, name="", headers=None):
        """`headers`: from headers_for(user), computed beforehand when the caller runs in the
        event loop (logging in touches the database)."""
        self.name = name or (user.username if user else "anonymous")
        self.communicator = WebsocketCommunicator(
            application(), f"/ws/game/{game_id}/",
            headers=headers if headers is not None else headers_for(user))
        self.presence = None

    async def open(self):
        connected, _ = await self.communicator.connect(timeout=WAIT)
        assert connected, f"{self.name} could not connect"
        message = await self.receive()
        assert message["type"] == "snapshot", message
        return message["game"]

    async def send(self, **message):
        await self.communicator.send_json_to(message)

    async def send_text(self, text):
        await self.communicator.send_to(text_data=text)

    async def receive(self, timeout=WAIT):
        return json.loads(await self.communicator.receive_from(timeout))

    async def expect(self, kind, timeout=WAIT):
        """The next message other than presence news (remembered in .presence)."""
        while True:
            message = await self.receive(timeout)
            if message["type"] == "presence" and kind != "presence":
                self.presence = message
                continue
            assert message["type"] == kind, f"{self.name} expected {kind}, got {message}"
            return message

    async def error(self, code):
        message = await self.expect("error")
        assert message["code"] == code, f"{self.name} expected {code}, got {message}"
        assert isinstance(message["message"], str) and message["message"]
        return message

    async def quiet(self, timeout=0.2):
        """Nothing but presence news arrives for a while."""
        while not await self.communicator.receive_nothing(timeout):
            message = await self.receive()
            assert message["type"] == "presence", f"{self.name} got unexpected {message}"
            self.presence = message

    async def drain(self, timeout=0.5):
        """Every message other than presence news until nothing comes for `timeout`."""
        messages = []
        while not await self.communicator.receive_nothing(timeout):
            message = await self.receive()
            if message["type"] == "presence":
                self.presence = message
            else:
                messages.append(message)
        return messages

    async def close(self):
        await self.communicator.disconnect()
