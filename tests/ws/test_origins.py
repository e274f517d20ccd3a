"""Which pages may open the site's websockets (tessera.origins): the Origin must be the site's
own, scheme, host and port alike, or one of CSRF_TRUSTED_ORIGINS."""
import pytest
from channels.testing import WebsocketCommunicator
from django.test import override_settings

from tessera.origins import origin_allowed
from tests.ws.messages import WAIT
from tests.ws.sockets import application, run


def scope(origin, host="127.0.0.1:8000", scheme="ws", **headers):
    sent = [(b"host", host.encode()), *((k.encode(), v.encode()) for k, v in headers.items())]
    if origin is not None:
        sent.append((b"origin", origin.encode()))
    return {"type": "websocket", "scheme": scheme, "headers": sent}


SITE = override_settings(ALLOWED_HOSTS=["127.0.0.1", "localhost"], CSRF_TRUSTED_ORIGINS=[],
                         SECURE_PROXY_SSL_HEADER=None)


@SITE
@pytest.mark.parametrize("origin", [
    "http://127.0.0.1:9999", "https://127.0.0.1:8000", "https://localhost:1",
    "file://127.0.0.1", "null", "http://127.0.0.1", "http://localhost:8000",
    "http://evil.example:8000", "", "http://127.0.0.1:8000/path", "http://127.0.0.1:99999",
])
def test_another_origin_on_the_same_host_is_refused(origin):
    assert not origin_allowed(scope(origin))


@SITE
def test_the_sites_own_origin_is_accepted_in_any_case_and_with_its_default_port():
    assert origin_allowed(scope("http://127.0.0.1:8000"))
    assert origin_allowed(scope("HTTP://LOCALHOST:8000", host="localhost:8000"))
    assert origin_allowed(scope("http://localhost", host="localhost:80"))
    assert not origin_allowed(scope(None))
    # A Host that is not one of ALLOWED_HOSTS has no origin of its own.
    assert not origin_allowed(scope("http://evil.example", host="evil.example"))
    # Two Origin headers: which one would the browser have meant?
    both = scope("http://127.0.0.1:8000")
    both["headers"].append((b"origin", b"http://127.0.0.1:8000"))
    assert not origin_allowed(both)


@override_settings(ALLOWED_HOSTS=["tessera.example"], SECURE_PROXY_SSL_HEADER=(
    "HTTP_X_FORWARDED_PROTO", "https"), CSRF_TRUSTED_ORIGINS=["https://*.tessera.example"])
def test_behind_a_tls_proxy_the_origin_is_https_and_trusted_origins_count():
    proxied = {"x-forwarded-proto": "https"}
    assert origin_allowed(scope("https://tessera.example", host="tessera.example", **proxied))
    assert not origin_allowed(scope("http://tessera.example", host="tessera.example", **proxied))
    assert origin_allowed(scope("https://www.tessera.example", host="tessera.example"))
    assert not origin_allowed(scope("https://www.tessera.example:8443", host="tessera.example"))
    assert not origin_allowed(scope("http://www.tessera.example", host="tessera.example"))
    assert origin_allowed(scope("https://tessera.example", host="tessera.example", scheme="wss"))


def test_the_site_refuses_a_handshake_from_another_port(db):
    async def scenario():
        for origin, accepted in (("http://testserver:1", False), ("https://testserver", False),
                                 ("http://testserver", True)):
            socket = WebsocketCommunicator(application(), "/ws/lobby/", headers=[
                (b"origin", origin.encode()), (b"host", b"testserver")])
            connected, _ = await socket.connect(timeout=WAIT)
            assert connected is accepted, origin
            await socket.disconnect()

    run(scenario)
