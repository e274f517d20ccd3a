"""Whether this process is shutting down, for /readyz.

Under Daphne, SIGTERM first flips the flag and keeps serving for READY_DRAIN_SECONDS (0 by
default) before the server stops as before: a load balancer that asks /readyz every few
seconds sees 503 and sends new connections elsewhere while this process still answers. A second
SIGTERM stops at once. Under another server the flag flips when live.process stops (a stop
hook), i.e. as the server shuts down."""
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
    if reactor.running:
        reactor.stop()
