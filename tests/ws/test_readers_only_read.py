"""The rule of live.lanes, true without exception: a game changes only in its lane, and the
reader threads only read (their connections refuse writes). A snapshot of a game whose time is
up shows the flag fallen; the game's room ends it, once, in the game's lane."""
import asyncio
import threading
from datetime import timedelta

import pytest
from django.db import DatabaseError
from django.utils import timezone

from live import lanes
from play import services
from play.clock import TimeControl
from play.models import Game
from play.signals import game_ending
from tests.ws.sockets import Socket, run

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_reader_thread_cannot_write(users, new_game):
    alice, bob = users("alice", "bob")
    game = new_game([alice, bob])

    def abort_behind_the_lane():
        return Game.objects.filter(pk=game.pk).update(status="aborted")

    async def scenario():
        with pytest.raises(DatabaseError):
            await lanes.read(abort_behind_the_lane)
        assert await lanes.read(lambda: Game.objects.get(pk=game.pk).status) == "active"

    run(scenario)


@pytest.fixture
def readers_beside_the_writer():
    """The test database is SQLite's in-memory shared cache, in which a reader meets the
    writer's table lock ("database table is locked"); a database file in WAL mode, as the
    site serves it, has no such lock. Here the reader threads read past it."""
    from django.db import connection
    from django.db.backends.signals import connection_created

    def past_the_lock(sender, connection, **kwargs):
        if connection.vendor == "sqlite" and threading.current_thread().name.startswith(
                lanes.READER_PREFIX):
            with connection.cursor() as cursor:
                cursor.execute("PRAGMA read_uncommitted = ON")

    if connection.vendor == "sqlite":
        # Reader threads opened before this test keep their connections: start a fresh pool.
        lanes.shutdown()
    connection_created.connect(past_the_lock)
    yield
    connection_created.disconnect(past_the_lock)
    lanes.shutdown()


def lapsed_game(alice, bob, new_game):
    """A realtime game in which bob, to move, ran out of time a minute ago."""
    game = new_game([alice, bob], "hadron", {"size": 5}, TimeControl.realtime(1, 0))
    for ply, (player, action) in enumerate([(alice, "c3"), (bob, "a1"), (alice, "e5")]):
        services.play(game.pk, player, ply, action)
    # Test-only shortcut: bob's whole minute has gone.
    Game.objects.filter(pk=game.pk).update(
        remaining1_ms=1000, turn_started_at=timezone.now() - timedelta(minutes=1))
    return game


async def until_end_and_snapshots(tab, count):
    """The messages of `tab` until it has heard the end and `count` snapshots, by type."""
    heard = {"snapshot": []}
    while "end" not in heard or len(heard["snapshot"]) < count:
        message = await tab.receive()
        if message["type"] == "snapshot":
            heard["snapshot"].append(message)
        elif message["type"] == "end":
            assert "end" not in heard, f"{tab.name} heard two ends"
            heard["end"] = message
    return heard


def test_a_lapsed_game_read_by_many_snapshots_ends_once_in_its_lane(users, new_game,
                                                                  readers_beside_the_writer):
    alice, bob, *watchers = users("alice", "bob", "carol", "dave", "erin")
    game = lapsed_game(alice, bob, new_game)
    key = ("game", game.pk)
    endings = []

    def ended(sender, game, **kwargs):
        lane = lanes._lanes.get(key)
        endings.append((threading.current_thread().name, lane is not None and lane.lock.locked()))

    game_ending.connect(ended)
    tabs = [Socket(game.pk, person) for person in (alice, bob, *watchers)]

    async def scenario():
        snapshots = await asyncio.gather(*(tab.open() for tab in tabs))
        # Every socket's first snapshot is read as it stands (the end may come before some).
        assert all(snap["clocks"]["remaining_ms"][1] == 0 for snap in snapshots)
        for _ in range(3):
            for tab in tabs:
                await tab.send(type="snapshot")
        for tab in tabs:
            heard = await until_end_and_snapshots(tab, 3)
            assert heard["end"]["result"]["reason"] == "time"
        for tab in tabs:
            await tab.close()

    try:
        run(scenario)
    finally:
        game_ending.disconnect(ended)
    assert len(endings) == 1
    thread, in_lane = endings[0]
    assert thread.startswith("live-write") and in_lane
    final = Game.objects.get(pk=game.pk)
    assert (final.status, final.reason, final.winner) == ("finished", "time", 0)
