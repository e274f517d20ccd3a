"""The computer analysis at scale: two Daphne processes on PostgreSQL and Redis, the analysis
job on the Redis list, computed by a `manage.py jobs_worker` process, slice after slice. A person asks on one
server; the worker stores the estimates ply by ply; the other server shows them, and a
second request (on either server) starts nothing."""
import json
import time
import urllib.request
import uuid

import pytest

from siteservers import start_jobs_worker, stop_process
from tests.blundered import STORE_GAME, blundered_game
from tests.ws.live_client import WebSession
from tests.ws.messages import WAIT

pytestmark = pytest.mark.scale

PASSWORD = "scale-analysis-pass-4471"
# How long the worker may take for a whole small game (a few seconds of CPU): a bound on the
# wait, not a measure of speed.
ANALYSIS_WAIT = 180


@pytest.fixture
def jobs_worker(scale_servers, tmp_path):
    """One `manage.py jobs_worker` process on the servers' database and Redis, analysing one
    position per slice (each slice a job it queues on Redis for the next)."""
    process = start_jobs_worker({**scale_servers[0].env, "ANALYSIS_SLICE": "0"},
                                tmp_path / "worker.log")
    yield process
    stop_process(process)


def analysis_json(server, game_id):
    with urllib.request.urlopen(f"{server.url}/game/{game_id}/analysis.json",
                                timeout=WAIT) as response:
        return json.loads(response.read())


def test_a_jobs_worker_computes_a_requested_analysis(scale_servers, jobs_worker):
    first, second = scale_servers
    # The servers queue jobs on Redis: only a jobs_worker runs them.
    assert first.shell("from django.conf import settings; print(settings.JOBS_MODE)").split() == ["redis"]
    players = [f"an{uuid.uuid4().hex[:6]}" for _ in range(3)]
    for name in players:
        first.create_user(name, PASSWORD)
    actions, blunder = blundered_game("hadron", {"size": 5})
    pk = int(first.shell(STORE_GAME.format(names=tuple(players[:2]), game="hadron",
                                           options={"size": 5}, actions=actions)).split()[-1])
    session = WebSession(first)
    session.log_in(players[2], PASSWORD)
    asked = session.post_json(f"/game/{pk}/analysis.json")
    assert asked["status"] == "queued" and asked["plies"] == len(actions)

    seen = set()
    deadline = time.monotonic() + ANALYSIS_WAIT
    while True:
        answer = analysis_json(second, pk)
        seen.add((answer["status"], len(answer["positions"])))
        if answer["status"] == "done" or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    assert answer["status"] == "done", (
        f"no analysis after {ANALYSIS_WAIT} s; seen {sorted(seen)}; worker exit "
        f"{jobs_worker.poll()}")
    assert [p["ply"] for p in answer["positions"]] == list(range(len(actions) + 1))
    assert any(mark["ply"] == blunder and mark["symbol"] == "??" for mark in answer["marks"])
    # Asked again on the other server: the stored analysis, nothing new queued.
    other = WebSession(second)
    other.log_in(players[0], PASSWORD)
    again = other.post_json(f"/game/{pk}/analysis.json")
    assert again["status"] == "done" and again["positions"] == answer["positions"]
    assert first.shell(
        "from analysis.models import Analysis, Estimate\n"
        f"print(Analysis.objects.filter(game_id={pk}).count(),"
        f" Estimate.objects.filter(analysis__game_id={pk}).count())").split() == [
            "1", str(len(actions) + 1)]
