"""Conditional moves over real websockets on a real Daphne: a correspondence player leaves
lines; the opponent's matching move is followed at once by the reply, heard by everyone as any
action; a move off the lines discards them, the owner told; bad input refused with its code;
the lines are seen by their owner alone, after a reconnect too."""
import asyncio

from tests.ws.live_client import LiveSocket, log_in, snapshot_json
from tests.ws.messages import all_quiet

PASSWORD = "conditional-daphne-pass-4412"


def test_conditional_line_played_discarded_refused_and_private(daphne_server):
    server = daphne_server
    server.create_users(["cia", "cid", "cat"], PASSWORD)
    path = server.manage("startgame", "hadron", "cia", "cid", "--days", "3").stdout.strip()
    sessions = {name: log_in(server, name, PASSWORD) for name in ("cia", "cid", "cat")}

    async def scenario():
        cia = LiveSocket(server, path, sessions["cia"], "cia")
        cid = LiveSocket(server, path, sessions["cid"], "cid")
        cat = LiveSocket(server, path, sessions["cat"], "cat")
        anon = LiveSocket(server, path)
        tabs = (cia, cid, cat, anon)
        for tab in tabs:
            await tab.open()

        # Bad input: each refused with its code, nothing stored.
        await cia.send(type="conditions", ply=0, lines=[[["e5"], ["a1"]]])
        await cia.error("your_turn")
        await cid.send(type="conditions", ply=0, lines="e5 a1")
        await cid.error("bad_message")
        await cid.send(type="conditions", ply=0, lines=[[["e5"], ["a1"]]] * 17)
        await cid.error("too_large")
        await cat.send(type="conditions", ply=0, lines=[[["e5"], ["a1"]]])
        await cat.error("not_a_player")
        await anon.send(type="conditions", ply=0, lines=[[["e5"], ["a1"]]])
        await anon.error("login_required")
        await cid.send(type="conditions", ply=0, lines=[[["a1"], ["a1"]]])
        refused = await cid.error("illegal")
        assert "line 1, turn 2 (your): a1" in refused["message"]
        await all_quiet(tabs)

        # cid leaves two lines: only cid hears them.
        lines = [[["c3"], ["a1"], ["e1"], ["a5"]], [["b2"], ["d4"]]]
        await cid.send(type="conditions", ply=0, lines=lines)
        assert await cid.expect("conditions") == {"type": "conditions", "ply": 0, "lines": lines}
        await all_quiet((cia, cat, anon))

        # A reconnect shows them again, to cid only.
        await cid.close()
        for tab in (cia, cat, anon):
            await tab.expect("presence")
        cid = LiveSocket(server, path, sessions["cid"], "cid")
        assert (await cid.open())["conditions"] == {"ply": 0, "lines": lines}
        for tab in (cia, cat, anon):
            await tab.expect("presence")
        watcher = LiveSocket(server, path, sessions["cat"], "cat-2")
        assert (await watcher.open())["conditions"] is None
        for tab in (cia, cid, cat, anon):
            await tab.expect("presence")
        tabs = (cia, cid, cat, anon, watcher)

        # cia plays c3: everyone hears it, then cid's reply a1, in that order.
        await cia.send(type="play", ply=0, action="c3")
        for tab in tabs:
            first, second = await tab.expect("action"), await tab.expect("action")
            assert [(first["ply"], first["action"]), (second["ply"], second["action"])] == [
                (0, "c3"), (1, "a1")]
            assert second["player"] == 1
            # Everyone's move list marks the reply as played by a condition.
            assert second["by_condition"] is True and "by_condition" not in first
        advanced = await cid.expect("conditions")
        assert advanced["lines"] == [[["e1"], ["a5"]]] and advanced["played"] == ["a1"]
        await all_quiet(tabs)
        # cid cannot act twice: the turn is cia's.
        await cid.send(type="play", ply=2, action="b2")
        await cid.error("not_your_turn")

        # cia plays off the line: the tree is discarded, cid told why, the turn is cid's.
        await cia.send(type="play", ply=2, action="b4")
        for tab in tabs:
            assert (await tab.expect("action"))["action"] == "b4"
        cleared = await cid.expect("conditions_cleared")
        assert cleared["reason"] == "discarded" and "b4" in cleared["message"]
        await all_quiet(tabs)
        for tab in tabs:
            await tab.close()

    asyncio.run(scenario())
    final = snapshot_json(server, path)
    assert final["actions"] == ["c3", "a1", "b4"]
    assert final["conditions"] is None


def test_conditions_refused_in_realtime(daphne_server):
    server = daphne_server
    server.create_users(["rua", "rob"], PASSWORD)
    path = server.manage("startgame", "hadron", "rua", "rob", "--time", "5+0").stdout.strip()
    session = log_in(server, "rob", PASSWORD)

    async def scenario():
        rob = LiveSocket(server, path, session, "rob")
        await rob.open()
        await rob.send(type="conditions", ply=0, lines=[[["a1"], ["e5"]]])
        await rob.error("not_correspondence")
        await rob.close()

    asyncio.run(scenario())
