"""The lobby's push sockets. Players act through POSTs (lobby.views); the services announce
each change to the "lobby" group (seeks) and to the players' own "user-<id>" groups
(challenges, "your game started"), relayed as they are (live.sockets.JsonSocket.live_event).
The only message a client sends is a keep-alive `ping` (answered by live.sockets).

* /ws/lobby/ (LobbyConsumer): the Play and challenges pages. A snapshot on connect, then both
  groups. A logged-in player's sockets are rows of the presence ledger (live.presence), shared by
  every server process (refreshed by the process's heartbeat, live.process), so a real-time
  seek closes when its owner has none left (after a short grace for page reloads).
* /ws/notify/ (NotifyConsumer): every other page of a logged-in player, so a challenge or a
  started game reaches them wherever they are. Their own group only, and no presence row:
  reading the rules is not waiting in the lobby, so it must not keep a real-time seek open.
"""
import asyncio

from live import groups, lanes
from live import presence as ledger
from live.sockets import JsonSocket
from lobby import listing, presence, services


class PushConsumer(JsonSocket):
    """What both lobby sockets share: taking nothing but pings."""

    unknown_text = "this socket only takes pings: act through the page"


class LobbyConsumer(PushConsumer):
    unknown_text = "the lobby socket only takes pings: act through the page"

    async def connect(self):
        self.user = self.scope["user"]
        if not self.admitted():
            return await self.refuse()
        hears = [groups.LOBBY]
        if self.user.is_authenticated:
            hears.append(groups.user(self.user.pk))
        # Join before reading the snapshot: nothing announced in between is lost (a repeat
        # is harmless, clients apply events idempotently).
        await self.join(*hears)
        await self.accept()
        if self.user.is_authenticated:
            await lanes.write(presence.arrive, self.user, self.channel_name)
        await self.send_json(await lanes.read(listing.snapshot, self.user))

    async def disconnect(self, code):
        if getattr(self, "joined_groups", None) is None or not self.user.is_authenticated:
            return
        await lanes.write(presence.leave, [self.channel_name])
        # Give a reloading page time to reconnect before its owner counts as gone.
        await asyncio.sleep(presence.grace().total_seconds() + 0.1)
        await lanes.write(presence.close_abandoned_seeks)

    @classmethod
    def still_here(cls, channel_names):
        ledger.still_here(channel_names)

    @classmethod
    def lost(cls, channel_names):
        presence.leave(channel_names)


class NotifyConsumer(PushConsumer):
    unknown_text = "the notification socket only takes pings: act through the page"

    async def connect(self):
        self.user = self.scope["user"]
        if not self.user.is_authenticated or not self.admitted():
            # Closing before accepting refuses the handshake (Daphne answers HTTP 403).
            return await self.refuse()
        await self.join(groups.user(self.user.pk))
        await self.accept()
        await self.send_json(await lanes.read(listing.snapshot, self.user, seeks=False))
