"""The live path of real Daphne processes under the faults an operator meets: SIGTERM under
load, the whole site down for a while, games whose time is up with nobody on them, unknown
socket paths, one address opening too many sockets, and many writers on the embedded SQLite
database. Each server here has its own SQLite file (site_servers)."""
import asyncio
import http.client
import json
import os
import random
import signal
import threading
import time
import urllib.error
from datetime import datetime

import pytest
from websockets.exceptions import InvalidStatus

import games
from tests.ws.live_client import LiveSocket, WebSession, log_in, snapshot_json
from tests.ws.messages import WAIT

PASSWORD = "live-fault-pass-8317"
SEEK = {"game": "hadron", "hadron_size": "5", "copolymer_size": "5", "tripen_size": "7",
        "colorful_board": "hexhex", "colorful_size": "5", "time_kind": "untimed",
        "minutes": "5", "increment": "3", "days": "3", "side": "first"}


def game_path(server, first, second, *args):
    return server.manage("startgame", "hadron", first, second, *args).stdout.strip()


def stored(server, game_id):
    """(ply count, actions, status, remaining ms, turn started) as the database has them."""
    out = server.shell(
        "import json; from play.models import Game\n"
        f"g = Game.objects.get(pk={game_id})\n"
        "print(json.dumps([g.ply_count, g.action_list(), g.status, g.remaining_ms,"
        " g.turn_started_at.isoformat() if g.turn_started_at else None, g.reason]))")
    return json.loads(out.strip().splitlines()[-1])


def game_id_of(path):
    return int(path.strip("/").split("/")[-1])


def test_sigterm_under_load_exits_quickly_and_keeps_every_acknowledged_move(site_servers):
    server = site_servers()
    names = [f"term{i}" for i in range(8)]
    server.create_users(names, PASSWORD)
    pairs = [(names[i], names[i + 1]) for i in range(0, 8, 2)]
    paths = [game_path(server, a, b, "--option", "size=7") for a, b in pairs]
    sessions = {name: log_in(server, name, PASSWORD) for name in names}
    acknowledged = {path: [] for path in paths}

    async def play(path, first, second):
        tabs = [LiveSocket(server, path, sessions[first], first),
                LiveSocket(server, path, sessions[second], second)]
        for tab in tabs:
            await tab.open()
        state, rng = games.get("hadron").new(size=7), random.Random(path)
        try:
            while not state.is_over:
                action = rng.choice(state.legal_actions())
                mover = tabs[state.to_move]
                await mover.send(type="play", ply=state.ply, action=action)
                while True:
                    message = await mover.receive(WAIT)
                    if message["type"] == "action" and message["ply"] == state.ply:
                        break
                # The mover heard its own action: the server acknowledged it.
                acknowledged[path].append(message["action"])
                state = state.play(action)
        except Exception:
            pass  # the server went away mid-game: that is the point

    async def scenario():
        players = [asyncio.create_task(play(path, a, b)) for path, (a, b) in zip(paths, pairs)]
        while sum(map(len, acknowledged.values())) < 20:
            await asyncio.sleep(0.05)
        server.process.send_signal(signal.SIGTERM)
        started = time.monotonic()
        while server.process.poll() is None and time.monotonic() - started < 30:
            await asyncio.sleep(0.1)
        took = time.monotonic() - started
        await asyncio.wait(players, timeout=WAIT)
        return took

    took = asyncio.run(scenario())
    assert server.process.poll() is not None, "daphne still runs 30 s after SIGTERM"
    assert took < 10, f"daphne took {took:.1f} s to exit after SIGTERM"
    for path in paths:
        actions = stored(server, game_id_of(path))[1]
        assert actions[:len(acknowledged[path])] == acknowledged[path]
    # It said goodbye: its process row is marked stopped.
    out = server.shell("from live.models import ServerProcess;"
                       "print(all(p.stopped_at for p in ServerProcess.objects.all()))")
    assert out.strip() == "True"


