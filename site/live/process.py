"""This server process's life: it announces itself, notices an outage of the whole site when it
starts, keeps a heartbeat, runs the periodic jobs of the apps (the sweepers), and on SIGTERM
stops them and says goodbye so that its sockets stop counting at once.

Apps register their jobs when Django loads them (AppConfig.ready):

    process.every(seconds, job)        job(now) runs on a database thread, safe in every
                                       process at once (jobs lock what they change);
                                       aside=True: on a thread of its own, for slow work
                                       (mail) that must never hold up the writers;
                                       due=check: check(now) first, on a reader thread, and
                                       job(now) on a writer only if it says there is work
                                       (the checks of all the jobs of one period together,
                                       in one reader job: "live.due"); a
                                       coroutine function instead is awaited on the loop
                                       and hands its own database work to the lanes
    process.on_outage(hook)            hook(began_at, ended_at) runs once, in the locked
                                       transaction of the first process after an outage
    process.on_start(hook)             hook(loop) once the process serves (jobs.pool: the
    process.on_stop(hook)              workers it owns); hook() when it stops

start() is called once the event loop runs: by tessera.asgi when Daphne's reactor starts (or on
the first request under another ASGI server). Nothing starts in management commands or tests
that do not serve.
"""
import asyncio
import contextvars
import gc
import logging
import math
import os
import random
import socket
import time
import uuid
from contextlib import contextmanager
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.dispatch import Signal
from django.utils import timezone

from live import lanes, outages, registry

# Sockets per database job of the heartbeat, and per step of the keep-alive, at most.
SLICE = 200
# The heartbeat and the keep-alive trickle: each run's slices are spread over its whole period
# (SPREAD of it), at most a slice every TICK seconds, and the next run starts a period after
# this one began. Each socket (each game's sockets together) has its own moment in the period:
# 2,000 sockets' keep-alives in ten slices of 200 over half the period held the event loop
# for up to 6 ms at a time, and the moves that arrived meanwhile waited behind them
# (docs/design.md, "Periodic work").
SPREAD = 1.0
TICK = 0.25

logger = logging.getLogger(__name__)
# One line per run of each periodic work at INFO (LOG_LEVEL=INFO), read by bench/live_load.py.
periodic_logger = logging.getLogger("live.periodic")

# Each run of a periodic work, once it is over (ops.metrics: its histograms): `work` (its
# name), `held` (seconds its steps held the event loop, in all), `longest` (its longest step),
# `database` (seconds its jobs ran on database threads), `took` (seconds from start to end).
periodic_ran = Signal()

_jobs = []  # (seconds, job)
_outage_hooks = []
_start_hooks = []
_stop_hooks = []
_state = {"name": None, "tasks": [], "started": False}


def every(seconds, job, aside=False, due=None):
    _jobs.append((seconds, job, aside, due))


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
    tasks.append(asyncio.create_task(_repeat(settings.LIVE_HEARTBEAT, _spread_beat,
                                             "live.heartbeat", paced=True)))
    tasks.append(asyncio.create_task(_repeat(settings.LIVE_KEEPALIVE, _spread_keep_alive,
                                             "live.keep_alive", paced=True)))
    looked = {}  # period -> the jobs with a `due` check that run at it
    for seconds, job, aside, due in _jobs:
        if due is not None and not asyncio.iscoroutinefunction(job):
            looked.setdefault(seconds, []).append((job, aside, due))
        else:
            tasks.append(asyncio.create_task(_repeat(seconds, _job_runner(job, aside, due))))
    for seconds, entries in looked.items():
        tasks.append(asyncio.create_task(_repeat(seconds, _looked_together(entries),
                                                 "live.due", measure=False)))


def record_start(process_name, now):
    """Register this process; if no process was alive until now, the site was down: run the
    outage hooks (in the same transaction, under a lock, so exactly one process does) for
    the stretch since the last sign of life."""
    from live.models import ServerProcess

    with transaction.atomic():
        hold_the_register()
        known = list(ServerProcess.objects.all())
        alive = [p for p in known if p.stopped_at is None and p.seen_at >= now - stale_after()
                 and not gone_from_this_machine(p.name)]
        if known and not alive:
            moved_on(max(p.last_alive for p in known), now, why="the site was down")
        ServerProcess.objects.filter(pk__in=[p.pk for p in known if p not in alive]).delete()
        ServerProcess.objects.create(name=process_name, started_at=now, seen_at=now)


