"""Pages that go away while news is on its way to them, on a real Daphne process.

A socket whose page has sent its close frame is closed at once for Autobahn, but Daphne tells
the consumer only once the connection is gone, which waits until what was written to it has
left: the news that reaches the consumer meanwhile has nowhere to go. At the end of the scaling
runs (load generators closing thousands of sockets at once) each such send raised in the
consumer, which died with an ERROR in the server's log ("Exception inside application") and
without its disconnect. The page here stops reading first, so its connection stays in that
state until it is dropped: every move's news meets it."""
import asyncio
from pathlib import Path

import games
from tests.ws.live_client import LiveSocket, StalledSocket, log_in

PASSWORD = "closing-pass-6610"
# Snapshots of a big Tripen board (about 140 kB each) the stalled page asks for and does not
# read: far more than the kernel's buffers hold, so the rest waits in the server's.
SNAPSHOTS = 80


def errors(server):
    text = Path(server.log_path).read_text(errors="replace")
    return [line for line in text.splitlines() if " ERROR " in line]


async def keep_alives(tab, count):
    """Read `tab` until it has heard `count` keep-alives (sync, every LIVE_KEEPALIVE s)."""
    heard = 0
    while heard < count:
        heard += (await tab.receive())["type"] == "sync"


def test_news_to_a_closing_socket_is_dropped_quietly(site_servers):
    """Before: each move's news to the closing socket raised Autobahn's Disconnected in the
    consumer, which died and Daphne logged it at ERROR. Now the news is dropped for that socket
    alone: the other pages hear every move and the log has no ERROR."""
    server = site_servers(LIVE_RATE_BURST="1000")
    server.create_users(["cleo", "cato"], PASSWORD)
    path = server.manage("startgame", "tripen", "cleo", "cato", "--option",
                         "size=13").stdout.strip()
    sessions = {name: log_in(server, name, PASSWORD) for name in ("cleo", "cato")}
    state = games.get("tripen").new(size=13)

    async def scenario():
        nonlocal state
        players = [LiveSocket(server, path, sessions[name], name) for name in ("cleo", "cato")]
        watcher = LiveSocket(server, path)
        tabs = (*players, watcher)
        for tab in tabs:
            await tab.open()

        async def heard_by_all(action):
            nonlocal state
            for tab in tabs:
                assert (await tab.expect("action"))["action"] == action
            state = state.play(action)

        # Cleo's second tab asks for snapshots it never reads, then plays: once the other
        # pages hear its move, every snapshot was written (in the server's buffers).
        stalled = StalledSocket(server, path, sessions["cleo"]).open()
        first = state.legal_actions()[0]
        stalled.send(*[stalled.message(type="snapshot")] * SNAPSHOTS,
                     stalled.message(type="play", ply=0, action=first))
        await heard_by_all(first)
        # It closes: Autobahn answers at once, but the connection waits for the buffers.
        stalled.send(stalled.closing())
        for _ in range(4):
            action = state.legal_actions()[0]
            await players[state.to_move].send(type="play", ply=len(state.actions),
                                              action=action)
            await heard_by_all(action)
        stalled.drop()
        # Two keep-alives later Daphne has looked at its consumers (every second) and logged
        # any that died.
        await keep_alives(players[1], 2)
        newcomer = LiveSocket(server, path)
        snapshot = await newcomer.open()
        for tab in (*tabs, newcomer):
            await tab.close()
        return snapshot

    snapshot = asyncio.run(scenario())
    assert snapshot["state"]["ply"] == len(state.actions) == 5
    assert not errors(server), server.log()
