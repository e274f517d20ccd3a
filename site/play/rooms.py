"""The game pages open in this server process: one room per game with sockets here.

A room holds the game's sockets in this process, the last ply this process knows of (a `pong`
carries it, so a client notices a missed action), the one timer on the game's time (lila's one
clock owner per game, instead of a timer per socket), and the game's presence news, debounced:
a crowd that arrives or leaves within PRESENCE_DEBOUNCE is announced once.

Everything here runs on the event loop; the database work goes through live.lanes (the timer
in the game's own lane, so it is ordered with the game's moves).
"""
import asyncio
import logging
from datetime import datetime

from django.utils import timezone

from live import admission, lanes
from play import presence, services

logger = logging.getLogger(__name__)

PRESENCE_DEBOUNCE = 0.5
# While a crowd of connections waits to be let in (live.admission.crowded(): a restart's
# pages coming back), presence news waits for it, up to this many seconds from the first
# change: each round of news goes to every socket of each game changed, and a crowd let in a
# few at a time over seconds would make a round per socket of each game instead of one.
PRESENCE_CROWD_WAIT = 5.0
# Ring a little after the expiry, so the server's "now" is surely past it.
TIMER_SLACK = 0.05


class Room:
    __slots__ = ("sockets", "ply", "expires_at", "timer", "loop")

    def __init__(self):
        self.sockets = set()
        self.ply = None
        self.expires_at = None
        self.timer = None
        self.loop = None


_rooms = {}
_presence_due = set()
_flush = {"handle": None, "loop": None, "announcing": None}


def enter(game_id, socket):
    _rooms.setdefault(game_id, Room()).sockets.add(socket)
    presence_changed(game_id)


def leave(game_id, socket):
    room = _rooms.get(game_id)
    if room is None:
        return
    room.sockets.discard(socket)
    if not room.sockets:
        if room.timer is not None:
            room.timer.cancel()
        del _rooms[game_id]


def games():
    return list(_rooms)


def sockets_of(game_id):
    room = _rooms.get(game_id)
    return list(room.sockets) if room else []


def ply_of(game_id):
    room = _rooms.get(game_id)
    return room.ply if room else None


def learn(game_id, ply=None, expires_at=..., exact=False):
    """What this process heard of the game: its ply and when its time is up (an ISO text,
    a datetime or None; left as it was when not given). News may arrive out of order, so a
    lower ply is taken only when `exact`: a takeback's news, or the database's own count."""
    room = _rooms.get(game_id)
    if room is None:
        return
    if ply is not None and (room.ply is None or ply > room.ply or exact):
        room.ply = ply
    if expires_at is ...:
        return
    if isinstance(expires_at, str):
        expires_at = datetime.fromisoformat(expires_at)
    loop = asyncio.get_running_loop()
    if (expires_at == room.expires_at and (room.timer is not None or expires_at is None)
            and room.loop is loop):
        return
    room.loop = loop
    room.expires_at = expires_at
    if room.timer is not None:
        room.timer.cancel()
        room.timer = None
    if expires_at is not None:
        delay = max(0.0, (expires_at - timezone.now()).total_seconds()) + TIMER_SLACK
        room.timer = loop.call_later(
            delay, lambda: asyncio.ensure_future(_ring(game_id)))


async def _ring(game_id):
    room = _rooms.get(game_id)
    if room is None:
        return
    room.timer = None
    try:
        # The end, if any, reaches this process's sockets through the group like everyone's.
        expires_at = await lanes.in_lane(("game", game_id), services.expire, game_id)
    except Exception:
        logger.exception("the time check of game %s failed", game_id)
        return
    if expires_at is not None or game_id in _rooms:
        room = _rooms.get(game_id)
        if room is not None:
            room.expires_at = None  # re-arm even if the expiry did not move
            learn(game_id, expires_at=expires_at)


def presence_changed(game_id):
    """Someone arrived or left: announce the game's presence soon (once for a crowd)."""
    _presence_due.add(game_id)
    loop = asyncio.get_running_loop()
    # (A handle of another loop is one that will never ring: tests run a loop each.)
    if _flush["handle"] is None or _flush["loop"] is not loop:
        _flush["loop"] = loop
        _flush["since"] = loop.time()
        _flush["handle"] = loop.call_later(PRESENCE_DEBOUNCE, _presence_due_now)


def _presence_due_now():
    loop = _flush["loop"]
    if admission.crowded() and loop.time() - _flush["since"] < PRESENCE_CROWD_WAIT:
        _flush["handle"] = loop.call_later(PRESENCE_DEBOUNCE, _presence_due_now)
        return
    asyncio.ensure_future(_announce_presence())


async def _announce_presence():
    _flush["handle"] = None
    due = list(_presence_due)
    _presence_due.clear()
    # One announce after the other, as when they all took the writer's queue: readers run
    # side by side, and an older count must not reach a page after a newer one.
    loop = asyncio.get_running_loop()
    before, done = _flush.get("announcing"), loop.create_future()
    _flush["announcing"] = done
    try:
        if before is not None and before.get_loop() is loop:
            await before
        # Looked at on a reader; the writer only for games with an absence to note (it
        # counts them again).
        to_write = await lanes.read(presence.announce_read, due)
        if to_write:
            await lanes.background(presence.announce, to_write)
    except Exception:
        logger.exception("presence news of games %s failed", due)
    finally:
        done.set_result(None)
        if _flush.get("announcing") is done:
            _flush["announcing"] = None