def hold_the_register():
    """Inside a transaction: lock the processes' rows, so that one process at a time decides
    whether an outage is to be counted (here at start, and live.outages). Two processes
    starting together queue here (and on SQLite, at BEGIN IMMEDIATE)."""
    from live.models import ServerProcess

    list(ServerProcess.objects.select_for_update().values_list("pk", flat=True))


def moved_on(began, ended, why):
    """Inside hold_the_register's transaction: nobody is charged for [began, ended) (the outage
    hooks move the running clocks on), and the outage is recorded. Nothing if it is empty.
    Returns how many games' clocks moved on."""
    from live.models import Outage

    if began >= ended:
        return 0
    shifted = sum(hook(began, ended) or 0 for hook in _outage_hooks)
    Outage.objects.create(began_at=began, ended_at=ended, games_shifted=shifted)
    logger.warning("%s from %s to %s; %s clocks moved on", why, began, ended, shifted)
    return shifted


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

async def _repeat(seconds, work, name=None, paced=False, measure=True):
    # The first run comes at a random point of the first period: the heartbeat (10 s) and the
    # keep-alive (30 s) would otherwise run at the same moments for ever, and so would the
    # processes started together. `paced`: the next run starts `seconds` after this one
    # began (a run that trickles over its period), not `seconds` after it ended.
    await asyncio.sleep(seconds * random.random())
    loop = asyncio.get_running_loop()
    while True:
        began = loop.time()
        try:
            if measure:
                await measured(name or work.__name__, work())
            else:
                await work()  # it reports its own parts (_looked_together)
        except asyncio.CancelledError:
            raise
        except Exception:
            logger.exception("periodic work %s failed", getattr(work, "__name__", work))
        await asyncio.sleep(max(0.0, began + seconds - loop.time()) if paced else seconds)


def _job_runner(job, aside, due=None):
    if asyncio.iscoroutinefunction(job):
        async def run():
            await job()  # it hands its own database work to the lanes (tournaments.tick_live)
    else:
        async def run():
            now = timezone.now()
            # The sweeps run every two seconds and mostly find nothing: on SQLite the one
            # writer held for their look every time was a wait for the moves queued behind it
            # (the tail at 500 games x 1 move / 5 s). A reader looks; the writer works only
            # when needed.
            if due is not None and not await lanes.read(on_thread(due), now):
                return
            await (lanes.aside if aside else lanes.background)(on_thread(job), now)
    run.__name__ = f"{job.__module__}.{job.__qualname__}"
    return run


def _looked_together(entries):
    """The periodic jobs of one period that have a `due` check (the three sweeps, every
    LIVE_SWEEP seconds), as one periodic work: each run asks all their checks in one job on a
    reader thread (reported as "live.due"), then starts each job whose check said yes on a
    writer (reported under the job's name), unless its previous run is still under way. Three
    tasks, each with its hop to a reader, cost the idle server most of its CPU (a wake-up of the
    loop and of a thread, a job's bookkeeping and a report each); the checks' answers, and so
    when each job runs, are as before. A job that runs long does not hold up the next look,
    nor the other jobs: it is a task of its own, as each job had before."""
    checks = [(f"{due.__module__}.{due.__qualname__}", on_thread(due)) for _, _, due in entries]
    running = {}  # index -> the task of a job still under way

    async def look_then_work():
        now = timezone.now()
        answers = await measured("live.due", lanes.read(_look, checks, now))
        for index, ((job, aside, _), due) in enumerate(zip(entries, answers)):
            if not due or (index in running and not running[index].done()):
                continue
            running[index] = task = asyncio.ensure_future(measured(
                f"{job.__module__}.{job.__qualname__}",
                (lanes.aside if aside else lanes.background)(on_thread(job), now)))
            task.add_done_callback(_job_ended)
            _state["tasks"].append(task)
    return look_then_work


def _look(checks, now):
    """(reader) Each check's answer at `now`; a check that fails says no (this run of its job
    is skipped, as when its own look failed), and the others still answer."""
    answers = []
    for name, check in checks:
        try:
            answers.append(bool(check(now)))
        except Exception as error:
            outages.noticed(error)
            logger.exception("the due check %s failed", name)
            answers.append(False)
    return answers


