"""A crowd of new connections let in a few at a time, behind the moves of the sockets open.

Twisted's listening port accepts every connection waiting in the kernel's queue in one call
(100 at first, 20 more each time it empties fewer than that), and on the next turn of the loop
each new connection's HTTP upgrade is read, parsed and handed to Channels: a restart's 2,000
pages coming back within a quarter of a second were hundreds of handshakes in one turn, and a
move that arrived meanwhile waited for all of them, turn after turn (bench/reconnect_storm.py:
other games' moves p99 near a second). Meanwhile the listening queue (Twisted's default, 50)
overflowed: the kernel dropped the rest, which came back on TCP's own retry a second or three
later.

`pace()` makes the port take at most LIVE_ACCEPTS_PER_TURN connections per turn of the loop,
and gives it a listening queue of LIVE_ACCEPT_BACKLOG (the kernel caps it at
net.core.somaxconn), so the crowd waits in the kernel, each turn lets a few in, and the moves
of the sockets already open are read between them. Nothing of a handshake changes, only when
it starts. Called once when the server starts (tessera.asgi), as live.daphne_checks.
"""
import re

from django.conf import settings


def pace():
    """Swap Twisted's accept loop and Daphne's endpoints (once; a second call changes
    nothing)."""
    try:
        from daphne import server as daphne_server
        from twisted.internet import tcp
    except ImportError:
        return  # another ASGI server: none of this runs
    if getattr(tcp.Port.doRead, "paced", False):
        return
    accepting = tcp.Port.doRead

    def doRead(self):
        # Twisted grows numberAccepts while the queue keeps it busy; a turn takes no more
        # than the cap (and Twisted's own rule goes on below it).
        if self.numberAccepts > settings.LIVE_ACCEPTS_PER_TURN:
            self.numberAccepts = settings.LIVE_ACCEPTS_PER_TURN
        return accepting(self)

    doRead.paced = True
    doRead.unpaced = accepting   # for the tests, which pace a Twisted as it comes
    tcp.Port.doRead = doRead
    listening = daphne_server.serverFromString

    def serverFromString(reactor, description):
        return listening(reactor, with_backlog(description, settings.LIVE_ACCEPT_BACKLOG))

    daphne_server.serverFromString = serverFromString


def with_backlog(description, backlog):
    """A Twisted server endpoint description with a listening queue of `backlog`, unless it
    names one or is not TCP ("tcp:port=8000:interface=127.0.0.1" ->
    "tcp:port=8000:interface=127.0.0.1:backlog=4096"; a Unix socket or a file descriptor
    is left as it is)."""
    if not re.match(r"(tcp6?):", description) or re.search(r":backlog=", description):
        return description
    return f"{description}:backlog={backlog}"
