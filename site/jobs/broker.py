"""Jobs over Redis, at scale, on Dramatiq (issue 25): servers send each job as a Dramatiq
message; `manage.py jobs_worker` processes run a Dramatiq worker that consumes them, runs the
job and its `then`, whose news goes out through the Redis channel layer.

What the library does, unchanged: a message is kept (`<ns>:jobs.msgs`) until its worker acks
it; a worker's fetched-but-not-acked messages are in its ack set (`<ns>:__acks__.<id>.jobs`);
every worker beats into `<ns>:__heartbeats__`, and the library's maintenance puts a dead
worker's unacked messages back on `<ns>:jobs` (the library's queue list) once its last beat
is JOBS_LEASE seconds old. A killed worker's job is redelivered by it: no lease or sweep of
ours.

What is ours, on top (FairRedisBroker, FairConsumer):

* Fair share. A message is not pushed on the library's one list but on its owner's line
  (`<ns>:jobs.line.<owner>`, jobs.Kind.owner_of), the owner on the ring (`<ns>:jobs.ring`)
  while its line is not empty; a fetch takes the next owner's oldest message, and the owner
  goes to the back (one account's games cannot starve another's first move). Both are Lua
  scripts on the library's keys; the library's own list (redelivered and requeued
  messages) is served first.
* Waking. The library polls with a growing back-off (up to a second: p50 ~10 ms, measured);
  each send also pushes a token on `<ns>:jobs.wake`, which an idle consumer BRPOPs, so a
  job sent to an idle worker starts at once (docs/measurements.md).
* Heartbeats while busy. The library beats only when a consumer fetches, and a consumer
  whose worker thread is busy does not fetch: ours beats every JOBS_LEASE / 3 seconds in
  any case, and that beat runs the library's maintenance (a dead worker's messages back on
  the list, and a token so that an idle worker takes them).

<ns> is REDIS_PREFIX (as the channel layer's keys) + ":jobs". One message per submission: a
job submitted twice runs twice (the kinds' `then` refuses a stale or repeated answer).
"""
import asyncio
import json
import logging
import os
import threading
import time
from dataclasses import dataclass

import dramatiq
from dramatiq.brokers.redis import RedisBroker, _RedisConsumer
from dramatiq.middleware import Middleware
from dramatiq.common import current_millis
from django.conf import settings
from django.dispatch import Signal

from jobs import runner as jobs

logger = logging.getLogger(__name__)

QUEUE = "jobs"
ACTOR = "tessera_job"

# KEYS: the messages' hash, the ring, the owner's line, the wake list; ARGV: the message's id,
# its data, its owner.
ENQUEUE = """
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
if redis.call('LPUSH', KEYS[3], ARGV[1]) == 1 then
    redis.call('LPUSH', KEYS[2], ARGV[3])
end
redis.call('LPUSH', KEYS[4], '1')
redis.call('LTRIM', KEYS[4], 0, 63)
"""

# KEYS: the library's queue list, the messages' hash, this worker's ack set, the heartbeats,
# the ring; ARGV: how many, now (ms), this worker's id, the lines' key prefix. Up to ARGV[1]
# messages: first those the library put back on its list, then the owners' in turn; each is
# added to the ack set (the library's ack, nack, requeue and maintenance then apply). Names
# the owners' lines itself: fine on one Redis server, not on a cluster.
FETCH = """
redis.call('ZADD', KEYS[4], ARGV[2], ARGV[3])
local ids = {}
local wanted = tonumber(ARGV[1])
while #ids < wanted do
    local id = redis.call('LPOP', KEYS[1])
    if not id then
        local owner = redis.call('RPOP', KEYS[5])
        if not owner then
            break
        end
        local line = ARGV[4] .. owner
        id = redis.call('RPOP', line)
        if redis.call('LLEN', line) > 0 then
            redis.call('LPUSH', KEYS[5], owner)
        end
    end
    if id then
        redis.call('SADD', KEYS[3], id)
        ids[#ids + 1] = id
    end
end
if #ids == 0 then
    return {}
end
return redis.call('HMGET', KEYS[2], unpack(ids))
"""


