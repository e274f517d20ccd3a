"""The API's two streams (docs/api.md): NDJSON over HTTP, one JSON object a line, as lichess's
/api/stream/event and /api/bot/game/stream.

Each is an async generator served by Daphne without a thread of its own: it joins the
channel-layer groups the site's sockets already hear (a player's "user-<id>" group for the
event stream, the game's "game-<id>" group for the game stream) on a channel of its own and
writes each `live.event` as it comes, the text the sockets get. It also joins its token's
group and its account's (live.groups): a revocation (api.tokens) ends the stream at once, and
a change to the account (a deactivation) has it ask the database whether the token still
stands. With nothing to say for API_STREAM_KEEPALIVE seconds it writes an empty line (so
proxies and clients see the connection alive) after asking the same, in case a revocation's
news was lost. When the client goes, Django cancels the generator and the `finally` leaves
the groups.
"""
import asyncio
import json

from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer
from django.conf import settings
from django.contrib.auth import get_user_model
from django.http import StreamingHttpResponse

from api.tokens import holds
from live import groups as live_groups

KEEP_ALIVE = b"\n"


def game_over(message):
    """Whether a game socket's message is the game's last: its `end` (a resignation, time,
    an abort), or the `action` that finished it (it carries the result)."""
    kind = message.get("type")
    return kind == "end" or (kind == "action" and message.get("result") is not None)


def still_allowed(caller):
    """Whether the stream's caller may still hear it (database thread)."""
    if caller.token is None:  # a browser's session: its account, read again
        return get_user_model().objects.filter(pk=caller.user.pk, is_active=True).exists()
    return holds(caller.token.pk)


def line(message):
    return json.dumps(message, separators=(",", ":")).encode() + b"\n"


async def relay(caller, groups, opening, last_one=lambda message: False):
    """Lines: those `opening()` gives (a database thread, run once the groups are joined, so
    nothing said meanwhile is lost), then every group message. `opening` returns (messages,
    last): `last` ends the stream after them; a message for which `last_one` is true is the
    last."""
    layer = get_channel_layer()
    channel = await layer.new_channel("api-stream.")
    groups = [*groups, live_groups.account(caller.user.pk)]
    if caller.token is not None:
        groups.append(live_groups.token(caller.token.pk))
    for group in groups:
        await layer.group_add(group, channel)
    allowed = sync_to_async(still_allowed)
    try:
        first, last = await sync_to_async(opening)()
        for message in first:
            yield line(message)
        while not last:
            try:
                news = await asyncio.wait_for(layer.receive(channel),
                                              settings.API_STREAM_KEEPALIVE)
            except asyncio.TimeoutError:
                if not await allowed(caller):
                    return
                yield KEEP_ALIVE
                continue
            kind = news.get("type")
            if kind == "token.revoked":
                return
            if kind == "session.check" and not await allowed(caller):
                return
            if kind != "live.event":
                continue  # the sockets' own bookkeeping (timers, sessions)
            text = news["text"]
            yield text.encode() + b"\n"
            last = last_one(json.loads(text))
    finally:
        for group in groups:
            try:
                await layer.group_discard(group, channel)
            except Exception:  # the layer is going down with the process: nothing to leave
                pass


def ndjson(lines):
    response = StreamingHttpResponse(lines, content_type="application/x-ndjson")
    # No proxy buffering (nginx): each line leaves as it is written.
    response["X-Accel-Buffering"] = "no"
    response["Cache-Control"] = "no-store"
    return response

