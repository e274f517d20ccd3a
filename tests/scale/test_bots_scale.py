"""Computer players at scale: two Daphne processes on PostgreSQL and Redis, jobs on a Redis list
served by `manage.py jobs_worker` processes, whose moves reach the sockets of both servers
through the Redis channel layer. A worker killed mid-think loses nothing: its heartbeat stops,
Dramatiq gives its unacked message to the next worker (no sweep of ours), and the game gets its
move once."""
import asyncio
import json
import os
import signal
import time
import uuid

import pytest
import redis

from games import bots as engine_bots
from jobs.broker import Keys
from siteservers import WORKER_ENV, start_jobs_worker, stop_process
from tests.ws.bot_client import SMALLEST, computer_form, play_to_the_end, start_against_computer
from tests.ws.live_client import LiveSocket, WebSession
from tests.ws.messages import WAIT

pytestmark = pytest.mark.scale

PASSWORD = "scale-bots-pass-6620"


class BotWorker:
    def __init__(self, server, log_path, **env):
        self.process = start_jobs_worker({**server.env, **WORKER_ENV, **env}, log_path)
        self.name = None

    def stop(self):
        stop_process(self.process)


@pytest.fixture
def workers(tmp_path):
    started = []

    def start(server, **env):
        worker = BotWorker(server, tmp_path / f"worker{len(started)}.log", **env)
        started.append(worker)
        return worker

    yield start
    for worker in started:
        worker.stop()


def person(server):
    name = f"human{uuid.uuid4().hex[:6]}"
    server.create_user(name, PASSWORD)
    session = WebSession(server)
    session.log_in(name, PASSWORD)
    return name, session


def game_row(server, game_id):
    return json.loads(server.shell(
        "import json\nfrom play.models import Game\n"
        f"game = Game.objects.get(pk={game_id})\n"
        "print(json.dumps({'ply': game.ply_count, 'status': game.status,\n"
        "                  'movers': list(game.action_rows.order_by('ply')"
        ".values_list('player', flat=True))}))"))


def test_a_game_against_the_computer_over_redis_with_a_spectator_on_the_other_server(
        scale_servers, workers):
    first, second = scale_servers
    workers(first)
    name, session = person(first)
    path = start_against_computer(session, **computer_form("hadron", SMALLEST["hadron"],
                                                           side="second"))

    async def scenario():
        watcher = LiveSocket(second, path, None, "spectator on the other server")
        seen = list((await watcher.open())["actions"])
        end, actions = await play_to_the_end(first, path, session.cookie("sessionid"), name,
                                             spectator=False)
        await watcher.catch_up(seen, len(actions))
        await watcher.close()
        return end, actions, seen

    end, actions, seen = asyncio.run(scenario())
    assert end["reason"] == "normal" and seen == actions
    row = game_row(first, int(path.strip("/").split("/")[-1]))
    assert row["status"] == "finished" and len(row["movers"]) == len(actions)


def test_a_worker_killed_mid_think_loses_nothing_and_the_move_is_made_once(scale_servers,
                                                                            workers):
    first, _ = scale_servers
    name, session = person(first)
    # The strongest level on a clock, on the largest Tripen board, a one-minute clock: it thinks for
    # its clock's budget (seconds), long enough to be killed in the middle.
    path = start_against_computer(session, **computer_form(
        "tripen", {"size": 13}, level=engine_bots.CLOCK_TOP_LEVEL, side="second", minutes=1))
    game_id = int(path.strip("/").split("/")[-1])
    layer = redis.Redis.from_url(os.environ["REDIS_URL"])
    keys = Keys(f"{first.env['REDIS_PREFIX']}:jobs")

    def messages_for_the_game():
        """The game's messages Dramatiq keeps (until acked), by id."""
        return {key: data for key, data in layer.hgetall(keys.messages).items()
                if json.loads(data)["args"][1]["game"] == game_id}

    def holders(message_id):
        return [key for key in layer.scan_iter(keys.acks("*"))
                if layer.sismember(key, message_id)]

    # Queued, no worker yet: one message, held by nobody.
    (message_id,) = messages_for_the_game()
    assert holders(message_id) == []
    doomed = workers(first)
    deadline = time.monotonic() + WAIT
    while not holders(message_id):
        assert time.monotonic() < deadline, "the worker never took the job"
        time.sleep(0.02)
    doomed.process.send_signal(signal.SIGKILL)
    doomed.process.wait()
    assert game_row(first, game_id)["ply"] == 0, "the killed worker had already moved"
    workers(first)
    deadline = time.monotonic() + 4 * WAIT
    while (row := game_row(first, game_id))["ply"] == 0:
        assert time.monotonic() < deadline, "the job was never redelivered"
        time.sleep(0.5)
    assert row == {"ply": 1, "status": "active", "movers": [0]}
    # Nothing left that could answer again: the message acked, held by nobody.
    while message_id in messages_for_the_game() or holders(message_id):
        assert time.monotonic() < deadline, "the message outlived the job"
        time.sleep(0.1)
    assert game_row(first, game_id) == row


def test_a_jobs_worker_thinks_at_idle_priority_on_its_cpus_and_the_rest_does_not(
        scale_servers, workers):
    """Only the thinker thread (jobs.broker.Worker) is lowered, to SCHED_IDLE and JOBS_CPUS;
    the main thread, the worker thread that commits and publishes a job's result and the
    consumers (fetch, heartbeat, ack) keep the normal policy and the process's CPUs."""
    first, _ = scale_servers
    cpu = sorted(os.sched_getaffinity(0))[-1]
    worker = workers(first, JOBS_CPUS=str(cpu))
    tasks = f"/proc/{worker.process.pid}/task"

    def lowered(tid):
        # SCHED_IDLE, or the highest niceness where the system refuses it.
        return (os.sched_getscheduler(tid) == os.SCHED_IDLE
                or os.getpriority(os.PRIO_PROCESS, tid) == 19 != os.getpriority(
                    os.PRIO_PROCESS, 0))

    def policies():
        found = {}
        for tid in map(int, os.listdir(tasks)):
            try:
                found[tid] = (lowered(tid), os.sched_getaffinity(tid))
            except ProcessLookupError:
                continue  # a short-lived thread, gone
        return found

    deadline = time.monotonic() + 4 * WAIT
    # The main thread, the thinker, one worker thread and the consumers of the queue and of
    # its delayed queue (four of them at least); the thinker lowers itself when it starts.
    while len(found := policies()) < 4 or not any(low for low, _ in found.values()):
        assert worker.process.poll() is None, "the worker exited"
        assert time.monotonic() < deadline, "the worker never started its threads"
        time.sleep(0.05)
    assert [cpus for low, cpus in found.values() if low] == [{cpu}]
    assert all(cpus == os.sched_getaffinity(0) for low, cpus in found.values() if not low)
