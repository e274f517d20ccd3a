"""PostgreSQL out of reach while the server processes stay up (restarted, its backends
terminated): a move sent meanwhile is answered `server_error` and applied once when resent
after it is back, and the mover's clock is not charged for the time the server could not
store it (live.outages), as no clock is charged for the gap of a site restart."""
import asyncio
import threading
import time
import uuid

import pytest

from siteservers import database_away
from tests.ws.live_client import LiveSocket, log_in, open_and_make_the_first_move
from tests.ws.messages import WAIT

pytestmark = pytest.mark.scale

PASSWORD = "scale-away-pass-5182"
AWAY = 6  # seconds PostgreSQL refuses


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
        # Resent until it is stored (the process reconnects to the database meanwhile).
        while True:
            await p1.send(type="play", ply=1, action="a1")
            message = await p1.receive(timeout=WAIT)
            while p1.remember(message):  # presence, sync
                message = await p1.receive(timeout=WAIT)
            if message["type"] == "action":
                break
            assert message["type"] == "error" and message["code"] == "server_error", message
            await asyncio.sleep(0.2)
        assert message["ply"] == 1 and message["action"] == "a1", message
        left = message["clocks"]["remaining_ms"][1]
        for tab in (p0, p1):
            await tab.close()
        return 10 * 60_000 - left, away_for

    charged_ms, away_for = asyncio.run(scenario())
    # Charged for the half second before the move and the time the move took once the
    # database answered, not for the AWAY seconds between.
    assert charged_ms < AWAY * 1000 < away_for * 1000, (charged_ms, away_for)
