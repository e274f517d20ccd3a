"""Who is on a websocket: the Django session of its handshake, read on a database thread.

Channels' AuthMiddlewareStack does the same job in three layers (cookie, session, user): it
reads the session and the user on the process's single sync thread (database_sync_to_async),
and its session layer wraps every message the socket ever sends, to save a session that a
consumer changed. Our sockets never change the session, and the live path keeps its database
work on its own threads (live.lanes), so a handshake's two reads run there, beside everything
else, instead of queueing behind one thread.

The checks are those of Django's `django.contrib.auth.get_user`: the session must exist and
be unexpired, name a configured backend, and carry the hash of the user's current password
(or of a fallback secret's), so a password change or a log-out elsewhere shuts the next
handshake out at once. Unlike it, a socket never writes the session (no flush, no new key):
what a failed check means for the session is for the next page load to settle, where the
browser can be given a new cookie. A socket's user is fixed at its handshake, as with Channels.

Every action a socket takes checks its session again (live.sessions), with one raw read of
what the verdict depends on (the session's data, the user's password hash and active flag);
the full check runs again only when any of that changed. The handshake's check notes what
it read for that (`verdicts`), so the socket's first action does not run the full check on
the writer a moment after the handshake ran it on a reader: every arena game that ends by a
resignation paid it (a socket opened to resign once). A handshake itself always runs the
full check.

A program may open a socket with a personal API token instead (`Authorization: Bearer ...` on
the handshake, never in the URL): then the cookie is not read at all, and the token says who
is on the socket and what it may do (a `TokenGrant`, made by the api app through the `bearer`
hook: live imports no app). An unknown or revoked token is refused at the handshake (HTTP 403).
The socket lives no longer than its token (live.sessions).
"""
from dataclasses import dataclass
from importlib import import_module

from django.conf import settings
from django.contrib.auth import (BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY,
                                 get_user_model, load_backend)
from django.contrib.auth.models import AnonymousUser
from django.http.cookie import parse_cookie
from django.utils.crypto import constant_time_compare

from live import lanes

BEARER = "bearer "


@dataclass(frozen=True)
class TokenGrant:
    """What the personal API token of a socket's handshake allows: `reads` (watch a game,
    as the API's read scopes), `plays` (act in its owner's games: the play scope, or bot play
    for a bot account); `why_not` says why it may not play."""

    token_id: int
    reads: bool
    plays: bool
    why_not: str = ""


class Bearer:
    """The api app's answers, filled in at its ready(): `grant(secret)` -> (user, TokenGrant)
    or None (a writer thread: it notes when the token was last used); `holds(token_id)`,
    whether the token is still live and its owner active (any database thread)."""

    def __init__(self):
        self.grant = lambda secret: None
        self.holds = lambda token_id: False


bearer = Bearer()


def bearer_secret(scope):
    """The token of an `Authorization: Bearer ...` header on the handshake; "" for a bearer
    header without one; None when there is no such header (a browser's handshake)."""
    for name, value in scope.get("headers", ()):
        if name == b"authorization":
            text = value.decode("latin1")
            if text[:len(BEARER)].lower() == BEARER:
                return text[len(BEARER):].strip()
            return ""
    return None


def session_key(scope):
    """The session cookie of the handshake, if any."""
    for name, value in scope.get("headers", ()):
        if name == b"cookie":
            return parse_cookie(value.decode("latin1")).get(settings.SESSION_COOKIE_NAME)
    return None


DB_SESSIONS = "django.contrib.sessions.backends.db"

# (session key, user id) -> (what the verdict was drawn from, whether the session names the
# user): for this process, written by reader and writer threads (one dict operation each).
verdicts = {}
VERDICTS_KEPT = 10_000


def note_verdict(key, user_id, basis, verdict):
    if len(verdicts) >= VERDICTS_KEPT:
        verdicts.clear()
    verdicts[(key, user_id)] = (basis, verdict)


def user_of_session(key):
    """The user the session `key` is logged in as, or AnonymousUser (database thread)."""
    return user_and_basis(key)[0]


def user_and_basis(key):
    """(user_of_session(key), what that verdict was drawn from: the session's stored data,
    the user's password hash and active flag, as live.sessions reads them on each action;
    None where the session engine is not the database's, or no user was found)."""
    store = import_module(settings.SESSION_ENGINE).SessionStore(key)
    stored = None
    if settings.SESSION_ENGINE == DB_SESSIONS:
        # What store.load() does, keeping the stored text the verdict is drawn from.
        stored = store._get_session_from_db()
        session = store.decode(stored.session_data) if stored is not None else {}
    else:
        session = store
    try:
        user_id = get_user_model()._meta.pk.to_python(session[SESSION_KEY])
        backend_path = session[BACKEND_SESSION_KEY]
    except KeyError:
        return AnonymousUser(), None
    if backend_path not in settings.AUTHENTICATION_BACKENDS:
        return AnonymousUser(), None
    user = load_backend(backend_path).get_user(user_id)
    if user is None:
        return AnonymousUser(), None
    basis = None if stored is None else (stored.session_data, user.password, user.is_active)
    if not verified(session.get(HASH_SESSION_KEY), user):
        return AnonymousUser(), None
    return user, basis


def handshake_user(key):
    """(reader) user_of_session(key) for a socket's handshake, its verdict noted for the
    socket's actions."""
    user, basis = user_and_basis(key)
    if basis is not None:
        note_verdict(key, user.pk, basis, True)
    return user


def verified(session_hash, user):
    """Whether the session was made with the user's current password."""
    if not session_hash or not hasattr(user, "get_session_auth_hash"):
        return False
    return (constant_time_compare(session_hash, user.get_session_auth_hash())
            or any(constant_time_compare(session_hash, fallback)
                   for fallback in user.get_session_auth_fallback_hash()))


async def user_of(scope, key=None):
    """The user of a handshake's scope (event loop; the reads run on a reader thread);
    `key`: its session cookie, if already read."""
    key = key or session_key(scope)
    if not key:
        return AnonymousUser()
    return await lanes.read(handshake_user, key)


class SessionAuthMiddleware:
    """ASGI middleware for websockets: `scope["user"]` from the session cookie (and
    `scope["session_key"]`, the cookie, which each action checks again: live.sessions), or
    from the API token of an `Authorization` header (then `scope["token"]` is its
    TokenGrant)."""

    def __init__(self, inner):
        self.inner = inner

    async def __call__(self, scope, receive, send):
        secret = bearer_secret(scope)
        if secret is None:
            key = session_key(scope)
            scope = dict(scope, user=await user_of(scope, key), token=None, session_key=key)
            return await self.inner(scope, receive, send)
        found = await lanes.write(bearer.grant, secret) if secret else None
        if found is None:
            from channels.security.websocket import WebsocketDenier

            return await WebsocketDenier()(scope, receive, send)
        user, grant = found
        return await self.inner(dict(scope, user=user, token=grant), receive, send)
