"""The embedded default's workers: a few spawned processes at the lowest CPU priority, owned by
the serving process (JOBS_WORKERS, 2 by default).

A worker only runs the job's function (jobs.worker.perform: for a computer player, position
in, action out). Its result comes back to the server process, whose event loop runs the
kind's `then` on a database thread with an outbox, in the kind's lane: a computer's move is
stored and broadcast exactly like a person's (play.services, play.broadcast), and the
in-memory channel layer, which does not cross processes, is never asked to.

Fair share: the executor is given at most JOBS_WORKERS jobs at a time (each worker one); the
others wait in a jobs.FairQueue, which serves their owners in turn, those with fewer jobs
running first (one account's three games and its analyses cannot starve another's first move:
it takes the next free worker). A job that ends lets the next one in.

Started with the server (JOBS_WORKERS_AT_START, on by default): the workers are spawned when
the process starts serving, so the first job does not wait for a fresh interpreter and
Django's set-up (concurrent.futures spawns them one per job otherwise).

Locks: `_lock` guards the executor, the queue and the identities in work; it is held only to
read or replace them, never while a job runs.

A worker killed mid-job breaks the executor (concurrent.futures fails every job in hand): the
lost jobs are forgotten, the next submission replaces the executor, and the kinds' sweeps
submit the lost jobs again.
"""
import asyncio
import logging
import multiprocessing
import threading
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from django.conf import settings

from jobs import runner as jobs
from jobs import worker

logger = logging.getLogger(__name__)

_lock = threading.Lock()
# working: identity -> its future once given to the executor (None while it waits in line);
# running: the futures the executor holds, with their owners.
_state = {"executor": None, "loop": None, "working": {}, "running": {},
          "waiting": jobs.FairQueue()}


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
        _state["running"].clear()
        _state["waiting"].clear()
    if executor is not None:
        workers = list((executor._processes or {}).values())
        executor.shutdown(wait=False, cancel_futures=True)
        for process in workers:
            process.terminate()


def running():
    return _state["executor"] is not None


def load():
    """(jobs waiting in line, jobs given to the workers) in this process, for ops.metrics."""
    with _lock:
        return len(_state["waiting"]), len(_state["running"])


def working():
    """Identities of the jobs in hand (queued in the pool or running)."""
    with _lock:
        return set(_state["working"])


def _new_executor():
    executor = ProcessPoolExecutor(max_workers=settings.JOBS_WORKERS,
                                   mp_context=multiprocessing.get_context("spawn"),
                                   initializer=worker.start_in_pool)
    if settings.JOBS_WORKERS_AT_START:
        # One no-op each: with the spawn context, concurrent.futures starts a worker per job
        # submitted while the others are busy, so JOBS_WORKERS of them start all the workers,
        # which set Django up now rather than on a player's first move.
        for _ in range(settings.JOBS_WORKERS):
            executor.submit(worker.ready)
    return executor


def enqueue(kind, payload):
    """Give the job to a worker, unless the same job is already in hand (queued here or
    running). From any thread."""
    identity = kind.identity(payload)
    with _lock:
        if _state["executor"] is None:
            logger.debug("no worker pool in this process: %s is left to the sweep", identity)
            return
        if identity not in _state["working"]:
            _state["working"][identity] = None
            _state["waiting"].push(kind.owner_of(payload), (identity, kind, payload))
        given = _feed()
    _watch(given)


def _feed():
    """Under `_lock`: give the executor waiting jobs, owner by owner, while a worker is free.
    Returns what was given, to be watched once the lock is released."""
    given = []
    executor = _state["executor"]
    while executor is not None and len(_state["running"]) < settings.JOBS_WORKERS:
        found = _state["waiting"].pop(Counter(_state["running"].values()))
        if found is None:
            break
        owner, (identity, kind, payload) = found
        if executor._broken:
            executor = _state["executor"] = _renewed(executor)
        future = executor.submit(worker.perform, kind.name, payload)
        _state["working"][identity] = future
        _state["running"][future] = owner
        given.append((identity, kind, payload, future))
    return given


def _watch(given):
    for identity, kind, payload, future in given:
        future.add_done_callback(
            lambda done, i=identity, k=kind, p=payload: _finished(i, k, p, done))


def _renewed(broken):
    broken.shutdown(wait=False, cancel_futures=True)
    logger.warning("a bot worker died: starting new ones")
    _state["running"].clear()
    return _new_executor()


def _finished(identity, kind, payload, future):
    # On the executor's management thread: no database work here, only hand-overs. A broken
    # executor is replaced by the next enqueue (the sweep's, at the latest), not from here.
    error = None if future.cancelled() else future.exception()
    with _lock:
        if _state["working"].get(identity) is future:
            del _state["working"][identity]
        _state["running"].pop(future, None)
        loop = _state["loop"]
        # The next waiting job takes the worker this one freed (submitting from here is safe:
        # concurrent.futures runs done-callbacks outside its own locks). A broken executor is
        # left to the next enqueue.
        broken = isinstance(error, BrokenProcessPool)
        given = [] if broken or _state["executor"] is None else _feed()
    _watch(given)
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