def namespace():
    return (os.environ.get("REDIS_PREFIX") or "asgi") + ":jobs"


@dataclass(frozen=True)
class Keys:
    """The Redis keys of one namespace, in one place: the library's (as its
    dramatiq/brokers/redis/dispatch.lua lays them out; our scripts touch them too) and ours
    beside them (module's docstring)."""

    namespace: str

    @property
    def queue(self):
        """The library's list: messages it put back (a dead worker's, a stopping worker's)."""
        return f"{self.namespace}:{QUEUE}"

    @property
    def messages(self):
        """The library's hash: message id -> message, until acked."""
        return f"{self.queue}.msgs"

    @property
    def heartbeats(self):
        return f"{self.namespace}:__heartbeats__"

    def acks(self, worker_id):
        """A worker's fetched-but-not-acked message ids."""
        return f"{self.namespace}:__acks__.{worker_id}.{QUEUE}"

    @property
    def ring(self):
        """The owners with messages waiting, in the order they are served."""
        return f"{self.queue}.ring"

    @property
    def lines(self):
        """The prefix of the owners' lines (the fetch script names a line from it)."""
        return f"{self.queue}.line."

    def line(self, owner):
        return self.lines + owner

    @property
    def wake(self):
        """The wake-up tokens."""
        return f"{self.queue}.wake"


def keys():
    """This process's keys (REDIS_PREFIX's namespace)."""
    return Keys(namespace())


def beat_every():
    return settings.JOBS_LEASE / 3


class FairRedisBroker(RedisBroker):
    """Dramatiq's Redis broker with the owners' lines and the wake-up token (module's
    docstring); its heartbeat time-out is JOBS_LEASE."""

    def __init__(self, *, url, namespace):
        # None of the library's default middleware: no retries (a failed job is logged, as in
        # the pool), no time limit (a think is bounded by its own budget).
        super().__init__(url=url, namespace=namespace, middleware=[Waits()],
                         heartbeat_timeout=int(settings.JOBS_LEASE * 1000))
        self.keys = Keys(namespace)
        self.enqueue_script = self.client.register_script(ENQUEUE)
        self.fetch_script = self.client.register_script(FETCH)

    def consume(self, queue_name, prefetch=1, timeout=5000):
        if queue_name.endswith(".DQ"):
            # Delayed messages (none of ours is): the library's polling consumer.
            return super().consume(queue_name, prefetch, timeout)
        return FairConsumer(self, queue_name, prefetch, timeout)

    def _should_do_maintenance(self, command):
        # The beat (FairConsumer.beat) always looks for dead workers; the other commands as
        # the library does.
        if command == "heartbeat":
            return 1
        return super()._should_do_maintenance(command)

    def do_enqueue(self, queue_name, message_id, data):
        if queue_name.endswith(".DQ"):
            return self._dispatch("enqueue")(queue_name, message_id, data)
        owner = str(json.loads(data).get("options", {}).get("owner") or "-")
        keys = self.keys
        self.enqueue_script(keys=[keys.messages, keys.ring, keys.line(owner), keys.wake],
                            args=[message_id, data, owner])

    def do_fetch(self, queue_name, prefetch):
        if queue_name.endswith(".DQ"):
            return self._dispatch("fetch")(queue_name, prefetch)
        keys = self.keys
        return self.fetch_script(
            keys=[keys.queue, keys.messages, keys.acks(self.broker_id), keys.heartbeats,
                  keys.ring],
            args=[prefetch, current_millis(), self.broker_id, keys.lines])

    def waiting(self):
        """Messages not yet fetched by a worker (every owner's line, and the library's list)."""
        keys = self.keys
        owners = self.client.lrange(keys.ring, 0, -1)
        with self.client.pipeline(transaction=False) as pipe:
            for owner in owners:
                pipe.llen(keys.line(owner.decode()))
            pipe.llen(keys.queue)
            return sum(pipe.execute())


