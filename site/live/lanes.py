"""Where the live path's database work runs, and what keeps one game's changes in order.

* The event loop (Daphne's) parses messages and writes to sockets; it never touches the ORM.
* Database work runs on database threads, each with its own (persistent) connection, in two
  pools: writers (LIVE_DB_WRITERS) and readers (LIVE_DB_READERS), so that a snapshot or a ping
  never queues behind other games' moves, and the moves of different games run side by side
  instead of queueing behind one thread.
* Changes to one game go through that game's lane: an asyncio lock per key, taken in arrival
  order, so within a process one game's changes run one at a time and in order, and a thread
  never waits on a row lock held by another thread of the same process. Across processes the
  row lock of the change itself (SELECT ... FOR UPDATE) orders them.
* SQLite has one writer at a time, so on SQLite the writers' pool has one thread by default: a
  queue handed over in order beats threads polling SQLite's busy timeout (which sleeps in
  steps of up to 100 ms). Readers run beside it (the database is in WAL mode).
* The writers take their jobs in order of who waits (PEOPLE, OTHERS, PROGRAMS, BACKGROUND),
  in arrival order within each: a person's change to a game (in_lane()) first; then other
  work a person waits for (write(): a socket's arrival, a chat line, an arena wave's games;
  ending_in_lane(): a person's change that ends a game, several moves' worth of work),
  which lets a quarter of a second of games' changes pass (an arena's turnover queued people's
  moves behind a dozen arrivals and a wave's games a second); then a program's action (a token's, through the API or the game socket:
  program_in_lane()), which may wait the few milliseconds of a person's move where a bot
  playing once a second does not notice them; then the work nobody waits for (background():
  presence rows, the heartbeat, the periodic sweeps). Within one game nothing is reordered:
  its lane holds one job of the game at a time. Nothing waits for ever: a job is taken by
  when it arrived plus its kind's allowance (WAITS: none for people, seconds for the others),
  so a writer kept busy by bots still writes the heartbeat, a few seconds late.
* Readers only read: a reader thread's connection is opened read-only (read_only_readers), so
  a write on one fails instead of racing a game's lane or, on SQLite, the one writer. A read
  that notices something to change (a game whose time is up) reports it; the change is made
  in the game's lane (play.rooms, play.sweeper).

Every job runs with an outbox (live.outbox): the channel-layer events its transaction queued are
sent from the event loop once the job has returned, still inside the lane, so one game's news
leaves in the order its changes were made.
"""
import asyncio
import contextvars
import functools
import heapq
import itertools
import queue
import threading
import time
from concurrent.futures import ThreadPoolExecutor

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, connections

from live import outages, tracing
from live.outbox import Outbox

_pools = {}  # "read" / "write" / "aside" -> ThreadPoolExecutor
THREAD_PREFIX = "live-"  # the names of the pools' threads: "live-read_0", "live-write_1"
_pools_lock = threading.Lock()
_lanes = {}  # key -> Lane, while anything holds or waits for it
# Jobs running on each pool's threads now, for the metrics (load()).
_busy = {"read": 0, "write": 0, "aside": 0}
_busy_lock = threading.Lock()


# Who waits for a job, in the order the writers take them (module docstring), and how many
# seconds of later arrivals of the kinds before it a job lets pass: a program's action waits
# at most that long behind people's moves, background work behind both (its presence rows
# go stale after three heartbeats: live.process).
PEOPLE, OTHERS, PROGRAMS, BACKGROUND = 0, 1, 2, 3
WAITS = {PEOPLE: 0.0, OTHERS: 0.25, PROGRAMS: 5.0, BACKGROUND: 10.0}
_SHUT = float("inf")  # the pool's stop signal, after every job queued before it
_placing = contextvars.ContextVar("live_lanes_placing", default=PEOPLE)
_clock = time.monotonic
_held_clock = time.monotonic  # the writers' time spent holding for news (Waiting.held)