@pytest.mark.parametrize("heartbeat, down", [
    pytest.param("1", 8, id="down for eight heartbeats"),
    # Down for less than three heartbeats: the dead process still looks alive by its
    # heartbeat; the restarted one knows better (its pid is gone).
    pytest.param("10", 4, id="restarted within three heartbeats"),
])
def test_time_while_no_server_runs_is_charged_to_nobody(site_servers, heartbeat, down):
    server = site_servers(LIVE_HEARTBEAT=heartbeat)
    server.create_users(["uma", "ugo"], PASSWORD)
    path = game_path(server, "uma", "ugo", "--time", "1+0")
    game_id = game_id_of(path)
    sessions = {name: log_in(server, name, PASSWORD) for name in ("uma", "ugo")}

    async def first_moves():
        uma, ugo = (LiveSocket(server, path, sessions[n], n) for n in ("uma", "ugo"))
        for tab in (uma, ugo):
            await tab.open()
        for ply, (tab, action) in enumerate([(uma, "c3"), (ugo, "a1")]):
            await tab.send(type="play", ply=ply, action=action)
            while (await tab.expect("action"))["ply"] != ply:
                pass  # the opponent's move, heard first
        for tab in (uma, ugo):
            await tab.close()

    asyncio.run(first_moves())
    before = stored(server, game_id)
    assert before[2] == "active"
    # The only server process dies without a word, and the site stays down for a while.
    server.kill()
    time.sleep(down)
    server.start()
    after = stored(server, game_id)
    assert after[2] == "active" and after[3] == before[3]
    # uma's turn now counts from the outage (and more: the server's start-up) later: the
    # outage runs from the last heartbeat, so she is charged nothing of it.
    moved_on = datetime.fromisoformat(after[4]) - datetime.fromisoformat(before[4])
    assert moved_on.total_seconds() >= down, moved_on
    length, shifted = server.shell(
        "from live.models import Outage; o = Outage.objects.get();"
        "print(o.length.total_seconds(), o.games_shifted)").split()
    assert float(length) >= down and shifted == "1"
    # By the whole outage, or less if the turn began after the last heartbeat (then it
    # starts again when the site is back: uma gets back no more than she had).
    assert moved_on.total_seconds() <= float(length) + 0.01
    assert max(snapshot_json(server, path)["clocks"]["remaining_ms"]) <= 60_000


def test_the_sweeper_ends_a_game_with_nobody_on_it(site_servers):
    server = site_servers()
    server.create_users(["sam", "sol"], PASSWORD)
    path = game_path(server, "sam", "sol", "--time", "1+0")
    game_id = game_id_of(path)
    # Both have moved (so running out of time loses rather than aborts); then sam's clock has
    # two seconds left. No socket is open, nobody loads the page.
    server.shell(
        "from datetime import timedelta\nfrom django.contrib.auth import get_user_model\n"
        "from django.utils import timezone\nfrom play import services\n"
        "from play.models import Game\nU = get_user_model()\n"
        f"services.play({game_id}, U.objects.get(username='sam'), 0, 'c3')\n"
        f"services.play({game_id}, U.objects.get(username='sol'), 1, 'a1')\n"
        f"g = Game.objects.get(pk={game_id}); g.remaining0_ms = 2000\n"
        "g.turn_started_at = timezone.now(); g.save()\n")
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        state = stored(server, game_id)
        if state[2] != "active":
            break
        time.sleep(0.5)
    assert state[2] == "finished" and state[5] == "time", state


def test_unknown_socket_paths_are_refused_cleanly(daphne_server):
    server = daphne_server
    for path in ("/ws/game/abc/", "/ws/game/-1/", "/ws/unknown/",
                 "/ws/game/99999999999999999999999/"):
        connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=WAIT)
        connection.request("GET", path, headers={
            "Connection": "Upgrade", "Upgrade": "websocket", "Sec-WebSocket-Version": "13",
            "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==", "Origin": server.url})
        response = connection.getresponse()
        assert response.status == 403, (path, response.status)
        connection.close()
    assert "Traceback" not in server.log()


def test_one_address_cannot_open_too_many_sockets(site_servers):
    server = site_servers(LIVE_SOCKETS_PER_ADDRESS="5")
    server.create_users(["cap", "cop"], PASSWORD)
    path = game_path(server, "cap", "cop")

    async def scenario():
        tabs = [LiveSocket(server, path, name=f"watcher {i}") for i in range(5)]
        for tab in tabs:
            await tab.open()
        with pytest.raises(InvalidStatus) as refused:
            await LiveSocket(server, path, name="one too many").open()
        assert refused.value.response.status_code == 403
        await tabs[0].close()
        await asyncio.sleep(0.3)
        again = LiveSocket(server, path, name="room again")
        await again.open()
        for tab in tabs[1:] + [again]:
            await tab.close()

    asyncio.run(scenario())


