"""One live game across two Daphne processes sharing PostgreSQL and Redis (tests/scale/conftest.py
skips these without DATABASE_URL=postgres://... and REDIS_URL=redis://...).

A player on process A, the other player and a spectator on process B: every action reaches
everyone, presence is counted across processes, racing plies sent to both processes are
applied once, and a clock running out ends the game exactly once although sockets on both
processes notice it."""
import asyncio
import random
import uuid

import pytest

import games
from tests.ws.live_client import LiveSocket, log_in, snapshot_json
from tests.ws.messages import WAIT, all_quiet

pytestmark = pytest.mark.scale

PASSWORD = "scale-live-pass-7741"
LEFT_MS = 8000
IDLE_S = 7  # longer than a blocking Redis read of channels_redis (5 s)


def players(server, *roles):
    """Fresh accounts (the scale servers' database is shared by the whole session)."""
    suffix = uuid.uuid4().hex[:6]
    names = [f"{role}{suffix}" for role in roles]
    for name in names:
        server.create_user(name, PASSWORD)
    return names


def test_one_game_across_two_processes(scale_servers):
    a, b = scale_servers
    first, second, fan = players(a, "ana", "ben", "fan")
    path = a.manage("startgame", "hadron", first, second, "--option", "size=7").stdout.strip()
    sessions = {name: log_in(server, name, PASSWORD)
                for name, server in ((first, a), (second, b), (fan, b))}

    async def scenario():
        p0 = LiveSocket(a, path, sessions[first], "player 0 on A")
        p1 = LiveSocket(b, path, sessions[second], "player 1 on B")
        watcher = LiveSocket(b, path, sessions[fan], "spectator on B")
        p1_on_a = LiveSocket(a, path, sessions[second], "player 1's second tab, on A")
        tabs = (p0, p1, watcher, p1_on_a)
        for tab in tabs:
            await tab.open()
        await p0.presence_becomes(players_online=[True, True], watchers=1)

        rng = random.Random(11)
        state, races = games.get("hadron").new(size=7), 0
        while not state.is_over:
            ply, legal = state.ply, state.legal_actions()
            if state.to_move == 1 and len(legal) >= 2 and races < 6:
                # Player 1's two tabs, on two processes, race for the same ply.
                races += 1
                one, other = rng.sample(legal, 2)
                await asyncio.gather(p1.send(type="play", ply=ply, action=one),
                                     p1_on_a.send(type="play", ply=ply, action=other))
                # Everyone hears the stored action; the losing tab also hears `stale` and a
                # fresh snapshot. Anything more shows up in the next expect() or quiet().
                first_heard = await p0.expect("action")
                assert first_heard["ply"] == ply
                action = first_heard["action"]
                loser = p1_on_a if action == one else p1
                heard = {tab: await tab.take(3 if tab is loser else 1) for tab in tabs[1:]}
                heard[p0] = [first_heard]
                for tab in tabs:
                    assert [m["action"] for m in heard[tab] if m["type"] == "action"] == [action]
                    expected = ["action", "error", "snapshot"] if tab is loser else ["action"]
                    assert sorted(m["type"] for m in heard[tab]) == expected, (tab.name, heard[tab])
                assert [m["code"] for m in heard[loser] if m["type"] == "error"] == ["stale"]
            else:
                action = rng.choice(legal)
                mover = p0 if state.to_move == 0 else (p1 if ply % 4 == 1 else p1_on_a)
                await mover.send(type="play", ply=ply, action=action)
                for tab in tabs:
                    message = await tab.expect("action")
                    assert (message["ply"], message["action"]) == (ply, action), tab.name
            state = state.play(action)
        assert races == 6
        await all_quiet(tabs)
        for tab in tabs:
            await tab.close()
        return state

    state = asyncio.run(scenario())
    for server in (a, b):
        snapshot = snapshot_json(server, path)
        assert snapshot["actions"] == list(state.actions)
        assert snapshot["status"] == "finished" and snapshot["result"]["winner"] == state.winner


def test_sockets_left_idle_stay_open_and_hear_the_next_action(scale_servers):
    """Nobody moves for longer than one blocking read of the Redis channel layer (5 s): the
    sockets on both processes must neither time out nor close, and still hear the game."""
    a, b = scale_servers
    first, second = players(a, "ida", "ivo")
    path = a.manage("startgame", "hadron", first, second).stdout.strip()
    session = log_in(a, first, PASSWORD)

    async def scenario():
        mover = LiveSocket(a, path, session, "player 0 on A")
        watcher = LiveSocket(b, path, name="spectator on B")
        for tab in (mover, watcher):
            await tab.open()
        await asyncio.sleep(IDLE_S)
        await mover.send(type="play", ply=0, action="c3")
        for tab in (mover, watcher):
            assert (await tab.expect("action"))["action"] == "c3", tab.name
        for tab in (mover, watcher):
            await tab.close()

    asyncio.run(scenario())


def test_time_runs_out_once_across_two_processes(scale_servers):
    a, b = scale_servers
    first, second = players(a, "tim", "tom")
    path = a.manage("startgame", "tripen", first, second, "--time", "1+0").stdout.strip()
    game_id = int(path.strip("/").split("/")[-1])
    # Both make their first moves (a first move not made in time aborts the game instead)
    # until it is the first player's turn. Test-only shortcut: then their clock has a few
    # seconds left, enough for the three sockets to open before any timer rings, even on a
    # busy machine.
    a.shell(
        "from django.utils import timezone\n"
        "from play import services\nfrom play.models import Game\n"
        f"game = Game.objects.get(pk={game_id})\n"
        "while not game.both_moved or game.player_to_move() != 0:\n"
        "    state = game.state()\n"
        "    mover = game.players()[game.player_of(state.to_move)]\n"
        f"    services.play({game_id}, mover, state.ply, state.legal_actions()[0])\n"
        f"    game = Game.objects.get(pk={game_id})\n"
        f"Game.objects.filter(pk={game_id}).update(remaining0_ms={LEFT_MS},"
        " turn_started_at=timezone.now())\n")

    async def scenario():
        watchers = [LiveSocket(server, path, name=f"watcher on {tag}")
                    for server, tag in ((a, "A"), (b, "B"), (b, "B again"))]
        for watcher in watchers:
            snapshot = await watcher.open()
            assert snapshot["status"] == "active"
        for watcher in watchers:
            end = await watcher.expect("end", timeout=WAIT + LEFT_MS / 1000)
            assert end["result"]["reason"] == "time" and end["result"]["winner"] == 1
            # Exactly one end, though every socket's timer rang on one process or the other.
            await watcher.quiet(1.0)
            await watcher.close()

    asyncio.run(scenario())
