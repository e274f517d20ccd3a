"""The Redis job queue serves the owners of waiting jobs in turn (issue 21, item 1): one
account's many computer games cannot hold back another player's first move. Against the real
Redis of REDIS_URL, under a prefix of its own; the jobs are taken by a jobs_worker's loop."""
import os
import uuid

import pytest

from jobs import broker as queue
from jobs import runner as jobs

pytestmark = pytest.mark.django_db


@pytest.fixture
def redis_queue(settings, monkeypatch):
    settings.REDIS_URL = os.environ["REDIS_URL"]
    settings.JOBS_SWEEP = 3600
    name = f"fair-{uuid.uuid4().hex[:8]}"
    monkeypatch.setenv("REDIS_PREFIX", name)
    yield queue.client()
    for key in queue.client().scan_iter(f"{name}:*"):
        queue.client().delete(key)


def move(game, owner):
    return {"game": game, "takebacks": 0, "ply": 0, "owner": owner}


def test_the_worker_takes_each_owners_jobs_in_turn(redis_queue, monkeypatch):
    kind = jobs.kind_of("bot_move")
    for game in range(1, 7):
        queue.enqueue(kind, move(game, "user:1"))
    queue.enqueue(kind, move(100, "user:2"))
    queue.enqueue(kind, move(6, "user:1"))  # live (its lease): not queued twice
    taken = []
    monkeypatch.setattr(queue.Worker, "handle",
                        lambda self, raw: taken.append(jobs.json.loads(raw)["payload"]["game"]))
    worker = queue.Worker("test")
    for _ in range(7):
        worker.run(once=True)
    assert taken == [1, 100, 2, 3, 4, 5, 6]
    assert queue.take() is None
    assert not list(redis_queue.scan_iter(f"{queue.prefix()}:line:*"))


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
    assert queue.take() is not None  # what a worker does first
    assert waiting() == 2
