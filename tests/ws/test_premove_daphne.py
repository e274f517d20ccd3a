"""Premoves over real websockets on a real Daphne: queued while the opponent is to move, played
by the server on the opponent's move, dropped with the reason when illegal, shown again after a
reconnect to its owner only, never acting out of turn or after the end."""
import asyncio

from tests.ws.live_client import LiveSocket, log_in, snapshot_json
from tests.ws.messages import all_quiet

PASSWORD = "premove-daphne-pass-7731"


def test_premove_played_dropped_kept_over_reconnect_and_private(daphne_server):
    server = daphne_server
    server.create_users(["pia", "pete", "paz"], PASSWORD)
    path = server.manage("startgame", "hadron", "pia", "pete", "--time", "5+0").stdout.strip()
    sessions = {name: log_in(server, name, PASSWORD) for name in ("pia", "pete", "paz")}

    async def scenario():
        pia = LiveSocket(server, path, sessions["pia"], "pia")
        pete = LiveSocket(server, path, sessions["pete"], "pete")
        paz = LiveSocket(server, path, sessions["paz"], "paz")
        anon = LiveSocket(server, path)
        tabs = (pia, pete, paz, anon)
        for tab in tabs:
            await tab.open()

        # Bad input: each refused with its code, nothing stored.
        await pia.send(type="premove", ply=0, actions=["a1"])
        await pia.error("your_turn")
        await pete.send(type="premove", ply=0, actions="a1")
        await pete.error("bad_message")
        await pete.send(type="premove", ply=0, actions=[])
        await pete.error("bad_message")
        await paz.send(type="premove", ply=0, actions=["a1"])
        await paz.error("not_a_player")
        await anon.send(type="premove", ply=0, actions=["a1"])
        await anon.error("login_required")
        await pete.send(type="premove", ply=0, actions=["zz9"])
        await pete.error("illegal")
        await all_quiet(tabs)

        # pete queues a1; only pete hears it.
        await pete.send(type="premove", ply=0, actions=["a1"])
        assert await pete.expect("premove") == {"type": "premove", "ply": 0, "actions": ["a1"]}
        await all_quiet((pia, paz, anon))

        # A reconnect shows it again, to pete only.
        await pete.close()
        await pia.expect("presence")
        await paz.expect("presence")
        await anon.expect("presence")
        pete = LiveSocket(server, path, sessions["pete"], "pete")
        assert (await pete.open())["premove"] == {"ply": 0, "actions": ["a1"]}
        for tab in (pia, paz, anon):
            await tab.expect("presence")
        watcher = LiveSocket(server, path, sessions["paz"], "paz-2")
        assert (await watcher.open())["premove"] is None
        tabs = (pia, pete, paz, anon, watcher)
        for tab in (pia, pete, paz, anon):
            await tab.expect("presence")

        # pia moves: everyone hears her action, then pete's premove at once, in that order.
        await pia.send(type="play", ply=0, action="c3")
        for tab in tabs:
            first, second = await tab.expect("action"), await tab.expect("action")
            assert [(first["ply"], first["action"]), (second["ply"], second["action"])] == [
                (0, "c3"), (1, "a1")]
            assert second["player"] == 1
        assert (await pete.expect("premove_cleared"))["reason"] == "played"
        await all_quiet(tabs)
        # pete cannot act twice: the turn is pia's.
        await pete.send(type="play", ply=2, action="e5")
        await pete.error("not_your_turn")

        # An illegal premove: pete wants e5, pia takes it. Dropped, pete told why, turn his.
        await pete.send(type="premove", ply=2, actions=["e5"])
        await pete.expect("premove")
        await pia.send(type="play", ply=2, action="e5")
        for tab in tabs:
            assert (await tab.expect("action"))["action"] == "e5"
        dropped = await pete.expect("premove_cleared")
        assert dropped["reason"] == "dropped" and dropped["code"] == "illegal"
        assert "e5" in dropped["message"]
        await all_quiet(tabs)

        # Cancelled by its owner: not played.
        await pia.send(type="premove", ply=3, actions=["a5"])
        await pia.expect("premove")
        await pia.send(type="premove_cancel")
        assert await pia.expect("premove_cleared") == {"type": "premove_cleared",
                                                       "reason": "cancelled"}
        await pete.send(type="play", ply=3, action="e1")
        for tab in tabs:
            assert (await tab.expect("action"))["action"] == "e1"
        await all_quiet(tabs)

        # Never after the end: pia queues, pete resigns, nothing is played.
        await pia.send(type="premove", ply=4, actions=["b2"])
        await pia.error("your_turn")
        await pia.send(type="play", ply=4, action="b2")
        for tab in tabs:
            await tab.expect("action")
        await pia.send(type="premove", ply=5, actions=["d4"])
        await pia.expect("premove")
        await pete.send(type="resign", ply=5)
        for tab in tabs:
            await tab.expect("end")
        await pia.send(type="premove", ply=5, actions=["d4"])
        await pia.error("game_over")
        await all_quiet(tabs)
        for tab in tabs:
            await tab.close()

    asyncio.run(scenario())
    final = snapshot_json(server, path)
    assert final["actions"] == ["c3", "a1", "e5", "e1", "b2"]
    assert final["result"]["reason"] == "resign"


def test_premove_refused_in_correspondence(daphne_server):
    server = daphne_server
    server.create_users(["cora", "cole"], PASSWORD)
    path = server.manage("startgame", "hadron", "cora", "cole", "--days", "3").stdout.strip()
    session = log_in(server, "cole", PASSWORD)

    async def scenario():
        cole = LiveSocket(server, path, session, "cole")
        await cole.open()
        await cole.send(type="premove", ply=0, actions=["a1"])
        await cole.error("not_realtime")
        await cole.close()

    asyncio.run(scenario())