class FairConsumer(_RedisConsumer):
    """The library's Redis consumer, woken by the send's token when idle, and beating while its
    worker is busy (module's docstring)."""

    def __init__(self, broker, queue_name, prefetch, timeout):
        # The library sleeps a back-off capped at `timeout` after an empty fetch: capped at
        # 1 ms it is next to none, and the wait is the BRPOP on the wake list instead.
        super().__init__(broker, queue_name, prefetch, 1)
        self.room = threading.Event()  # set when the worker acks: a fetch may follow
        self.next_beat = 0.0

    def beat(self):
        """The heartbeat, with the library's maintenance; a token if that put messages back."""
        self.broker.do_heartbeat(self.queue_name)
        self.next_beat = time.monotonic() + beat_every()
        keys = self.broker.keys
        if self.broker.client.llen(keys.queue):
            self.broker.client.lpush(keys.wake, "1")
        self.misses = 0

    def ack(self, message):
        try:
            super().ack(message)
        finally:
            self.room.set()

    def nack(self, message):
        try:
            super().nack(message)
        finally:
            self.room.set()

    def __next__(self):
        try:
            if time.monotonic() >= self.next_beat:
                self.beat()
            if not self.message_cache:
                if self.outstanding_message_count >= self.prefetch:
                    # Busy: no fetch (it would take a job another worker could start now);
                    # wake on the ack, or beat.
                    self.room.wait(max(0.0, self.next_beat - time.monotonic()))
                    self.room.clear()
                    return None
                if self.misses:
                    # The last look found nothing: wait for a send's token (one pushed
                    # meanwhile is still on the list) or the next beat, then look again.
                    wait = max(0.001, self.next_beat - time.monotonic())
                    self.broker.client.brpop([self.broker.keys.wake], timeout=wait)
        except Exception as error:
            import redis
            from dramatiq.errors import ConnectionClosed

            if isinstance(error, redis.ConnectionError):
                raise ConnectionClosed(error) from None
            raise
        return super().__next__()


# A worker started a job: `waited` seconds after it was sent. ops.metrics hears it (the job
# runner is on a floor below the operators' app and does not import it).
job_started = Signal()


class Waits(Middleware):
    """The time from a job's sending (a computer's turn committed) to its worker starting it:
    the histogram tessera_jobs_wait_seconds, and a line at INFO (LOG_LEVEL=INFO: the
    benchmarks read it). Wall clocks of two processes: on two machines, as close as their
    clocks are."""

    def before_process_message(self, broker, message):
        sent_at = message.options.get("sent_at")
        if sent_at is None:
            return
        waited = max(0.0, time.time() - sent_at)
        job_started.send(sender=None, waited=waited)
        logger.info("job %s started %.2f ms after it was sent", message.args[0],
                    waited * 1000, extra={"job_wait_ms": round(waited * 1000, 3)})


_brokers = {}
_brokers_lock = threading.Lock()


def broker():
    """This process's broker and its actor (one per Redis URL and namespace: the tests change
    them)."""
    key = (settings.REDIS_URL, namespace(), settings.JOBS_LEASE)
    with _brokers_lock:
        found = _brokers.get(key)
        if found is None:
            made = FairRedisBroker(url=settings.REDIS_URL, namespace=namespace())
            dramatiq.Actor(run_job, broker=made, actor_name=ACTOR, queue_name=QUEUE,
                           priority=0, options={})
            found = _brokers[key] = made
        return found


def enqueue(kind, payload):
    """Send the job as a message on its owner's line."""
    found = broker()
    found.get_actor(ACTOR).send_with_options(args=(kind.name, payload),
                                             owner=kind.owner_of(payload), sent_at=time.time())


def waiting():
    """Jobs queued in Redis and not yet taken by a worker, for ops.metrics."""
    return broker().waiting()


_loops = threading.local()

# The running Worker's thinkers (None: the job's function runs on the worker thread itself).
_thinking = {"thinkers": None}


