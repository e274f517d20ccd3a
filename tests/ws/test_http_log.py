"""Twisted's access line for each HTTP request (live.http_log): not drawn where Daphne sends
Twisted's log nowhere (its default verbosity), drawn as before at a higher verbosity."""
from types import SimpleNamespace

import pytest
from daphne.http_protocol import HTTPFactory
from twisted.web.http import Request
from twisted.web.test.requesthelper import DummyChannel

from live import http_log


@pytest.fixture
def quieted(monkeypatch):
    """quiet() for this test only: Daphne's factory as it was afterwards."""
    monkeypatch.setattr(HTTPFactory, "startFactory", HTTPFactory.startFactory)
    http_log.quiet()
    http_log.quiet()  # twice: still one layer


def answered_request():
    request = Request(DummyChannel())
    request.method, request.uri = b"POST", b"/api/v1/games/1/play"
    request.clientproto = b"HTTP/1.1"
    request.code, request.sentLength = 200, 120
    return request


class Lines:
    def __init__(self):
        self.written = []

    def write(self, line):
        self.written.append(line)


@pytest.mark.parametrize("verbosity, drawn", [(0, False), (1, False), (2, True), (3, True)])
def test_the_line_is_drawn_only_where_twisted_s_log_goes_somewhere(quieted, monkeypatch,
                                                                     verbosity, drawn):
    lines = Lines()
    # Where the factory would write the line: Twisted's log file.
    monkeypatch.setattr("twisted.python.log.logfile", lines)
    factory = HTTPFactory(SimpleNamespace(verbosity=verbosity))
    factory.startFactory()
    assert HTTPFactory.startFactory.quieted
    factory.log(answered_request())
    assert bool(lines.written) is drawn
    if drawn:
        assert '"POST /api/v1/games/1/play HTTP/1.1" 200 120' in lines.written[0]


@pytest.fixture
def unparsed(monkeypatch):
    """unparsed_forms() for this test only."""
    monkeypatch.setattr(HTTPFactory, "buildProtocol", HTTPFactory.buildProtocol)
    http_log.unparsed_forms()
    http_log.unparsed_forms()  # twice: still one layer


def posted_form(monkeypatch, content_type):
    """A POST of an urlencoded body as Daphne's protocol receives it: the request's `args`
    once Twisted has read it (Daphne's own handling of it, `process`, left out)."""
    from daphne.http_protocol import WebRequest

    monkeypatch.setattr(WebRequest, "process", lambda request: None)
    protocol = HTTPFactory(SimpleNamespace(verbosity=1)).buildProtocol(None)
    channel = DummyChannel()
    channel.factory = SimpleNamespace(server=SimpleNamespace(protocol_connected=lambda r: None))
    request = protocol.requestFactory(channel, 0)
    body = b"name=anna&level=3"
    request.requestHeaders.setRawHeaders(b"content-type", [content_type])
    request.requestHeaders.setRawHeaders(b"content-length", [str(len(body)).encode()])
    request.gotLength(len(body))
    request.handleContentChunk(body)
    request.requestReceived(b"POST", b"/accounts/login/", b"HTTP/1.1")
    request.content.seek(0)
    return request


def test_a_posts_form_is_left_to_the_application(unparsed, monkeypatch):
    def parsed(line):
        raise AssertionError("Twisted parsed the content type")

    monkeypatch.setattr("twisted.web.http._parseContentType", parsed)
    request = posted_form(monkeypatch, b"application/x-www-form-urlencoded")
    assert request.args == {}
    # What Daphne hands the application: the body as it came.
    assert request.content.read() == b"name=anna&level=3"


def test_without_it_twisted_parses_every_posts_form(monkeypatch):
    # Daphne's factory as it is, whether or not this process already imported tessera.asgi.
    build = HTTPFactory.buildProtocol
    monkeypatch.setattr(HTTPFactory, "buildProtocol", getattr(build, "parsing", build))
    request = posted_form(monkeypatch, b"application/x-www-form-urlencoded")
    assert request.args == {b"name": [b"anna"], b"level": [b"3"]}
