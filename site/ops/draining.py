"""Whether this process is shutting down, for /readyz.

Under Daphne, SIGTERM first flips the flag and keeps serving for READY_DRAIN_SECONDS (0 by
default): a load balancer that asks /readyz every few seconds sees 503 and sends new connections
elsewhere while this process still answers. Then the process stops listening (a proxy's new
connections are refused at once and go to another process), closes its sockets over
DRAIN_SPREAD_SECONDS (close code 4012; their pages come back elsewhere in a trickle), and stops. A second
SIGTERM stops at once. Under another server the flag flips when live.process stops (a stop
hook), i.e. as the server shuts down."""
import asyncio
import logging
import signal
import sys
import threading

from django.conf import settings

logger = logging.getLogger(__name__)
_draining = threading.Event()


def begin():
    _draining.set()


def is_draining():
    return _draining.is_set()


def reset():
    """For tests that flip the flag in-process."""
    _draining.clear()


def take_sigterm(loop=None):
    """A live.process start hook: under Daphne's running reactor, SIGTERM is ours (Twisted
    installed its own when the reactor started, before this runs)."""
    if "daphne.server" not in sys.modules:
        return
    from twisted.internet import reactor

    if not reactor.running or threading.current_thread() is not threading.main_thread():
        # Signals belong to the main thread (runserver's autoreloader runs Daphne on another).
        return

    def on_sigterm(number, frame):
        if is_draining():
            reactor.callFromThread(reactor.stop)
            return
        begin()
        delay = settings.READY_DRAIN_SECONDS
        logger.warning("SIGTERM: draining, /readyz answers 503; stopping in %ss", delay)
        reactor.callFromThread(reactor.callLater, delay, _stop, reactor)

    signal.signal(signal.SIGTERM, on_sigterm)


def _stop(reactor):
    if not reactor.running:
        return
    _stop_listening(reactor)
    asyncio.ensure_future(_close_then_stop(reactor))


def _stop_listening(reactor):
    from twisted.internet import tcp

    for reader in reactor.getReaders():
        if isinstance(reader, tcp.Port):  # unix.Port is one too
            reader.stopListening()


async def _close_then_stop(reactor):
    from live import registry

    try:
        await registry.close_all(settings.DRAIN_SPREAD_SECONDS)
        await asyncio.sleep(0.2)  # the close frames leave before the reactor goes
    finally:
        if reactor.running:
            reactor.stop()
