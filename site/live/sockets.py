"""One base for every JSON websocket of the site (the game, lobby, notification and Watch
sockets): admission, framing, parsing, errors, keep-alive, rate limit and news from groups,
written once, as lila-ws parses client messages in one place.

A subclass names the message types it takes in `handlers` (type -> method name) and writes
`on_<type>` methods; `ping` is answered here for all of them. A refused message raises
`Refusal(code, message)`, which reaches the sender alone as an `error` and changes nothing.

Limits, per socket and per server process (settings; docs/protocol.md):
* frames over `max_frame` bytes: `too_large`; text that is not a JSON object (deep nesting
  included): `bad_json`; a frame over Daphne's own limit (1 MiB) closes the connection;
* at most LIVE_RATE_BURST messages at once and LIVE_RATE_PER_SECOND sustained: each message
  over that is answered `rate_limited` (at most one such answer a second) and dropped; a socket
  that goes on sending LIVE_FLOOD_CLOSE messages over the limit is closed (code 4008);
* at most LIVE_SOCKETS_PER_USER sockets per logged-in user and LIVE_SOCKETS_PER_ADDRESS per
  client address in one process: further handshakes are refused (HTTP 403).
"""
import asyncio
import json
import logging
import time

from channels.exceptions import StopConsumer
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings
from django.dispatch import Signal
from django.utils import timezone

from live import clients, registry, tracing
from live.outbox import encoded

logger = logging.getLogger(__name__)

FLOOD_CLOSE_CODE = 4008


def _gone_errors():
    """What the server raises on a send to a socket that is closing: an OSError by the ASGI
    spec; Daphne's Autobahn raises its own Disconnected (a RuntimeError)."""
    try:
        from autobahn.exception import Disconnected
    except ImportError:   # another ASGI server
        return (OSError,)
    return (OSError, Disconnected)


_GONE = _gone_errors()


class Refusal(Exception):
    """A client message the server refuses: `code` from the protocol, `message` for a person.
    With a `close_code`, the socket closes after the answer (live.sessions.SessionEnded)."""

    close_code = None

    def __init__(self, code, message):
        super().__init__(message)
        self.code, self.message = code, message


class RateLimit:
    """A token bucket: `burst` messages at once, refilled at `per_second`."""

    def __init__(self, burst, per_second):
        self.burst, self.per_second = burst, per_second
        self.tokens, self.at = float(burst), time.monotonic()

    def take(self):
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.at) * self.per_second)
        self.at = now
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        return False


def parse(text, max_frame):
    """The client message in a text frame, as a dict with a text `type`; Refusal otherwise."""
    if text is None:
        raise Refusal("bad_json", "messages are JSON text frames")
    if len(text) > max_frame or len(text.encode()) > max_frame:
        raise Refusal("too_large", f"a message is at most {max_frame} bytes")
    try:
        message = json.loads(text)
    except (ValueError, RecursionError):
        # RecursionError: thousands of nested brackets are not a message either.
        raise Refusal("bad_json", "that is not JSON")
    if not isinstance(message, dict):
        raise Refusal("bad_json", "a message is a JSON object")
    if not isinstance(message.get("type"), str):
        raise Refusal("bad_message", "a message needs a 'type' (text)")
    return message


# What the apps above hear of every socket, on the event loop, in the socket's own task (the
# ops app: its metrics and the context of its log lines); live imports none of them. Cheap
# receivers only: they run on every message.
message_received = Signal(use_caching=True)  # sender=JsonSocket, socket=<the socket>
refused = Signal(use_caching=True)  # sender=JsonSocket, code=<the error's code>


