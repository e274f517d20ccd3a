"""Playing the computer on a real Daphne server in the embedded default: SQLite, the in-memory
channel layer and the server's own pool of worker processes (JOBS_MODE=pool), nothing else
started. A person posts the "Play the computer" form and plays every game to the end over the
game socket; a spectator sees every move."""
import asyncio
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from siteservers import ROOT
from tests.site.test_readme_server import fetch_when_up, manage_steps, readme_start_command
from tests.ws.bot_client import SMALLEST, computer_form, play_to_the_end, start_against_computer
from tests.ws.live_client import WebSession, snapshot_json
from tests.ws.messages import WAIT

PASSWORD = "bots-daphne-pass-7310"


@pytest.fixture(scope="module")
def pool_server(module_site_servers):
    # The pool whatever the run's REDIS_URL: with it, jobs would wait for a jobs_worker.
    return module_site_servers(JOBS_MODE="pool", JOBS_SWEEP="1")


@pytest.mark.parametrize("game", sorted(SMALLEST))
def test_a_person_plays_the_computer_to_the_end(pool_server, game):
    server = pool_server
    name = f"human-{game}"
    server.create_user(name, PASSWORD)
    session = WebSession(server)
    session.log_in(name, PASSWORD)
    # The computer moves first: its first move comes without anyone asking.
    path = start_against_computer(session, **computer_form(game, SMALLEST[game], side="second"))
    end, actions = asyncio.run(
        play_to_the_end(server, path, session.cookie("sessionid"), name))
    assert end["reason"] == "normal" and actions
    stored = json.loads(server.shell(
        "import json\nfrom play.models import Game\n"
        f"game = Game.objects.get(pk={path.strip('/').split('/')[-1]})\n"
        "print(json.dumps({'status': game.status, 'actions': game.action_list(),\n"
        "                  'players': [p.username for p in game.players()], 'rated': game.rated}))"))
    assert stored["status"] == "finished" and stored["actions"] == actions
    assert stored["players"] == ["computer-level-1", name]


def test_the_readme_server_keeps_an_exhibition_going_on_watch(unused_port):
    """The README's one command (DEBUG=1: SQLite, in-memory layer, the exhibition on), with
    nothing else started: within a few sweeps Watch lists a game between two computers, and
    its moves come one after another."""
    steps = [s.replace("127.0.0.1:8000", f"127.0.0.1:{unused_port}")
             for s in manage_steps(readme_start_command())]
    with tempfile.TemporaryDirectory() as tmp:
        env = {k: v for k, v in os.environ.items()
               if k not in {"SECRET_KEY", "REDIS_URL", "BOT_JOBS", "JOBS_MODE"}}
        env.update(DATABASE_URL=f"sqlite:///{tmp}/db.sqlite3", JOBS_SWEEP="1",
                   PATH=os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")]))
        server = subprocess.Popen(["bash", "-c", " && ".join(steps)], cwd=ROOT, env=env,
                                  start_new_session=True, stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT)
        try:
            base = f"http://127.0.0.1:{unused_port}"
            fetch_when_up(base + "/", server)
            deadline = time.monotonic() + 4 * WAIT
            shown = None
            while shown is None:
                assert time.monotonic() < deadline, "Watch never listed an exhibition"
                found = re.search(r'href="(/game/\d+/)"', fetch_when_up(base + "/watch/", server))
                shown = found[1] if found else time.sleep(0.5)
            server_view = type("Server", (), {"url": base})
            game = snapshot_json(server_view, shown)
            assert [p["username"] for p in game["players"]] in (
                ["computer-level-1", "computer-level-2"], ["computer-level-2", "computer-level-1"])
            assert not game["rated"]
            while len(snapshot_json(server_view, shown)["actions"]) < 3:
                assert time.monotonic() < deadline, "the computers stopped moving"
                time.sleep(0.5)
        finally:
            os.killpg(server.pid, signal.SIGTERM)
            output = server.communicate(timeout=30)[0].decode(errors="replace")
        assert "Traceback" not in output, output[-3000:]


def pool_workers(server):
    """Pids of the server's pool workers (its spawned children, not the resource tracker)."""
    pid = server.process.pid
    children = set()
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            children.update(int(c) for c in (task / "children").read_text().split())
        except OSError:
            pass
    found = []
    for child in children:
        try:
            command = Path(f"/proc/{child}/cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if any(b"spawn_main" in part for part in command) and \
                not any(b"resource_tracker" in part for part in command):
            found.append(child)
    return found


def test_a_pool_worker_killed_with_the_job_in_hand_loses_nothing(pool_server):
    """The strongest level on the largest Tripen board, on a one-minute clock: the computer
    thinks for seconds. Its workers are killed while the game still waits for its first move;
    the pool is replaced, the sweep asks again, and the move is made once."""
    from games import bots as engine_bots

    server = pool_server
    name = "human-killed-worker"
    server.create_user(name, PASSWORD)
    session = WebSession(server)
    session.log_in(name, PASSWORD)
    path = start_against_computer(session, **computer_form(
        "tripen", {"size": 13}, level=engine_bots.CLOCK_TOP_LEVEL, side="second", minutes=1))
    game_id = int(path.strip("/").split("/")[-1])
    deadline = time.monotonic() + 4 * WAIT
    while not (workers := pool_workers(server)):
        assert time.monotonic() < deadline, "the server never started a worker"
        time.sleep(0.05)
    assert snapshot_json(server, path)["actions"] == []
    for pid in workers:
        os.kill(pid, signal.SIGKILL)
    while not (actions := snapshot_json(server, path)["actions"]):
        assert time.monotonic() < deadline, "the computer's move never came"
        time.sleep(0.2)
    assert len(actions) == 1
    assert set(pool_workers(server)).isdisjoint(workers)
    movers = json.loads(server.shell(
        "import json\nfrom play.models import Game\n"
        f"print(json.dumps(list(Game.objects.get(pk={game_id}).action_rows"
        ".values_list('player', flat=True))))"))
    assert movers == [0]
