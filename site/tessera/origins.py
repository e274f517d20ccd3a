"""Which pages may open the site's websockets: the browser's Origin header must be the site's
own origin, scheme, host and port alike, or one of CSRF_TRUSTED_ORIGINS — the rule Django's
CSRF check applies to a form's Origin (CsrfViewMiddleware._origin_verified).

Channels' AllowedHostsOriginValidator compares the Origin's host name with ALLOWED_HOSTS only,
so `http://127.0.0.1:9999`, `https://localhost:1` or `file://127.0.0.1` passed for a site on
`http://127.0.0.1:8000`: another program on the same machine could open sockets with the
visitor's cookies.

The site's own origin is that of the handshake: `https` when it came over TLS (`wss`, or a TLS
proxy's SECURE_PROXY_SSL_HEADER), else `http`, and the Host header, which must be one of
ALLOWED_HOSTS (with Django's defaults when DEBUG is on).
"""
from urllib.parse import urlsplit

from channels.security.websocket import WebsocketDenier
from django.conf import settings
from django.http.request import split_domain_port, validate_host

from live.auth import bearer_secret

DEFAULT_PORTS = {"http": 80, "https": 443}


def normalised(origin):
    """(scheme, host, port) of an origin such as "https://Tessera.example", or None when it is
    not an http(s) origin (`null`, `file://...`, garbage)."""
    try:
        parts = urlsplit(origin.strip())
        scheme, host = parts.scheme.lower(), (parts.hostname or "")
        port = parts.port
    except ValueError:
        return None
    if scheme not in DEFAULT_PORTS or not host or parts.path not in ("", "/"):
        return None
    return scheme, host.lower(), port or DEFAULT_PORTS[scheme]


def header(scope, name):
    values = [value for key, value in scope.get("headers", ()) if key == name]
    if len(values) != 1:
        return None
    try:
        return values[0].decode("latin1")
    except UnicodeDecodeError:
        return None


def is_secure(scope):
    if scope.get("scheme") in ("wss", "https"):
        return True
    proxy = settings.SECURE_PROXY_SSL_HEADER
    if proxy:
        meta_key, wanted = proxy
        name = meta_key.removeprefix("HTTP_").lower().replace("_", "-").encode("latin1")
        sent = header(scope, name)
        return sent is not None and sent.split(",")[0].strip() == wanted
    return False


def own_origin(scope):
    """The site's origin for this handshake, normalised, or None if its Host is not allowed."""
    host = header(scope, b"host")
    if not host:
        return None
    allowed = settings.ALLOWED_HOSTS
    if settings.DEBUG and not allowed:
        allowed = [".localhost", "127.0.0.1", "[::1]"]
    domain, _ = split_domain_port(host)
    if not domain or not validate_host(domain, allowed):
        return None
    return normalised(f"{'https' if is_secure(scope) else 'http'}://{host}")


def trusted(origin):
    """Whether the normalised `origin` is one of CSRF_TRUSTED_ORIGINS ("https://*.example"
    trusts the subdomains, as Django's CSRF check does)."""
    scheme, host, port = origin
    for entry in settings.CSRF_TRUSTED_ORIGINS:
        wildcard = "://*." in entry
        listed = normalised(entry.replace("://*.", "://", 1))
        if listed is None or listed[0] != scheme or listed[2] != port:
            continue
        if host == listed[1] or (wildcard and host.endswith("." + listed[1])):
            return True
    return False


def origin_allowed(scope):
    sent = header(scope, b"origin")
    origin = normalised(sent) if sent else None
    if origin is None:
        return False
    return origin == own_origin(scope) or trusted(origin)


class SameOriginValidator:
    """ASGI middleware: a websocket handshake from another origin is refused (closed before it
    is accepted, as Channels' validators do)."""

    def __init__(self, application):
        self.application = application

    async def __call__(self, scope, receive, send):
        # A handshake with an API token (`Authorization: Bearer`) is a program's, not a
        # page's: no browser can add that header to a websocket, and its cookie is not read
        # (live.auth), so another origin gains nothing from it.
        if scope["type"] == "websocket" and bearer_secret(scope) is None \
                and not origin_allowed(scope):
            return await WebsocketDenier()(scope, receive, send)
        return await self.application(scope, receive, send)
