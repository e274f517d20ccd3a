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
