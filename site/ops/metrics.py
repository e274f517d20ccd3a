"""Prometheus metrics of this process (docs/operations.md lists them).

With several processes (Daphne behind a proxy, job workers) set PROMETHEUS_MULTIPROC_DIR to an
empty directory shared by all processes of one machine, emptied before they start: each process
then writes its values to files there and /metrics, answered by any one of them, sums them all
(prometheus-client's multiprocess mode). Without it each process reports only itself.
"""
import asyncio
import os
import time

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
    multiprocess,
)

from ops.context import current_message

# The live path's figures are milliseconds (docs/design.md): buckets from 1 ms to 5 s.
LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5)
SOCKETS_EVERY = 5  # seconds between refreshes of the open-socket gauge

open_sockets = Gauge("tessera_open_sockets", "Open websockets, by kind (consumer class)",
                     ["kind"], multiprocess_mode="livesum")
actions_stored = Counter("tessera_actions_stored", "Game actions stored (moves, by people "
                         "and computers)")
action_commit_seconds = Histogram(
    "tessera_action_commit_seconds",
    "From a socket message's receipt to the commit of the action it made",
    buckets=LATENCY_BUCKETS)
action_broadcast_seconds = Histogram(
    "tessera_action_broadcast_seconds",
    "From a socket message's receipt to the action's news handed to the channel layer",
    buckets=LATENCY_BUCKETS)
socket_errors = Counter("tessera_socket_errors", "Error answers to socket messages, by code",
                        ["code"])
http_errors = Counter("tessera_http_errors", "HTTP answers of 400 or more, by status",
                      ["status"])
login_failures = Counter("tessera_login_failures", "Failed log-ins")
login_lockouts = Counter("tessera_login_lockouts",
                         "Log-ins refused by the throttle (an account or address locked out)")

# How busy the process is (refreshed with the socket count). Per process, summed by the live
# processes in multiprocess mode, except the Redis queue, which every process sees whole.
db_jobs_waiting = Gauge("tessera_db_jobs_waiting",
                        "Database jobs waiting for a thread of their pool (live.lanes)",
                        ["pool"], multiprocess_mode="livesum")
db_threads_busy = Gauge("tessera_db_threads_busy",
                        "Database threads running a job, by pool (read, write, aside)",
                        ["pool"], multiprocess_mode="livesum")
lane_changes_waiting = Gauge("tessera_lane_changes_waiting",
                             "Changes waiting behind an earlier change of the same game",
                             multiprocess_mode="livesum")
jobs_waiting = Gauge("tessera_jobs_waiting",
                     "Jobs (computer moves, analyses) waiting in this process's line for one of "
                     "its workers (JOBS_MODE=pool)", multiprocess_mode="livesum")
jobs_queued_in_redis = Gauge("tessera_jobs_redis_waiting",
                             "Jobs queued in Redis for the jobs_worker processes (JOBS_MODE=redis)",
                             multiprocess_mode="max")
# From a job's sending to a jobs_worker starting it (JOBS_MODE=redis; jobs.broker.Waits): the
# issue's target is 10 ms at p99 for a computer's turn.
jobs_wait = Histogram("tessera_jobs_wait_seconds",
                      "Seconds from a job's sending to a jobs_worker starting it (JOBS_MODE=redis)",
                      buckets=(0.001, 0.002, 0.003, 0.005, 0.0075, 0.01, 0.015, 0.025, 0.05, 0.1,
                               0.25, 0.5, 1, 2.5, 5, 10))
jobs_running = Gauge("tessera_jobs_running", "Jobs given to this process's own workers",
                     multiprocess_mode="livesum")

# The periodic work of the process (live.process: heartbeat, keep-alive, sweeps; this module's
# refresh): per run, how long it held the event loop in all, its longest step, and its time on
# database threads. Buckets from 0.1 ms: a run is meant to hold the loop for a few ms at most.
PERIODIC_BUCKETS = (0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1,
                    0.25, 1)
periodic_held_seconds = Histogram(
    "tessera_periodic_held_seconds",
    "Per run of a periodic work: seconds its steps held the event loop, in all", ["work"],
    buckets=PERIODIC_BUCKETS)
periodic_step_seconds = Histogram(
    "tessera_periodic_longest_step_seconds",
    "Per run of a periodic work: its longest step on the event loop", ["work"],
    buckets=PERIODIC_BUCKETS)
periodic_database_seconds = Histogram(
    "tessera_periodic_database_seconds",
    "Per run of a periodic work: seconds its jobs ran on database threads", ["work"],
    buckets=PERIODIC_BUCKETS)

_state = {"task": None, "kinds": set()}


def multiprocess_dir():
    return os.environ.get("PROMETHEUS_MULTIPROC_DIR") or None


