"""The open sockets of this server process, and what keeps them honest.

Every JsonSocket is admitted (counted) on connect and leaves on disconnect. The registry caps sockets per
user and per client address, and every LIVE_KEEPALIVE seconds (live.process) it:

* forgets sockets whose consumer task has ended without a disconnect (a crash, a kill):
  their kind's `lost()` clears what disconnect() would have cleared (presence rows);
* renews their channel-layer group memberships, so no open socket goes deaf (channels-redis
  drops a membership a day after it was made, and all of them when Redis loses its data);
* lets each kind of socket send its keep-alive news (the game socket: the game's ply).

It lives on the event loop only; nothing here is shared between threads.
"""
import asyncio
import logging
from collections import Counter

from channels.layers import get_channel_layer
from django.conf import settings

logger = logging.getLogger(__name__)


class Entry:
    __slots__ = ("socket", "task", "user_id", "address")

    def __init__(self, socket, task):
        self.socket, self.task = socket, task
        self.user_id, self.address = socket.user_id(), socket.address()


_entries = {}  # channel name -> Entry
_per_user = Counter()
_per_address = Counter()
_per_kind = Counter()  # consumer class -> open sockets (ops.metrics reads it every few seconds)


def admit(socket, task):
    """Count `socket` (whose consumer runs as `task`) if this process takes one more socket
    from its user and address; False if not. Counted at once, before any await, so a burst of
    handshakes cannot all pass the check before the first is counted."""
    user_id, address = socket.user_id(), socket.address()
    if user_id is not None and _per_user[user_id] >= settings.LIVE_SOCKETS_PER_USER:
        logger.warning("refused a socket: user %s has %s open", user_id, _per_user[user_id])
        return False
    if address is not None and _per_address[address] >= settings.LIVE_SOCKETS_PER_ADDRESS:
        logger.warning("refused a socket: address %s has %s open", address, _per_address[address])
        return False
    if socket.channel_name not in _entries:
        entry = _entries[socket.channel_name] = Entry(socket, task)
        _count(entry, 1)
    return True


def leave(socket):
    entry = _entries.pop(getattr(socket, "channel_name", None), None)
    if entry is not None:
        _count(entry, -1)


def _count(entry, step):
    _per_kind[type(entry.socket)] += step
    if entry.user_id is not None:
        _per_user[entry.user_id] += step
        if _per_user[entry.user_id] <= 0:
            del _per_user[entry.user_id]
    if entry.address is not None:
        _per_address[entry.address] += step
        if _per_address[entry.address] <= 0:
            del _per_address[entry.address]


def open_sockets():
    return [entry.socket for entry in _entries.values()]


def count():
    return len(_entries)


def counts_by_kind():
    """{consumer class: open sockets}, without a look at each socket."""
    return {kind: count for kind, count in _per_kind.items() if count > 0}


def prune():
    """Forget the sockets whose task has ended without a disconnect; returns them by kind,
    for their kinds' lost() hooks."""
    dead = [entry.socket for entry in _entries.values()
            if entry.task is not None and entry.task.done()]
    for socket in dead:
        leave(socket)
        socket.forgotten()
    return by_kind(dead)


def by_kind(sockets=None):
    """The open sockets (or `sockets`) by consumer class."""
    kinds = {}
    for socket in open_sockets() if sockets is None else sockets:
        kinds.setdefault(type(socket), []).append(socket)
    return kinds


def names_by_kind(kinds):
    return {kind: [socket.channel_name for socket in sockets] for kind, sockets in kinds.items()}


# The server process is stopping: the page may come straight back (to another process).
# WebSocket's own 1012, "service restart", is refused by Autobahn for a server's close.
RESTART_CLOSE_CODE = 4012


async def close_all(spread):
    """Close every open socket with RESTART_CLOSE_CODE, spread evenly over `spread` seconds
    (all at once for 0). A stopping process's pages reconnect through the proxy to the other
    processes; hundreds arriving in the same instant overflowed their listen queues and the
    pages backed off for up to 20 s (bench/failures.py's rolling restart)."""
    sockets = open_sockets()
    # Every socket this stop closes, by kind: the kinds' notes need to know which of their
    # rows go with this process (a player's page elsewhere stays; one of a later slice here
    # does not).
    all_closing = {kind: frozenset(names)
                   for kind, names in names_by_kind(by_kind(sockets)).items()}
    slices = max(1, min(len(sockets), round(spread / 0.05)))
    loop = asyncio.get_running_loop()
    began = loop.time()
    for index in range(slices):
        closing = sockets[index::slices]
        for kind, members in by_kind(closing).items():
            # Before the close: what the kind notes of it (the game socket: a player's clock
            # is not charged for the gap) is stored before the page can be back elsewhere.
            try:
                await kind.restarting(members, all_closing[kind])
            except Exception:
                logger.exception("could not note the sockets closed for a restart")
        for socket in closing:
            try:
                await socket.close(code=RESTART_CLOSE_CODE)
            except Exception:
                logger.exception("could not close a socket while stopping")
        if index < slices - 1:
            # On a schedule: the kinds' notes take writer time, which must not stretch the
            # spread (the process's stop) by that much again.
            await asyncio.sleep(max(0.0, began + (index + 1) * spread / slices - loop.time()))


async def renew_groups(sockets=None):
    """Renew the group memberships of `sockets` (all open ones by default) that are still
    open: one that left meanwhile must not be put back in its groups."""
    layer = get_channel_layer()
    if layer is None:
        return
    for index, socket in enumerate(open_sockets() if sockets is None else sockets):
        if index % 100 == 99:
            await asyncio.sleep(0)  # thousands of sockets: let other work in between
        if _entries.get(getattr(socket, "channel_name", None)) is None:
            continue
        for group in getattr(socket, "joined_groups", ()):
            try:
                await layer.group_add(group, socket.channel_name)
            except Exception:
                logger.exception("could not renew %s in group %s", socket.channel_name, group)
                return
