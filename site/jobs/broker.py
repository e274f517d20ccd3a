"""Jobs over Redis, at scale: servers push jobs on a list, `manage.py jobs_worker` processes pop
them, run them and their `then`, whose news goes out through the Redis channel layer.

Keys (under REDIS_PREFIX, like the channel layer's):

* `<prefix>:jobs:line:<owner>`   one list per owner (jobs.Kind.owner_of): JSON {"kind",
  "payload"}; LPUSH in, RPOP out
* `<prefix>:jobs:ring`   the owners with jobs waiting, each once, in the order they are served:
  a worker takes the next owner's oldest job and puts the owner back at the end if it has more
  (fair share: one account's games cannot starve another's first move). Both scripts below
  are atomic, so an owner is in the ring exactly while its line is not empty.
* `<prefix>:jobs:wake`   a token per job queued (at most 64 kept): idle workers BRPOP it, then
  take from the ring; a token with no job left costs an empty take
* `<prefix>:jobs:queue`   the single list of earlier versions, still drained
* `<prefix>:jobs:lease:<identity>`   the job is live: set (NX) when it is queued, for
  JOBS_QUEUED_LEASE seconds; once a worker holds it, for JOBS_LEASE seconds, renewed every
  third of that while it runs; deleted when it is done.

A submission whose lease exists is dropped: the job is queued or running. A worker killed
mid-job stops renewing, its lease expires within JOBS_LEASE seconds, and the next sweep
(jobs.runner.sweep: every server and worker) queues the job again. A job that waited in the
list longer than its lease may run twice; `then` is idempotent against that (a computer's move
is applied only at the ply it was asked about).
"""
import asyncio
import json
import logging
import os
import threading
import time

import redis
from django.conf import settings

from jobs import runner as jobs
from live.outbox import Outbox

logger = logging.getLogger(__name__)

_clients = {}
_clients_lock = threading.Lock()


def prefix():
    return (os.environ.get("REDIS_PREFIX") or "asgi") + ":jobs"


def queue_key():
    return f"{prefix()}:queue"


def lease_key(identity):
    return f"{prefix()}:lease:{identity}"


def client():
    """One Redis client per process (redis-py's pool is thread-safe)."""
    with _clients_lock:
        found = _clients.get(settings.REDIS_URL)
        if found is None:
            found = _clients[settings.REDIS_URL] = redis.Redis.from_url(
                settings.REDIS_URL, client_name=prefix(), health_check_interval=30)
        return found


def ring_key():
    return f"{prefix()}:ring"


def line_prefix():
    return f"{prefix()}:line:"


def wake_key():
    return f"{prefix()}:wake"


# KEYS: the ring, the owner's line, the wake list; ARGV: the owner, the job.
PUSH = """
if redis.call('LPUSH', KEYS[2], ARGV[2]) == 1 then
    redis.call('LPUSH', KEYS[1], ARGV[1])
end
redis.call('LPUSH', KEYS[3], '1')
redis.call('LTRIM', KEYS[3], 0, 63)
"""

# KEYS: the ring; ARGV: the lines' key prefix. The next owner's oldest job, or nil. (It names
# the owner's line itself: fine on one Redis server, not on a cluster.)
TAKE = """
local owner = redis.call('RPOP', KEYS[1])
if not owner then
    return nil
end
local line = ARGV[1] .. owner
local job = redis.call('RPOP', line)
if redis.call('LLEN', line) > 0 then
    redis.call('LPUSH', KEYS[1], owner)
end
return job
"""

_scripts = {}


def script(text):
    r = client()
    found = _scripts.get((id(r), text))
    if found is None:
        found = _scripts[(id(r), text)] = r.register_script(text)
    return found


def enqueue(kind, payload):
    """Queue the job in its owner's line unless it is live (its lease exists)."""
    r = client()
    identity = kind.identity(payload)
    if r.set(lease_key(identity), "queued", nx=True, ex=int(settings.JOBS_QUEUED_LEASE)):
        owner = kind.owner_of(payload)
        script(PUSH)(keys=[ring_key(), line_prefix() + owner, wake_key()],
                     args=[owner, json.dumps({"kind": kind.name, "payload": payload})])


def take():
    """The next job to run (the owners in turn), or None when none waits."""
    return script(TAKE)(keys=[ring_key()], args=[line_prefix()])


def waiting():
    """Jobs queued in Redis and not yet taken by a worker (every owner's line), for
    ops.metrics."""
    r = client()
    owners = r.lrange(ring_key(), 0, -1)
    with r.pipeline(transaction=False) as pipe:
        for owner in owners:
            pipe.llen(line_prefix() + owner.decode())
        pipe.llen(queue_key())
        return sum(pipe.execute())


def leased(identity):
    """Whether the job is queued or running somewhere."""
    return bool(client().exists(lease_key(identity)))


class Worker:
    """One `jobs_worker` process: jobs one at a time, and the sweep every JOBS_SWEEP seconds."""

    def __init__(self, name):
        self.name = name
        self.stopping = threading.Event()
        # One loop for the whole life of the worker, run only to deliver a job's news: the
        # channel layer keeps its Redis connections per loop.
        self.loop = asyncio.new_event_loop()

    def stop(self, *args):
        self.stopping.set()

    def run(self, once=False):
        jobs.discover()
        next_sweep = 0.0
        while not self.stopping.is_set():
            if time.monotonic() >= next_sweep:
                self.sweep()
                next_sweep = time.monotonic() + settings.JOBS_SWEEP
            raw = take()
            if raw is None:
                # Nothing waits: sleep until a job is queued (its token), at most a second.
                found = client().brpop([wake_key(), queue_key()], timeout=1)
                if found is None or found[0].decode() != queue_key():
                    continue
                raw = found[1]
            self.handle(raw)
            if once:
                return

    def sweep(self):
        try:
            jobs.sweep()
        except Exception:
            logger.exception("the jobs worker's sweep failed")

    def handle(self, raw):
        try:
            message = json.loads(raw)
            kind = jobs.kind_of(message["kind"])
            payload = message["payload"]
        except (ValueError, KeyError, TypeError):
            logger.error("dropped a job that is not one: %r", raw[:200])
            return
        identity = kind.identity(payload)
        lease = lease_key(identity)
        r = client()
        r.set(lease, self.name, px=int(settings.JOBS_LEASE * 1000))
        done = threading.Event()
        renewer = threading.Thread(target=self._renew, args=(lease, done), daemon=True)
        renewer.start()
        try:
            result = jobs.perform(kind.name, payload)
            with Outbox() as outbox:
                jobs.conclude(kind.name, payload, result)
            self.loop.run_until_complete(outbox.deliver())
        except Exception:
            logger.exception("the job %s failed", identity)
        finally:
            done.set()
            renewer.join()
            r.delete(lease)
            from django.db import connections

            for connection in connections.all(initialized_only=True):
                connection.close_if_unusable_or_obsolete()

    def _renew(self, lease, done):
        while not done.wait(settings.JOBS_LEASE / 3):
            try:
                client().set(lease, self.name, px=int(settings.JOBS_LEASE * 1000))
            except redis.RedisError:
                logger.warning("could not renew the lease %s", lease)
