"""Where a change waits inside a server process, for a benchmark (bench/reconnect_storm.py,
issue 29): with LIVE_TRACE=<path> set, each change a socket asks for in a lane is stamped at
each step, and the stamps of all of them are written to <path> (JSON lines) when the process
exits (Daphne's SIGTERM), as live.profiling does with its profile. Off by default: unset, the
stamps are one context-variable read that finds nothing.

The steps, on time.perf_counter() (CLOCK_MONOTONIC on Linux: the same clock in every process
of the machine, so a load generator's own stamps line up with these):

    received  the socket's receive() began (the frame was read and parsed by the loop)
    laned     the game's lane was taken (after the changes before it in this process)
    started   a writer thread began the job (after the jobs queued before it)
    ended     the job returned (its transaction committed)
    back      the loop took the outcome up again
    sent      its news left through the channel layer (the outbox delivered)
"""
import atexit
import contextvars
import json
import threading
import time

_trace = contextvars.ContextVar("live_trace", default=None)
_records = []
_lock = threading.Lock()
_path = None


def start(path):
    global _path
    _path = path
    atexit.register(_write)


def begin():
    """At a socket's receive(): a new record for this message (in the socket's task)."""
    if _path is not None:
        _trace.set({"received": time.perf_counter()})


def stamp(step):
    """Mark `step` on the record of the message being handled, if any. The writer thread's
    job runs in a copy of the task's context: the record is the same dict."""
    record = _trace.get()
    if record is not None:
        record[step] = time.perf_counter()


def finish(kind):
    """At the end of the message's handling (of type `kind`): keep the record if it went
    through a lane."""
    record = _trace.get()
    if record is None:
        return
    _trace.set(None)
    if "laned" in record:
        record["kind"] = kind
        with _lock:
            _records.append(record)


def _write():
    with _lock:
        records = list(_records)
    try:
        with open(_path, "w") as out:
            for record in records:
                out.write(json.dumps(record) + "\n")
    except OSError:
        pass