class Waiting(queue.PriorityQueue):
    """A pool's queue of jobs, taken by when each arrived plus its kind's allowance (WAITS;
    its kind: `_placing` when the job is put, which the pool's submit() does on the caller's
    thread), then in arrival order.

    While a person's change has ended on a writer and its news has not left the event loop
    yet (news_held()), the writers start no program's or background job unless a person's
    job waits too (get()), for at most NEWS_WAIT, and never once the job next in line has
    been held NEWS_WAIT since it was queued (the writers' time spent holding, held(), not its
    age: a job that waited behind other jobs is still held for a person's news): so no job is
    held up by people's news for more than NEWS_WAIT in all, however many people's changes end
    while it waits (a hold per person's change, one after another while a backlog of bots'
    actions waited: the socket bots' own p99 rose from 58 to 155 ms). A writer thread running
    a bot's action holds the interpreter lock, and the loop, which lets the lock go at each of
    its turns (waiting for its sockets), waited up to the switch interval (5 ms) to have it
    back at each of the several turns that take the change's news to the sockets: beside 200
    API bots a person's p99 doubled, all of it in the loop's wait after the job
    (docs/measurements.md)."""

    def __init__(self, maxsize=0):
        super().__init__(maxsize)
        self.arrivals = itertools.count()
        self.people_queued = 0   # jobs placed PEOPLE or OTHERS in the queue now
        self.news = 0            # people's changes ended whose news is not out yet
        self.news_out = threading.Condition(self.mutex)
        self.stopping = False    # the stop signal queued: nothing is held any more
        self.holding = 0         # pool threads holding for news now (let_news_out)
        self.holding_since = 0.0
        self.held_before = 0.0   # seconds some thread held for news, before holding_since

    def held(self):
        """(the mutex held) Seconds some pool thread has held for people's news, so far: a
        job's hold is this now less this when it was queued."""
        if self.holding:
            return self.held_before + _held_clock() - self.holding_since
        return self.held_before

    def _put(self, item):
        # None: the executor's stop signal to a thread, which must not pass queued jobs.
        placing = BACKGROUND if item is None else _placing.get()
        due = _SHUT if item is None else _clock() + WAITS[placing]
        # Last: the writers' time held for news when it was queued (let_news_out()).
        heapq.heappush(self.queue, (due, next(self.arrivals), placing, item, self.held()))
        if item is None:
            self.stopping = True
            self.news_out.notify_all()
        elif placing <= OTHERS:
            self.people_queued += 1
            self.news_out.notify_all()

    def _get(self):
        _, _, placing, item, _ = heapq.heappop(self.queue)
        if placing <= OTHERS:
            self.people_queued -= 1
        if item is None and threading.current_thread().name.startswith(THREAD_PREFIX):
            # The stop signal, taken by a database thread, which ends: its persistent
            # connection is closed here, on its own thread, as Django requires. Left to the
            # garbage collector it stayed open on the database server (the tests' PostgreSQL
            # database could not be dropped: "4 other sessions", the lanes' threads).
            try:
                connections.close_all()
            except Exception:
                pass  # a broken connection: the thread ends all the same
        return item

    def get(self, block=True, timeout=None):
        if block and self.news > 0:
            self.let_news_out()
        return super().get(block, timeout)

    def let_news_out(self):
        """(a pool thread, between jobs) Wait while a person's news is on its way out and no
        person's job waits, at most NEWS_WAIT, and no more than NEWS_WAIT in all since the job
        next in line was queued (the bound on any job's wait for news: the job next in line is
        the oldest program's job queued, or a background job older still, so it has been held
        at least as long as any other); not once the pool is stopping (its threads are joined
        at the interpreter's exit)."""
        with self.news_out:
            if self.holding == 0:
                self.holding_since = _held_clock()
            self.holding += 1
            try:
                deadline = None
                while self.news > 0 and not self.people_queued and not self.stopping:
                    now = _held_clock()
                    if deadline is None:
                        deadline = now + NEWS_WAIT
                    if self.queue:
                        # Held time goes on at the clock's pace while this thread holds. A
                        # job queued during this hold has its whole allowance after it.
                        left = self.queue[0][4] + NEWS_WAIT - self.held()
                        deadline = min(deadline, now + left)
                    if now >= deadline:
                        return
                    self.news_out.wait(deadline - now)
            finally:
                self.holding -= 1
                if self.holding == 0:
                    self.held_before += _held_clock() - self.holding_since

    def news_held(self):
        """(the writer thread, as a person's change ends) Its news is on its way out."""
        with self.mutex:
            self.news += 1

    def news_sent(self):
        """(the event loop) That news has left."""
        with self.mutex:
            self.news -= 1
            if not self.news:
                self.news_out.notify_all()


# The loop's turns from a change's news delivered to the channel layer to its frames written
# to the sockets: the consumers' receive, their dispatch, the send, the transport's write.
NEWS_TURNS = 5
# The longest a writer waits for a person's news to leave before a program's job (a loop
# slower than this is busy with more than one move's news, and the writer's work waits).
NEWS_WAIT = 0.02


class _News:
    """A person's change (placed PEOPLE or OTHERS on the writers): held from its job's end on
    the writer thread until the loop has had NEWS_TURNS turns after delivering its news."""

    __slots__ = ("waiting", "held")

    def __init__(self, waiting):
        self.waiting = waiting
        self.held = False

    def hold(self):
        """(the writer thread, the job ended: before its future is resolved)"""
        self.waiting.news_held()
        self.held = True

    def release(self, turns=NEWS_TURNS):
        """(the event loop, the news delivered)"""
        if not self.held:
            return  # the job never ran (cancelled before it started)
        if turns:
            asyncio.get_running_loop().call_soon(self.release, turns - 1)
            return
        self.held = False
        self.waiting.news_sent()


