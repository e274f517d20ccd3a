"""The jobs on Dramatiq over Redis (jobs.broker): the owners of waiting jobs are served in turn
(issue 21, item 1: one account's many computer games cannot hold back another player's first
move), and a worker that died holding a job has it redelivered by the library's heartbeat and
maintenance (issue 25: no lease or sweep of ours). Against the real Redis of REDIS_URL, under
a prefix of its own; the messages are fetched by the consumer a jobs_worker runs."""
import os
import threading
import uuid

import pytest
from dramatiq.message import Message

from jobs import broker as queue
from jobs import runner as jobs

pytestmark = pytest.mark.django_db


@pytest.fixture
def redis_queue(settings, monkeypatch):
    settings.REDIS_URL = os.environ["REDIS_URL"]
    settings.JOBS_LEASE = 10
    name = f"fair-{uuid.uuid4().hex[:8]}"
    monkeypatch.setenv("REDIS_PREFIX", name)
    found = queue.broker()
    yield found
    for key in found.client.scan_iter(f"{name}:*"):
        found.client.delete(key)


def move(game, owner):
    return {"game": game, "takebacks": 0, "ply": 0, "owner": owner}


def game_of(message):
    kind_name, payload = message.args
    assert kind_name == "bot_move"
    return payload["game"]


def test_the_worker_takes_each_owners_jobs_in_turn(redis_queue):
    kind = jobs.kind_of("bot_move")
    for game in range(1, 7):
        queue.enqueue(kind, move(game, "user:1"))
    queue.enqueue(kind, move(100, "user:2"))
    consumer = redis_queue.consume(queue.QUEUE, prefetch=1)
    taken = []
    for _ in range(7):
        message = next(consumer)
        taken.append(game_of(message))
        consumer.ack(message)
    assert taken == [1, 100, 2, 3, 4, 5, 6]
    assert redis_queue.do_fetch(queue.QUEUE, 1) == []
    assert not list(redis_queue.client.scan_iter(f"{queue.keys().lines}*"))
    # Acked: nothing kept for a redelivery.
    assert redis_queue.client.hlen(queue.keys().messages) == 0


def test_a_busy_worker_fetches_nothing_more(redis_queue, settings):
    """Prefetch 1: while its job runs, a worker leaves the next one to a free worker."""
    settings.JOBS_LEASE = 0.3  # a busy consumer waits for its ack at most a beat (0.1 s)
    kind = jobs.kind_of("bot_move")
    queue.enqueue(kind, move(1, "user:1"))
    queue.enqueue(kind, move(2, "user:2"))
    busy = redis_queue.consume(queue.QUEUE, prefetch=1)
    first = next(busy)
    assert game_of(first) == 1
    assert next(busy) is None  # its worker has not acked: it only beats
    other = queue.FairRedisBroker(url=os.environ["REDIS_URL"], namespace=queue.namespace())
    assert game_of(Message.decode(other.do_fetch(queue.QUEUE, 1)[0])) == 2


def test_a_dead_workers_job_is_redelivered_by_the_library(redis_queue):
    kind = jobs.kind_of("bot_move")
    queue.enqueue(kind, move(7, "user:1"))
    # A worker (a broker of its own: its own id, ack set and heartbeat) takes the job...
    doomed = queue.FairRedisBroker(url=os.environ["REDIS_URL"], namespace=queue.namespace())
    assert game_of(Message.decode(doomed.do_fetch(queue.QUEUE, 1)[0])) == 7
    survivor = redis_queue.consume(queue.QUEUE, prefetch=1)
    survivor.beat()
    # ...and while its heartbeat is fresh, the job is its own.
    assert survivor.broker.do_fetch(queue.QUEUE, 1) == []
    # It dies: its last beat is older than the time-out (JOBS_LEASE), as a killed process's.
    keys = queue.keys()
    redis_queue.client.zadd(keys.heartbeats, {doomed.broker_id: 0})
    survivor.beat()  # the library's maintenance, run by the live worker's beat
    message = next(survivor)
    assert game_of(message) == 7
    survivor.ack(message)
    assert redis_queue.client.hlen(keys.messages) == 0
    assert not redis_queue.client.exists(keys.acks(doomed.broker_id))


