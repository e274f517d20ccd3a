"""The lobby's push sockets. Players act through POSTs (lobby.views); the services announce
each change to the "lobby" group (seeks) and to the players' own "user-<id>" groups
(challenges, "your game started"), as channel-layer events of type "lobby.event". The only
message a client sends is a keep-alive `ping`.

* /ws/lobby/ (LobbyConsumer): the Play and challenges pages. A snapshot on connect, then both
  groups. A logged-in player's sockets are rows in LobbyConnection, shared by every server
  process, so a real-time seek closes when its owner has none left (after a short grace for
  page reloads).
* /ws/notify/ (NotifyConsumer): every other page of a logged-in player, so a challenge or a
  started game reaches them wherever they are. Their own group only, and no LobbyConnection:
  reading the rules is not waiting in the lobby, so it must not keep a real-time seek open.
"""
import asyncio
import json

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.utils import timezone

from lobby import listing, presence, services

MAX_FRAME = 1024


class PushConsumer(AsyncWebsocketConsumer):
    """What both lobby sockets share: joining groups, relaying "lobby.event" payloads as they
    are, and answering pings (and nothing else)."""

    refusal = "This socket only takes pings: act through the page."

    async def join(self, *groups):
        # Join before reading the snapshot: nothing announced in between is lost (a repeat
        # is harmless, clients apply events idempotently).
        self.groups_joined = list(groups)
        for group in self.groups_joined:
            await self.channel_layer.group_add(group, self.channel_name)

    async def disconnect(self, code):
        for group in getattr(self, "groups_joined", []):
            await self.channel_layer.group_discard(group, self.channel_name)

    async def receive(self, text_data=None, bytes_data=None):
        if text_data is None or len(text_data) > MAX_FRAME:
            return await self.send_error("bad_message", "Send small JSON text frames.")
        try:
            message = json.loads(text_data)
        except ValueError:
            return await self.send_error("bad_json", "That was not JSON.")
        if not isinstance(message, dict) or message.get("type") != "ping":
            return await self.send_error("unknown_type", self.refusal)
        await self.pinged()
        await self.send_json({"type": "pong", "server_time": timezone.now().isoformat()})

    async def pinged(self):
        """Hook for what a keep-alive also does besides the pong."""

    async def lobby_event(self, event):
        await self.send_json(event["payload"])

    async def send_error(self, code, message):
        await self.send_json({"type": "error", "code": code, "message": message})

    async def send_json(self, payload):
        await self.send(text_data=json.dumps(payload))


class LobbyConsumer(PushConsumer):
    refusal = "The lobby socket only takes pings: act through the page."

    async def connect(self):
        self.user = self.scope["user"]
        groups = [services.LOBBY_GROUP]
        if self.user.is_authenticated:
            groups.append(services.user_group(self.user.pk))
        await self.join(*groups)
        await self.accept()
        if self.user.is_authenticated:
            await database_sync_to_async(presence.connection_opened)(self.user, self.channel_name)
        await self.send_json(await database_sync_to_async(self.snapshot)())

    def snapshot(self):
        presence.close_abandoned_seeks()
        return listing.snapshot(self.user)

    async def disconnect(self, code):
        await super().disconnect(code)
        if getattr(self, "user", None) is None or not self.user.is_authenticated:
            return
        await database_sync_to_async(presence.connection_closed)(self.channel_name)
        # Give a reloading page time to reconnect before its owner counts as gone.
        await asyncio.sleep(presence.grace().total_seconds() + 0.1)
        await database_sync_to_async(presence.close_abandoned_seeks)()

    async def pinged(self):
        await database_sync_to_async(self.seen)()

    def seen(self):
        if self.user.is_authenticated:
            presence.connection_seen(self.channel_name)
        # Pings come from every open lobby every half minute: enough to notice, on any
        # process, the seeks of owners whose server died without closing their sockets.
        presence.close_abandoned_seeks()


class NotifyConsumer(PushConsumer):
    refusal = "The notification socket only takes pings: act through the page."

    async def connect(self):
        self.user = self.scope["user"]
        if not self.user.is_authenticated:
            # Closing before accepting refuses the handshake (Daphne answers HTTP 403).
            return await self.close()
        await self.join(services.user_group(self.user.pk))
        await self.accept()
        snapshot = await database_sync_to_async(listing.snapshot)(self.user, seeks=False)
        await self.send_json(snapshot)
