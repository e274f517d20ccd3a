"""The live path heals itself and one client cannot hurt the others (live.sockets,
live.registry, live.lanes, play.rooms), through channels' communicator and the real ASGI
application: killed consumers, lost group memberships, floods, socket caps, hostile frames,
slow games, the clock at the moment of receipt."""
import asyncio
import json
import logging
import time
from datetime import timedelta

import pytest
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator

from live import process, registry
from play import services
from play.clock import TimeControl
from live.models import Presence
from play.models import Game
from tests.ws.messages import WAIT, all_quiet
from tests.ws.sockets import HOST, ORIGIN, Socket, application, headers_for, run

pytestmark = pytest.mark.django_db(transaction=True)


@database_sync_to_async
def connections_of(game_id):
    return sorted(Presence.objects.filter(game_id=game_id).values_list("channel_name", flat=True))


def test_presence_dies_with_a_killed_consumer(users, new_game):
    alice, bob, carol = users("alice", "bob", "carol")
    game = new_game([alice, bob])
    a, c = Socket(game.pk, alice), Socket(game.pk, carol)

    async def scenario():
        await a.open()
        await c.open()
        await a.presence_becomes(watchers=1)
        # carol's consumer is killed: its task ends without disconnect() (a crash, or Daphne
        # cancelling an application that would not close).
        c.communicator.future.cancel()
        await asyncio.sleep(0.1)
        assert len(await connections_of(game.pk)) == 2
        # The process's next heartbeat forgets it, and the page hears it at once.
        await process.beat()
        assert len(await connections_of(game.pk)) == 1
        await a.presence_becomes(watchers=0, players_online=[True, False])
        # Nothing keeps refreshing a row for it: the process counts one socket on the game.
        assert [s.user for s in registry.open_sockets() if getattr(s, "game_id", None) == game.pk] == [alice]
        await a.close()

    run(scenario)


def test_a_socket_that_lost_its_group_catches_up_at_the_keep_alive(users, new_game):
    alice, bob, carol = users("alice", "bob", "carol")
    game = new_game([alice, bob])
    a, b, c = Socket(game.pk, alice), Socket(game.pk, bob), Socket(game.pk, carol)

    async def scenario():
        for tab in (a, b, c):
            await tab.open()
        # The channel layer forgets the game's group (channels-redis expires memberships after
        # a day; Redis may lose its data): nobody hears the next action, not even its sender.
        layer = get_channel_layer()
        layer.groups.pop(f"game-{game.pk}")
        await a.send(type="play", ply=0, action="c3")
        await all_quiet((a, b, c))
        assert await database_sync_to_async(lambda: Game.objects.get(pk=game.pk).ply_count)() == 1
        # The keep-alive tells every open socket the game's ply from the database...
        await process._keep_alive()
        for tab in (a, b, c):
            assert await tab.expect("sync") == {"type": "sync", "ply": 1, "status": "active"}
            # ... and a page that is behind asks for the position (docs/protocol.md).
            await tab.send(type="snapshot")
            assert (await tab.expect("snapshot"))["game"]["actions"] == ["c3"]
        # The memberships were renewed: the next action reaches everyone again.
        await b.send(type="play", ply=1, action="a1")
        for tab in (a, b, c):
            assert (await tab.expect("action"))["action"] == "a1"
        # A pong carries the ply too.
        await c.send(type="ping")
        assert (await c.expect("pong"))["ply"] == 2
        for tab in (a, b, c):
            await tab.close()

    run(scenario)


def test_a_flooding_socket_is_limited_then_closed(users, new_game, settings):
    settings.LIVE_RATE_BURST, settings.LIVE_RATE_PER_SECOND, settings.LIVE_FLOOD_CLOSE = 5, 1, 40
    alice, bob = users("alice", "bob")
    game = new_game([alice, bob])
    flood, other = Socket(game.pk, alice), Socket(game.pk, bob)

    async def scenario():
        await flood.open()
        await other.open()
        for _ in range(8):
            await flood.send(type="snapshot")
        kinds = [m["type"] for m in await flood.take(6)]
        assert kinds == ["snapshot"] * 5 + ["error"]
        # One refusal a second at most, whatever the flood.
        await flood.quiet(0.3)
        for _ in range(40):
            await flood.send(type="ping")
        output = await flood.communicator.receive_output(WAIT)
        while output["type"] != "websocket.close":
            output = await flood.communicator.receive_output(WAIT)
        assert output["code"] == 4008
        # The other player's socket was never slowed or closed.
        await other.send(type="ping")
        assert (await other.expect("pong"))["ply"] == 0
        await other.close()

    run(scenario)


