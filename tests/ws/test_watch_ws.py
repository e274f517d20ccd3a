"""The Watch socket /ws/watch/ through channels' communicator and the real ASGI application:
games started, moved in and ended by the play services reach it over the "games" group."""
from datetime import timedelta

import pytest
from channels.db import database_sync_to_async
from django.utils import timezone

from play import services
from play.clock import TimeControl
from play.models import Action, Game
from watch import consumers
from tests.ws.sockets import PageSocket, run

pytestmark = pytest.mark.django_db(transaction=True)


@database_sync_to_async
def start(first, second, game="hadron", options=None):
    return services.start_game(game=game, options=options or {}, players=(first, second),
                               time_control=TimeControl.untimed()).pk


@database_sync_to_async
def play(game_id, *actions):
    for action in actions:
        game = Game.objects.get(pk=game_id)
        mover = game.players()[game.player_of(game.state().to_move)]
        services.play(game_id, mover, game.ply_count, action)


@database_sync_to_async
def resign(game_id, user):
    services.resign(game_id, user, Game.objects.get(pk=game_id).ply_count)


@database_sync_to_async
def make_quiet(game_id, minutes=30):
    then = timezone.now() - timedelta(minutes=minutes)
    Action.objects.filter(game_id=game_id).update(created_at=then)
    Game.objects.filter(pk=game_id).update(updated_at=then)


class Watcher(PageSocket):
    """One Watch page's socket: a new connection gets the list first."""

    first = "list"

    def __init__(self, query=""):
        super().__init__(f"/ws/watch/{query}", None, name=f"watcher {query}".strip())


def test_a_game_appears_changes_and_leaves(users):
    alice, bob, carol, dave = users("alice", "bob", "carol", "dave")

    async def scenario():
        watcher = Watcher()
        listing = await watcher.open()
        assert listing == {"type": "list", "games": [], "featured": None, "total": 0}

        first = await start(alice, bob)
        row = (await watcher.expect("row"))["game"]
        assert (row["id"], row["ply"], row["game"], row["to_move"]) == (first, 0, "hadron", 0)
        assert row["thumbnail"].startswith("<svg") and 'class="tile' not in row["thumbnail"]
        assert row["html"].startswith(f'<li class="watch-row game-hadron" id="watch-game-{first}"')
        assert "<svg" not in row["html"]  # the picture travels once, as `thumbnail`
        # Nothing was featured: the new game is.
        featured = await watcher.expect("featured")
        assert featured["game"]["id"] == first and featured["ended"] is None

        await play(first, "c3")
        moved = await watcher.expect("row")
        assert moved["total"] == 1
        assert [moved["game"][key] for key in ("id", "ply", "to_move")] == [first, 1, 1]
        assert moved["game"]["thumbnail"] != row["thumbnail"]
        assert 'data-cell="c3"' in moved["game"]["thumbnail"]
        assert "1 move</span>" in moved["game"]["html"]

        # A second game appears; the featured one, still being played, stays featured.
        second = await start(carol, dave, "colorful", {"size": 3})
        assert (await watcher.expect("row"))["game"]["id"] == second
        await play(second, "R@A1", "B@A2")
        # One row per action; each read after the action it announces, so never older.
        plies = [(await watcher.expect("row"))["game"]["ply"] for _ in range(2)]
        assert plies[0] >= 1 and plies[1] == 2
        await watcher.quiet()

        # The featured game ends: its row leaves and the other game is featured.
        await resign(first, bob)
        removed = await watcher.expect("remove")
        assert removed == {"type": "remove", "id": first, "total": 1}
        switched = await watcher.expect("featured")
        assert switched["game"]["id"] == second
        assert switched["ended"]["id"] == first and "alice wins" in switched["ended"]["result"]

        # The last game ends: nothing left to feature.
        await resign(second, carol)
        assert (await watcher.expect("remove"))["id"] == second
        last = await watcher.expect("featured")
        assert last["game"] is None and last["ended"]["id"] == second
        await watcher.quiet()
        await watcher.close()

    run(scenario)


