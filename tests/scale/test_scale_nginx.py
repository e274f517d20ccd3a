"""The site as deployed: deploy/nginx-tessera.conf's nginx (TLS, websockets upgraded) in front of
two Daphne processes on one upstream, sharing PostgreSQL and Redis (tests/scale/conftest.py
skips these without them; tests/nginxsite.py skips them without nginx). Everything a player
does goes through https:// and wss://: pages, log-in, the lobby and a game, with the two
players' sockets on different processes."""
import asyncio
import signal
import urllib.error
import urllib.request
import uuid

from websockets.exceptions import ConnectionClosed, InvalidStatus

import pytest

import games
from nginxsite import BEHIND_NGINX, UPSTREAM_HEADER, NginxSite, fetch, needs_nginx
from tests.ws.live_client import LiveSocket, WebSession, snapshot_json
from tests.ws.messages import all_quiet
from tests.ws.sockets import proposal

pytestmark = [pytest.mark.scale, needs_nginx]

PASSWORD = "scale-nginx-pass-5203"
# Round robin over two processes: a socket lands on the other process within a few tries.
TRIES = 6
DRAIN_S = 2  # READY_DRAIN_SECONDS: /readyz says 503 this long after SIGTERM


@pytest.fixture(scope="module")
def proxied_site(module_site_servers, scale_database_url, tmp_path_factory):
    """nginx on free ports in front of two Daphne processes on PostgreSQL and Redis."""
    env = dict(BEHIND_NGINX, READY_DRAIN_SECONDS=str(DRAIN_S))
    servers = [module_site_servers(scale_database_url, **env),
               module_site_servers(scale_database_url, migrate_first=False, **env)]
    site = NginxSite(tmp_path_factory.mktemp("nginx"), servers).start()
    yield site
    site.stop()
    for server in servers:
        server.stop()


class LobbySocket(LiveSocket):
    """A tab on the Play page, through the proxy."""

    background = ("turn", "presence")

    async def open(self):
        await self.connect()
        return await self.expect("snapshot")


def upstream(socket):
    return socket.ws.response.headers[UPSTREAM_HEADER]


async def open_beside(make, other):
    """A socket made by make() that nginx hands to another process than socket `other`'s (both
    processes take requests, round robin), and the first message it heard."""
    for _ in range(TRIES):
        socket = make()
        first = await socket.open()
        if upstream(socket) != upstream(other):
            return socket, first
        await socket.close()
    raise AssertionError(f"nginx sent {TRIES} sockets to {upstream(other)} only")


def test_pages_and_static_files_over_https(proxied_site):
    served_by = set()
    for path in ["/", "/rules/", "/rules/tripen/", "/static/css/site.css", "/accounts/login/",
                 "/healthz", "/readyz"]:
        status, _ = fetch(proxied_site.url + path, proxied_site.ssl_context)
        assert status == 200, path
    for _ in range(4):
        session = WebSession(proxied_site)
        with session.opener.open(proxied_site.url + "/rules/", timeout=20) as response:
            served_by.add(response.headers[UPSTREAM_HEADER])
    assert served_by == {proxied_site.upstream_of(s) for s in proxied_site.servers}


def test_the_log_in_throttle_counts_the_address_nginx_saw(proxied_site):
    """A client's own X-Forwarded-For says nothing: nginx appends the address it was reached
    from, and TRUSTED_PROXY_COUNT=1 takes that one (here 127.0.0.1)."""
    name = f"thr{uuid.uuid4().hex[:6]}"
    proxied_site.servers[0].create_user(name, PASSWORD)
    browser = WebSession(proxied_site)
    browser.opener.addheaders.append(("X-Forwarded-For", "203.0.113.9"))
    url, page = browser.log_in(name, "not-the-password-4410")
    assert url == proxied_site.url + "/accounts/login/"
    seen = proxied_site.servers[1].shell(
        "from axes.models import AccessAttempt\n"
        f"print(sorted(set(AccessAttempt.objects.filter(username={name!r})"
        ".values_list('ip_address', flat=True))))")
    assert seen.strip() == "['127.0.0.1']"


