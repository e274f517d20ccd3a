"""This server process's life: it announces itself, notices an outage of the whole site when it
starts, keeps a heartbeat, runs the periodic jobs of the apps (the sweepers), and on SIGTERM
stops them and says goodbye so that its sockets stop counting at once.

Apps register their jobs when Django loads them (AppConfig.ready):

    process.every(seconds, job)        job(now) runs on a database thread, safe in every
                                       process at once (jobs lock what they change);
                                       aside=True: on a thread of its own, for slow work
                                       (mail) that must never hold up the writers
    process.on_outage(hook)            hook(began_at, ended_at) runs once, in the locked
                                       transaction of the first process after an outage
    process.on_start(hook)             hook(loop) once the process serves (jobs.pool: the
    process.on_stop(hook)              workers it owns); hook() when it stops

start() is called once the event loop runs: by tessera.asgi when Daphne's reactor starts (or on
the first request under another ASGI server). Nothing starts in management commands or tests
that do not serve.
"""
import asyncio
import gc
import logging
import os
import socket
import uuid
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from live import lanes, registry

# Sockets per database job of the heartbeat, and per step of the keep-alive.
SLICE = 200

logger = logging.getLogger(__name__)

_jobs = []  # (seconds, job)
_outage_hooks = []
_start_hooks = []
_stop_hooks = []
_state = {"name": None, "tasks": [], "started": False}


def every(seconds, job, aside=False):
    _jobs.append((seconds, job, aside))


def on_outage(hook):
    _outage_hooks.append(hook)


def on_start(hook):
    _start_hooks.append(hook)


def on_stop(hook):
    _stop_hooks.append(hook)


def heartbeat():
    return timedelta(seconds=settings.LIVE_HEARTBEAT)


def stale_after():
    """A process not heard of for this long (and not stopped) is taken for dead."""
    return 3 * heartbeat()


def name():
    return _state["name"]


# -- starting ----------------------------------------------------------------------------------

# A serving process's garbage collector: young objects are collected in larger batches than
# Python's default (700, 10, 10), so that full collections come rarely.
GC_THRESHOLDS = (50_000, 50, 100)


def settle_the_collector():
    """What exists once the server runs (Django, the engine's tables, the compiled statements)
    lives as long as the process: it is moved out of the collector's sight (gc.freeze), so a
    full collection walks only what the process made since. Under load, collections over the
    whole heap paused the event loop for tens of milliseconds (docs/design.md)."""
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)


def start(loop=None):
    """Start this process's background work on `loop` (the running loop by default). Once."""
    if _state["started"]:
        return
    _state["started"] = True
    settle_the_collector()
    loop = loop or asyncio.get_running_loop()
    _state["name"] = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:6]}"
    for hook in _start_hooks:
        try:
            hook(loop)
        except Exception:
            # One app's start-up must not keep the heartbeat, the sweeps and the others' from
            # running (the site would serve without its periodic work, silently).
            logger.exception("start hook %r failed", hook)
    loop.create_task(_begin())


async def _begin():
    try:
        await lanes.write(record_start, _state["name"], timezone.now())
    except Exception:
        logger.exception("could not record the start of this server process")
    tasks = _state["tasks"]
    tasks.append(asyncio.create_task(_repeat(settings.LIVE_HEARTBEAT, beat)))
    tasks.append(asyncio.create_task(_repeat(settings.LIVE_KEEPALIVE, _keep_alive)))
    for seconds, job, aside in _jobs:
        tasks.append(asyncio.create_task(_repeat(seconds, _job_runner(job, aside))))


