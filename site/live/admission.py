"""A crowd of connections let in a few at a time, behind the moves of the sockets open.

A restart's 2,000 pages come back within a quarter of a second, and each one's way in (and,
before that, each one's end) is a handful of steps on the one event loop. Taken as they come,
they filled whole turns of the loop: Twisted's listening port accepted every connection
waiting in the kernel's queue in one call, the accepted connections' upgrades arrived
together and were parsed in one turn (337 ms), the dropped connections' ends were read in one
turn (162 ms), and two thousand handshakes went through the sessions, the groups, the
arrivals and the snapshots side by side. A move that arrived meanwhile waited for all of it,
turn after turn: other games' moves p99 near a second (bench/reconnect_storm.py).

`pace()` (once, when the server starts: tessera.asgi, as live.daphne_checks) spreads each of
those steps over turns of the loop, so the moves of the sockets already open are read, played
and sent between them:

* the listening port takes at most LIVE_ACCEPTS_PER_TURN connections per turn, from a
  listening queue of LIVE_ACCEPT_BACKLOG (the kernel caps it at net.core.somaxconn; Twisted's
  default of 50 overflowed, and the kernel dropped the rest, which came back on TCP's own retry
  a second or three later);
* a new connection's first data (its HTTP request or websocket upgrade, parsed, answered and
  handed to the application on the spot) and a lost client connection's end are taken at most
  LIVE_CROWD_PER_TURN per turn, in order (crowd());
* `Handshakes`, the websockets' outermost ASGI middleware, lets at most LIVE_CONNECTING
  handshakes through the application at once (the session's user, the consumer's connect():
  groups, arrival, snapshot) until each is accepted or refused; the others wait their turn in
  order, costing nothing meanwhile.

Nothing of a connection changes, only when each step runs. Work that can wait for the crowd
asks `crowded()` (the presence news: play.rooms).
"""
import asyncio
import collections
import logging
import re

from django.conf import settings

logger = logging.getLogger(__name__)


def pace():
    """Swap Twisted's accept loop, Daphne's endpoints and HTTP factory, and the reactor's end
    of a connection (once; a second call changes nothing)."""
    try:
        from daphne import server as daphne_server
        from daphne.http_protocol import HTTPFactory
        from twisted.internet import tcp
        from twisted.internet.asyncioreactor import AsyncioSelectorReactor
    except ImportError:
        return  # another ASGI server: none of this runs
    if not getattr(tcp.Port.doRead, "paced", False):
        few_accepts(tcp.Port)
        listening = daphne_server.serverFromString

        def serverFromString(reactor, description):
            return listening(reactor, with_backlog(description, settings.LIVE_ACCEPT_BACKLOG))

        daphne_server.serverFromString = serverFromString
    if not getattr(HTTPFactory.buildProtocol, "paced", False):
        first_requests(HTTPFactory)
    if not getattr(AsyncioSelectorReactor._disconnectSelectable, "paced", False):
        last_steps(AsyncioSelectorReactor)


def few_accepts(port_class):
    """At most LIVE_ACCEPTS_PER_TURN connections accepted per turn of the loop."""
    accepting = port_class.doRead

    def doRead(self):
        # Twisted grows numberAccepts while the queue keeps it busy; a turn takes no more
        # than the cap (and Twisted's own rule goes on below it).
        if self.numberAccepts > settings.LIVE_ACCEPTS_PER_TURN:
            self.numberAccepts = settings.LIVE_ACCEPTS_PER_TURN
        return accepting(self)

    doRead.paced = True
    doRead.unpaced = accepting   # for the tests, which pace a Twisted as it comes
    port_class.doRead = doRead


def with_backlog(description, backlog):
    """A Twisted server endpoint description with a listening queue of `backlog`, unless it
    names one or is not TCP ("tcp:port=8000:interface=127.0.0.1" ->
    "tcp:port=8000:interface=127.0.0.1:backlog=4096"; a Unix socket or a file descriptor
    is left as it is)."""
    if not re.match(r"(tcp6?):", description) or re.search(r":backlog=", description):
        return description
    return f"{description}:backlog={backlog}"