def test_lobby_and_a_game_over_wss_with_players_on_different_processes(proxied_site):
    first_server = proxied_site.servers[0]
    suffix = uuid.uuid4().hex[:6]
    seeker, taker = f"sia{suffix}", f"tao{suffix}"
    first_server.create_users([seeker, taker], PASSWORD)
    browsers = {name: WebSession(proxied_site) for name in (seeker, taker)}
    for name, browser in browsers.items():
        url, page = browser.log_in(name, PASSWORD)
        assert url == proxied_site.url + "/"
        assert f"Welcome back, {name}." in page
        # Logged in over https: the session cookie was set for the proxy's address.
        assert browser.cookie("sessionid")
    cookies = {name: browser.cookie("sessionid") for name, browser in browsers.items()}

    async def scenario():
        seeker_lobby = LobbySocket(proxied_site, "/lobby/", cookies[seeker], f"{seeker}'s lobby")
        await seeker_lobby.open()
        taker_lobby, _ = await open_beside(
            lambda: LobbySocket(proxied_site, "/lobby/", cookies[taker], f"{taker}'s lobby"),
            seeker_lobby)
        # The seek is made on whichever process nginx picks; news crosses processes by Redis.
        answer = await asyncio.to_thread(
            browsers[seeker].post_json, "/play/seeks/", **proposal(time_kind="untimed"))
        assert answer["ok"], answer
        seek_id = answer["seek"]["id"]
        for lobby in (seeker_lobby, taker_lobby):
            assert (await lobby.expect("seek_added"))["seek"]["id"] == seek_id
        accepted = await asyncio.to_thread(
            browsers[taker].post_json, f"/play/seeks/{seek_id}/accept/")
        assert accepted["ok"], accepted
        path = accepted["redirect"]
        assert (await taker_lobby.expect("seek_removed"))["id"] == seek_id
        # Two groups' news (the lobby's, the seeker's own): in either order.
        heard = {m["type"]: m for m in await seeker_lobby.take(2)}
        assert sorted(heard) == ["game_started", "seek_removed"], heard
        assert heard["game_started"]["url"] == path
        for lobby in (seeker_lobby, taker_lobby):
            await lobby.close()

        mover = LiveSocket(proxied_site, path, cookies[seeker], f"{seeker} (moves first)")
        game = await mover.open()
        assert game["status"] == "active"
        other, _ = await open_beside(
            lambda: LiveSocket(proxied_site, path, cookies[taker], taker), mover)
        assert upstream(mover) != upstream(other)
        state = games.get("hadron").new(size=7)
        for ply in range(6):
            action = state.legal_actions()[ply % len(state.legal_actions())]
            socket = mover if state.to_move == 0 else other
            await socket.send(type="play", ply=ply, action=action)
            for tab in (mover, other):
                heard = await tab.expect("action")
                assert (heard["ply"], heard["action"]) == (ply, action), tab.name
            state = state.play(action)
        await all_quiet([mover, other])
        for tab in (mover, other):
            await tab.close()
        return path, state

    path, state = asyncio.run(scenario())
    for server in proxied_site.servers:
        assert snapshot_json(server, path)["actions"] == list(state.actions)


# -- a rolling restart under load -----------------------------------------------------------------

GAMES = 4
MOVES_PER_PHASE = 4  # each game's moves between two steps of the restart (Hadron 9x9: 31+ plies)
PAUSE_S = 0.15  # between a game's moves
RECONNECT_S = 30
# What a page sees of a process going away: its socket closed, or a handshake refused meanwhile.
GONE = (ConnectionClosed, InvalidStatus, TimeoutError, OSError)