def run_job(kind_name, payload):
    """The actor: a job and its `then`, in a worker thread of a jobs_worker. The job's function
    runs on a thinker (Worker: at the lowest CPU priority) while this thread waits; its `then`
    (the commit) and the delivery of its news run here, at the process's normal priority, so
    that on a busy host a computer's move reaches the players as soon as it is found. Never
    raises: a failed job is logged and acked, as the pool does (no retry: a computer's move
    asked again is the next turn's, an analysis is asked again by the person)."""
    from django.db import close_old_connections

    from live.outbox import Outbox

    # One loop per worker thread for its whole life, run only to deliver a job's news: the
    # channel layer keeps its Redis connections per loop.
    loop = getattr(_loops, "loop", None)
    if loop is None:
        loop = _loops.loop = asyncio.new_event_loop()
    # A worker thread lives long: a connection that broke or aged is dropped before and after
    # each job, as around a request (else they pile up: PostgreSQL's "too many clients").
    close_old_connections()
    try:
        thinkers = _thinking["thinkers"]
        if thinkers is None:
            result = jobs.perform(kind_name, payload)
        else:
            result = thinkers.submit(think, kind_name, payload).result()
        with Outbox() as outbox:
            jobs.conclude(kind_name, payload, result)
        loop.run_until_complete(outbox.deliver())
    except Exception:
        logger.exception("the job %s failed", kind_name)
    finally:
        close_old_connections()


def think(kind_name, payload):
    """A job's function, on a thinker thread (its own database connections, kept as a worker
    thread keeps its own)."""
    from django.db import close_old_connections

    close_old_connections()
    try:
        return jobs.perform(kind_name, payload)
    finally:
        close_old_connections()


class Worker:
    """One `jobs_worker` process: a Dramatiq worker on this process's broker, `threads` jobs at
    a time (one by default: the jobs are CPU-bound and the process is one CPU's worth), and
    no message fetched ahead of a free thread (an idle worker elsewhere takes it).

    The thinking, and only it, at the lowest CPU priority (`lowered`, jobs.worker.lower_priority:
    SCHED_IDLE and JOBS_CPUS): a thinker thread per worker thread, which lowered itself when it
    started, runs the job's function; the worker thread that handed it over waits, then
    commits and publishes the result (run_job) at normal priority, as do Dramatiq's consumer
    (fetch, heartbeat, ack) and the main thread. Linux keeps a scheduling policy per thread,
    new threads inherit their creator's, and an unprivileged thread cannot leave SCHED_IDLE:
    a process lowered whole committed a found move only when its CPU was idle. A job is still
    one message, acked after its `then` by the worker thread: a worker killed mid-think or
    mid-commit has its message redelivered as before."""

    def __init__(self, threads=1, lowered=False):
        self.threads = threads
        self.lowered = lowered
        self.stopping = threading.Event()

    def stop(self, *args):
        self.stopping.set()

    def run(self):
        from concurrent.futures import ThreadPoolExecutor

        from jobs import worker as lowering

        jobs.discover()
        found = broker()
        thinkers = ThreadPoolExecutor(
            max_workers=self.threads, thread_name_prefix="thinker",
            initializer=lowering.lower_priority if self.lowered else None)
        before, _thinking["thinkers"] = _thinking["thinkers"], thinkers
        for _ in range(self.threads):
            # Started with the worker, not on the first job (not waited for: at the lowest
            # priority on a busy host a thinker may take a while to run even a no-op).
            thinkers.submit(int)
        worker = dramatiq.Worker(found, queues={QUEUE}, worker_threads=self.threads,
                                 worker_timeout=1000)
        worker.queue_prefetch = self.threads
        worker.start()  # its consumers: one per queue the broker declared
        try:
            self.stopping.wait()
        finally:
            # The job in hand is finished first; a message fetched and not started goes back.
            worker.stop()
            _thinking["thinkers"] = before
            thinkers.shutdown()