def test_sockets_per_user_are_capped(users, new_game, settings):
    settings.LIVE_SOCKETS_PER_USER = 3
    alice, bob = users("alice", "bob")
    game = new_game([alice, bob])
    headers = headers_for(alice)

    async def scenario():
        tabs = [Socket(game.pk, alice, headers=headers) for _ in range(3)]
        for tab in tabs:
            await tab.open()
        fourth = Socket(game.pk, alice, headers=headers)
        assert not await fourth.connect()
        await tabs[0].close()
        again = Socket(game.pk, alice, headers=headers)
        await again.open()
        for tab in tabs[1:] + [again]:
            await tab.close()

    run(scenario)


def test_a_burst_of_handshakes_is_capped_too(users, new_game, settings):
    settings.LIVE_SOCKETS_PER_USER = 3
    alice, bob = users("alice", "bob")
    game = new_game([alice, bob])
    headers = headers_for(alice)

    async def scenario():
        tabs = [Socket(game.pk, alice, headers=headers) for _ in range(10)]
        # All at once: each is counted before its first await, so no more than 3 get in.
        opened = await asyncio.gather(*(tab.connect() for tab in tabs))
        assert sum(opened) == 3
        for tab, connected in zip(tabs, opened):
            if connected:
                await tab.close()

    run(scenario)


def test_hostile_frames_are_refused_without_a_trace(users, new_game, caplog):
    alice, bob = users("alice", "bob")
    game = new_game([alice, bob])
    a = Socket(game.pk, alice)

    async def scenario():
        await a.open()
        with caplog.at_level(logging.WARNING):
            await a.send_text("[" * 4000)
            await a.error("bad_json")
            await a.send_text('{"type": "ping", "deep": ' + "[" * 2000 + "]" * 2000 + "}")
            await a.error("bad_json")
        assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
        for path in ("/ws/game/abc/", "/ws/game/-1/", "/ws/nothing/", "/ws/game/1/extra/"):
            refused = WebsocketCommunicator(application(), path, headers=[ORIGIN, HOST])
            connected, _ = await refused.connect(timeout=WAIT)
            assert not connected, path
        await a.close()

    run(scenario)


def test_a_slow_game_does_not_hold_up_another(users, new_game, monkeypatch):
    alice, bob, carol, dave = users("alice", "bob", "carol", "dave")
    slow, quick = new_game([alice, bob]), new_game([carol, dave])
    real_current = services.snapshot_for

    def current(game_id, user=None):
        if game_id == slow.pk:
            time.sleep(1.5)  # e.g. a long game replayed after a restart
        return real_current(game_id, user)

    monkeypatch.setattr(services, "snapshot_for", current)
    a, c = Socket(slow.pk, alice), Socket(quick.pk, carol)

    async def scenario():
        await a.open()
        await c.open()
        started = time.monotonic()
        await a.send(type="snapshot")
        await c.send(type="play", ply=0, action="c3")
        assert (await c.expect("action"))["action"] == "c3"
        quick_took = time.monotonic() - started
        await a.expect("snapshot")
        slow_took = time.monotonic() - started
        assert quick_took < slow_took and slow_took >= 1.5
        for tab in (a, c):
            await tab.close()

    run(scenario)


def test_time_waiting_in_the_server_is_not_charged(users, new_game, monkeypatch):
    alice, bob = users("alice", "bob")
    game = new_game([alice, bob], "hadron", {"size": 5}, TimeControl.realtime(1, 0))
    services.play(game.pk, alice, 0, "c3")
    services.play(game.pk, bob, 1, "a1")
    real_locked = Game.objects.locked

    def slow_locked():
        time.sleep(1.5)  # an artificially slow database
        return real_locked()

    a = Socket(game.pk, alice)

    async def scenario():
        await a.open()
        monkeypatch.setattr(Game.objects, "locked", slow_locked)
        await a.send(type="play", ply=2, action="e5")
        await a.expect("action")
        await a.close()

    run(scenario)
    game = Game.objects.get(pk=game.pk)
    charged = 60_000 - game.remaining0_ms
    assert charged < 1000, f"alice was charged {charged} ms for a move that waited 1.5 s"


def test_claiming_the_win_over_the_socket(users, new_game):
    alice, bob = users("alice", "bob")
    game = new_game([alice, bob], "hadron", {"size": 5}, TimeControl.realtime(5, 0))
    services.play(game.pk, alice, 0, "c3")
    services.play(game.pk, bob, 1, "a1")
    a = Socket(game.pk, alice)

    async def scenario():
        snapshot = await a.open()
        assert snapshot["presence"]["claimable_at"][0] is not None  # bob never came
        await a.send(type="claim_victory", ply=2)
        await a.error("not_allowed")
        # bob has been gone for long enough.
        await database_sync_to_async(Game.objects.filter(pk=game.pk).update)(
            absent1_since=game.created_at - timedelta(minutes=1))
        await a.send(type="claim_victory", ply=2)
        end = await a.expect("end")
        assert end["result"] == {"winner": 0, "reason": "left",
                                 "text": "bob left the game — alice wins"}
        await a.close()

    run(scenario)