class Table:
    """One game's two players, each with a tab on the game page through nginx. They move in
    turn; a move counts as acknowledged once both tabs heard it. When a socket goes away (its
    process restarting), both tabs reconnect, like the page, and carry on from the snapshot."""

    def __init__(self, site, path, cookies):
        self.site, self.path, self.cookies = site, path, cookies
        self.tabs = []
        self.acknowledged = []  # actions heard by both players, in order
        self.state = games.get("hadron").new(size=9)
        self.reconnects = 0

    async def connect(self):
        for tab in self.tabs:
            try:
                await tab.close()
            except GONE:
                pass
        loop = asyncio.get_running_loop()
        deadline = loop.time() + RECONNECT_S
        while True:
            try:
                self.tabs = [LiveSocket(self.site, self.path, cookie, f"{self.path} player {i}")
                             for i, cookie in enumerate(self.cookies)]
                snapshots = [await tab.open() for tab in self.tabs]
                break
            except GONE:
                assert loop.time() < deadline, f"{self.path}: no socket within {RECONNECT_S}s"
                await asyncio.sleep(0.2)
        actions = snapshots[0]["actions"]
        # Nothing acknowledged is lost; at most the move in flight when the socket went was
        # applied too, once.
        assert actions[:len(self.acknowledged)] == self.acknowledged, self.path
        assert len(actions) <= len(self.acknowledged) + 1, self.path
        self.acknowledged = list(actions)
        self.state = games.get("hadron").new(size=9)
        for action in actions:
            self.state = self.state.play(action)

    async def move(self):
        ply = self.state.ply
        action = self.state.legal_actions()[(ply * 7) % len(self.state.legal_actions())]
        try:
            await self.tabs[self.state.to_move].send(type="play", ply=ply, action=action)
            for tab in self.tabs:
                heard = await tab.expect("action")
                assert (heard["ply"], heard["action"]) == (ply, action), tab.name
        except GONE:
            self.reconnects += 1
            await self.connect()
            return
        self.acknowledged.append(action)
        self.state = self.state.play(action)

    async def play(self, phases):
        """MOVES_PER_PHASE moves in each phase of the restart, as it comes."""
        await self.connect()
        for phase in phases:
            await phase.wait()
            start = len(self.acknowledged)
            while len(self.acknowledged) < start + MOVES_PER_PHASE and not self.state.is_over:
                await self.move()
                await asyncio.sleep(PAUSE_S)
        for tab in self.tabs:
            await tab.close()


def readyz(server):
    try:
        with urllib.request.urlopen(server.url + "/readyz", timeout=5) as response:
            return response.status
    except urllib.error.HTTPError as error:
        return error.code


def test_a_rolling_restart_through_nginx_loses_no_move(proxied_site):
    """Games go on while each Daphne process in turn gets SIGTERM, says 503 on /readyz while it
    drains, exits and is started again: every page reconnects through nginx (to the other
    process) and every acknowledged move is in the game, once."""
    a, b = proxied_site.servers
    names = [f"r{i}{uuid.uuid4().hex[:6]}" for i in range(2 * GAMES)]
    a.create_users(names, PASSWORD)
    pairs = list(zip(names[::2], names[1::2]))
    out = a.shell("import io\nfrom django.core.management import call_command\n" + "".join(
        f"out = io.StringIO(); call_command('startgame', 'hadron', {x!r}, {y!r},"
        f" option=['size=9'], stdout=out); print(out.getvalue().strip())\n" for x, y in pairs))
    paths = out.split()
    assert len(paths) == GAMES, out
    cookies = {}
    for name in names:
        browser = WebSession(proxied_site)
        browser.log_in(name, PASSWORD)
        cookies[name] = browser.cookie("sessionid")
    seen_draining = []

    async def restart(server, after, then):
        """SIGTERM once the games made their moves of the phase before; /readyz says 503
        while it drains; started again once it exited."""
        await after
        server.process.send_signal(signal.SIGTERM)
        then[0].set()
        while server.process.poll() is None:
            try:
                if await asyncio.to_thread(readyz, server) == 503:
                    seen_draining.append(server.port)
                    break
            except (urllib.error.URLError, OSError):
                break
            await asyncio.sleep(0.1)
        await asyncio.to_thread(server.process.wait, 30)
        await asyncio.to_thread(server.start)
        then[1].set()

    async def scenario():
        phases = [asyncio.Event() for _ in range(5)]
        tables = [Table(proxied_site, path, [cookies[x], cookies[y]])
                  for path, (x, y) in zip(paths, pairs)]
        playing = [asyncio.create_task(t.play(phases)) for t in tables]

        async def moved(count):
            while min(len(t.acknowledged) for t in tables) < count:
                await asyncio.sleep(0.1)

        phases[0].set()
        await restart(a, moved(MOVES_PER_PHASE), phases[1:3])
        await restart(b, moved(3 * MOVES_PER_PHASE), phases[3:5])
        await asyncio.gather(*playing)
        return tables

    tables = asyncio.run(scenario())
    assert sorted(seen_draining) == sorted([a.port, b.port])
    for table in tables:
        assert len(table.acknowledged) == 5 * MOVES_PER_PHASE, table.path
        for server in (a, b):
            assert snapshot_json(server, table.path)["actions"] == table.acknowledged
    # Both processes held some of the pages' sockets when they stopped.
    assert sum(t.reconnects for t in tables) >= 2