def exposition():
    """(body, content type) of every metric: this process's, or every process's of the
    machine in multiprocess mode."""
    if multiprocess_dir():
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)
    else:
        registry = REGISTRY
    return generate_latest(registry), CONTENT_TYPE_LATEST


# -- hooks of other apps (one line each there) --------------------------------------------------

def socket_error(code):
    socket_errors.labels(code).inc()


def action_stored():
    actions_stored.inc()
    message = current_message.get()
    if message is not None:
        message.stored = True
        action_commit_seconds.observe(time.perf_counter() - message.received)


def change_delivered():
    """A socket's change has returned: committed, and its news handed to the channel layer."""
    message = current_message.get()
    if message is not None and message.stored:
        action_broadcast_seconds.observe(time.perf_counter() - message.received)


def periodic_ran(work, held, longest, database):
    periodic_held_seconds.labels(work).observe(held)
    periodic_step_seconds.labels(work).observe(longest)
    periodic_database_seconds.labels(work).observe(database)


def http_answered(status):
    if status >= 400:
        http_errors.labels(str(status)).inc()


# -- signals and the process's life --------------------------------------------------------------

def listen():
    from axes.signals import user_locked_out
    from django.contrib.auth.signals import user_login_failed
    from jobs.broker import job_started
    from live.process import periodic_ran as ran
    from live.sockets import message_received, refused
    from play.signals import change_answered, game_changed

    from ops import context

    game_changed.connect(_game_changed, dispatch_uid="ops.metrics")
    # live and play do not import ops: it hears them.
    message_received.connect(lambda sender, socket, **kwargs: context.message_received(socket),
                             dispatch_uid="ops.context", weak=False)
    refused.connect(lambda sender, code, **kwargs: socket_error(code),
                    dispatch_uid="ops.metrics", weak=False)
    change_answered.connect(lambda sender, **kwargs: change_delivered(),
                            dispatch_uid="ops.metrics", weak=False)
    ran.connect(lambda sender, work, held, longest, database, **kwargs:
                periodic_ran(work, held, longest, database),
                dispatch_uid="ops.metrics", weak=False)
    job_started.connect(lambda sender, waited, **kwargs: jobs_wait.observe(waited),
                        dispatch_uid="ops.metrics", weak=False)
    user_login_failed.connect(_login_failed, dispatch_uid="ops.metrics")
    user_locked_out.connect(_locked_out, dispatch_uid="ops.metrics")


def _game_changed(sender, game, event, **kwargs):
    # After the commit, on the thread that made the change (play.signals).
    if event == "action":
        action_stored()


def _login_failed(sender, **kwargs):
    login_failures.inc()


def _locked_out(sender, **kwargs):
    login_lockouts.inc()


def count_sockets():
    from live import registry

    count_load()
    kinds = {kind.__name__: count for kind, count in registry.counts_by_kind().items()}
    for kind in _state["kinds"]:
        kinds.setdefault(kind, 0)  # a kind with none left reads 0, not its last count
    _state["kinds"].update(kinds)
    for kind, count in kinds.items():
        open_sockets.labels(kind).set(count)


def count_load():
    """Cheap figures of this process, no I/O: safe on the event loop."""
    from jobs import runner as jobs
    from live import lanes

    load = lanes.load()
    for pool in ("read", "write", "aside"):
        db_jobs_waiting.labels(pool).set(load["waiting"].get(pool, 0))
        db_threads_busy.labels(pool).set(load["busy"].get(pool, 0))
    lane_changes_waiting.set(load["lane_waiting"])
    if jobs.mode() == "pool":
        from jobs import pool

        waiting, running = pool.load()
        jobs_waiting.set(waiting)
        jobs_running.set(running)


def count_redis_jobs():
    """At a scrape, on the view's thread (never the event loop's: it asks Redis)."""
    from jobs import runner as jobs

    if jobs.mode() != "redis":
        return
    import redis

    from jobs import broker as queue

    try:
        jobs_queued_in_redis.set(queue.waiting())
    except redis.RedisError:
        # Redis down: /readyz says so; the scrape still answers with the rest.
        jobs_queued_in_redis.set(float("nan"))


def start(loop):
    from live import process

    async def refresh():
        while True:
            with process.holding("ops.metrics.count_sockets"):
                count_sockets()
            await asyncio.sleep(SOCKETS_EVERY)
    _state["task"] = loop.create_task(refresh())


def stop():
    if _state["task"] is not None:
        _state["task"].cancel()
    if multiprocess_dir():
        # Its live gauges (open sockets) stop counting; its counters stay in the sums.
        multiprocess.mark_process_dead(os.getpid())
