"""A bare Channels "echo room": the floor that bench/live_load.py compares Tessera against.

    PYTHONPATH=bench:site python -m daphne -b 127.0.0.1 -p 8100 echo_room:application

Each socket on `/ws/room/<n>/` joins the group `room-<n>`; every message it receives is sent
to the whole group as it came (so a `play` comes back to everyone in the room, as Tessera's
`action` does), except `ping`, answered with a `pong` to the sender alone as Tessera answers
it, and `snapshot`, answered with a small snapshot. A socket is told `snapshot` once it has
joined, as Tessera's game socket is, so the load generator knows when news will reach it.

No database, no session, no validation: only Daphne, Channels and the channel layer. The layer
is the one Tessera's own settings choose in the same environment (site/tessera/settings.py):
the in-memory layer without REDIS_URL, the Redis layer (REDIS_PREFIX included) with it, so
that the two servers of a run differ by the site and not by the layer. site/ of the checkout
measured must be on the import path (live.layers).
"""
import json
import os

import django
from django.conf import settings


def tessera_channel_layers():
    """CHANNEL_LAYERS exactly as Tessera's settings compute them from this environment.
    The settings module is plain Python: importing it configures nothing."""
    os.environ.setdefault("SECRET_KEY", "echo-room-" + "x" * 60)
    from tessera import settings as tessera_settings
    return tessera_settings.CHANNEL_LAYERS


if not settings.configured:
    settings.configure(
        DEBUG=False,
        INSTALLED_APPS=["channels"],
        CHANNEL_LAYERS=tessera_channel_layers(),
        ALLOWED_HOSTS=["*"],
    )
    django.setup()

from channels.generic.websocket import AsyncWebsocketConsumer  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from django.urls import path  # noqa: E402


class EchoRoom(AsyncWebsocketConsumer):
    async def connect(self):
        self.room = self.scope["url_route"]["kwargs"]["room"]
        self.group = f"room-{self.room}"
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()
        await self.send(text_data=json.dumps({"type": "snapshot", "room": self.room}))

    async def disconnect(self, code):
        await self.channel_layer.group_discard(self.group, self.channel_name)

    async def receive(self, text_data=None, bytes_data=None):
        message = json.loads(text_data)
        kind = message.get("type")
        if kind == "ping":
            await self.send(text_data=json.dumps({"type": "pong"}))
        elif kind == "snapshot":
            await self.send(text_data=json.dumps({"type": "snapshot", "room": self.room}))
        else:
            # Relayed as text: each member sends the same frame, as Tessera encodes once.
            await self.channel_layer.group_send(self.group, {"type": "relay", "text": text_data})

    async def relay(self, event):
        await self.send(text_data=event["text"])


async def answer_http(scope, receive, send):
    """Any HTTP request: 200, so that the bench can tell the server is up."""
    await send({"type": "http.response.start", "status": 200,
                "headers": [(b"content-type", b"text/plain")]})
    await send({"type": "http.response.body", "body": b"echo room\n"})


application = ProtocolTypeRouter({
    "http": answer_http,
    "websocket": URLRouter([path("ws/room/<int:room>/", EchoRoom.as_asgi())]),
})