def _job_ended(task):
    try:
        _state["tasks"].remove(task)
    except ValueError:
        pass  # stop() took the list meanwhile
    if not task.cancelled() and task.exception() is not None:
        logger.error("periodic work failed", exc_info=task.exception())


# -- what the periodic work costs ----------------------------------------------------------------

class Run:
    """The cost of one run of a periodic work, so far."""

    __slots__ = ("work", "held", "longest", "steps", "database", "took")

    def __init__(self, work):
        self.work = work
        self.held = self.longest = self.database = self.took = 0.0
        self.steps = 0

    def step(self, seconds):
        self.held += seconds
        self.longest = max(self.longest, seconds)
        self.steps += 1


_current_run = contextvars.ContextVar("periodic_run", default=None)


class _Held:
    """Awaits a coroutine and times each of its steps on the event loop (from one suspension
    to the next): what the periodic work itself holds the loop for, without the time it
    waits for threads, timers or the network."""

    def __init__(self, coroutine, run):
        self.coroutine, self.run = coroutine, run

    def __await__(self):
        value, error = None, None
        while True:
            began = time.perf_counter()
            try:
                if error is not None:
                    waited_for = self.coroutine.throw(error)
                else:
                    waited_for = self.coroutine.send(value)
            except StopIteration as stop:
                self.run.step(time.perf_counter() - began)
                return stop.value
            except BaseException:
                self.run.step(time.perf_counter() - began)
                raise
            self.run.step(time.perf_counter() - began)
            try:
                value, error = (yield waited_for), None
            except GeneratorExit:
                self.coroutine.close()
                raise
            except BaseException as caught:
                value, error = None, caught


async def measured(work, coroutine):
    """Await `coroutine`, one run of the periodic work named `work`, and report its cost
    (periodic_ran, and a log line at INFO)."""
    run = Run(work)
    token = _current_run.set(run)
    began = time.perf_counter()
    try:
        return await _Held(coroutine, run)
    finally:
        _current_run.reset(token)
        run.took = time.perf_counter() - began
        _report(run)


@contextmanager
def holding(work):
    """Report the cost of a synchronous periodic work on the event loop (one step)."""
    run = Run(work)
    began = time.perf_counter()
    try:
        yield
    finally:
        run.took = time.perf_counter() - began
        run.step(run.took)
        _report(run)


def on_thread(job):
    """`job`, counting its time on a database thread to the periodic run it is part of (the
    lanes copy the caller's context to the thread)."""
    def timed(*args, **kwargs):
        run = _current_run.get()
        began = time.perf_counter()
        try:
            return job(*args, **kwargs)
        finally:
            if run is not None:
                run.database += time.perf_counter() - began
    return timed


def _report(run):
    try:
        periodic_ran.send(sender=None, work=run.work, held=run.held, longest=run.longest,
                          database=run.database, took=run.took)
    except Exception:
        logger.exception("a receiver of periodic_ran failed")
    periodic_logger.info(
        "periodic %s held the event loop %.3f ms (longest step %.3f ms, %d steps), database "
        "%.3f ms, %.1f ms in all", run.work, run.held * 1000, run.longest * 1000, run.steps,
        run.database * 1000, run.took * 1000)


async def _spread_beat():
    await beat(spread=settings.LIVE_HEARTBEAT * SPREAD)


async def _spread_keep_alive():
    await _keep_alive(spread=settings.LIVE_KEEPALIVE * SPREAD)


def _slices(kinds, spread=0.0):
    """(kind, its items) for each slice of a periodic run over `kinds` (kind -> list of
    sockets or of channel names): as many slices as `spread` seconds hold TICKs (fewer for a
    few items), none over SLICE items. The items that share a kept_with key (a game's sockets)
    are consecutive and stay in one slice where the slice's size allows: one read and one
    text for them."""
    total = sum(len(items) for items in kinds.values())
    if not total:
        return []
    count = min(total, max(math.ceil(total / SLICE), round(spread / TICK), 1))
    size = math.ceil(total / count)
    slices = []
    for kind, items in kinds.items():
        if items and isinstance(items[0], str):
            # Channel names (the heartbeat's rows): nothing to keep together.
            step = min(size, SLICE)
            slices.extend((kind, items[start:start + step]) for start in range(0, len(items), step))
            continue
        together = {}
        for item in items:
            together.setdefault(_kept_with(item), []).append(item)
        current = []
        for group in together.values():
            if current and len(current) + len(group) > size:
                slices.append((kind, current))
                current = []
            for start in range(0, len(group), SLICE):
                part = group[start:start + SLICE]
                if current and len(current) + len(part) > SLICE:
                    slices.append((kind, current))
                    current = []
                current.extend(part)
        if current:
            slices.append((kind, current))
    return slices


