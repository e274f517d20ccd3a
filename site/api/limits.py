"""The per-token request limit (API_TOKEN_RATE, "count/period", e.g. "120/m"), counted in
this server process's memory.

A fixed window per token, as django-ratelimit's: the first request of a window starts it,
`count` requests pass within it, the next ones are refused until it ends. Counted in
memory rather than in the shared "limits" cache, because the cache's round trip (Redis in
production) on every request was a large part of an API action's cost, and the game actions
run on the event loop, where a blocking cache call must not run. The price: with P server
processes behind a balancer, a token may make up to P times its rate (docs/api.md).
"""
import math
import threading
import time

from django.conf import settings

PERIODS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
WINDOWS_KEPT = 10_000

_windows = {}  # token digest -> [window start (time.monotonic()), requests in it]
_lock = threading.Lock()


def parse(rate):
    """(count, seconds) of a rate such as "120/m" or "10/5s"."""
    count, _, period = rate.partition("/")
    digits = period.rstrip("smhd")
    return int(count), int(digits or 1) * PERIODS[period[len(digits):] or "s"]


def over(digest, now=None):
    """Count one request of the token `digest`: None when it may go on, else the seconds
    until its window ends (at least 1), for Retry-After. Any thread."""
    count, seconds = parse(settings.API_TOKEN_RATE)
    now = time.monotonic() if now is None else now
    with _lock:
        window = _windows.get(digest)
        if window is None or now - window[0] >= seconds:
            if len(_windows) >= WINDOWS_KEPT:
                # Drop the windows that have ended; a flood of tokens cannot grow this.
                for key in [k for k, w in _windows.items() if now - w[0] >= seconds]:
                    del _windows[key]
            window = _windows[digest] = [now, 0]
        window[1] += 1
        if window[1] <= count:
            return None
        return max(1, math.ceil(window[0] + seconds - now))
