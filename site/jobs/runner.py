"""Work that runs in worker processes: never on the server's event loop, never in a request
thread. The computer players' thinking is one kind of job; analysis is another.

    from jobs.runner import job, submit

    @job("analysis")                      # registers the kind when its module is imported
    def analyse(payload: dict) -> None:   # runs in a worker process, Django set up, database
        ...                               # at hand; writes its own results

    submit("analysis", {"analysis": 42})  # from sync code: queued once the transaction commits

Modules holding jobs are named `jobs` (or imported by one): every worker imports each app's
`jobs` module (autodiscover_modules, like `admin`), so a kind is known wherever it runs.

A job's function must not talk to the channel layer: in the embedded default the worker is a
separate process and the in-memory layer does not reach the sockets. What must be told comes
back as the function's return value (JSON-able) and goes to `then(payload, result)`, which
runs where the channel layer reaches: in the server process (on a database thread, with an
outbox, in `lane(payload)` when given: e.g. a game's lane for a move), or in the Redis
worker itself (its news goes through Redis).

Where jobs run (settings.JOBS_MODE, alias BOT_JOBS):

* "pool" (default without REDIS_URL): a few spawned worker processes at the lowest CPU
  priority, owned by the serving process (jobs.pool). A process that does not serve (a
  management command) has no pool: what it submits is left to the kinds' sweeps.
* "redis" (default with REDIS_URL): Dramatiq messages over Redis; `manage.py jobs_worker`
  processes (Dramatiq workers) run them and their `then` (jobs.broker).
* "eager": at once, in the submitting process (site tests: `then` runs in line).

Fair share: a kind may declare `owner(payload)`, whose job it is (a computer's move: the
person playing it). The workers take the waiting jobs owner by owner in turn, one each, not in
the order they came: one account's games, analyses and hints cannot starve another's first
move (the pool keeps a FairQueue; jobs.broker one line per owner and a ring of owners, under
Dramatiq's messages).

A job lost with a killed worker:

* Redis: Dramatiq gives it to another worker (its ack and heartbeat; jobs.broker). Nothing of
  ours sweeps.
* pool (the embedded default, no library: see docs/design.md): a kind may declare
  `pending()`, the payloads that should be in work now (e.g. the games where a computer is to
  move); every serving process resubmits them every JOBS_SWEEP seconds (on a thread of its
  own), and a job the pool already holds is not queued twice (its `key` names it). The same
  lists heal a server restarted while jobs were in hand.

`then` must be idempotent against a stale or repeated result (a job may run twice: sent
twice, or redelivered after its worker died having answered): the bots' `then` applies a
move only if the game is still at the ply it was asked about.
"""
import hashlib
import json
import logging
from collections import deque
from dataclasses import dataclass
from typing import Callable

from django.conf import settings
from django.db import transaction

from live import outbox

logger = logging.getLogger(__name__)

MODES = ("pool", "redis", "eager")


@dataclass(frozen=True)
class Kind:
    name: str
    run: Callable[[dict], object]
    key: Callable[[dict], str] | None = None
    then: Callable[[dict, object], None] | None = None
    lane: Callable[[dict], tuple] | None = None
    pending: Callable[[], list] | None = None
    owner: Callable[[dict], str] | None = None

    def identity(self, payload):
        """Names the job: two submissions with one identity run once at a time."""
        if self.key is not None:
            return f"{self.name}:{self.key(payload)}"
        text = json.dumps(payload, sort_keys=True, separators=(",", ":"))
        return f"{self.name}:{hashlib.sha1(text.encode()).hexdigest()}"

    def owner_of(self, payload):
        """Whose job it is: the workers serve the owners with jobs waiting in turn, a job each
        (jobs.pool, jobs.broker). A kind without `owner` is one owner: all its jobs together
        get one turn."""
        if self.owner is not None:
            return str(self.owner(payload))
        return f"kind:{self.name}"


class FairQueue:
    """Jobs waiting for a worker, one line per owner; `pop` serves the owners in turn, so one
    account's many games cannot hold back another's first move (the embedded pool's queue;
    jobs.broker keeps the same order in Redis)."""

    def __init__(self):
        self.lines = {}  # owner -> deque, in the order the owners are served (dicts keep it)

    def push(self, owner, item):
        """Wait in `owner`'s line; `pop` returns (owner, item)."""
        self.lines.setdefault(owner, deque()).append(item)

    def pop(self, running=None):
        """The oldest job of the next owner (None when none waits), who then goes to the back.
        `running` ({owner: jobs running}): the next owner is the first in turn of those with
        the fewest jobs running, so a newcomer's first job takes the next free worker."""
        if not self.lines:
            return None
        owner = min(self.lines, key=lambda name: (running or {}).get(name, 0))
        line = self.lines.pop(owner)
        item = line.popleft()
        if line:
            self.lines[owner] = line
        return owner, item

    def clear(self):
        self.lines.clear()

    def __len__(self):
        return sum(len(line) for line in self.lines.values())