def test_metrics_count_the_jobs_waiting_in_redis(redis_queue, settings, client):
    settings.JOBS_MODE = "redis"
    settings.METRICS_TOKEN, settings.METRICS_ALLOWED_ADDRESSES = "fair-queue-token", []

    def waiting():
        text = client.get("/metrics", HTTP_AUTHORIZATION="Bearer fair-queue-token").content
        found = [line for line in text.decode().splitlines()
                 if line.startswith("tessera_jobs_redis_waiting ")]
        return float(found[0].split()[1])

    assert waiting() == 0
    kind = jobs.kind_of("bot_move")
    for game, owner in ((1, "user:1"), (2, "user:1"), (3, "user:2")):
        queue.enqueue(kind, move(game, owner))
    assert waiting() == 3
    assert redis_queue.do_fetch(queue.QUEUE, 1)  # what a worker does first
    assert waiting() == 2


answered = []
answered_event = threading.Event()


@jobs.job("test_fair_echo", owner=lambda payload: payload["owner"],
          then=lambda payload, result: (answered.append(result), answered_event.set()))
def echo(payload):
    return {"echo": payload["n"]}


def test_a_jobs_worker_runs_the_job_and_its_then_and_counts_its_wait(redis_queue):
    """The Dramatiq worker of `manage.py jobs_worker` (jobs.broker.Worker), in a thread: the
    job's result reaches its `then`, the message is acked, its wait is in the histogram."""
    from ops import metrics

    def observed():
        return metrics.jobs_wait._sum.get(), sum(b.get() for b in metrics.jobs_wait._buckets)

    before = observed()
    worker = queue.Worker()
    thread = threading.Thread(target=worker.run, daemon=True)
    thread.start()
    try:
        answered.clear()
        answered_event.clear()
        queue.enqueue(jobs.kind_of("test_fair_echo"), {"n": 5, "owner": "user:9"})
        assert answered_event.wait(60), "the worker never answered"
        assert answered == [{"echo": 5}]
    finally:
        worker.stop()
        thread.join(60)
    assert not thread.is_alive()
    assert redis_queue.client.hlen(queue.keys().messages) == 0
    assert observed()[1] == before[1] + 1


# A job kind of a `manage.py jobs_worker` started by the test below: its function and its
# `then` note the scheduling policy of the thread that runs them, `then` into a file.
PROBE = """
import json, os, threading, django
django.setup()
from django.core.management import call_command
from jobs import runner as jobs

def policy():
    return os.sched_getscheduler(threading.get_native_id())

def noted(payload, result):
    with open(os.environ["PROBE_OUT"] + ".part", "w") as out:
        json.dump({"think": result, "then": policy()}, out)
    os.rename(os.environ["PROBE_OUT"] + ".part", os.environ["PROBE_OUT"])

jobs.job("test_priority_probe", then=noted)(lambda payload: policy())
call_command("jobs_worker", verbosity=0)
"""


@jobs.job("test_priority_probe")
def probe(payload):
    return None  # sent from here; the worker's own kind runs (PROBE)


def test_a_jobs_worker_thinks_at_idle_priority_and_commits_at_normal_priority(redis_queue,
                                                                              tmp_path):
    """`manage.py jobs_worker` runs a job's function at SCHED_IDLE and its `then` (the commit
    and the news of a computer's move) at the normal policy: a process lowered whole stored
    and sent a found move only when the CPU was otherwise idle."""
    import json
    import signal
    import subprocess
    import sys
    import time

    from siteservers import ROOT, die_with_parent

    out = tmp_path / "policies.json"
    env = {**os.environ, "PROBE_OUT": str(out), "JOBS_LEASE": "10",
           "DJANGO_SETTINGS_MODULE": "tessera.settings"}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT / "site"), env.get("PYTHONPATH")]))
    worker = subprocess.Popen([sys.executable, "-c", PROBE], cwd=ROOT, env=env,
                              stdout=open(tmp_path / "worker.log", "ab"),
                              stderr=subprocess.STDOUT, preexec_fn=die_with_parent)
    try:
        queue.enqueue(jobs.kind_of("test_priority_probe"), {"n": 1})
        deadline = time.monotonic() + 120  # a bound on a busy machine, not a measure
        while not out.exists():
            assert worker.poll() is None, (tmp_path / "worker.log").read_text()
            assert time.monotonic() < deadline, "the worker never concluded the job"
            time.sleep(0.1)
        noted = json.loads(out.read_text())
    finally:
        worker.send_signal(signal.SIGTERM)
        worker.wait(60)
    assert noted == {"think": os.SCHED_IDLE, "then": os.SCHED_OTHER}
