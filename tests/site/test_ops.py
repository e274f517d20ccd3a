"""Health, readiness and metrics (ops): through Django's test client, and readiness flipping on
SIGTERM on a real Daphne process."""
import asyncio
import json
import signal
import time
import urllib.error
import urllib.request

import pytest
from prometheus_client.parser import text_string_to_metric_families

from ops import draining, metrics, views
from tests.ws.live_client import LiveSocket, log_in

TOKEN = "metrics-token-for-the-tests-only"
PASSWORD = "ops-metrics-pass-8841"


@pytest.fixture
def not_draining():
    draining.reset()
    yield
    draining.reset()


def sample(text, name, **labels):
    for family in text_string_to_metric_families(text):
        for found in family.samples:
            if found.name == name and all(found.labels.get(k) == v for k, v in labels.items()):
                return found.value
    return 0.0


@pytest.mark.django_db
def test_healthz_answers(client):
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}


@pytest.mark.django_db
def test_readyz_is_ready_with_the_database_answering(client, not_draining):
    response = client.get("/readyz")
    assert response.status_code == 200, response.content
    assert response.json()["status"] == "ready"


@pytest.mark.django_db
def test_readyz_says_503_while_draining(client, not_draining):
    draining.begin()
    response = client.get("/readyz")
    assert response.status_code == 503
    assert "draining" in response.json()["process"]


@pytest.mark.django_db
def test_readyz_says_503_when_the_database_does_not_answer(client, not_draining, monkeypatch):
    def broken():
        raise OSError("connection refused")
    monkeypatch.setattr(views, "database_answers", broken)
    response = client.get("/readyz")
    assert response.status_code == 503
    assert "OSError" in response.json()["database"]


@pytest.mark.django_db
def test_readyz_says_503_when_redis_does_not_answer(client, not_draining, settings):
    settings.REDIS_URL = "redis://127.0.0.1:1/0"  # nothing listens on port 1
    response = client.get("/readyz")
    assert response.status_code == 503
    assert "redis" in response.json()


@pytest.mark.django_db
def test_metrics_are_off_without_a_token_or_addresses(client, settings):
    settings.METRICS_TOKEN, settings.METRICS_ALLOWED_ADDRESSES = "", []
    assert client.get("/metrics").status_code == 404
    assert client.get("/metrics", HTTP_AUTHORIZATION="Bearer anything").status_code == 404


@pytest.mark.django_db
def test_metrics_need_the_token(client, settings):
    settings.METRICS_TOKEN, settings.METRICS_ALLOWED_ADDRESSES = TOKEN, []
    assert client.get("/metrics").status_code == 403
    assert client.get("/metrics", HTTP_AUTHORIZATION="Bearer wrong").status_code == 403
    assert client.get("/metrics", HTTP_AUTHORIZATION=TOKEN).status_code == 403
    # Behind a proxy the forwarded address says nothing: only the peer's own address counts.
    assert client.get("/metrics", HTTP_X_FORWARDED_FOR="127.0.0.1").status_code == 403
    response = client.get("/metrics", HTTP_AUTHORIZATION=f"Bearer {TOKEN}")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/plain; version=")
    assert "tessera_actions_stored_total" in response.content.decode()


@pytest.mark.django_db
def test_metrics_from_an_internal_address(client, settings):
    import ipaddress
    settings.METRICS_TOKEN = ""
    settings.METRICS_ALLOWED_ADDRESSES = [ipaddress.ip_network("10.0.0.0/8")]
    assert client.get("/metrics", REMOTE_ADDR="10.1.2.3").status_code == 200
    assert client.get("/metrics", REMOTE_ADDR="192.0.2.7").status_code == 403


@pytest.mark.django_db
def test_metrics_count_errors_and_failed_logins(client, settings):
    settings.METRICS_TOKEN, settings.METRICS_ALLOWED_ADDRESSES = TOKEN, []

    def read():
        return client.get("/metrics", HTTP_AUTHORIZATION=f"Bearer {TOKEN}").content.decode()

    before = read()
    client.get("/no-such-page/")
    client.post("/accounts/login/", {"username": "nobody", "password": "wrong-password-1"})
    after = read()
    assert sample(after, "tessera_http_errors_total", status="404") == \
        sample(before, "tessera_http_errors_total", status="404") + 1
    assert sample(after, "tessera_login_failures_total") == \
        sample(before, "tessera_login_failures_total") + 1


def test_multiprocess_mode_sums_every_process(tmp_path, monkeypatch):
    """Two processes' files in PROMETHEUS_MULTIPROC_DIR read as one sum (what several Daphne
    processes of one machine write)."""
    import subprocess
    import sys

    script = ("import os, sys; sys.path.insert(0, 'site');"
              "from prometheus_client import Counter;"
              "Counter('tessera_actions_stored', 'x').inc(int(sys.argv[1]))")
    for count in (3, 4):
        subprocess.run([sys.executable, "-c", script, str(count)], check=True, timeout=60,
                       env={"PROMETHEUS_MULTIPROC_DIR": str(tmp_path), "PATH": "/usr/bin:/bin"})
    monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", str(tmp_path))
    body, _ = metrics.exposition()
    assert sample(body.decode(), "tessera_actions_stored_total") == 7


