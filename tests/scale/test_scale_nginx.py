"""The site as deployed: deploy/nginx-tessera.conf's nginx (TLS, websockets upgraded) in front of
two Daphne processes on one upstream, sharing PostgreSQL and Redis (tests/scale/conftest.py
skips these without them; tests/nginxsite.py skips them without nginx). Everything a player
does goes through https:// and wss://: pages, log-in, the lobby and a game, with the two
players' sockets on different processes."""
import asyncio
import uuid

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


@pytest.fixture(scope="module")
def proxied_site(site_servers, scale_database_url, tmp_path_factory):
    """nginx on free ports in front of two Daphne processes on PostgreSQL and Redis."""
    servers = [site_servers(scale_database_url, **BEHIND_NGINX),
               site_servers(scale_database_url, migrate_first=False, **BEHIND_NGINX)]
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
