"""Who is calling the API: a personal token (`Authorization: Bearer ...`) or the site's
session cookie. A token request needs no CSRF token (a browser never adds the header by
itself); a cookie request does (ninja's SessionAuth checks it), as on every form of the site.

A token is limited per token (API_TOKEN_RATE, fixed windows counted in each server process:
api.limits); over it the request is answered 429 with Retry-After.

The game actions (api.endpoints.act) are async views: their TokenAuth(on_loop=True) finds the
token in the process's copy (api.tokens.kept) without leaving the event loop, and the action's
own database job checks that it still holds (api.tokens.standing).
"""
from dataclasses import dataclass

from ninja.security import HttpBearer, SessionAuth

from api import limits, tokens
from api.models import Scope
from live import lanes


class ApiError(Exception):
    """A refused request: `code` from docs/api.md (the socket protocol's codes where one
    fits), `message` for a person, `status` for HTTP, `retry_after` seconds for a 429."""

    def __init__(self, code, message, status=400, retry_after=None):
        super().__init__(message)
        self.code, self.message, self.status, self.retry_after = code, message, status, retry_after


@dataclass
class Caller:
    user: object
    scopes: frozenset
    token: object = None


# Where Django's request keeps the Authorization header (HttpBearer.header).
BEARER_META = "HTTP_AUTHORIZATION"


def unknown_token():
    return ApiError("bad_token", "This token is unknown or revoked.", 401)


def counted(token):
    """The caller of a request made with `token`, once the request is counted against its
    rate (a 429 refusal when it is over)."""
    wait = limits.over(token.digest)
    if wait is not None:
        raise ApiError("rate_limited", f"too many requests with this token: try again in "
                                       f"{wait} s", 429, retry_after=wait)
    return Caller(token.user, frozenset(token.scopes), token)


class TokenAuth(HttpBearer):
    """`on_loop`: for the async views (ninja awaits it): the token from the process's copy,
    found on a writer thread only when the copy has none (api.tokens.kept); the view checks
    it still holds in its own database job. Otherwise the table is read on every request.
    One class either way, so the OpenAPI description names one security scheme."""

    def __init__(self, on_loop=False):
        super().__init__()
        self.is_async = on_loop

    def __call__(self, request):
        if self.is_async:
            return self.on_loop(request)
        return super().__call__(request)

    def authenticate(self, request, token):
        found = tokens.find(token)
        if found is None:
            raise unknown_token()
        return counted(found)

    async def on_loop(self, request):
        # As HttpBearer.__call__: no bearer header lets the next way in (the cookie) try. The
        # header from META, where it already is: request.headers builds a dict of every header
        # first, on the event loop, for each action.
        scheme, _, secret = request.META.get(BEARER_META, "").partition(" ")
        if scheme.lower() != self.openapi_scheme:
            return None
        secret = secret.strip()
        digest, found = tokens.kept(secret)
        if found is None:
            found = await lanes.write(tokens.find, secret)
            if found is None:
                raise unknown_token()
            tokens.keep(digest, found)
        return counted(found)


class CookieAuth(SessionAuth):
    """A logged-in person in the browser: every scope but bot play."""

    def authenticate(self, request, key):
        user = super().authenticate(request, key)
        if user is None:
            return None
        return Caller(user, frozenset(Scope.values) - {Scope.BOT})


def caller(request) -> Caller:
    return request.auth


def require(request, *scopes):
    """The caller, if its token has one of `scopes`; else a `scope_required` refusal."""
    return required(caller(request), *scopes)


def required(who, *scopes):
    if not who.scopes & set(scopes):
        wanted = " or ".join(Scope(scope).label.lower() for scope in scopes)
        raise ApiError("scope_required", f"this token lacks the scope: {wanted}", 403)
    return who


def require_player(who, bot):
    """`who` (a Caller), allowed to act in games: a bot account (`bot`) with the bot scope,
    through a token only; a person with the play scope."""
    if bot:
        if who.token is None:
            raise ApiError("bot_account", "a bot account plays through the API with a token",
                           403)
        return required(who, Scope.BOT)
    return required(who, Scope.PLAY)