def pool(kind):
    with _pools_lock:
        found = _pools.get(kind)
        if found is None:
            found = _pools[kind] = ThreadPoolExecutor(
                max_workers=threads(kind), thread_name_prefix=f"{THREAD_PREFIX}{kind}")
            # Before its first job: its threads, started on demand, take this queue.
            found._work_queue = Waiting()
        return found


READER_PREFIX = f"{THREAD_PREFIX}read"


def read_only_readers(sender, connection, **kwargs):
    """connection_created: a connection opened on a reader thread refuses every write."""
    if not threading.current_thread().name.startswith(READER_PREFIX):
        return
    statement = {"sqlite": "PRAGMA query_only = ON",
                 "postgresql": "SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY"}
    if connection.vendor in statement:
        with connection.cursor() as cursor:
            cursor.execute(statement[connection.vendor])


def threads(kind):
    if kind == "read":
        return settings.LIVE_DB_READERS
    if kind == "aside":
        return 1
    if settings.LIVE_DB_WRITERS:
        return settings.LIVE_DB_WRITERS
    # Two, not more: a change is mostly Python, so more threads only wait for the GIL, and
    # each waiting thread made the event loop and the readers wait too (docs/design.md).
    return 1 if connections[DEFAULT_DB_ALIAS].vendor == "sqlite" else 2


def shutdown(wait=0):
    """Stop taking jobs; jobs already running finish (their transactions commit), then each
    thread closes its connection and ends (Waiting._get). `wait`: seconds to wait for the
    threads to end (tests: before their database is dropped)."""
    with _pools_lock:
        stopping = list(_pools.values())
        for executor in stopping:
            executor.shutdown(wait=False, cancel_futures=True)
        _pools.clear()
    if wait:
        deadline = time.monotonic() + wait
        for executor in stopping:
            for thread in list(executor._threads):
                thread.join(max(0.0, deadline - time.monotonic()))


def load():
    """How busy this process's database work is, for ops.metrics: per pool the jobs waiting
    for a thread and the threads running one, and the changes waiting behind another change
    of the same key (game) in its lane. Read from any thread; a snapshot, not exact."""
    with _pools_lock:
        waiting = {kind: executor._work_queue.qsize() for kind, executor in _pools.items()}
    with _busy_lock:
        busy = dict(_busy)
    behind = sum(max(lane.users - 1, 0) for lane in list(_lanes.values()))
    return {"waiting": waiting, "busy": busy, "lane_waiting": behind}


class Lane:
    def __init__(self):
        self.lock = asyncio.Lock()
        self.users = 0


async def read(fn, *args, **kwargs):
    """Run `fn(*args, **kwargs)` on a reader thread and return its result: for reads, which
    never queue behind changes."""
    return await _run(functools.partial(fn, *args, **kwargs), kind="read")


async def write(fn, *args, **kwargs):
    """As read(), for a write that needs no order with a game's changes, that someone waits
    for (a socket's join, a chat line): on a writer thread."""
    return await _run(functools.partial(fn, *args, **kwargs), kind="write",
                      placing=OTHERS)


async def background(fn, *args, **kwargs):
    """As write(), for work nobody waits for (presence rows, the heartbeat, the sweeps): the
    writers take it after every change and action waiting."""
    return await _run(functools.partial(fn, *args, **kwargs), kind="write",
                      placing=BACKGROUND)


async def aside(fn, *args, **kwargs):
    """As write(), on a thread of its own: for slow periodic work (mail) that must never
    hold up the writers."""
    return await _run(functools.partial(fn, *args, **kwargs), kind="aside")


class Gathered:
    """A write `fn(items)` that many sockets ask for at once, one item each (a storm of
    disconnects after a restart: thousands of presence rows to delete), gathered into few
    writer jobs: the items added while a job waits for its thread go with it. No item waits
    longer than it would alone, and the moves queued between them wait for a few jobs instead
    of thousands. add() returns `fn`'s result once the job holding its item has returned
    (committed), as write() would; a caller cancelled meanwhile does not cancel the job."""

    def __init__(self, fn, runs=None):
        self.fn = fn
        self.runs = runs or write   # write() or background()
        self.lock = threading.Lock()   # the loop adds items, a writer thread takes them
        self.waiting = None            # the items of the job that has not started yet

    async def add(self, item):
        with self.lock:
            batch = self.waiting
            if batch is not None:
                batch["items"].append(item)
            else:
                batch = self.waiting = {"items": [item]}
                batch["job"] = asyncio.ensure_future(self.runs(self._take, batch))
        return await asyncio.shield(batch["job"])

    def _take(self, batch):
        """On the writer thread: from now on new items start another job."""
        with self.lock:
            if self.waiting is batch:
                self.waiting = None
        return self.fn(batch["items"])