class PerTurn:
    """At most `cap` calls a turn of the event loop; the rest wait, in order, for the next
    turns. Between two turns the loop takes up everything else that became ready (a move's
    frame, a job's outcome), so none of it waits for more than `cap` calls of a crowd."""

    def __init__(self, cap):
        self.cap = cap
        self.used = 0        # calls made in this turn
        self.waiting = collections.deque()
        self.turning = False  # the next turn's reset is scheduled

    def call(self, fn, park=None):
        """fn() now if this turn has room and nothing waits before it; else park() now (stop
        what would call again meanwhile) and fn() on a later turn."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            fn()   # no loop turning (a protocol driven by hand): nothing to spread
            return
        if not self.waiting and self.used < self.cap:
            self.used += 1
            self._next_turn(loop)
            fn()
            return
        if park is not None:
            park()
        self.waiting.append(fn)
        self._next_turn(loop)

    def _next_turn(self, loop):
        if not self.turning:
            self.turning = True
            loop.call_soon(self._turn, loop)

    def _turn(self, loop):
        self.turning = False
        self.used = 0
        while self.waiting and self.used < self.cap:
            self.used += 1
            fn = self.waiting.popleft()
            try:
                fn()
            except Exception:
                logger.exception("a connection's deferred step failed")
        if self.waiting or self.used:
            self._next_turn(loop)   # (the next turn's count starts from nothing)


_crowd = None


def crowd():
    """The one PerTurn of the connections' costly first and last steps (LIVE_CROWD_PER_TURN)."""
    global _crowd
    if _crowd is None:
        _crowd = PerTurn(settings.LIVE_CROWD_PER_TURN)
    return _crowd


def first_requests(factory_class):
    """The first data of each new connection (its HTTP request, a websocket's upgrade: parsed,
    answered and handed to the application on the spot) taken a few per turn (crowd()): the
    requests of a crowd let in over several turns arrive together, and one turn parsed
    hundreds of them (337 ms) while a move's frame waited behind."""
    building = factory_class.buildProtocol

    def buildProtocol(self, addr):
        protocol = building(self, addr)
        if protocol is None:
            return None
        receiving, making = protocol.dataReceived, protocol.makeConnection
        transports = []   # (Twisted's HTTP protocol is a proxy without a `transport`)
        pending = []      # its first data, until its turn

        def makeConnection(transport):
            del protocol.makeConnection
            transports.append(transport)
            making(transport)

        def dataReceived(data):
            if pending:   # more before its turn: kept, in order
                pending.append(data)
                return
            pending.append(data)
            crowd().call(take)

        def take():
            # Its turn: what came meanwhile in order, and from now on straight to the
            # protocol. (Not paused meanwhile: an upgrade's client sends nothing more until
            # it is answered, and pausing cost two epoll changes a connection.)
            del protocol.dataReceived
            if getattr(transports[0], "disconnected", False):
                return   # gone meanwhile: nothing to answer
            for data in pending:
                receiving(data)
            pending.clear()

        protocol.makeConnection, protocol.dataReceived = makeConnection, dataReceived
        return protocol

    buildProtocol.paced = True
    buildProtocol.unpaced = building
    factory_class.buildProtocol = buildProtocol


def last_steps(reactor_class):
    """A lost client connection's end (Twisted's connectionLost, then Autobahn's, Daphne's and
    the application's) taken a few per turn (crowd()): a restart's 2,000 pages dropped at once
    are 2,000 ends readable in one turn of the loop (162 ms)."""
    from twisted.internet import tcp

    disconnecting = reactor_class._disconnectSelectable

    def _disconnectSelectable(self, selectable, why, isRead):
        if not isinstance(selectable, tcp.Server):
            return disconnecting(self, selectable, why, isRead)
        if getattr(selectable, "ending", False):
            return None   # already waiting for its turn

        def park():
            selectable.ending = True
            self.removeReader(selectable)
            self.removeWriter(selectable)

        def end():
            if not getattr(selectable, "disconnected", False):
                disconnecting(self, selectable, why, isRead)
        crowd().call(end, park)

    _disconnectSelectable.paced = True
    _disconnectSelectable.unpaced = disconnecting
    reactor_class._disconnectSelectable = _disconnectSelectable


def crowded():
    """Whether a crowd of connections waits to be let in now (their first requests, their
    ends or their handshakes): work that can wait should."""
    return bool((_crowd is not None and _crowd.waiting) or Handshakes.waiting)


class Handshakes:
    """ASGI middleware of the websockets: at most LIVE_CONNECTING handshakes (the session's
    user read, the consumer's connect(): groups, arrival, snapshot) at once, the rest waiting
    their turn in order until one is accepted or refused."""

    waiting = 0   # handshakes waiting at the gate now, in every instance

    def __init__(self, app):
        self.app = app
        self.gate = None   # (its loop, the gate), made on the loop of the first handshake

    def gate_of(self, loop):
        # A gate per event loop: a server has one, the tests one per test.
        if self.gate is None or self.gate[0] is not loop:
            self.gate = (loop, asyncio.Semaphore(settings.LIVE_CONNECTING))
        return self.gate[1]

    async def __call__(self, scope, receive, send):
        gate = self.gate_of(asyncio.get_running_loop())
        Handshakes.waiting += 1
        try:
            await gate.acquire()
        finally:
            Handshakes.waiting -= 1
        held = True

        def let_go():
            nonlocal held
            if held:
                held = False
                gate.release()

        async def sending(message):
            if message["type"] in ("websocket.accept", "websocket.close"):
                let_go()
            await send(message)

        try:
            return await self.app(scope, receive, sending)
        finally:
            let_go()
