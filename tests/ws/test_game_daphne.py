"""The live game socket through a real Daphne process and a real websocket client."""
import asyncio

from tests.ws.live_client import LiveSocket, log_in, snapshot_json
from tests.ws.messages import WAIT, all_quiet

PASSWORD = "live-daphne-pass-5521"
LEFT_MS = 5000


def test_players_spectators_errors_repeat_reconnect_and_resign(daphne_server):
    server = daphne_server
    server.create_users(["dora", "dave", "dani"], PASSWORD)
    path = server.manage("startgame", "hadron", "dora", "dave", "--time", "5+2").stdout.strip()
    sessions = {name: log_in(server, name, PASSWORD) for name in ("dora", "dave", "dani")}

    async def scenario():
        dora = LiveSocket(server, path, sessions["dora"], "dora")
        dave = LiveSocket(server, path, sessions["dave"], "dave")
        dani = LiveSocket(server, path, sessions["dani"], "dani")
        anon = LiveSocket(server, path)
        tabs = (dora, dave, dani, anon)
        snapshots = [await tab.open() for tab in tabs]
        assert [s["you"] for s in snapshots] == [0, 1, None, None]
        assert snapshots[0]["time_control"]["text"] == "5+2"

        for ply, (tab, action) in enumerate([(dora, "c3"), (dave, "a1"), (dora, "e5")]):
            await tab.send(type="play", ply=ply, action=action)
            for other in tabs:
                message = await other.expect("action")
                assert (message["ply"], message["action"]) == (ply, action)
                assert message["clocks"]["running"] == (ply + 1) % 2

        await dora.send(type="play", ply=3, action="a5")
        await dora.error("not_your_turn")
        await dora.send(type="play", ply=2, action="E5")
        assert await dora.expect("repeat") == {"type": "repeat", "ply": 2, "action": "e5"}
        await dave.send(type="play", ply=0, action="b2")
        await dave.error("stale")
        assert (await dave.expect("snapshot"))["game"]["actions"] == ["c3", "a1", "e5"]
        await anon.send(type="resign", ply=3)
        await anon.error("login_required")
        await dani.send(type="abort", ply=3)
        await dani.error("not_a_player")
        await all_quiet(tabs)

        # dave drops out and comes back: the others see him leave and return.
        await dave.close()
        assert (await dora.expect("presence"))["players_online"] == [True, False]
        dave = LiveSocket(server, path, sessions["dave"], "dave")
        again = await dave.open()
        assert again["actions"] == ["c3", "a1", "e5"] and again["you"] == 1
        assert again["presence"]["players_online"] == [True, True]
        assert again["presence"]["watchers"] == 2
        assert (await dora.expect("presence"))["players_online"] == [True, True]

        await dave.send(type="resign", ply=3)
        for tab in (dora, dave, dani, anon):
            end = await tab.expect("end")
            assert end["result"] == {"winner": 0, "reason": "resign",
                                     "text": "dave resigned — dora wins"}
        for tab in (dora, dave, dani, anon):
            await tab.close()

    asyncio.run(scenario())
    assert snapshot_json(server, path)["result"]["reason"] == "resign"


def test_time_runs_out_on_the_server_with_nobody_claiming_it(daphne_server):
    server = daphne_server
    server.create_users(["tess", "toby"], PASSWORD)
    path = server.manage("startgame", "copolymer", "tess", "toby", "--time", "1+0").stdout.strip()
    game_id = int(path.strip("/").split("/")[-1])
    # Both make their first moves (a first move not made in time aborts the game instead),
    # until it is tess's turn. Test-only shortcut: then tess's clock has a few seconds left
    # (the smallest real control is a minute); enough for the socket to open first even on a
    # busy machine, or the opening itself would notice the fallen flag.
    server.shell(
        "from django.utils import timezone\n"
        "from play import services\nfrom play.models import Game\n"
        f"game = Game.objects.get(pk={game_id})\n"
        "while not game.both_moved or game.player_to_move() != 0:\n"
        "    state = game.state()\n"
        "    mover = game.players()[game.player_of(state.to_move)]\n"
        f"    services.play({game_id}, mover, state.ply, state.legal_actions()[0])\n"
        f"    game = Game.objects.get(pk={game_id})\n"
        f"Game.objects.filter(pk={game_id})"
        f".update(remaining0_ms={LEFT_MS}, turn_started_at=timezone.now())\n"
    )

    async def scenario():
        watcher = LiveSocket(server, path)
        snapshot = await watcher.open()
        assert snapshot["status"] == "active" and snapshot["clocks"]["running"] == 0
        assert 0 < snapshot["clocks"]["remaining_ms"][0] <= LEFT_MS
        # The watcher only listens: the server's timer ends the game.
        end = await watcher.expect("end", timeout=WAIT + LEFT_MS / 1000)
        assert end["result"] == {"winner": 1, "reason": "time",
                                 "text": "tess ran out of time — toby wins"}
        await watcher.quiet(0.5)
        await watcher.close()

    asyncio.run(scenario())
    assert snapshot_json(server, path)["status"] == "finished"
