"""What Twisted does for each HTTP request that Daphne throws away: its access line, not drawn
when Daphne sends it nowhere; the form of a POST, not parsed.

Daphne serves HTTP with Twisted's HTTPFactory, which formats a combined-log line for every
request (`HTTPFactory.log`) and writes it to Twisted's log. At Daphne's default verbosity
(1, as deploy/ runs it) Daphne sends Twisted's log nowhere (daphne.server.Server.run) and
writes its own access line instead: the formatted line was thrown away, about 45 us of
each request's CPU (an API bot's action: one request a second per bot, bench/api_bots.py).

`quiet()` makes Daphne's factory skip the line when its server's verbosity sends it nowhere;
at verbosity 2 and above (Twisted's log to the standard logging) it is written as before.
Called once when the server starts (tessera.asgi), as live.autobahn_logs.

`unparsed_forms()`: Twisted's Request parses the body of every POST that names a content type
into `request.args` (the type through the standard library's email parser, an urlencoded body
with parse_qs, a multipart one with the email parser again), on the event loop. Daphne hands
the ASGI application the raw body and never reads `args`: for each API bot action (a JSON
body) the type's parse alone was about 30 us of the loop's time, and an upload was parsed
whole before Django parsed it again. Daphne's requests are made without it
(Twisted's own `parsePOSTFormSubmission=False`).
"""
import functools

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


def unparsed_forms():
    """Make Daphne's protocols build their requests without Twisted's form parsing (once; a
    second call changes nothing)."""
    try:
        from daphne.http_protocol import HTTPFactory, WebRequest
    except ImportError:
        return  # another ASGI server
    build = HTTPFactory.buildProtocol
    if hasattr(build, "parsing"):
        return

    def build_protocol(factory, addr):
        protocol = build(factory, addr)
        if protocol is not None and protocol.requestFactory is WebRequest:
            protocol.requestFactory = functools.partial(WebRequest,
                                                        parsePOSTFormSubmission=False)
        return protocol

    build_protocol.parsing = build  # Daphne's own: Twisted parses the forms there
    HTTPFactory.buildProtocol = build_protocol