def record_start(process_name, now):
    """Register this process; if no process was alive until now, the site was down: run the
    outage hooks (in the same transaction, under a lock, so exactly one process does) for
    the stretch since the last sign of life."""
    from live.models import Outage, ServerProcess

    with transaction.atomic():
        # Two processes starting together queue here (and on SQLite, at BEGIN IMMEDIATE).
        list(ServerProcess.objects.select_for_update().values_list("pk", flat=True))
        known = list(ServerProcess.objects.all())
        alive = [p for p in known if p.stopped_at is None and p.seen_at >= now - stale_after()
                 and not gone_from_this_machine(p.name)]
        if known and not alive:
            began = max(p.last_alive for p in known)
            if began < now:
                shifted = sum(hook(began, now) or 0 for hook in _outage_hooks)
                Outage.objects.create(began_at=began, ended_at=now, games_shifted=shifted)
                logger.warning("the site was down from %s to %s; %s clocks moved on",
                               began, now, shifted)
        ServerProcess.objects.filter(pk__in=[p.pk for p in known if p not in alive]).delete()
        ServerProcess.objects.create(name=process_name, started_at=now, seen_at=now)


def gone_from_this_machine(process_name):
    """Whether a process of this machine (`host:pid:random`) no longer runs, whatever its last
    heartbeat says: a site restarted within three heartbeats of a crash was down meanwhile.
    Our own pid means the other is gone (a container's server is pid 1 at every start); any
    other running pid is taken for that process (if it was reused, the outage is missed and
    charged, as without this check)."""
    host, _, rest = process_name.partition(":")
    pid = rest.partition(":")[0]
    if host != socket.gethostname() or not pid.isdigit():
        return False
    if int(pid) == os.getpid():
        return True
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except OSError:
        return False  # it runs, as another user
    return False


# -- running -----------------------------------------------------------------------------------

async def _repeat(seconds, work):
    while True:
        await asyncio.sleep(seconds)
        try:
            await work()
        except asyncio.CancelledError:
            raise
        except Exception:
            logger.exception("periodic work %s failed", getattr(work, "__name__", work))


def _job_runner(job, aside):
    async def run():
        await (lanes.aside if aside else lanes.write)(job, timezone.now())
    run.__name__ = getattr(job, "__name__", "job")
    return run


async def beat():
    """Say this process is alive; refresh the presence rows of its open sockets and forget
    those whose consumer died without a disconnect. The rows go in slices of SLICE, each a job
    of its own, so that moves waiting for the writer run between them (with thousands of
    sockets, one job for all of them held the writer for tens of milliseconds)."""
    for kind, names in registry.names_by_kind(registry.prune()).items():
        await lanes.write(kind.lost, names)
    await lanes.write(_still_alive, _state["name"], timezone.now())
    for kind, names in registry.names_by_kind(registry.by_kind()).items():
        for start in range(0, len(names), SLICE):
            await lanes.write(kind.still_here, names[start:start + SLICE])


def _still_alive(process_name, now):
    from live.models import ServerProcess

    ServerProcess.objects.filter(name=process_name).update(seen_at=now)


async def _keep_alive():
    await registry.renew_groups()
    for kind, sockets in registry.by_kind().items():
        for start in range(0, len(sockets), SLICE):
            await kind.keep_alive(sockets[start:start + SLICE])
            # Let the moves that arrived meanwhile go first: a keep-alive is never urgent.
            await asyncio.sleep(0)


# -- stopping ----------------------------------------------------------------------------------

def stop():
    """Stop the background work and record a clean stop. Called when the server shuts down
    (SIGTERM); returns an awaitable that ends within a few seconds whatever the database does."""
    for task in _state["tasks"]:
        task.cancel()
    _state["tasks"] = []
    for hook in _stop_hooks:
        try:
            hook()
        except Exception:
            logger.exception("could not stop %s", getattr(hook, "__qualname__", hook))
    names = registry.names_by_kind(registry.by_kind())
    return asyncio.ensure_future(_goodbye(names))


async def _goodbye(names_by_kind):
    try:
        await asyncio.wait_for(
            lanes.write(record_stop, _state["name"], timezone.now(), names_by_kind), 5)
    except Exception:
        logger.exception("could not record the stop of this server process")
    finally:
        lanes.shutdown()


def record_stop(process_name, now, names_by_kind):
    from live.models import ServerProcess

    for kind, names in names_by_kind.items():
        kind.lost(names)
    ServerProcess.objects.filter(name=process_name).update(seen_at=now, stopped_at=now)
