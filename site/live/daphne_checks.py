"""Daphne's check of its connections, a slice at a time.

Every 2 seconds Daphne's server looks at every connection in one call on the event loop
(`daphne.server.Server.timeout_checker`): each websocket's timeouts, and a ping to each one that
sent nothing for `ping_interval` (20 s). With 2,000 sockets that call held the loop for 3 to
12 ms every 2 s, and the spectators' sockets, opened together and silent since, were pinged
in the same call every 20 s: a burst of a thousand pings that held it for tens of ms
(bench/live_load.py at 500 games x 1 move / 5 s; docs/measurements.md).

`spread()` makes the check go a slice at a time: a SLICES-th of the connections every
2 / SLICES s, so each connection is still looked at every 2 s, as before; and a socket's first
ping comes at its own moment of the ping interval (not exactly `ping_interval` after its
handshake), so sockets opened together are not pinged together. Timeouts and pings are Daphne's
own (`check_timeouts`); only when each connection's turn comes changes. Called once when the
server starts (tessera.asgi), as live.autobahn_logs.
"""
import random

# Daphne's period of the check (daphne.server.Server.run: callLater(2, timeout_checker)).
PERIOD = 2.0
SLICES = 8


def spread():
    """Swap Daphne's timeout_checker (once; a second call changes nothing)."""
    try:
        from daphne.server import Server
    except ImportError:
        return  # another ASGI server: nothing of Daphne's runs
    if getattr(Server.timeout_checker, "spread", False):
        return
    Server.timeout_checker = timeout_checker


def timeout_checker(self):
    """One slice of the connections: those whose turn it is check their timeouts (and ping),
    and the next slice is due PERIOD / SLICES s later."""
    from twisted.internet import reactor

    turn = self.__dict__.get("_checks")
    if turn is None:
        turn = self._checks = {"due": []}
    if not turn["due"]:
        # A new round: every connection open now, each in one slice of it.
        connections = list(self.connections)
        size = -(-len(connections) // SLICES) or 1
        turn["due"] = [connections[start:start + size]
                       for start in range(0, len(connections), size)] or [[]]
        turn["due"].extend([] for _ in range(SLICES - len(turn["due"])))
    for protocol in turn["due"].pop(0):
        if protocol not in self.connections:
            continue   # closed since the round began
        if not getattr(protocol, "first_ping_moved", False):
            _first_ping_at_its_own_moment(self, protocol)
        protocol.check_timeouts()
    reactor.callLater(PERIOD / SLICES, self.timeout_checker)


timeout_checker.spread = True


def _first_ping_at_its_own_moment(server, protocol):
    # A websocket's ping is due `ping_interval` after its last message (or its handshake):
    # moved back by a random share of the interval, the first comes sooner, once.
    protocol.first_ping_moved = True
    last_ping = getattr(protocol, "last_ping", None)
    if last_ping is not None:
        protocol.last_ping = last_ping - random.random() * server.ping_interval