def _kept_with(socket):
    """The key of the sockets that go together (a socket without one goes alone)."""
    key = socket.kept_with()
    return (None, id(socket)) if key is None else key


async def _pause(index, count, spread):
    """Between two slices of a periodic run: `spread` seconds shared out over its `count`
    slices, or at least a turn of the loop for the moves that arrived meanwhile."""
    if index:
        await asyncio.sleep(spread / count if spread else 0)


async def beat(spread=0.0):
    """Say this process is alive; refresh the presence rows of its open sockets and forget
    those whose consumer died without a disconnect. On SQLite the rows go in slices (_slices:
    at most SLICE, one every TICK seconds or so), each a job of its own, so that moves waiting
    for the one writer run between them (with thousands of sockets, one job for all of them
    held the writer for tens of milliseconds), spread over `spread` seconds (a row is stale
    after three heartbeats: it stays well fresh). On PostgreSQL the writers write side by
    side and row locks order them: one job for all of them, which holds one writer thread
    (waiting on the server, not the GIL) while the others take the moves."""
    for kind, names in registry.names_by_kind(registry.prune()).items():
        await lanes.background(on_thread(kind.lost), names)
    if not _one_writer():
        # No single writer to make room on: the process's row and every open socket's rows
        # in one job, one UPDATE per kind (live.presence.still_here), where forty slices a
        # run spent twice the database threads' time of ten (each its own job and
        # transaction). The loop's part of it (the names) is a list per kind, as before.
        await lanes.background(on_thread(_all_still_here), _state["name"], timezone.now(),
                               registry.names_by_kind(registry.by_kind()))
        return
    await lanes.background(on_thread(_still_alive), _state["name"], timezone.now())
    slices = _slices(registry.names_by_kind(registry.by_kind()), spread)
    for index, (kind, names) in enumerate(slices):
        await _pause(index, len(slices), spread)
        await lanes.background(on_thread(kind.still_here), names)


def _one_writer():
    """Whether the database takes one writer at a time (SQLite): the heartbeat's rows then go
    in slices between which the moves waiting for the writer run."""
    from django.db import connection

    return connection.vendor == "sqlite"


def _all_still_here(process_name, now, names_by_kind):
    _still_alive(process_name, now)
    for kind, names in names_by_kind.items():
        if names:
            kind.still_here(names)


def _still_alive(process_name, now):
    from live.models import ServerProcess

    ServerProcess.objects.filter(name=process_name).update(seen_at=now)


async def _keep_alive(spread=0.0):
    """Renew the group memberships of the open sockets and send each kind's keep-alive news,
    a slice at a time (_slices: a few games' sockets every TICK seconds or so), the slices
    spread over `spread` seconds: a keep-alive is never urgent, the moves that arrive
    meanwhile go first."""
    slices = _slices(registry.by_kind(), spread)
    for index, (kind, sockets) in enumerate(slices):
        await _pause(index, len(slices), spread)
        await registry.renew_groups(sockets)
        await kind.keep_alive(sockets)


# Seconds over which a resync's slices are spread: soon, but 2,000 sockets' keep-alives sent
# in one go would hold the event loop (see SPREAD).
RESYNC_SPREAD = 1.0
_resync = {"task": None, "again": False}


def resync(**kwargs):
    """The channel layer missed news (live.layers.news_missed: its subscriber reconnected
    after Redis restarted): every open socket gets its keep-alive now, so that a page that
    missed a move hears the game's ply and asks for a snapshot within a second or two, not at
    the next keep-alive. Several in a row (Redis flapping, several hosts) make one more run
    after the one under way, not one each. On the event loop."""
    if not _state["started"]:
        return
    task = _resync["task"]
    if task is not None and not task.done():
        _resync["again"] = True
        return
    _resync["task"] = asyncio.get_running_loop().create_task(_resync_all())


async def _resync_all():
    while True:
        _resync["again"] = False
        try:
            await measured("live.resync", _keep_alive(spread=RESYNC_SPREAD))
        except Exception:
            logger.exception("could not resync the open sockets after missed news")
        if not _resync["again"]:
            return


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