class JsonSocket(AsyncWebsocketConsumer):
    max_frame = 1024
    handlers = {}  # message type -> method name, besides "ping"
    unknown_text = "this socket does not take that message"

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.rate = None  # a RateLimit, from the first message
        self.over_limit = 0  # messages over the limit so far
        self.told_at = 0.0  # when the sender was last told so

    # -- the connection --------------------------------------------------------------------

    async def dispatch(self, message):
        # Channels closes stale database connections on the single database thread before
        # every event a consumer handles (every frame and every group message of every
        # socket): that queued all sockets behind one thread. Database work runs in
        # live.lanes, whose threads keep their own connections in order.
        handler = getattr(self, message["type"].replace(".", "_"), None)
        if handler is None:
            raise ValueError(f"no handler for message type {message['type']}")
        await handler(message)

    async def websocket_disconnect(self, message):
        registry.leave(self)
        await self.leave_groups()
        await self.disconnect(message.get("code"))
        raise StopConsumer()

    def admitted(self):
        """Whether this process takes one more socket from this user and address; if so the
        socket counts from now on (live.registry), and the registry keeps the memberships of
        its groups alive for as long as it is open (channels-redis forgets a membership after
        a day, and all of them if Redis loses its data)."""
        return registry.admit(self, asyncio.current_task())

    async def refuse(self):
        """Refuse the handshake (HTTP 403): before accept()."""
        registry.leave(self)
        await self.close()

    async def join(self, *groups):
        """Join channel-layer groups: before accepting, so nothing announced meanwhile is
        lost. A logged-in user's socket joins their account's group too (live.sessions)."""
        from live.groups import token as token_group
        from live.sessions import account_group

        if self.user_id() is not None:
            groups = (*groups, account_group(self.user_id()))
        if self.token() is not None:
            groups = (*groups, token_group(self.token().token_id))
        self.joined_groups = list(groups)
        for group in groups:
            await self.channel_layer.group_add(group, self.channel_name)

    async def leave_groups(self):
        for group in getattr(self, "joined_groups", None) or ():
            try:
                await self.channel_layer.group_discard(group, self.channel_name)
            except Exception:
                logger.exception("could not leave group %s", group)

    def user_id(self):
        user = self.scope.get("user")
        return user.pk if getattr(user, "is_authenticated", False) else None

    def address(self):
        return clients.of_scope(self.scope)

    # -- from the client -------------------------------------------------------------------

    async def receive(self, text_data=None, bytes_data=None):
        tracing.begin()
        self.received_at = timezone.now()
        message_received.send(sender=JsonSocket, socket=self)
        if not await self.within_rate():
            return
        try:
            message = parse(text_data, self.max_frame)
            kind = message["type"]
            if kind == "ping":
                return await self.send_json({"type": "pong", "server_time": timezone.now().isoformat(),
                                             **self.pong_fields()})
            name = self.handlers.get(kind)
            if name is None:
                raise Refusal("unknown_type", f"unknown message type {kind!r}: {self.unknown_text}")
            await getattr(self, name)(message)
            tracing.finish(kind)
        except Refusal as refusal:
            await self.send_error(refusal.code, refusal.message)
            if refusal.close_code is not None:
                return await self.close(code=refusal.close_code)
            await self.refused(refusal)
        except Exception:
            # A fault of ours (a database hiccup, a bug) answers this message and keeps the
            # socket: transactions roll back, so nothing was half stored.
            logger.exception("message to %s failed", self.scope.get("path"))
            await self.send_error("server_error", "the server could not handle that message; "
                                  "nothing was changed, try again")

    async def within_rate(self):
        """Take one message from this socket's allowance; False (and answer, or close the
        socket) when it is spent."""
        if self.rate is None:
            self.rate = RateLimit(settings.LIVE_RATE_BURST, settings.LIVE_RATE_PER_SECOND)
        if self.rate.take():
            return True
        self.over_limit += 1
        if self.over_limit == settings.LIVE_FLOOD_CLOSE:
            logger.warning("closing a flooding socket on %s from %s", self.scope.get("path"),
                           self.address())
            await self.close(code=FLOOD_CLOSE_CODE)
        elif self.over_limit < settings.LIVE_FLOOD_CLOSE:
            now = time.monotonic()
            if now - self.told_at >= 1:
                self.told_at = now
                await self.send_error(
                    "rate_limited", f"too many messages: at most {settings.LIVE_RATE_PER_SECOND}"
                    " a second; this one was dropped")
        return False

    def pong_fields(self):
        """What a `pong` carries besides the server time."""
        return {}

    async def refused(self, refusal):
        """Hook: what else follows a refusal (e.g. a fresh snapshot)."""

    # -- to the client ---------------------------------------------------------------------

    async def send(self, text_data=None, bytes_data=None, close=False):
        """Every frame this socket sends. One to a socket that is closing is dropped: its page
        sent its close frame (or it was closed) while news or an answer was on its way, which
        is ordinary (a load generator's end closes thousands at once); its disconnect follows
        once the connection is gone. Raised, it ended the consumer without that disconnect,
        with an ERROR in Daphne's log."""
        try:
            await super().send(text_data, bytes_data, close)
        except _GONE:
            logger.debug("dropped a message to a closing socket on %s", self.scope.get("path"))

    async def send_json(self, message):
        await self.send(text_data=encoded(message))

    async def send_error(self, code, text):
        refused.send(sender=JsonSocket, code=code)
        await self.send_json({"type": "error", "code": code, "message": text})

    async def live_event(self, event):
        """News for a group: its text was encoded once by the sender, for every socket."""
        await self.send(text_data=event["text"])
        await self.heard(event)

    async def heard(self, event):
        """Hook: what a socket does with group news besides relaying it."""

    # -- the log-in it was opened with (live.sessions) -------------------------------------

    def token(self):
        """The API token of the handshake (live.auth.TokenGrant), if it came with one."""
        return self.scope.get("token")

    def session(self):
        """The session key of the handshake (None for a token's: its cookie is not read)."""
        # Every action asks it: the cookie header is parsed once, at the handshake
        # (live.auth.SessionAuthMiddleware), or once per socket where a scope lacks it.
        if self.token() is not None:
            return None
        if "session_key" in self.scope:
            return self.scope["session_key"]
        try:
            return self._session
        except AttributeError:
            from live.auth import session_key

            self._session = session_key(self.scope)
            return self._session

    def checked(self, service):
        """`service` run only while this socket's session still names its user (or its
        token still holds)."""
        from live import sessions

        if self.token() is not None:
            return sessions.token_checked(service, self.token().token_id)
        return sessions.checked(service, self.session(), self.user_id())

    async def session_ended(self, event):
        """A log-out: the sockets opened with that session close."""
        from live.sessions import SESSION_CLOSE_CODE

        if self.token() is None and event.get("session") == self.session():
            await self.close(code=SESSION_CLOSE_CODE)

    async def session_check(self, event):
        """The account changed (password, deactivation): close unless the session still
        names this socket's user (or its token still holds: a password change leaves
        tokens alone, a deactivation does not)."""
        from live import lanes
        from live.auth import bearer
        from live.sessions import SESSION_CLOSE_CODE, still_logged_in

        if self.token() is not None:
            holds = await lanes.read(bearer.holds, self.token().token_id)
        else:
            holds = await lanes.read(still_logged_in, self.session(), self.user_id())
        if not holds:
            await self.close(code=SESSION_CLOSE_CODE)

    async def token_revoked(self, event):
        """The token this socket was opened with is revoked (api.tokens): close at once."""
        from live.sessions import SESSION_CLOSE_CODE

        await self.close(code=SESSION_CLOSE_CODE)

    # -- keep-alive (live.registry, every LIVE_KEEPALIVE seconds) ---------------------------

    @classmethod
    async def keep_alive(cls, sockets):
        """Hook: what this kind of socket sends its open sockets at each keep-alive."""

    def kept_with(self):
        """Hook: a key shared by the sockets whose keep-alive is best sent together (in one
        slice: one read and one text for them), or None."""
        return None

    @classmethod
    async def restarting(cls, sockets, closing):
        """Hook (event loop): the process is stopping and is about to close these open sockets
        of this kind with RESTART_CLOSE_CODE (live.registry.close_all); it waits for this.
        `closing`: the channel names of every socket of this kind that the stop closes (these
        and those of the other slices)."""

    @classmethod
    def still_here(cls, channel_names):
        """Hook (database thread): refresh the presence rows of these open sockets."""

    def forgotten(self):
        """Hook (event loop): this socket died without a disconnect; drop what this process
        keeps about it in memory (its kind's lost() clears the database)."""

    @classmethod
    def lost(cls, channel_names):
        """Hook (database thread): these sockets of this kind are gone without a disconnect
        (their task crashed or was killed, or the process is stopping): forget them as
        disconnect() would."""


def event(message):
    """A channel-layer event carrying `message` to every socket of a group (live_event)."""
    return {"type": "live.event", "text": encoded(message)}


class NoSuchSocket(AsyncWebsocketConsumer):
    """Every websocket path the site does not serve: refused at the handshake."""

    async def connect(self):
        await self.close()