def test_many_writers_on_one_sqlite_file_never_see_database_is_locked(site_servers):
    """Two processes on one SQLite file (the embedded default, doubled), lobby posts from
    threads and moves over sockets at once: every request is answered normally."""
    first = site_servers()
    second = site_servers(first.env["DATABASE_URL"], migrate_first=False)
    names = [f"writer{i}" for i in range(6)]
    first.create_users(names, PASSWORD)
    failures, answered = [], []

    def seeker(server, name, rounds=25):
        session = WebSession(server)
        session.log_in(name, PASSWORD)
        for _ in range(rounds):
            try:
                seek = session.post_json("/play/seeks/", **SEEK)
                session.post_json(f"/play/seeks/{seek['seek']['id']}/cancel/")
                answered.append(1)
            except (urllib.error.HTTPError, KeyError, ValueError) as error:
                failures.append(repr(error))

    threads = [threading.Thread(target=seeker, args=(server, name))
               for server, name in zip([first, second] * 3, names)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert not failures, failures[:5]
    assert len(answered) == 150
    for server in (first, second):
        assert "database is locked" not in server.log()


def test_a_frame_over_daphnes_limit_closes_only_that_socket(site_servers):
    """The protocol's promise for frames over 1 MiB (docs/protocol.md, Framing): Daphne closes
    that socket before the site sees the frame; the game and its other sockets go on."""
    server = site_servers()
    server.create_users(["big", "small"], PASSWORD)
    path = game_path(server, "big", "small", "--option", "size=5")

    async def scenario():
        sender = LiveSocket(server, path, log_in(server, "big", PASSWORD), name="big")
        watcher = LiveSocket(server, path, name="watcher")
        await sender.open()
        await watcher.open()
        await sender.ws.send("[" * (1024 * 1024 + 1))
        await asyncio.wait_for(sender.ws.wait_closed(), WAIT)
        # Daphne sends 1009 and drops the connection at once: a client still writing the
        # frame usually sees the drop (1006) before the close frame.
        assert sender.ws.close_code in (1006, 1009)
        await watcher.send(type="ping")
        await watcher.expect("pong")
        again = LiveSocket(server, path, log_in(server, "big", PASSWORD), name="big again")
        await again.open()
        await again.send(type="play", ply=0, action=first_hadron_move())
        await again.expect("action")
        await watcher.expect("action")
        await again.close()
        await watcher.close()

    asyncio.run(scenario())
    assert "Traceback" not in server.log()


def first_hadron_move():
    state = games.get("hadron").new(size=5)
    return state.legal_actions()[0]


def _children(pid):
    found = []
    for task in os.listdir(f"/proc/{pid}/task"):
        with open(f"/proc/{pid}/task/{task}/children") as listing:
            found += [int(child) for child in listing.read().split()]
    return found


def _running(pid):
    try:
        with open(f"/proc/{pid}/status") as status:
            return not any(line.startswith("State:") and "Z" in line for line in status)
    except FileNotFoundError:
        return False


def _pool_workers(server_pid):
    """The server's job workers (its children but multiprocessing's resource tracker)."""
    found = []
    for pid in _children(server_pid):
        with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
            if b"resource_tracker" not in cmdline.read():
                found.append(pid)
    return found


def _policies(pid):
    """The scheduling policy of each thread of a process (Linux keeps one per thread)."""
    return [os.sched_getscheduler(int(thread)) for thread in os.listdir(f"/proc/{pid}/task")]


@pytest.mark.skipif(not os.path.exists("/proc/self/task"), reason="reads Linux's /proc")
def test_the_pool_workers_end_with_a_killed_server(site_servers):
    """The embedded default's job workers do not outlive their server killed without a word
    (SIGKILL): left idle for ever, orphans of the tests' servers piled up on the machine."""
    server = site_servers(JOBS_MODE="pool", JOBS_WORKERS="2", JOBS_WORKERS_AT_START="1")
    deadline = time.monotonic() + WAIT
    while not _pool_workers(server.process.pid):
        assert time.monotonic() < deadline, "the pool's workers did not start"
        time.sleep(0.1)
    workers = _pool_workers(server.process.pid)
    for pid in workers:
        # A worker thinks at SCHED_IDLE, but the thread that watches for its server's end
        # must not: on a machine whose cores were all busy (the PostgreSQL pass on two
        # workers), a watcher at SCHED_IDLE got no CPU to notice the end within the wait.
        deadline = time.monotonic() + WAIT
        while os.SCHED_IDLE not in _policies(pid):
            assert time.monotonic() < deadline, "the worker did not lower its priority"
            time.sleep(0.1)
        assert os.SCHED_OTHER in _policies(pid), "the worker's watcher runs at SCHED_IDLE"
    server.process.kill()
    server.process.wait()
    deadline = time.monotonic() + WAIT
    while any(_running(pid) for pid in workers):
        assert time.monotonic() < deadline, [pid for pid in workers if _running(pid)]
        time.sleep(0.2)
