"""Twisted's own access line for each HTTP request, not drawn when Daphne sends it nowhere.

Daphne serves HTTP with Twisted's HTTPFactory, which formats a combined-log line for every
request (`HTTPFactory.log`) and writes it to Twisted's log. At Daphne's default verbosity
(1, as deploy/ runs it) Daphne sends Twisted's log nowhere (daphne.server.Server.run) and
writes its own access line instead: the formatted line was thrown away, about 45 us of
each request's CPU (an API bot's action: one request a second per bot, bench/api_bots.py).

`quiet()` makes Daphne's factory skip the line when its server's verbosity sends it nowhere;
at verbosity 2 and above (Twisted's log to the standard logging) it is written as before.
Called once when the server starts (tessera.asgi), as live.autobahn_logs.
"""

# daphne.server.Server.run: Twisted's log goes nowhere at this verbosity and below.
NOWHERE = 1


def quiet():
    """Swap the factory's startFactory (once; a second call changes nothing)."""
    try:
        from daphne.http_protocol import HTTPFactory
    except ImportError:
        return  # another ASGI server
    start = HTTPFactory.startFactory
    if getattr(start, "quieted", False):
        return

    def start_factory(factory):
        start(factory)
        if getattr(factory.server, "verbosity", NOWHERE + 1) <= NOWHERE:
            factory._logFile = None  # HTTPFactory.log writes no line then

    start_factory.quieted = True
    HTTPFactory.startFactory = start_factory
