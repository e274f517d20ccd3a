"""Who is calling the API: a personal token (`Authorization: Bearer ...`) or the site's
session cookie. A token request needs no CSRF token (a browser never adds the header by
itself); a cookie request does (ninja's SessionAuth checks it), as on every form of the site.

A token is limited per token (API_TOKEN_RATE, django-ratelimit's fixed windows in the "limits"
cache, shared by the server processes); over it the request is answered 429 with Retry-After.
"""
from dataclasses import dataclass

from django.conf import settings
from django_ratelimit.core import get_usage
from ninja.security import HttpBearer, SessionAuth

from api import tokens
from api.models import Scope


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


class TokenAuth(HttpBearer):
    def authenticate(self, request, token):
        found = tokens.find(token)
        if found is None:
            raise ApiError("bad_token", "This token is unknown or revoked.", 401)
        usage = get_usage(request, group="api-token", key=lambda group, request: found.digest,
                          rate=settings.API_TOKEN_RATE, increment=True)
        if usage and usage["should_limit"]:
            wait = max(1, int(usage["time_left"]))
            raise ApiError("rate_limited", f"too many requests with this token: try again in "
                                           f"{wait} s", 429, retry_after=wait)
        return Caller(found.user, frozenset(found.scopes), found)


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
    who = caller(request)
    if not who.scopes & set(scopes):
        wanted = " or ".join(Scope(scope).label.lower() for scope in scopes)
        raise ApiError("scope_required", f"this token lacks the scope: {wanted}", 403)
    return who


def require_player(request):
    """The caller, allowed to act in games: a bot account with the bot scope, through a
    token only; a person with the play scope."""
    who = caller(request)
    if tokens.is_bot_account(who.user):
        if who.token is None:
            raise ApiError("bot_account", "a bot account plays through the API with a token",
                           403)
        return require(request, Scope.BOT)
    return require(request, Scope.PLAY)