def get(url, headers=None):
    request = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def test_readyz_flips_to_503_on_sigterm_and_the_process_then_stops(site_servers):
    """On one real Daphne process (starting one takes seconds): the live path's metrics after
    moves over real websockets, then SIGTERM."""
    server = site_servers(READY_DRAIN_SECONDS="4", METRICS_TOKEN=TOKEN)
    assert get(server.url + "/readyz")[0] == 200
    server.create_users(["mira", "milo"], PASSWORD)
    path = server.manage("startgame", "hadron", "mira", "milo").stdout.strip()
    sessions = {name: log_in(server, name, PASSWORD) for name in ("mira", "milo")}

    def read():
        status, text = get(server.url + "/metrics", {"Authorization": f"Bearer {TOKEN}"})
        assert status == 200
        return text

    async def scenario():
        mira = LiveSocket(server, path, sessions["mira"], "mira")
        milo = LiveSocket(server, path, sessions["milo"], "milo")
        await mira.open()
        await milo.open()
        open_now = read()
        for ply, (tab, action) in enumerate([(mira, "c3"), (milo, "a1")]):
            await tab.send(type="play", ply=ply, action=action)
            for other in (mira, milo):
                await other.expect("action")
        await milo.send(type="play", ply=2, action="e5")
        await milo.error("not_your_turn")
        await mira.close()
        await milo.close()
        return open_now

    open_now = asyncio.run(scenario())
    assert sample(open_now, "tessera_open_sockets", kind="GameConsumer") == 2
    text = read()
    assert sample(text, "tessera_actions_stored_total") == 2
    assert sample(text, "tessera_action_commit_seconds_count") == 2
    assert sample(text, "tessera_action_broadcast_seconds_count") == 2
    assert 0 < sample(text, "tessera_action_broadcast_seconds_sum") < 30
    assert sample(text, "tessera_socket_errors_total", code="not_your_turn") == 1
    server.process.send_signal(signal.SIGTERM)
    deadline, seen = time.monotonic() + 3, None
    while time.monotonic() < deadline and seen is None:
        try:
            status, text = get(server.url + "/readyz")
        except OSError:
            break
        if status == 503:
            seen = json.loads(text)
        time.sleep(0.1)
    assert seen is not None and "draining" in seen["process"], server.log()
    assert get(server.url + "/healthz")[0] == 200  # still serving while draining
    server.process.wait(timeout=30)


# The lanes' writer threads check their connection after each job (live.lanes._job): that is
# database access, which pytest-django allows only to tests that ask for it.
@pytest.mark.django_db
def test_metrics_show_how_busy_the_database_lanes_are(client, settings):
    """A change holding a game's lane on a writer thread, a second change of that game waiting
    behind it: the scrape counts the busy thread and the waiting change, then neither."""
    import threading

    from live import lanes

    settings.METRICS_TOKEN, settings.METRICS_ALLOWED_ADDRESSES = TOKEN, []
    started, release = threading.Event(), threading.Event()

    def read():
        return client.get("/metrics", HTTP_AUTHORIZATION=f"Bearer {TOKEN}").content.decode()

    def hold():
        started.set()
        release.wait(30)

    async def two_changes_of_one_game():
        first = asyncio.ensure_future(lanes.in_lane(("game", -1), hold))
        second = asyncio.ensure_future(lanes.in_lane(("game", -1), lambda: None))
        await asyncio.to_thread(started.wait, 30)
        await asyncio.sleep(0)  # the second change reaches the lane's lock
        during = await asyncio.to_thread(read)
        release.set()
        await asyncio.gather(first, second)
        return during, await asyncio.to_thread(read)

    during, after = asyncio.run(two_changes_of_one_game())
    assert sample(during, "tessera_db_threads_busy", pool="write") == 1
    assert sample(during, "tessera_lane_changes_waiting") == 1
    assert sample(after, "tessera_db_threads_busy", pool="write") == 0
    assert sample(after, "tessera_lane_changes_waiting") == 0
    assert "tessera_db_jobs_waiting" in after


def test_a_stopping_process_stops_listening_then_closes_its_sockets_in_a_trickle(site_servers):
    """After the drain, SIGTERM's stop: new connections are refused at once (a proxy sends
    them to another process) and the open sockets are closed with 4012 (stopping) over DRAIN_SPREAD_SECONDS rather than in one instant (in bench/failures.py's rolling restart
    hundreds of pages reconnecting together overflowed the other process's listen queue)."""
    from websockets.exceptions import ConnectionClosed

    server = site_servers(READY_DRAIN_SECONDS="1", DRAIN_SPREAD_SECONDS="2")
    server.create_users(["mira", "milo"], PASSWORD)
    path = server.manage("startgame", "hadron", "mira", "milo").stdout.strip()

    async def closed(tab):
        try:
            async for _ in tab.ws:
                pass
        except ConnectionClosed:
            pass
        return time.monotonic(), tab.ws.close_code

    async def scenario():
        tabs = [LiveSocket(server, path) for _ in range(6)]
        for tab in tabs:
            await tab.open()
        server.process.send_signal(signal.SIGTERM)
        watching = [asyncio.ensure_future(closed(tab)) for tab in tabs]
        await asyncio.wait(watching, return_when=asyncio.FIRST_COMPLETED)
        try:
            await asyncio.open_connection("127.0.0.1", server.port)
            refused = False
        except ConnectionRefusedError:
            refused = True
        return refused, await asyncio.gather(*watching)

    refused, ends = asyncio.run(scenario())
    assert refused, server.log()
    assert [code for _, code in ends] == [4012] * 6, server.log()
    times = sorted(moment for moment, _ in ends)
    assert times[-1] - times[0] >= 1.0, times  # six sockets over 2 s: not all at once
    assert server.process.wait(timeout=30) == 0, server.log()
