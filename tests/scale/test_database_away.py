"""PostgreSQL out of reach while the server processes stay up (restarted, its backends
terminated): a move sent meanwhile is answered `server_error` and applied once when resent
after it is back, and the mover's clock is not charged for the time the server could not
store it (live.outages), as no clock is charged for the gap of a site restart."""
import asyncio
import threading
import time
import uuid

import pytest

from siteservers import database_away, fresh_postgres_database
from tests.ws.live_client import LiveSocket, log_in, open_and_make_the_first_move
from tests.ws.messages import WAIT

pytestmark = pytest.mark.scale

PASSWORD = "scale-away-pass-5182"
AWAY = 6  # seconds PostgreSQL refuses


async def resent_until_stored(tab, ply, action):
    """The `action` message of a move resent until it is stored (the process reconnects to
    the database meanwhile: `server_error` until then)."""
    while True:
        await tab.send(type="play", ply=ply, action=action)
        message = await tab.receive(timeout=WAIT)
        while tab.remember(message):  # presence, sync
            message = await tab.receive(timeout=WAIT)
        if message["type"] == "action":
            assert message["ply"] == ply and message["action"] == action, message
            return message
        assert message["type"] == "error" and message["code"] == "server_error", message
        await asyncio.sleep(0.2)


def test_a_move_held_up_by_the_database_away_is_not_charged_for_it(site_servers,
                                                                   scale_database_url):
    server = site_servers(scale_database_url)
    suffix = uuid.uuid4().hex[:6]
    first, second = f"dana{suffix}", f"dino{suffix}"
    server.create_users([first, second], PASSWORD)
    path = server.manage("startgame", "hadron", first, second, "--time", "10+0").stdout.strip()
    sessions = {name: log_in(server, name, PASSWORD) for name in (first, second)}

    async def scenario():
        p0 = LiveSocket(server, path, sessions[first], "player 0")
        p1 = LiveSocket(server, path, sessions[second], "player 1")
        await open_and_make_the_first_move(p0, p1)
        # Player 1's turn has begun; the database goes away at once, for AWAY seconds.
        away = threading.Thread(target=database_away, args=(scale_database_url, AWAY))
        began = time.monotonic()
        away.start()
        await asyncio.sleep(0.5)
        await p1.send(type="play", ply=1, action="a1")
        await p1.error("server_error", timeout=AWAY + WAIT)
        await asyncio.to_thread(away.join)
        away_for = time.monotonic() - began
        message = await resent_until_stored(p1, ply=1, action="a1")
        left = message["clocks"]["remaining_ms"][1]
        for tab in (p0, p1):
            await tab.close()
        return 10 * 60_000 - left, away_for

    charged_ms, away_for = asyncio.run(scenario())
    # Charged for the half second before the move and the time the move took once the
    # database answered, not for the AWAY seconds between.
    assert charged_ms < AWAY * 1000 < away_for * 1000, (charged_ms, away_for)


# The periodic work of a process, far apart: within the test it does no database work of its
# own, as a process does during an outage shorter than its sweeps.
QUIET = {name: "600" for name in ("LIVE_HEARTBEAT", "LIVE_KEEPALIVE", "LIVE_SWEEP",
                                  "JOBS_SWEEP", "TOURNAMENT_TICK", "MAIL_EVERY")}


def test_a_process_that_saw_nothing_of_the_outage_charges_nobody_for_it(site_servers):
    """Two processes; only `seeing` has database work while PostgreSQL is away (a move that is
    answered server_error). Then `blind` stores a move first, before `seeing` has done
    anything more. Before: blind knew nothing of the outage and charged its mover all of it.
    Now seeing told it (the channel layer), and blind moves the clocks on before that move."""
    from tests.scale.conftest import DATABASE_URL

    with fresh_postgres_database(DATABASE_URL, "tessera_away") as (url, _, _):
        seeing = site_servers(url, **QUIET)
        blind = site_servers(url, migrate_first=False, **QUIET)
        try:
            charged_ms, away_for = _blind_after_an_outage(seeing, blind, url)
        finally:
            for server in (seeing, blind):
                server.stop()   # before their database is dropped
    assert charged_ms < AWAY * 1000 < away_for * 1000, (charged_ms, away_for)


def _blind_after_an_outage(seeing, blind, url):
    names = ["sam", "sia", "bob", "bea"]
    seeing.create_users(names, PASSWORD)
    paths = [seeing.manage("startgame", "hadron", first, second, "--time", "10+0")
             .stdout.strip() for first, second in (names[:2], names[2:])]
    sessions = {name: log_in(seeing, name, PASSWORD) for name in names}

    async def scenario():
        tabs = [LiveSocket(server, path, sessions[name], name)
                for server, path, name in ((seeing, paths[0], "sam"), (seeing, paths[0], "sia"),
                                           (blind, paths[1], "bob"), (blind, paths[1], "bea"))]
        await open_and_make_the_first_move(tabs[2], tabs[3])   # bea's turn, on blind
        await open_and_make_the_first_move(tabs[0], tabs[1])
        # The presence news of the tabs' arrival (debounced) is behind us on blind: its
        # database work must not fall in the outage.
        while not (tabs[3].presence and all(tabs[3].presence["players_online"])):
            tabs[3].remember(await tabs[3].receive())
        away = threading.Thread(target=database_away, args=(url, AWAY))
        began = time.monotonic()
        away.start()
        await asyncio.sleep(0.5)
        await tabs[1].send(type="play", ply=1, action="a1")     # seeing sees it
        await tabs[1].error("server_error", timeout=AWAY + WAIT)
        await asyncio.to_thread(away.join)
        away_for = time.monotonic() - began
        message = await resent_until_stored(tabs[3], ply=1, action="a1")
        for tab in tabs:
            await tab.close()
        return 10 * 60_000 - message["clocks"]["remaining_ms"][1], away_for

    return asyncio.run(scenario())
