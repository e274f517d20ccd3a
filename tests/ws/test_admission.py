"""A crowd of connections is let in a few per turn of the loop (live.admission): Twisted's
listening port accepts at most LIVE_ACCEPTS_PER_TURN connections per call, the others wait in
the kernel's queue, which Daphne's TCP endpoints make long; the new connections' first requests
and the lost ones' ends are taken LIVE_CROWD_PER_TURN a turn, in order; and at most
LIVE_CONNECTING websocket handshakes go through the application at once."""
import asyncio
import socket

import pytest
from daphne import server as daphne_server
from twisted.internet import tcp

from live import admission


def unpaced():
    """Twisted's own accept loop, also where this worker imported the site (tessera.asgi
    paces it): pace() swaps only a loop it has not paced."""
    return getattr(tcp.Port.doRead, "unpaced", tcp.Port.doRead)


def undone_after_the_test(monkeypatch):
    """pace()'s other swaps, as they are now, put back after the test (pace() is once per
    process: left swapped, a later test of this worker would meet them where it looks for
    Daphne's own, as tests/ws/test_http_log.py does)."""
    from daphne.http_protocol import HTTPFactory
    from twisted.internet.asyncioreactor import AsyncioSelectorReactor

    monkeypatch.setattr(daphne_server, "serverFromString", daphne_server.serverFromString)
    monkeypatch.setattr(HTTPFactory, "buildProtocol", HTTPFactory.buildProtocol)
    monkeypatch.setattr(AsyncioSelectorReactor, "_disconnectSelectable",
                        AsyncioSelectorReactor._disconnectSelectable)


@pytest.fixture
def paced(monkeypatch):
    # The swaps undone after the test (pace() is once per process).
    monkeypatch.setattr(tcp.Port, "doRead", unpaced())
    undone_after_the_test(monkeypatch)
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
    undone_after_the_test(monkeypatch)
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


# -- a crowd's first and last steps, a few per turn of the loop --------------------------------

def turns(count=1):
    """Let the loop run `count` turns (what a turn scheduled with call_soon runs in)."""
    async def waiting():
        for _ in range(count):
            await asyncio.sleep(0)
    return waiting()


def test_a_turn_makes_at_most_the_cap_of_calls_and_the_next_turns_the_rest_in_order():
    done, parked = [], []

    async def scenario():
        per_turn = admission.PerTurn(2)
        for n in range(5):
            per_turn.call(lambda n=n: done.append(n), park=lambda n=n: parked.append(n))
        assert done == [0, 1] and parked == [2, 3, 4]
        await turns()
        assert done == [0, 1, 2, 3]
        # A newcomer queues behind the ones waiting, even with room left in its turn.
        per_turn.call(lambda: done.append("new"))
        await turns()
        assert done == [0, 1, 2, 3, 4, "new"]
        await turns(2)
        assert not per_turn.waiting and per_turn.used == 0 and not per_turn.turning

    asyncio.run(scenario())


def test_a_failing_call_is_logged_and_the_others_still_run(caplog):
    done = []

    def failing():
        raise ValueError("broken")

    async def scenario():
        per_turn = admission.PerTurn(1)
        per_turn.call(lambda: done.append(0))
        per_turn.call(failing)
        per_turn.call(lambda: done.append(2))
        await turns(3)

    asyncio.run(scenario())
    assert done == [0, 2]
    assert "deferred step failed" in caplog.text


def test_without_a_running_loop_a_call_runs_at_once():
    # A protocol driven by hand (Twisted's own tests of a request): no turns to spread over.
    done = []
    per_turn = admission.PerTurn(1)
    for n in range(3):
        per_turn.call(lambda n=n: done.append(n))
    assert done == [0, 1, 2]


class Transport:
    disconnected = False


class Protocol:
    """Twisted's HTTP protocol as the factory builds it: what it received, in order."""

    def __init__(self, log):
        self.log = log

    def makeConnection(self, transport):
        self.transport = transport

    def dataReceived(self, data):
        self.log.append(data)


@pytest.fixture
def crowd(monkeypatch, settings):
    settings.LIVE_CROWD_PER_TURN = 2
    monkeypatch.setattr(admission, "_crowd", None)   # a new one, with this cap


