"""Where a request or a websocket comes from, for the limits that count per address (the log-in
throttle, the websocket caps).

With no trusted proxy, the peer of Daphne's socket: a client cannot forge it. Behind N proxies
that each append the address they were reached from to X-Forwarded-For (TRUSTED_PROXY_COUNT),
the client is the N-th address from the right: the one the outermost proxy saw. Addresses
further left were written by the client and are not trusted.
"""
from django.conf import settings


def client_address(peer, forwarded_for):
    hops = settings.TRUSTED_PROXY_COUNT
    if not hops:
        return peer
    forwarded = [a.strip() for a in (forwarded_for or "").split(",")]
    forwarded = [a for a in forwarded if a]
    if len(forwarded) < hops:
        # Not through every proxy (someone reached an inner one directly): the peer is the
        # only address known to be true.
        return peer
    return forwarded[-hops]


def of_request(request):
    return client_address(request.META.get("REMOTE_ADDR"),
                          request.META.get("HTTP_X_FORWARDED_FOR", ""))


def of_scope(scope):
    """The same for an ASGI scope (a websocket)."""
    peer = scope["client"][0] if scope.get("client") else None
    headers = dict(scope.get("headers") or ())
    forwarded = headers.get(b"x-forwarded-for", b"").decode("latin-1")
    return client_address(peer, forwarded)
