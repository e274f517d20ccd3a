"""The short way in for the API's game actions made with a token: ASGI, in front of Django.

`POST /api/v1/games/{id}/play` (and `/resign`, `/abort`) with `Authorization: Bearer ...` is
what a bot sends once a second per game. Through Django's ASGI handler such a request crossed
between the event loop and a thread made for it about ten times (the request signals, each
synchronous middleware, each `process_view`, the response's close: a program's action cost
four times a socket's in server CPU, and each crossing waited for a core on a busy machine).
Here it is the same ninja operation (api.endpoints: the same authentication, body validation,
scopes, codes and OpenAPI description), called on the event loop with the request Django
would have built, and the action itself runs as the socket's do, in the game's lane on a
database thread (live.lanes): one crossing, as on the socket.

What the middleware did for such a request is done here: the body limit (API_MAX_BODY, 413
before reading it, api.middleware), the outbox (live.outbox), the security headers
(Django's SecurityMiddleware, which needs no database), the metrics and the log lines' game
(ops). Sessions, CSRF, messages and the rest concern cookie requests only: a request
without a bearer token, any other method or path, goes through Django as before.
"""
import io
import logging
import re

from django.conf import settings
from django.core.handlers.asgi import ASGIRequest
from django.http import JsonResponse
from django.middleware.security import SecurityMiddleware
from django.urls import ResolverMatch, resolve

from api.middleware import too_large
from live.outbox import Outbox

logger = logging.getLogger("django.request")

ACTION = re.compile(r"/api/v1/games/(?P<game_id>\d+)/(?P<action>play|resign|abort)")
BEARER = b"bearer "


def with_token(scope):
    for name, value in scope.get("headers", ()):
        if name == b"authorization":
            return value[:len(BEARER)].lower() == BEARER
    return False


def takes(scope):
    """Whether this door answers the request (else Django does)."""
    return (scope["type"] == "http" and scope.get("method") == "POST"
            and ACTION.fullmatch(scope.get("path", "")) is not None and with_token(scope))


_views = {}  # action -> the view Django's URL resolver finds for it (the same for every game)


def resolved(path):
    """What Django's resolve(path) gives, its view found once per action: resolving a path
    walks the site's whole URL configuration."""
    found = ACTION.fullmatch(path)
    view = _views.get(found["action"])
    if view is None:
        match = resolve(path)
        _views[found["action"]] = match.func
        return match
    return ResolverMatch(view, (), {"game_id": int(found["game_id"])})


class ActionDoor:
    """ASGI application: the token requests of the game actions here, the rest to `django`
    (Django's ASGIHandler, whose send_response this door uses too)."""

    def __init__(self, django, answered=None, started=None):
        """`answered(status)` and `started(request, kwargs)`: what the operators' middleware
        does for a request through Django (ops.metrics.http_answered, ops.context.
        request_started), handed in by tessera.asgi: api and ops share a floor and do not
        import each other (tests/site/test_import_rule.py)."""
        self.django = django
        self.security = SecurityMiddleware(lambda request: None)
        self.answered = answered or (lambda status: None)
        self.started = started or (lambda request, kwargs: None)

    async def __call__(self, scope, receive, send):
        if not takes(scope):
            return await self.django(scope, receive, send)
        body = await self.read_body(receive)
        if body is None:
            return
        request = ASGIRequest(scope, body)
        if too_large(request) or len(body.getvalue()) > settings.API_MAX_BODY:
            limit = settings.API_MAX_BODY
            response = JsonResponse({"error": "too_large",
                                     "message": f"the body is over {limit} bytes"}, status=413)
        else:
            response = await self.answer(request)
        response = self.security.process_response(request, response)
        self.answered(response.status_code)
        await self.django.send_response(response, send)

    async def read_body(self, receive):
        """The body, reading no more than API_MAX_BODY and one byte (None: the client left)."""
        body, size = io.BytesIO(), 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return None
            chunk = message.get("body", b"")
            if size <= settings.API_MAX_BODY:
                body.write(chunk[:settings.API_MAX_BODY + 1 - size])
                size += len(chunk)
            if not message.get("more_body", False):
                body.seek(0)
                return body

    async def answer(self, request):
        match = resolved(request.path_info)
        self.started(request, match.kwargs)
        try:
            with Outbox() as outbox:
                response = await match.func(request, *match.args, **match.kwargs)
            await outbox.deliver()
        except Exception:
            logger.exception("Internal Server Error: %s", request.path,
                             extra={"status_code": 500, "request": request})
            return JsonResponse({"error": "server_error", "message": "the server failed; "
                                                                     "try again"}, status=500)
        return response
