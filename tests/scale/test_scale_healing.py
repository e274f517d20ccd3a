"""The live path heals itself across processes on PostgreSQL and Redis (tests/scale/conftest.py
skips these without DATABASE_URL=postgres://... and REDIS_URL=redis://...): a game's group
lost in Redis, a server process killed, SIGTERM under load, a game whose row is held up."""
import asyncio
import os
import random
import signal
import time
import uuid

import psycopg
import pytest
import redis

import games
from tests.ws.live_client import LiveSocket, log_in, open_and_make_the_first_move
from tests.ws.messages import WAIT

pytestmark = pytest.mark.scale

PASSWORD = "scale-heal-pass-2291"
KEEPALIVE = 2  # seconds: LIVE_KEEPALIVE of the test servers (tests/siteservers.py)


def players(server, *roles):
    suffix = uuid.uuid4().hex[:6]
    names = [f"{role}{suffix}" for role in roles]
    server.create_users(names, PASSWORD)
    return names


def start_game(server, first, second, *args):
    path = server.manage("startgame", "hadron", first, second, *args).stdout.strip()
    return path, int(path.strip("/").split("/")[-1])


CORE_LAYER = "channels_redis.core.RedisChannelLayer"


@pytest.fixture
def core_layer_servers(site_servers, scale_database_url):
    """Two more processes on channels-redis's default layer, where group memberships are keys
    in Redis (the site's own layer keeps them in the processes: live.layers.RedisNewsLayer).
    Stopped after the test: a deployment runs one layer, and their sweepers would tell the
    other processes' pages nothing."""
    servers = [site_servers(scale_database_url, migrate_first=False, REDIS_LAYER=CORE_LAYER)
               for _ in range(2)]
    yield servers
    for server in servers:
        server.stop()


def lose_the_group(layer, servers, game_id):
    """What Redis can lose of a game's group: with the default layer, the group's key (a
    restart without persistence, or the membership's day running out); with the site's
    pub/sub layer, the subscriptions (the processes' connections cut or Redis restarted)."""
    store = redis.Redis.from_url(os.environ["REDIS_URL"])
    prefix = servers[0].env["REDIS_PREFIX"]
    if layer == "core":
        assert store.delete(f"{prefix}:group:game-{game_id}") == 1
        return
    subscribers = [client for client in store.client_list()
                   if client.get("name") == prefix and int(client.get("sub", 0)) > 0]
    assert len(subscribers) >= 2, subscribers  # both processes listen
    for client in subscribers:
        store.client_kill_filter(_id=client["id"])


