"""Autobahn's debug lines are drawn only when written (live.autobahn_logs): a dropped line no
longer costs its arguments, and a written one reads exactly as before."""
import autobahn.twisted.websocket as twisted_websocket
import autobahn.websocket.protocol as protocol
import pytest
from autobahn.util import hltype, hlval

from live import autobahn_logs


@pytest.fixture
def deferred(monkeypatch):
    """defer() for this test only: Autobahn's modules as they were afterwards."""
    for module in (protocol, twisted_websocket):
        for helper in autobahn_logs.HELPERS:
            if hasattr(module, helper):
                monkeypatch.setattr(module, helper, getattr(module, helper))
    monkeypatch.setattr(protocol.Timings, "__str__", protocol.Timings.__str__)
    autobahn_logs.defer()
    autobahn_logs.defer()  # twice: still one layer


def test_a_written_debug_line_reads_as_before(deferred):
    assert protocol.hltype.deferred_from is hltype
    assert twisted_websocket.hlval.deferred_from is hlval
    line = "{func} sent {data_len} bytes"
    assert (line.format(func=protocol.hltype(protocol.WebSocketProtocol.sendData),
                        data_len=protocol.hlval(12))
            == line.format(func=hltype(protocol.WebSocketProtocol.sendData), data_len=hlval(12)))
    assert str(protocol.pformat([("a", 1)])) == "[('a', 1)]"


def test_a_dropped_debug_line_draws_nothing():
    drawn = []
    helper = autobahn_logs.on_demand(lambda *args: drawn.append(args) or "drawn")
    placeholder = helper("argument")
    assert drawn == []
    assert f"{placeholder}" == "drawn" and drawn == [("argument",)]


def test_timings_still_print_as_text(deferred):
    timings = protocol.Timings()
    timings.track("handshake")
    assert str(timings).startswith("{'handshake'")
