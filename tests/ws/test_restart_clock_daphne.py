"""A restart's gap is charged to nobody: two real Daphne processes on one database, the players'
pages on the one that gets SIGTERM; it closes them with 4012 and they come back on the other
(as through the proxy of a rolling restart)."""
import asyncio
import signal
from datetime import datetime

from websockets.exceptions import ConnectionClosed

import games
from tests.ws.live_client import LiveSocket, log_in
from tests.ws.messages import WAIT

PASSWORD = "restart-clock-pass-5521"
# How long the mover's page stays away after the close (a page's reconnection through the
# proxy, on a busy site); less than PLAY_RESTART_GRACE_SECONDS.
AWAY = 1.5


async def closed_code(tab):
    try:
        async for _ in tab.ws:
            pass
    except ConnectionClosed:
        pass
    return tab.ws.close_code


def started(clocks):
    return datetime.fromisoformat(clocks["turn_started_at"])


def two_processes_and_a_game(site_servers):
    """A process to be stopped (its pages closed at once, a 5 s grace) and another on the same
    database; rhea and rune's game of 5+0 on it, and their sessions."""
    stopping = site_servers(DRAIN_SPREAD_SECONDS="0", PLAY_RESTART_GRACE_SECONDS="5")
    other = site_servers(stopping.env["DATABASE_URL"], migrate_first=False)
    stopping.create_users(["rhea", "rune"], PASSWORD)
    path = stopping.manage("startgame", "hadron", "rhea", "rune", "--time", "5+0").stdout.strip()
    sessions = {name: log_in(stopping, name, PASSWORD) for name in ("rhea", "rune")}
    return stopping, other, path, sessions


def test_the_mover_is_not_charged_for_a_restart_that_closed_their_page(site_servers):
    """Before: the mover's clock ran from the close to their page's return on the other
    process (bench/failures.py: 105 moves charged over 1 s, up to 3.7 s, in one rolling
    restart). Now their turn's start moves on by at least the time they were away, once; the
    other player, not to move, is given nothing, and hears the clocks."""
    stopping, other, path, sessions = two_processes_and_a_game(site_servers)

    async def scenario():
        rhea = LiveSocket(stopping, path, sessions["rhea"], "rhea")
        rune = LiveSocket(stopping, path, sessions["rune"], "rune")
        await rhea.open()
        await rune.open()
        for ply, (tab, action) in enumerate([(rhea, "c3"), (rune, "a1")]):
            await tab.send(type="play", ply=ply, action=action)
            for each in (rhea, rune):
                last = await each.expect("action")
        before = last["clocks"]                      # rhea to move, her clock running
        assert before["running"] == 0
        stopping.process.send_signal(signal.SIGTERM)
        codes = await asyncio.gather(closed_code(rhea), closed_code(rune))
        # Rune is back at once; rhea only after AWAY.
        rune = LiveSocket(other, path, sessions["rune"], "rune")
        rune_back = (await rune.open())["clocks"]
        await asyncio.sleep(AWAY)
        rhea = LiveSocket(other, path, sessions["rhea"], "rhea")
        await rhea.open()
        # Given back once her page has its snapshot: both pages hear the clocks.
        # (expect() passes over the keep-alive's news for ever: bounded, a page that never
        # hears the clocks fails here.)
        rhea_back = await asyncio.wait_for(rhea.expect("clocks"), WAIT)
        heard = await asyncio.wait_for(rune.expect("clocks"), WAIT)
        # Once: a second page of hers gets nothing more.
        again = LiveSocket(other, path, sessions["rhea"], "rhea")
        rhea_again = (await again.open())["clocks"]
        for tab in (rhea, rune, again):
            await tab.close()
        return codes, before, rune_back, rhea_back, heard, rhea_again

    codes, before, rune_back, rhea_back, heard, rhea_again = asyncio.run(scenario())
    assert codes == [4012, 4012], stopping.log()
    assert started(rune_back) == started(before)     # rune's return gave nothing
    assert rhea_back == heard and heard["player"] == 0
    given = (started(heard["clocks"]) - started(before)).total_seconds()
    assert AWAY <= given <= 5, (before, heard, other.log())
    assert abs(heard["given_back_ms"] / 1000 - given) < 0.002
    assert rhea_again["turn_started_at"] == heard["clocks"]["turn_started_at"]
    assert stopping.process.wait(timeout=30) == 0, stopping.log()


def stored_ms(clocks, player):
    """What the player's clock held when their turn began: `remaining_ms` is read at the
    message's server_time, while their clock ran."""
    ran = datetime.fromisoformat(clocks["server_time"]) - started(clocks)
    return clocks["remaining_ms"][player] + round(ran.total_seconds() * 1000)


# A legal third move after c3 and a1 (Hadron's default size).
THIRD = games.get("hadron").new().play("c3").play("a1").legal_actions()[0]


def test_a_restart_gives_nothing_to_a_player_whose_other_page_stayed(site_servers):
    """Rhea has the game open on both processes. Before: the restart noted her away anyway, and
    her closed page, back on the other process, got its gap back (a `clocks` before her move),
    though her other tab could play all along. Now nothing is noted for her: no `clocks`, and
    her move is charged all the time since her turn began."""
    stopping, other, path, sessions = two_processes_and_a_game(site_servers)

    async def scenario():
        rhea = LiveSocket(stopping, path, sessions["rhea"], "rhea")
        rune = LiveSocket(stopping, path, sessions["rune"], "rune")
        staying = LiveSocket(other, path, sessions["rhea"], "rhea")
        for tab in (rhea, rune, staying):
            await tab.open()
        for ply, (tab, action) in enumerate([(rhea, "c3"), (rune, "a1")]):
            await tab.send(type="play", ply=ply, action=action)
            for each in (rhea, rune):
                last = await each.expect("action")
        before = last["clocks"]                      # rhea to move, her clock running
        stopping.process.send_signal(signal.SIGTERM)
        codes = await asyncio.gather(closed_code(rhea), closed_code(rune))
        rune = LiveSocket(other, path, sessions["rune"], "rune")
        await rune.open()
        await asyncio.sleep(AWAY)
        rhea = LiveSocket(other, path, sessions["rhea"], "rhea")
        await rhea.open()
        # Her move is handled after whatever her page's arrival gave back (connect() awaits
        # it): a `clocks` would come first.
        await rhea.send(type="play", ply=2, action=THIRD)
        moved = [await tab.expect("action") for tab in (rhea, rune)]
        for tab in (rhea, rune, staying):
            await tab.close()
        return codes, before, moved

    codes, before, moved = asyncio.run(scenario())
    assert codes == [4012, 4012], stopping.log()
    assert moved[0] == moved[1] and moved[0]["ply"] == 2
    after = moved[0]["clocks"]
    charged = stored_ms(before, 0) - after["remaining_ms"][0]
    turn = round((started(after) - started(before)).total_seconds() * 1000)
    assert abs(charged - turn) <= 2, (before, after, other.log())
    assert turn >= AWAY * 1000
    assert stopping.process.wait(timeout=30) == 0, stopping.log()
