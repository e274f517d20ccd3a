"""A rated game played to its end over real websocket connections (channels' communicator,
the site's ASGI application): the message that ends it carries both rating changes to the
players and a spectator, the database agrees, and the players' notification sockets follow
whose turn it is."""
import random

import pytest
from channels.db import database_sync_to_async

from play.clock import TimeControl
from play.services import start_game
from ratings.models import Rating, RatingChange
from tests.ws.sockets import PageSocket, Socket, headers_for, run

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_rated_game_over_websockets_updates_both_ratings_and_says_so(users):
    alice, bob, carol = users("alice", "bob", "carol")
    game = start_game(game="hadron", options={"size": 5}, players=(alice, bob), rated=True,
                      time_control=TimeControl.untimed())
    headers = {user.username: headers_for(user) for user in (alice, bob, carol)}
    rng = random.Random(7)

    async def scenario():
        tabs = [Socket(game.pk, user, headers=headers[user.username])
                for user in (alice, bob, carol)]
        notify = {user.username: PageSocket("/ws/notify/", user, headers=headers[user.username])
                  for user in (alice, bob)}
        snapshots = [await tab.open() for tab in tabs]
        assert snapshots[0]["rated"] is True
        assert snapshots[2]["players"][1]["rating"] == {"rating": 1500, "provisional": True}
        assert (await notify["alice"].open())["your_turn"] == [game.pk]
        assert (await notify["bob"].open())["your_turn"] == []

        game_state = snapshots[0]
        last = None
        while last is None or last["result"] is None:
            state = game_state["state"] if last is None else last["state"]
            mover = tabs[0] if state["to_move"] == 0 else tabs[1]
            await mover.send(type="play", ply=state["ply"], action=rng.choice(state["legal"]))
            received = [await tab.expect("action") for tab in tabs]
            assert len({r["ply"] for r in received}) == 1
            last = received[0]
            if last["result"] is None:
                # The player now to move hears it on their notification socket.
                to_move = "alice" if last["state"]["to_move"] == 0 else "bob"
                await notify[to_move].quiet(0.2)
                assert notify[to_move].turn["your_turn"] is True
                assert notify[to_move].turn["game_id"] == game.pk

        result = last["result"]
        assert all(r["result"] == result for r in received)  # players and the spectator
        winner = result["winner"]
        ratings = result["ratings"]
        assert [r["username"] for r in ratings] == ["alice", "bob"]
        assert ratings[winner]["change"] > 0 > ratings[1 - winner]["change"]
        assert all(r["before"] == 1500 and r["provisional"] for r in ratings)
        rows = await database_sync_to_async(
            lambda: {r.user.username: r for r in Rating.objects.select_related("user")})()
        for entry in ratings:
            assert entry["after"] == round(rows[entry["username"]].rating)
            assert entry["change"] == entry["after"] - entry["before"]
        assert await database_sync_to_async(RatingChange.objects.filter(played=game).count)() == 2

        # A spectator who arrives afterwards gets the same changes in the snapshot, and the
        # cards show the new ratings.
        late = Socket(game.pk, None)
        snapshot = await late.open()
        assert snapshot["result"]["ratings"] == ratings
        assert [p["rating"]["rating"] for p in snapshot["players"]] == [r["after"] for r in ratings]

        for name in ("alice", "bob"):
            await notify[name].quiet(0.2)
            assert notify[name].turn == {**notify[name].turn, "game_id": game.pk, "over": True,
                                         "your_turn": False}
        for tab in [*tabs, late, *notify.values()]:
            await tab.close()

    run(scenario)
