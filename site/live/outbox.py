"""Channel-layer sends from synchronous code, delivered by the event loop.

Services run in database threads (live.lanes) or in Django's thread for sync views. They never
talk to the channel layer themselves: `send(group, event)` queues the event in the outbox of the
work in progress, and whoever started that work delivers it from the event loop once the work
has returned (after its transaction committed: callers queue with `send_after_commit`). So a
database thread never waits on the event loop (a stopped loop at shutdown used to hang such a
thread, and with it the process), and one move's messages leave in the order they were queued.

Work that runs outside any outbox (a management command, a shell, a test calling a service
directly) sends at once through async_to_sync, as before.

What must follow the news, not race it (`after_sent`: a job another process will answer with
news of its own, jobs.runner), waits in the outbox too and runs once its events have left.
"""
import asyncio
import contextvars
import json
import logging

import orjson
from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction

logger = logging.getLogger(__name__)

_current = contextvars.ContextVar("live_outbox", default=None)
# Events sent one after the other per turn of the event loop: a crowd's presence news (a
# restart's 2,000 sockets back on 500 games: one debounced announce, 500 games' news in one
# outbox) sent in one step held the loop for several ms (bench/reconnect_storm.py), and other
# games' moves waited behind it.
DELIVER_TURN = 20


# What orjson would encode where json.dumps refuses (a datetime, a dataclass) goes to json.dumps
# instead, which refuses it as it always did: the messages stay what they were.
_STRICT = orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_DATACLASS


def encoded(message):
    """A JSON message as the text every recipient gets: encoded once, not once per socket.

    orjson, about five times json.dumps on the `action` news (the largest single cost of a
    move at saturation, py-spy: docs/measurements.md); its text differs from json.dumps's only
    where JSON allows it (characters beyond ASCII as UTF-8, not escaped; `1e16` for `1e+16`).
    What it cannot encode the same way (keys that are not text, integers beyond 64 bits, lone
    surrogates in a chat line) is encoded by json.dumps, as before."""
    try:
        return orjson.dumps(message, option=_STRICT).decode()
    except TypeError:  # orjson.JSONEncodeError is a TypeError
        return json.dumps(message, separators=(",", ":"))


def send_after_commit(group, event):
    """Queue `event` for `group` once the current transaction commits (at once outside one):
    nobody hears of a change the database does not have."""
    transaction.on_commit(lambda: send(group, event))


def after_sent(callback):
    """Call `callback` (no arguments, blocking allowed) once the events the work in progress has
    queued so far have left through the channel layer; at once outside an outbox."""
    outbox = _current.get()
    if outbox is None:
        callback()
    else:
        outbox.after.append(callback)


class Outbox:
    """Events queued by one piece of work, in order: (group, event) pairs; and what waits for
    them to have left (`after_sent`)."""

    def __init__(self):
        self.events = []
        self.after = []

    def __bool__(self):
        return bool(self.events or self.after)

    def __enter__(self):
        self.token = _current.set(self)
        return self

    def __exit__(self, *exc):
        _current.reset(self.token)
        return False

    async def deliver(self):
        """Send the queued events, in order, from the event loop; then what waits for them, on
        a thread (a blocking call, such as a job's Redis send, never holds the loop)."""
        after, self.after = self.after, []
        try:
            await self._send()
        finally:
            # Sent or not (a failed send is logged and the keep-alive heals it), what waits
            # still runs: a computer's turn that is never asked would stall the game.
            for callback in after:
                await asyncio.get_running_loop().run_in_executor(None, callback)

    async def _send(self):
        events, self.events = self.events, []
        layer = get_channel_layer()
        if len(events) > 1 and hasattr(layer, "group_send_all"):
            try:
                await layer.group_send_all(events)
            except Exception:
                logger.exception("could not send %d events", len(events))
            return
        for index, (group, event) in enumerate(events):
            if index and index % DELIVER_TURN == 0:
                # Still in order, and whoever waits for the whole (a game's lane) still waits.
                await asyncio.sleep(0)
            await group_send(group, event)


def send(group, event):
    """Send `event` to `group`: queued when an outbox is open, else at once."""
    outbox = _current.get()
    if outbox is not None:
        outbox.events.append((group, event))
        return
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        async_to_sync(layer.group_send)(group, event)
    except Exception:
        logger.exception("could not send %s to group %s", event.get("type"), group)


async def group_send(group, event):
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        await layer.group_send(group, event)
    except Exception:
        # The change is stored whatever happens to the news; every socket hears the game's
        # ply at the next keep-alive and asks for a snapshot if it is behind (live.registry).
        logger.exception("could not send %s to group %s", event.get("type"), group)


class OutboxMiddleware:
    """Deliver what a request's view queued once the view has returned, from the event loop
    (under ASGI) or at once (under a synchronous test client)."""

    sync_capable = async_capable = True

    def __init__(self, get_response):
        import asyncio
        self.get_response = get_response
        self.is_async = asyncio.iscoroutinefunction(get_response)
        if self.is_async:
            from asgiref.sync import markcoroutinefunction
            markcoroutinefunction(self)

    def __call__(self, request):
        if self.is_async:
            return self.__acall__(request)
        with Outbox() as outbox:
            response = self.get_response(request)
        # Most requests queue nothing; async_to_sync starts a thread and an event loop each
        # time (0.4 ms of a page's CPU), so it runs only when there is news to deliver.
        if outbox:
            async_to_sync(outbox.deliver)()
        return response

    async def __acall__(self, request):
        with Outbox() as outbox:
            response = await self.get_response(request)
        await outbox.deliver()
        return response