async def catch_up(tab):
    """Read until the tab has the lost action: from the news itself, if its process had renewed
    the group before the action was sent (pub/sub: subscribed again; the default layer: the
    keep-alive's renewal of the group's key, live.registry.renew_groups, which on a busy
    machine came before the action), or from the `sync` that tells it the ply, then a
    snapshot. The action may also arrive after the `sync`: old news, dropped by its ply; and a
    `sync` may come before the action was stored (a keep-alive, or the resync of a process that
    subscribed again: live.process.resync). One deadline for all: the keep-alives come every
    few seconds, so a wait per message would never end."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 2 * KEEPALIVE + WAIT
    asked = False
    while True:
        left = deadline - loop.time()
        assert left > 0, f"{tab.name} never caught up"
        message = await tab.receive(timeout=left)
        if message["type"] == "action":
            assert message["action"] == "a1", (tab.name, message)
            if not asked:
                return
        elif message["type"] == "sync" and not asked:
            if message["ply"] == 1:
                continue  # told before the action was stored
            assert message["ply"] == 2, (tab.name, message)
            await tab.send(type="snapshot")
            asked = True
        elif message["type"] == "snapshot" and asked:
            assert message["game"]["actions"] == ["c3", "a1"], tab.name
            return


@pytest.mark.parametrize("layer", ["pubsub", "core"])
def test_a_game_whose_group_redis_lost_catches_up_within_one_keep_alive(
        layer, request, scale_servers):
    a, b = scale_servers if layer == "pubsub" else request.getfixturevalue("core_layer_servers")
    first, second, fan = players(a, "gia", "gus", "gwen")
    path, game_id = start_game(a, first, second)
    sessions = {name: log_in(a, name, PASSWORD) for name in (first, second, fan)}

    async def scenario():
        p0 = LiveSocket(a, path, sessions[first], "player 0 on A")
        p1 = LiveSocket(b, path, sessions[second], "player 1 on B")
        watcher = LiveSocket(b, path, sessions[fan], "spectator on B")
        tabs = (p0, p1, watcher)
        await open_and_make_the_first_move(*tabs)
        lose_the_group(layer, (a, b), game_id)
        # The next action is stored; only the sockets whose process has renewed the group by
        # then hear it (pub/sub: subscribed again; the default layer: a keep-alive put them
        # back in the group's key), not even its sender otherwise.
        await p1.send(type="play", ply=1, action="a1")
        lost_at = time.monotonic()
        # Within one keep-alive, everyone has the action or hears the game's ply and catches up.
        for tab in tabs:
            await catch_up(tab)
        assert time.monotonic() - lost_at < 2 * KEEPALIVE + 3
        # The memberships are back: the next action reaches everyone directly.
        await p0.send(type="play", ply=2, action="e5")
        for tab in tabs:
            heard = await tab.expect("action")
            if heard["ply"] == 1:
                # The stored action may also arrive just after the keep-alive told of it: old
                # news, which clients drop by its ply.
                assert heard["action"] == "a1", (tab.name, heard)
                heard = await tab.expect("action")
            assert heard["action"] == "e5", tab.name
        for tab in tabs:
            await tab.close()

    asyncio.run(scenario())


def test_a_process_whose_subscriber_reconnects_tells_its_pages_the_ply_at_once(
        site_servers, scale_database_url):
    """Redis restarted (here: the subscribers' connections cut): each process subscribes again
    and, since what was published meanwhile never reached it, sends each of its sockets the
    game's ply at once (live.layers.news_missed), not at the next keep-alive: with an hour
    between keep-alives here, a `sync` that comes is the resync's."""
    a = site_servers(scale_database_url, LIVE_KEEPALIVE="3600")
    b = site_servers(scale_database_url, migrate_first=False, LIVE_KEEPALIVE="3600")
    first, second = players(a, "rha", "rho")
    path, game_id = start_game(a, first, second)
    sessions = {name: log_in(a, name, PASSWORD) for name in (first, second)}

    async def scenario():
        p0 = LiveSocket(a, path, sessions[first], "player 0 on A")
        p1 = LiveSocket(b, path, sessions[second], "player 1 on B")
        await open_and_make_the_first_move(p0, p1)
        lose_the_group("pubsub", (a, b), game_id)
        for tab in (p0, p1):
            sync = await tab.expect("sync")
            assert sync["ply"] == 1 and sync["status"] == "active", (tab.name, sync)
        # Subscribed again: the next action reaches both directly.
        await p1.send(type="play", ply=1, action="a1")
        for tab in (p0, p1):
            assert (await tab.expect("action"))["action"] == "a1", tab.name
        for tab in (p0, p1):
            await tab.close()

    asyncio.run(scenario())


def test_the_sockets_of_a_killed_process_stop_counting_and_pages_hear_it(
        site_servers, scale_servers, scale_database_url):
    a = scale_servers[0]
    doomed = site_servers(scale_database_url, migrate_first=False)
    first, second, fan = players(a, "kim", "kai", "kit")
    path, _ = start_game(a, first, second)
    sessions = {name: log_in(a, name, PASSWORD) for name in (first, second)}

    async def scenario():
        p0 = LiveSocket(a, path, sessions[first], "player 0 on A")
        await p0.open()
        p1 = LiveSocket(doomed, path, sessions[second], "player 1 on the doomed process")
        watchers = [LiveSocket(doomed, path, name=f"watcher {i} there") for i in range(3)]
        for tab in [p1, *watchers]:
            await tab.open()
        await p0.presence_becomes(players_online=[True, True], watchers=3)
        doomed.kill()
        killed_at = time.monotonic()
        # Its rows stop counting after three missed heartbeats (1 s each here) and the sweeper
        # (every 0.5 s) tells the page: seconds, not minutes.
        await p0.presence_becomes(players_online=[True, False], watchers=0, timeout=WAIT)
        assert time.monotonic() - killed_at < 8
        await p0.close()

    asyncio.run(scenario())


def test_sigterm_under_load_on_postgresql_and_redis(site_servers, scale_servers, scale_database_url):
    a = scale_servers[0]
    leaving = site_servers(scale_database_url, migrate_first=False)
    names = players(a, "ta", "tb", "tc", "td")
    pairs = [(names[0], names[1]), (names[2], names[3])]
    games_ = [start_game(a, x, y, "--option", "size=7") for x, y in pairs]
    sessions = {name: log_in(a, name, PASSWORD) for name in names}
    acknowledged = {game_id: [] for _, game_id in games_}

    async def play(path, game_id, x, y):
        tabs = [LiveSocket(leaving, path, sessions[x], x), LiveSocket(leaving, path, sessions[y], y)]
        for tab in tabs:
            await tab.open()
        state, rng = games.get("hadron").new(size=7), random.Random(game_id)
        try:
            while not state.is_over:
                action = rng.choice(state.legal_actions())
                await tabs[state.to_move].send(type="play", ply=state.ply, action=action)
                mover = tabs[state.to_move]
                while True:  # the mover hears its own action: acknowledged
                    message = await mover.receive(WAIT)
                    if message["type"] == "action" and message["ply"] == state.ply:
                        break
                acknowledged[game_id].append(message["action"])
                state = state.play(action)
        except Exception:
            pass

    async def scenario():
        tasks = [asyncio.create_task(play(path, game_id, x, y))
                 for (path, game_id), (x, y) in zip(games_, pairs)]
        while sum(map(len, acknowledged.values())) < 12:
            await asyncio.sleep(0.05)
        leaving.process.send_signal(signal.SIGTERM)
        started = time.monotonic()
        while leaving.process.poll() is None and time.monotonic() - started < 30:
            await asyncio.sleep(0.1)
        await asyncio.wait(tasks, timeout=WAIT)
        return time.monotonic() - started

    took = asyncio.run(scenario())
    assert leaving.process.poll() is not None and took < 10, took
    for _, game_id in games_:
        out = a.shell(f"from play.models import Game; print(' '.join(Game.objects.get(pk={game_id}).action_list()))")
        actions = out.split()
        assert actions[:len(acknowledged[game_id])] == acknowledged[game_id]


def test_a_game_held_up_in_the_database_does_not_hold_up_another(scale_servers, scale_database_url):
    a = scale_servers[0]
    names = players(a, "ha", "hb", "hc", "hd")
    held_path, held_id = start_game(a, names[0], names[1])
    free_path, _ = start_game(a, names[2], names[3])
    sessions = {name: log_in(a, name, PASSWORD) for name in (names[0], names[2])}

    async def scenario():
        held = LiveSocket(a, held_path, sessions[names[0]], "player on the held game")
        free = LiveSocket(a, free_path, sessions[names[2]], "player on the free game")
        for tab in (held, free):
            await tab.open()
        # Something else holds the held game's row (another process's long transaction).
        blocker = await psycopg.AsyncConnection.connect(scale_database_url.replace(
            "postgres://", "postgresql://"))
        await blocker.execute("BEGIN")
        await blocker.execute("SELECT id FROM play_game WHERE id = %s FOR UPDATE", [held_id])
        await held.send(type="play", ply=0, action="c3")
        started = time.monotonic()
        await free.send(type="play", ply=0, action="c3")
        assert (await free.expect("action"))["action"] == "c3"
        assert time.monotonic() - started < 2
        await held.quiet(0.5)  # still waiting for the row
        await blocker.execute("ROLLBACK")
        assert (await held.expect("action"))["action"] == "c3"
        await blocker.close()
        for tab in (held, free):
            await tab.close()

    asyncio.run(scenario())