def test_the_filter_applies_to_live_updates(users):
    alice, bob = users("alice", "bob")

    async def scenario():
        hadron_only = Watcher("?game=hadron")
        assert (await hadron_only.open())["total"] == 0
        everything = Watcher()
        await everything.open()
        tripen = await start(alice, bob, "tripen", {"size": 5})
        assert (await everything.expect("row"))["game"]["id"] == tripen
        await everything.expect("featured")
        await hadron_only.quiet()
        hadron = await start(bob, alice)
        row = await hadron_only.expect("row")
        assert row["game"]["id"] == hadron and row["total"] == 1
        assert (await hadron_only.expect("featured"))["game"]["id"] == hadron
        assert (await everything.expect("row"))["total"] == 2
        await play(tripen, "a1/0")
        await everything.expect("row")
        await hadron_only.quiet()
        # A filter naming no game is no filter.
        unknown = Watcher("?game=chess")
        assert [g["id"] for g in (await unknown.open())["games"]] == [hadron, tripen]
        for socket in (hadron_only, everything, unknown):
            await socket.close()

    run(scenario)


def test_a_reconnect_keeps_its_featured_game(users):
    alice, bob, carol, dave = users("alice", "bob", "carol", "dave")

    async def scenario():
        calm = await start(alice, bob)
        busy = await start(carol, dave)
        await play(busy, "c3", "a1", "e5")
        fresh = Watcher()
        assert (await fresh.open())["featured"]["id"] == busy
        back = Watcher(f"?featured={calm}")
        listing = await back.open()
        assert listing["featured"]["id"] == calm
        assert [g["id"] for g in listing["games"]] == [busy, calm]
        # A featured game that has ended is not kept.
        await resign(calm, alice)
        later = Watcher(f"?featured={calm}")
        assert (await later.open())["featured"]["id"] == busy
        junk = Watcher("?featured=x1")
        assert (await junk.open())["featured"]["id"] == busy
        for socket in (fresh, back, later, junk):
            await socket.close()

    run(scenario)


def test_a_quiet_featured_game_gives_way_to_one_being_played(users):
    alice, bob, carol, dave = users("alice", "bob", "carol", "dave")

    async def scenario():
        idle = await start(alice, bob)
        await play(idle, "c3")
        other = await start(carol, dave)
        await make_quiet(other, 40)
        await make_quiet(idle, 20)
        watcher = Watcher(f"?featured={idle}")
        assert (await watcher.open())["featured"]["id"] == idle
        await play(other, "c3")
        assert (await watcher.expect("row"))["game"]["id"] == other
        assert (await watcher.expect("featured"))["game"]["id"] == other
        # The new featured game is being played: a move elsewhere changes nothing.
        await play(idle, "a1")
        assert (await watcher.expect("row"))["game"]["id"] == idle
        await watcher.quiet()
        await watcher.close()

    run(scenario)


def test_many_watchers_share_one_read_per_change(users, monkeypatch):
    alice, bob = users("alice", "bob")
    reads = []

    def counted(game_id):
        reads.append(game_id)
        return consumers.services.news_of(game_id)

    monkeypatch.setattr(consumers, "NEWS", consumers.SharedReads(counted, gather=0.2))

    async def scenario():
        watchers = [Watcher() for _ in range(6)]
        for watcher in watchers:
            await watcher.open()
        game = await start(alice, bob)
        for watcher in watchers:
            assert (await watcher.expect("row"))["game"]["ply"] == 0
            await watcher.expect("featured")
        await play(game, "c3")
        for watcher in watchers:
            assert (await watcher.expect("row"))["game"]["ply"] == 1
        # Each change was read once for all six sockets.
        assert reads == [game, game]
        for watcher in watchers:
            await watcher.close()

    run(scenario)


def test_only_pings_are_taken(users):
    async def scenario():
        watcher = Watcher()
        await watcher.open()
        await watcher.send(type="ping")
        assert "server_time" in await watcher.expect("pong")
        for text, code in [('{"type": "play"}', "unknown_type"), ("not json", "bad_json"),
                           ("x" * 5000, "too_large")]:
            await watcher.send_text(text)
            assert (await watcher.expect("error"))["code"] == code
        await watcher.close()

    run(scenario)
