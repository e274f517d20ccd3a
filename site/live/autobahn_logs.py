"""Autobahn's debug lines, drawn only when they are written.

Daphne's websockets are Autobahn's. Autobahn writes a debug line for every handshake and every
frame in and out, and builds the line's arguments before the logger decides to drop it: every
frame paid for `hltype`/`hlval` (click's colour codes around a function's name) and every
handshake for a `pformat` of some forty configuration attributes. py-spy on a server at 500
games x 1 move / 5 s put 6% of the samples in that `pformat` and 2% in the colour codes, with
debug logging off (bench/live_load.py; docs/measurements.md).

`defer()` swaps those helpers, in the two Autobahn modules Daphne runs, for ones that return a
placeholder formatted on demand: a debug line that is written reads exactly as before, one that
is dropped costs an object. Called once when the server starts (tessera.asgi).
"""
import pprint

# Autobahn's modules whose debug lines are on every handshake or frame, and the helpers they
# call for those lines' arguments.
MODULES = ("autobahn.websocket.protocol", "autobahn.twisted.websocket")
HELPERS = ("hltype", "hlval", "pformat")


class Drawn:
    """`fn(*args)`, computed when formatted (str.format, str(), repr())."""

    __slots__ = ("fn", "args")

    def __init__(self, fn, args):
        self.fn, self.args = fn, args

    def __format__(self, spec):
        return format(self.fn(*self.args), spec)

    def __str__(self):
        return str(self.fn(*self.args))

    def __repr__(self):
        return repr(self.fn(*self.args))


def on_demand(fn):
    def deferred(*args):
        return Drawn(fn, args)
    deferred.deferred_from = fn
    return deferred


def defer():
    """Swap the helpers (once; a second call changes nothing)."""
    import importlib

    for name in MODULES:
        try:
            module = importlib.import_module(name)
        except ImportError:
            return  # another ASGI server: nothing of Autobahn's runs
        for helper in HELPERS:
            fn = getattr(module, helper, None)
            if fn is not None and not hasattr(fn, "deferred_from"):
                setattr(module, helper, on_demand(fn))
    # The one place that returns pformat's text as a string (a __str__, for timings that Daphne
    # never tracks) keeps the real one.
    protocol = importlib.import_module("autobahn.websocket.protocol")
    timings = getattr(protocol, "Timings", None)
    if timings is not None:
        timings.__str__ = lambda self: pprint.pformat(self._timings)
