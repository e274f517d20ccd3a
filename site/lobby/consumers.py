"""The lobby socket: a push channel. It sends a snapshot on connect, then whatever the lobby
services announce to the "lobby" group and to the player's own "user-<id>" group. Players act
through POSTs (lobby.views); the only message a client sends is a keep-alive `ping`.

A logged-in player's sockets are rows in LobbyConnection, shared by every server process, so a
real-time seek closes when its owner has none left (after a short grace for page reloads).
"""
import asyncio
import json

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.utils import timezone

from lobby import services

MAX_FRAME = 1024


class LobbyConsumer(AsyncWebsocketConsumer):
    async def connect(self):
        self.user = self.scope["user"]
        self.groups_joined = [services.LOBBY_GROUP]
        if self.user.is_authenticated:
            self.groups_joined.append(services.user_group(self.user.pk))
        # Join before reading the snapshot: nothing announced in between is lost (a repeat
        # is harmless, the client applies events idempotently).
        for group in self.groups_joined:
            await self.channel_layer.group_add(group, self.channel_name)
        await self.accept()
        if self.user.is_authenticated:
            await database_sync_to_async(services.connection_opened)(self.user, self.channel_name)
        await self.send_json(await database_sync_to_async(self.snapshot)())

    def snapshot(self):
        services.close_abandoned_seeks()
        return services.snapshot(self.user)

    async def disconnect(self, code):
        for group in getattr(self, "groups_joined", []):
            await self.channel_layer.group_discard(group, self.channel_name)
        if getattr(self, "user", None) is None or not self.user.is_authenticated:
            return
        await database_sync_to_async(services.connection_closed)(self.channel_name)
        # Give a reloading page time to reconnect before its owner counts as gone.
        await asyncio.sleep(services.presence_grace().total_seconds() + 0.1)
        await database_sync_to_async(services.close_abandoned_seeks)()

    async def receive(self, text_data=None, bytes_data=None):
        if text_data is None or len(text_data) > MAX_FRAME:
            return await self.send_error("bad_message", "Send small JSON text frames.")
        try:
            message = json.loads(text_data)
        except ValueError:
            return await self.send_error("bad_json", "That was not JSON.")
        if not isinstance(message, dict) or message.get("type") != "ping":
            return await self.send_error(
                "unknown_type", "The lobby socket only takes pings: act through the page."
            )
        await database_sync_to_async(self.seen)()
        await self.send_json({"type": "pong", "server_time": timezone.now().isoformat()})

    def seen(self):
        if self.user.is_authenticated:
            services.connection_seen(self.channel_name)
        # Pings come from every open lobby every half minute: enough to notice, on any
        # process, the seeks of owners whose server died without closing their sockets.
        services.close_abandoned_seeks()

    async def lobby_event(self, event):
        await self.send_json(event["payload"])

    async def send_error(self, code, message):
        await self.send_json({"type": "error", "code": code, "message": message})

    async def send_json(self, payload):
        await self.send(text_data=json.dumps(payload))