async def in_lane(key, fn, *args, **kwargs):
    """Run the change `fn(*args, **kwargs)` in the lane of `key` (e.g. ("game", 12)): after
    every change to that key this process received before it, and before any received after
    it."""
    return await _in_lane(key, functools.partial(fn, *args, **kwargs), PEOPLE)


async def ending_in_lane(key, fn, *args, **kwargs):
    """As in_lane(), for a person's change that ends a game (a resignation, an abort, a
    claimed win): it costs the writers several moves (the end's ratings, an event's points),
    so the people's moves waiting beside it go first, as the other writes a person waits for
    let them (OTHERS: a quarter of a second at most). An arena's turnover ends a few games
    at once every second; the moves queued behind those ends waited for all of them."""
    return await _in_lane(key, functools.partial(fn, *args, **kwargs), OTHERS)


async def program_in_lane(key, fn, *args, **kwargs):
    """As in_lane(), for a program's change (made with a token: a bot's action): the writers
    take it after the people's changes waiting beside it (other games'; a game's own changes
    keep their order in its lane)."""
    return await _in_lane(key, functools.partial(fn, *args, **kwargs), PROGRAMS)


async def _in_lane(key, call, placing):
    lane = _lanes.get(key)
    if lane is None:
        lane = _lanes[key] = Lane()
    lane.users += 1
    try:
        async with lane.lock:
            tracing.stamp("laned")
            return await _run(call, kind="write", placing=placing)
    finally:
        lane.users -= 1
        if lane.users == 0:
            del _lanes[key]


async def _run(call, kind, placing=PEOPLE):
    outbox = Outbox()
    loop = asyncio.get_running_loop()
    context = contextvars.copy_context()
    executor = pool(kind)
    news = _News(executor._work_queue) if kind == "write" and placing <= OTHERS else None
    placed = _placing.set(placing)  # read by Waiting.put, within the pool's submit()
    try:
        job = executor.submit(context.run, _job, call, outbox, kind, news)
    finally:
        _placing.reset(placed)
    ended = loop.create_future()
    job.add_done_callback(functools.partial(_ended, loop, ended))
    try:
        # A caller cancelled meanwhile (its socket closed) must not cut a change in half: the
        # thread finishes the transaction either way (cancelling `ended` leaves `job` be), and
        # its news still goes out.
        result = await ended
    except asyncio.CancelledError:
        loop.create_task(_deliver_when_done(job, outbox, news))
        raise
    except BaseException:
        # A refusal may still have changed something on purpose (a clock that ran out).
        await _deliver(outbox, news)
        raise
    tracing.stamp("back")
    await _deliver(outbox, news)
    tracing.stamp("sent")
    return result


def _ended(loop, ended, job):
    """(the thread that ran the job) Its outcome to the caller, one loop turn after the loop
    wakes: run_in_executor()'s future under asyncio.shield() took two, each behind whatever
    else was ready on the loop (the bots' requests)."""
    try:
        loop.call_soon_threadsafe(_settle, ended, job)
    except RuntimeError:
        pass  # the loop has closed: nobody waits


def _settle(ended, job):
    if ended.cancelled():
        return
    if job.cancelled():
        ended.cancel()
    elif job.exception() is not None:
        ended.set_exception(job.exception())
    else:
        ended.set_result(job.result())


async def _deliver(outbox, news):
    try:
        await outbox.deliver()
    finally:
        if news is not None:
            news.release()


async def _deliver_when_done(job, outbox, news):
    try:
        await asyncio.wrap_future(job)
    except BaseException:
        pass
    await _deliver(outbox, news)


def _job(call, outbox, kind, news=None):
    tracing.stamp("started")
    db = connections[DEFAULT_DB_ALIAS]
    with _busy_lock:
        _busy[kind] += 1
    with outbox:
        try:
            if kind != "read" and outages.away_since() is not None:
                # The database was away: the clocks move on for it before this change is
                # charged (a reader's connection cannot write; the next writer does it).
                outages.catch_up()
            return call()
        except Exception as error:
            outages.noticed(error)
            raise
        finally:
            tracing.stamp("ended")
            with _busy_lock:
                _busy[kind] -= 1
            if news is not None:
                news.hold()
            # The thread keeps its connection from job to job. As Django does at the end of a
            # request, drop it once it broke or grew old (CONN_MAX_AGE); checked here without
            # close_old_connections(), which costs more than a whole query on this path.
            if db.errors_occurred or (db.close_at is not None
                                      and time.monotonic() >= db.close_at):
                db.close_if_unusable_or_obsolete()
