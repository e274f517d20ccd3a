"""The live game websocket, /ws/game/<id>/: a thin adapter over play.services.

Authenticate (the session, through Channels' AuthMiddlewareStack), parse and type-check the
message, ask the services (which ask the engine and persist in one transaction), and relay
what the game's group broadcasts. Players and spectators share the group; anonymous visitors
may watch but never act. Each socket also keeps a timer on the running clock, so a player
whose time runs out loses although nobody sends anything.
"""
import asyncio
import json
import logging
import random
from datetime import datetime, timedelta

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.utils import timezone

from play import broadcast, presence, rematch, services, snapshots
from play.services import PlayError

logger = logging.getLogger(__name__)

MAX_FRAME = 4096
MAX_ACTION = 32
# Ring a little after the expiry so the server's "now" is surely past it; the jitter spreads
# the checks of a crowded game's sockets (only the first one finds anything to do).
TIMER_SLACK = 0.05
TIMER_JITTER = 0.1


def service(function):
    return database_sync_to_async(function)


def expiry_of(clocks):
    """When the running clock of a `clocks` object runs out (None: no clock runs)."""
    running = clocks.get("running")
    if running is None:
        return None
    if clocks.get("deadline"):
        return datetime.fromisoformat(clocks["deadline"])
    if clocks.get("remaining_ms"):
        return (datetime.fromisoformat(clocks["server_time"])
                + timedelta(milliseconds=clocks["remaining_ms"][running]))
    return None


def field(message, name, kind):
    value = message.get(name)
    # bool is an int subclass: {"ply": true} is not a ply.
    if isinstance(value, bool) or not isinstance(value, kind):
        raise PlayError("bad_message", f"'{name}' must be {'an integer' if kind is int else 'text'}")
    return value


def ply_of(message):
    ply = field(message, "ply", int)
    if ply < 0:
        raise PlayError("bad_message", "'ply' cannot be negative")
    return ply


def action_of(message):
    action = field(message, "action", str)
    if not 0 < len(action) <= MAX_ACTION:
        raise PlayError("bad_message", f"'action' must be 1 to {MAX_ACTION} characters")
    return action


class GameConsumer(AsyncWebsocketConsumer):
    async def connect(self):
        self.timer = self.heartbeat = None
        self.joined = False
        self.game_id = int(self.scope["url_route"]["kwargs"]["game_id"])
        self.group = broadcast.group_name(self.game_id)
        self.user = self.scope.get("user")
        if not await service(snapshots.exists)(self.game_id):
            await self.close()  # before accept: the handshake is refused
            return
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()
        self.joined = True
        snapshot = await service(services.join)(self.game_id, self.channel_name, self.user)
        await self.send_snapshot(snapshot)
        self.heartbeat = asyncio.create_task(self.beat())

    async def disconnect(self, code):
        for task in (self.timer, self.heartbeat):
            if task is not None:
                task.cancel()
        if getattr(self, "joined", False):
            await self.channel_layer.group_discard(self.group, self.channel_name)
            await service(presence.leave)(self.game_id, self.channel_name)

    # -- from the client ---------------------------------------------------------------------

    async def receive(self, text_data=None, bytes_data=None):
        try:
            message = self.parse(text_data)
            handler = getattr(self, "on_" + message["type"], None)
            if message["type"] not in self.TYPES or handler is None:
                raise PlayError("unknown_type", f"unknown message type {message['type']!r}")
            # No clock check here: every step that changes the game, and every snapshot,
            # ends it first if its time has run out.
            await handler(message)
        except PlayError as error:
            await self.send_error(error.code, error.message)
            if error.snapshot:
                await self.send_snapshot(await service(services.current)(self.game_id, self.user))
        except Exception:
            # A fault of ours (a database hiccup, a bug) answers this message and keeps the
            # socket: the transaction rolled back, so nothing was half stored.
            logger.exception("message to game %s failed", self.game_id)
            await self.send_error("server_error", "the server could not handle that message; "
                                  "nothing was changed, try again")

    TYPES = {"play", "resign", "abort", "rematch", "decline_rematch", "snapshot", "ping"}

    def parse(self, text):
        if text is None:
            raise PlayError("bad_json", "messages are JSON text frames")
        if len(text) > MAX_FRAME or len(text.encode()) > MAX_FRAME:
            raise PlayError("too_large", f"a message is at most {MAX_FRAME} bytes")
        try:
            message = json.loads(text)
        except ValueError:
            raise PlayError("bad_json", "that is not JSON")
        if not isinstance(message, dict):
            raise PlayError("bad_json", "a message is a JSON object")
        if not isinstance(message.get("type"), str):
            raise PlayError("bad_message", "a message needs a 'type' (text)")
        return message

    def player(self):
        if not getattr(self.user, "is_authenticated", False):
            raise PlayError("login_required", "log in to play; visitors can only watch")
        return self.user

    async def on_play(self, message):
        user = self.player()
        ply, action = ply_of(message), action_of(message)
        await self.send_all(await service(services.play)(self.game_id, user, ply, action))

    async def on_resign(self, message):
        user = self.player()
        await self.send_all(await service(services.resign)(self.game_id, user, ply_of(message)))

    async def on_abort(self, message):
        user = self.player()
        await self.send_all(await service(services.abort)(self.game_id, user, ply_of(message)))

    async def on_rematch(self, message):
        user = self.player()
        await self.send_all(await service(rematch.offer)(self.game_id, user))

    async def on_decline_rematch(self, message):
        user = self.player()
        await self.send_all(await service(rematch.decline)(self.game_id, user))

    async def on_snapshot(self, message):
        await self.send_snapshot(await service(services.current)(self.game_id, self.user))

    async def on_ping(self, message):
        await self.send_json({"type": "pong", "server_time": timezone.now().isoformat()})

    # -- to the client -----------------------------------------------------------------------

    async def send_json(self, message):
        await self.send(text_data=json.dumps(message, separators=(",", ":")))

    async def send_all(self, messages):
        for message in messages:
            await self.send_json(message)

    async def send_error(self, code, text):
        await self.send_json({"type": "error", "code": code, "message": text})

    async def send_snapshot(self, snapshot):
        await self.send_json({"type": "snapshot", "game": snapshot})
        self.schedule(expiry_of(snapshot["clocks"]))

    async def game_event(self, event):
        """A broadcast to the game's group (an action, the end, presence, rematch news)."""
        message = event["message"]
        await self.send_json(message)
        if "clocks" in message:
            self.schedule(expiry_of(message["clocks"]))

    # -- the server's clock ------------------------------------------------------------------

    def schedule(self, expires):
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
        if expires is not None:
            delay = max(0.0, (expires - timezone.now()).total_seconds())
            self.timer = asyncio.create_task(
                self.ring(delay + TIMER_SLACK + random.uniform(0, TIMER_JITTER)))

    async def ring(self, delay):
        await asyncio.sleep(delay)
        self.timer = None
        try:
            await self.check_clock()
        except Exception:
            logger.exception("clock check of game %s failed", self.game_id)

    async def check_clock(self):
        # The end (if any) reaches this socket through the group, like everyone else's.
        self.schedule(await service(services.check_clock)(self.game_id))

    async def beat(self):
        while True:
            await asyncio.sleep(presence.HEARTBEAT.total_seconds())
            try:
                await service(presence.still_here)(self.channel_name)
            except Exception:
                logger.exception("presence heartbeat of game %s failed", self.game_id)