_kinds = {}
_discovered = {"done": False}


def job(kind, *, key=None, then=None, lane=None, pending=None, owner=None):
    """Register the decorated function as the job `kind` (see the module's docstring)."""
    def register(fn):
        known = _kinds.get(kind)
        if known is not None and (known.run.__module__, known.run.__qualname__) != (
                fn.__module__, fn.__qualname__):
            raise ValueError(f"two jobs are called {kind!r}: {known.run.__qualname__} and "
                             f"{fn.__qualname__}")
        _kinds[kind] = Kind(kind, fn, key, then, lane, pending, owner)
        return fn
    return register


def discover():
    """Import every app's `jobs` module, once, so that every kind is registered."""
    if not _discovered["done"]:
        from django.utils.module_loading import autodiscover_modules

        autodiscover_modules("jobs")
        _discovered["done"] = True


def kind_of(name):
    discover()
    try:
        return _kinds[name]
    except KeyError:
        raise ValueError(f"no job is called {name!r}") from None


def kinds():
    discover()
    return list(_kinds.values())


def mode():
    chosen = settings.JOBS_MODE
    if chosen not in MODES:
        raise ValueError(f"JOBS_MODE is one of {', '.join(MODES)}, not {chosen!r}")
    return chosen


def submit(kind, payload):
    """Queue the job once the current transaction commits (at once outside one). The payload
    must be JSON: it crosses processes."""
    found = kind_of(kind)
    json.dumps(payload)  # a payload that cannot cross fails here, in the caller
    transaction.on_commit(lambda: _queue(found, payload))


def _queue(kind, payload):
    if mode() == "redis":
        # A jobs_worker is another process, which publishes the news of its result itself:
        # queued before this work's own news had left, a computer's reply could reach a socket
        # before the move it answers. In the pool, the job's result is stored in the game's
        # lane, which this work holds until its news has left; eager runs in line.
        outbox.after_sent(lambda: enqueue(kind, payload))
    else:
        enqueue(kind, payload)


def enqueue(kind, payload):
    """Hand the job to this process's backend now (no transaction to wait for)."""
    chosen = mode()
    try:
        if chosen == "eager":
            run_here(kind, payload)
        elif chosen == "pool":
            from jobs import pool

            pool.enqueue(kind, payload)
        else:
            from jobs import broker

            broker.enqueue(kind, payload)
    except Exception:
        # The change that submitted it is committed. Pool: the kind's sweep tries again.
        # Redis unreachable: lost (docs/operations.md); /readyz says so meanwhile.
        logger.exception("could not queue the job %s", kind.identity(payload))


def in_work(kind_name, key):
    """Whether the job of `kind_name` whose key is `key` is queued or running in this process's
    pool (pool mode; elsewhere nothing sweeps, and nothing is known). A sweep asks this before
    building a payload, which may cost a replay of the game."""
    if mode() == "pool":
        from jobs import pool

        return f"{kind_name}:{key}" in pool.working()
    return False


def perform(kind_name, payload):
    """Run a job's function (in a worker process); returns its result for `then`."""
    return kind_of(kind_name).run(payload)


def conclude(kind_name, payload, result):
    """Run a job's `then`, where the channel layer reaches (on a database thread of the server,
    or in a Redis worker)."""
    found = kind_of(kind_name)
    if found.then is not None:
        found.then(payload, result)


def run_here(kind, payload):
    """Eager mode: the job and its `then`, in this process, now."""
    result = perform(kind.name, payload)
    conclude(kind.name, payload, result)


def sweep(now=None):
    """Resubmit what every kind says should be in work (jobs already in the pool are not
    queued twice). Runs in every serving process of the pool mode (jobs.apps)."""
    for found in kinds():
        if found.pending is None:
            continue
        try:
            payloads = list(found.pending())
        except Exception:
            logger.exception("could not list the pending %s jobs", found.name)
            continue
        for payload in payloads:
            enqueue(found, payload)