def test_new_connections_first_requests_are_taken_a_few_per_turn(crowd):
    log = []

    class Factory:
        def buildProtocol(self, address):
            return Protocol(log)

    admission.first_requests(Factory)

    async def scenario():
        protocols = [Factory().buildProtocol(None) for _ in range(5)]
        transports = [Transport() for _ in protocols]
        for protocol, transport in zip(protocols, transports):
            protocol.makeConnection(transport)
        for n, protocol in enumerate(protocols):
            protocol.dataReceived(b"GET %d" % n)
        assert log == [b"GET 0", b"GET 1"]
        # More data before its turn is kept behind the first, in order.
        protocols[2].dataReceived(b" more")
        # One gone before its turn is not answered.
        transports[3].disconnected = True
        await turns()
        assert log == [b"GET 0", b"GET 1", b"GET 2", b" more"]
        await turns()
        assert log == [b"GET 0", b"GET 1", b"GET 2", b" more", b"GET 4"]
        # Once taken, a connection's data goes straight to its protocol.
        protocols[0].dataReceived(b"next")
        assert log[-1] == b"next"
        assert "dataReceived" not in vars(protocols[0])

    asyncio.run(scenario())


def test_lost_connections_ends_are_taken_a_few_per_turn(crowd):
    ended, removed = [], []

    class Reactor:
        def _disconnectSelectable(self, selectable, why, isRead):
            ended.append(selectable.name)
            selectable.disconnected = True

        def removeReader(self, selectable):
            removed.append(("reader", selectable.name))

        def removeWriter(self, selectable):
            removed.append(("writer", selectable.name))

    admission.last_steps(Reactor)

    def client(name):
        connection = tcp.Server.__new__(tcp.Server)   # an accepted connection, not opened
        connection.name, connection.disconnected = name, False
        return connection

    async def scenario():
        reactor = Reactor()
        clients = [client(n) for n in range(4)]
        for connection in clients:
            reactor._disconnectSelectable(connection, None, True)
        assert ended == [0, 1]
        # The others are no longer watched while they wait, and a second report of the same
        # end is not queued twice.
        assert ("reader", 2) in removed and ("writer", 3) in removed
        reactor._disconnectSelectable(clients[3], None, True)
        await turns()
        assert ended == [0, 1, 2, 3]
        # Anything but a client connection (the listening port) ends at once.
        port = type("Port", (), {"name": "port"})()
        for _ in range(3):
            reactor._disconnectSelectable(port, None, True)
        assert ended[-3:] == ["port"] * 3

    asyncio.run(scenario())


def test_pace_swaps_the_first_requests_and_the_ends_once(monkeypatch):
    from daphne.http_protocol import HTTPFactory
    from twisted.internet.asyncioreactor import AsyncioSelectorReactor

    def unswapped(owner, name):
        method = getattr(owner, name)
        return getattr(method, "unpaced", method)

    monkeypatch.setattr(tcp.Port, "doRead", unpaced())
    monkeypatch.setattr(daphne_server, "serverFromString", daphne_server.serverFromString)
    monkeypatch.setattr(HTTPFactory, "buildProtocol", unswapped(HTTPFactory, "buildProtocol"))
    monkeypatch.setattr(AsyncioSelectorReactor, "_disconnectSelectable",
                        unswapped(AsyncioSelectorReactor, "_disconnectSelectable"))
    admission.pace()
    swapped = HTTPFactory.buildProtocol, AsyncioSelectorReactor._disconnectSelectable
    assert all(getattr(method, "paced", False) for method in swapped)
    admission.pace()
    assert (HTTPFactory.buildProtocol, AsyncioSelectorReactor._disconnectSelectable) == swapped


# -- the handshakes' gate -----------------------------------------------------------------------

def test_at_most_the_cap_of_handshakes_go_through_the_application_at_once(settings):
    settings.LIVE_CONNECTING = 2
    inside, answers = [], {}

    async def application(scope, receive, send):
        inside.append(scope["n"])
        answer = answers[scope["n"]] = asyncio.get_running_loop().create_future()
        kind = await answer
        if kind == "fail":
            raise RuntimeError("the application failed")
        await send({"type": kind})
        await asyncio.sleep(3600)   # the socket stays open: no longer a handshake

    async def sent(message):
        pass

    async def scenario():
        gate = admission.Handshakes(application)
        handshakes = [asyncio.ensure_future(gate({"n": n}, None, sent)) for n in range(5)]
        await turns(3)
        assert inside == [0, 1] and admission.Handshakes.waiting == 3
        assert admission.crowded()
        answers[0].set_result("websocket.accept")    # accepted: its place goes to the next
        await turns(3)
        assert inside == [0, 1, 2]
        answers[1].set_result("websocket.close")     # refused: the same
        answers[2].set_result("fail")                # failed: the same
        await turns(5)
        assert inside == [0, 1, 2, 3, 4] and admission.Handshakes.waiting == 0
        for handshake in handshakes:
            handshake.cancel()
        await asyncio.gather(*handshakes, return_exceptions=True)

    asyncio.run(scenario())
