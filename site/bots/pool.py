"""The embedded default's workers: a few spawned processes at the lowest CPU priority, owned by
the serving process (BOT_WORKERS, 2 by default).

A worker only runs the job's function (bots.worker.perform: for a computer player, position
in, action out). Its result comes back to the server process, whose event loop runs the
kind's `then` on a database thread with an outbox, in the kind's lane: a computer's move is
stored and broadcast exactly like a person's (play.services, play.broadcast), and the
in-memory channel layer, which does not cross processes, is never asked to.

Locks: `_lock` guards the executor and the identities in work; it is held only to read or
replace them, never while a job runs.

A worker killed mid-job breaks the executor (concurrent.futures fails every job in hand): the
lost jobs are forgotten, the next submission replaces the executor, and the kinds' sweeps
submit the lost jobs again.
"""
import asyncio
import logging
import multiprocessing
import threading
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from django.conf import settings

from bots import jobs, worker

logger = logging.getLogger(__name__)

_lock = threading.Lock()
_state = {"executor": None, "loop": None, "working": {}}


def start(loop):
    """Own a pool from now on; its results are concluded on `loop` (the server's)."""
    with _lock:
        _state["loop"] = loop
        if _state["executor"] is None:
            _state["executor"] = _new_executor()


def stop():
    """Stop taking jobs and end the workers now: a server stopping (SIGTERM) must not wait for
    a long think. What they were thinking about is asked again by the next process's sweep."""
    with _lock:
        executor, _state["executor"], _state["loop"] = _state["executor"], None, None
        _state["working"].clear()
    if executor is not None:
        workers = list((executor._processes or {}).values())
        executor.shutdown(wait=False, cancel_futures=True)
        for process in workers:
            process.terminate()


def running():
    return _state["executor"] is not None


def working():
    """Identities of the jobs in hand (queued in the pool or running)."""
    with _lock:
        return set(_state["working"])


def _new_executor():
    return ProcessPoolExecutor(max_workers=settings.BOT_WORKERS,
                               mp_context=multiprocessing.get_context("spawn"),
                               initializer=worker.start_in_pool)


def enqueue(kind, payload):
    """Give the job to a worker, unless the same job is already in hand. From any thread."""
    identity = kind.identity(payload)
    with _lock:
        executor = _state["executor"]
        if executor is None:
            logger.debug("no worker pool in this process: %s is left to the sweep", identity)
            return
        if identity in _state["working"]:
            return
        if executor._broken:
            executor = _state["executor"] = _renewed(executor)
        future = executor.submit(worker.perform, kind.name, payload)
        _state["working"][identity] = future
    future.add_done_callback(lambda done: _finished(identity, kind, payload, done))


def _renewed(broken):
    broken.shutdown(wait=False, cancel_futures=True)
    logger.warning("a bot worker died: starting new ones")
    return _new_executor()


def _finished(identity, kind, payload, future):
    # On the executor's management thread: no database work here, only hand-overs. A broken
    # executor is replaced by the next enqueue (the sweep's, at the latest), not from here.
    error = None if future.cancelled() else future.exception()
    with _lock:
        if _state["working"].get(identity) is future:
            del _state["working"][identity]
        loop = _state["loop"]
    if future.cancelled():
        return
    if error is not None:
        if not isinstance(error, BrokenProcessPool):
            logger.error("the job %s failed", identity, exc_info=error)
        return
    if kind.then is None or loop is None or loop.is_closed():
        return
    loop.call_soon_threadsafe(_conclude_later, loop, kind, payload, future.result())


def _conclude_later(loop, kind, payload, result):
    loop.create_task(_conclude(kind, payload, result))


async def _conclude(kind, payload, result):
    from live import lanes

    try:
        if kind.lane is not None:
            await lanes.in_lane(kind.lane(payload), jobs.conclude, kind.name, payload, result)
        else:
            await lanes.write(jobs.conclude, kind.name, payload, result)
    except asyncio.CancelledError:
        raise
    except Exception:
        logger.exception("could not conclude the job %s", kind.identity(payload))
