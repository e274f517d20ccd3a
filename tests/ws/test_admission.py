"""A crowd of new connections is let in a few per turn of the loop (live.admission): Twisted's
listening port accepts at most LIVE_ACCEPTS_PER_TURN connections per call, the others wait in
the kernel's queue, which Daphne's TCP endpoints make long."""
import socket

import pytest
from daphne import server as daphne_server
from twisted.internet import tcp

from live import admission


def unpaced():
    """Twisted's own accept loop, also where this worker imported the site (tessera.asgi
    paces it): pace() swaps only a loop it has not paced."""
    return getattr(tcp.Port.doRead, "unpaced", tcp.Port.doRead)


@pytest.fixture
def paced(monkeypatch):
    # The swaps undone after the test (pace() is once per process).
    monkeypatch.setattr(tcp.Port, "doRead", unpaced())
    monkeypatch.setattr(daphne_server, "serverFromString", daphne_server.serverFromString)
    admission.pace()


class Factory:
    """Twisted's factory for the accepted connections: counts them and keeps none."""

    def __init__(self):
        self.built = 0

    def buildProtocol(self, address):
        self.built += 1
        return None   # the port closes the connection


def test_a_turn_accepts_at_most_the_cap_and_the_next_turns_the_rest(paced, settings):
    settings.LIVE_ACCEPTS_PER_TURN = 3
    port = tcp.Port(0, Factory(), interface="127.0.0.1")
    port.socket = listener = port.createInternetSocket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(50)
    port.numberAccepts = 100   # Twisted's start, grown under a crowd
    clients = [socket.create_connection(listener.getsockname()) for _ in range(7)]
    try:
        port.doRead()
        assert port.factory.built == 3
        port.doRead()
        assert port.factory.built == 6
        port.doRead()
        assert port.factory.built == 7
    finally:
        for client in clients:
            client.close()
        listener.close()


def test_a_second_pace_changes_nothing(paced):
    swapped = tcp.Port.doRead
    admission.pace()
    assert tcp.Port.doRead is swapped


def test_daphne_listens_with_a_long_queue(settings, monkeypatch):
    settings.LIVE_ACCEPT_BACKLOG = 1234
    seen = []
    monkeypatch.setattr(tcp.Port, "doRead", unpaced())
    # Twisted's serverFromString as daphne.server holds it, before the swap.
    monkeypatch.setattr(daphne_server, "serverFromString",
                        lambda reactor, description: seen.append(description))
    admission.pace()
    daphne_server.serverFromString(None, "tcp:port=8000:interface=127.0.0.1")
    assert seen == ["tcp:port=8000:interface=127.0.0.1:backlog=1234"]


@pytest.mark.parametrize("description", [
    "unix:/run/tessera.sock", "fd:fileno=3", "tcp:port=8000:backlog=10:interface=127.0.0.1",
])
def test_other_endpoints_and_a_named_backlog_are_left_as_they_are(description):
    assert admission.with_backlog(description, 4096) == description


def test_a_tcp6_endpoint_gets_the_queue_too():
    assert admission.with_backlog("tcp6:port=8000:interface=\\:\\:1", 99) == \
        "tcp6:port=8000:interface=\\:\\:1:backlog=99"
