"""The game page's chat over the live game socket, through channels' communicator and the real
ASGI application: two players, spectators and a visitor on one game; who hears which room
during and after the game, and what bad input is answered."""
import pytest
from channels.db import database_sync_to_async

from talk import services as talk
from talk.models import ChatLine
from tests.ws.messages import all_quiet
from tests.ws.sockets import Socket, headers_for, run

pytestmark = pytest.mark.django_db(transaction=True)


@database_sync_to_async
def stored():
    return list(ChatLine.objects.order_by("id").values_list("author__username", "room", "text"))


async def heard_line(tab, author, room, text):
    message = await tab.expect("chat")
    assert (message["author"], message["room"], message["text"]) == (author, room, text)
    assert isinstance(message["id"], int) and isinstance(message["ply"], int)
    assert isinstance(message["time"], str)
    return message


def test_players_and_spectators_each_hear_their_own_room_during_the_game(users, new_game):
    alice, bob, carol = users("alice", "bob", "carol")
    game = new_game([alice, bob], "hadron", {"size": 5})
    players = [Socket(game.pk, alice), Socket(game.pk, bob)]
    spectators = [Socket(game.pk, carol), Socket(game.pk, None)]

    async def scenario():
        for tab in players + spectators:
            snapshot = await tab.open()
            assert snapshot["chat"] == []
        # Markup is data: it comes back exactly as written, for the page to show as text.
        await players[0].send(type="chat", text="  <b>x</b> & <script>alert(1)</script>  ")
        for tab in players:
            line = await heard_line(tab, "alice", "players", "<b>x</b> & <script>alert(1)</script>")
            assert line["ply"] == 0
        await spectators[0].send(type="chat", text="alice is lost")
        for tab in spectators:
            await heard_line(tab, "carol", "spectators", "alice is lost")
        # Neither side heard the other's room.
        await all_quiet(players + spectators)
        assert await stored() == [("alice", "players", "<b>x</b> & <script>alert(1)</script>"),
                                  ("carol", "spectators", "alice is lost")]
        for tab in players + spectators:
            await tab.close()

    run(scenario)


def test_a_reloaded_page_gets_the_lines_its_viewer_may_read(users, new_game):
    alice, bob, carol, dave = users("alice", "bob", "carol", "dave")
    game = new_game([alice, bob])
    talk.add_line(game.pk, alice, "good luck")
    talk.add_line(game.pk, carol, "bob is better")
    bob_tab, dave_tab = Socket(game.pk, bob), Socket(game.pk, dave)

    async def scenario():
        assert [line["text"] for line in (await bob_tab.open())["chat"]] == ["good luck"]
        assert [line["text"] for line in (await dave_tab.open())["chat"]] == ["bob is better"]
        # Asking for a snapshot again gives the same view.
        await bob_tab.send(type="snapshot")
        assert [line["text"] for line in (await bob_tab.expect("snapshot"))["game"]["chat"]] == [
            "good luck"]
        await bob_tab.close()
        await dave_tab.close()

    run(scenario)


def test_after_the_end_everyone_hears_both_rooms(users, new_game):
    alice, bob, carol = users("alice", "bob", "carol")
    game = new_game([alice, bob])
    talk.add_line(game.pk, carol, "during the game")
    tabs = [Socket(game.pk, alice), Socket(game.pk, bob), Socket(game.pk, carol)]

    async def scenario():
        for tab in tabs:
            await tab.open()
        await tabs[1].send(type="resign", ply=0)
        for tab in tabs:
            await tab.expect("end")
        await tabs[2].send(type="chat", text="well played")
        for tab in tabs:
            await heard_line(tab, "carol", "spectators", "well played")
        await tabs[0].send(type="chat", text="thanks")
        for tab in tabs:
            await heard_line(tab, "alice", "players", "thanks")
        await all_quiet(tabs)
        # The replay keeps both rooms, the spectators' line from during the game included.
        await tabs[0].send(type="snapshot")
        chat = (await tabs[0].expect("snapshot"))["game"]["chat"]
        assert [(line["room"], line["text"]) for line in chat] == [
            ("spectators", "during the game"), ("spectators", "well played"), ("players", "thanks")]
        for tab in tabs:
            await tab.close()

    run(scenario)


@pytest.mark.parametrize("fields, code", [
    ({}, "bad_message"),
    ({"text": None}, "bad_message"),
    ({"text": 42}, "bad_message"),
    ({"text": ["hi"]}, "bad_message"),
    ({"text": "   "}, "bad_message"),
    ({"text": "x" * 141}, "bad_message"),
    ({"text": "two\nlines"}, "bad_message"),
    ({"text": "nul\u0000"}, "bad_message"),
    ({"text": "\u202eoverride"}, "bad_message"),
])
def test_bad_lines_are_answered_to_the_sender_alone_and_not_stored(users, new_game, fields, code):
    alice, bob = users("alice", "bob")
    game = new_game([alice, bob])
    tabs = [Socket(game.pk, alice), Socket(game.pk, bob)]

    async def scenario():
        for tab in tabs:
            await tab.open()
        await tabs[0].send(type="chat", **fields)
        await tabs[0].error(code)
        await all_quiet(tabs)
        assert await stored() == []
        for tab in tabs:
            await tab.close()

    run(scenario)


def test_a_visitor_may_read_but_not_write(users, new_game):
    alice, bob = users("alice", "bob")
    game = new_game([alice, bob])
    visitor, alice_tab = Socket(game.pk, None), Socket(game.pk, alice)

    async def scenario():
        await visitor.open()
        await alice_tab.open()
        # Logged in first, then the fields: a visitor's bad line is refused for the login.
        await visitor.send(type="chat", text="hello")
        await visitor.error("login_required")
        await visitor.send(type="chat", text=12)
        await visitor.error("login_required")
        await all_quiet([visitor, alice_tab])
        assert await stored() == []
        await visitor.close()
        await alice_tab.close()

    run(scenario)


def test_a_burst_of_lines_then_chat_rate_limited(users, new_game):
    alice, bob, carol = users("alice", "bob", "carol")
    game = new_game([alice, bob])
    carol_headers = headers_for(carol)
    carol_tab, bob_tab = Socket(game.pk, carol, headers=carol_headers), Socket(game.pk, bob)

    async def scenario():
        await carol_tab.open()
        await bob_tab.open()
        for n in range(talk.BURST):
            await carol_tab.send(type="chat", text=f"line {n}")
            await heard_line(carol_tab, "carol", "spectators", f"line {n}")
        await carol_tab.send(type="chat", text="one too many")
        message = await carol_tab.error("chat_rate_limited")
        assert "wait" in message["message"]
        # A second tab of the same author shares the limit: it is kept with the game.
        second = Socket(game.pk, carol, headers=carol_headers)
        await second.open()
        await second.send(type="chat", text="from another tab")
        await second.error("chat_rate_limited")
        # bob is not held up by carol's lines.
        await bob_tab.send(type="chat", text="quiet please")
        await heard_line(bob_tab, "bob", "players", "quiet please")
        await all_quiet([carol_tab, bob_tab, second])
        assert len(await stored()) == talk.BURST + 1
        for tab in (carol_tab, bob_tab, second):
            await tab.close()

    run(scenario)
