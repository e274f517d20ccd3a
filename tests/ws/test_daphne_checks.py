"""Daphne's check of its connections goes a slice at a time (live.daphne_checks): every
connection is still looked at once every 2 s, but an eighth of them at a time, and sockets
opened together get their first ping at moments of their own."""
import pytest
from daphne.server import Server
from twisted.internet import reactor

from live import daphne_checks


class Connection:
    def __init__(self, last_ping):
        self.last_ping = last_ping
        self.checks = 0

    def check_timeouts(self):
        self.checks += 1


class Daphne:
    """What the check reads of Daphne's server."""
    ping_interval = 20
    timeout_checker = daphne_checks.timeout_checker

    def __init__(self, count):
        self.connections = {Connection(last_ping=1000.0): {} for _ in range(count)}


@pytest.fixture
def later(monkeypatch):
    calls = []
    monkeypatch.setattr(reactor, "callLater", lambda seconds, fn, *a: calls.append(seconds))
    return calls


def test_each_connection_is_checked_once_a_period_a_slice_at_a_time(later):
    server = Daphne(80)
    for _ in range(daphne_checks.SLICES):
        server.timeout_checker()
    # A round of SLICES calls, each a slice, each due PERIOD / SLICES after the last.
    assert [c.checks for c in server.connections] == [1] * 80
    assert later == [daphne_checks.PERIOD / daphne_checks.SLICES] * daphne_checks.SLICES
    server.timeout_checker()
    assert sum(c.checks for c in server.connections) == 80 + 10


def test_a_connection_closed_during_the_round_is_not_checked_and_new_ones_wait_for_the_next(
        later):
    server = Daphne(16)
    server.timeout_checker()
    closed = list(server.connections)[-1]
    del server.connections[closed]
    server.connections[Connection(last_ping=1000.0)] = {}
    for _ in range(daphne_checks.SLICES - 1):
        server.timeout_checker()
    assert closed.checks == 0
    assert [c.checks for c in server.connections] == [1] * 15 + [0]
    for _ in range(daphne_checks.SLICES):
        server.timeout_checker()
    assert [c.checks for c in server.connections] == [2] * 15 + [1]


def test_sockets_opened_together_get_their_first_ping_at_moments_of_their_own(later):
    server = Daphne(40)
    for _ in range(daphne_checks.SLICES):
        server.timeout_checker()
    pings = [c.last_ping for c in server.connections]
    assert all(1000.0 - server.ping_interval <= ping <= 1000.0 for ping in pings)
    assert len(set(pings)) > 1
    # Once: the next round leaves them as they are.
    for _ in range(daphne_checks.SLICES):
        server.timeout_checker()
    assert [c.last_ping for c in server.connections] == pings


def test_spread_swaps_the_check_once(monkeypatch):
    monkeypatch.setattr(Server, "timeout_checker", Server.timeout_checker)
    daphne_checks.spread()
    daphne_checks.spread()
    assert Server.timeout_checker is daphne_checks.timeout_checker
