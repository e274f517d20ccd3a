"""The event page's socket /ws/tournament/<id>/ through channels' communicator and the real
ASGI application: the standings on connect, then pushed after games end, at most once a
second per event."""
from datetime import timedelta

import pytest
from channels.db import database_sync_to_async
from django.utils import timezone

from play import services as play
from play.clock import TimeControl
from play.models import Game
from tests.ws.sockets import PageSocket, run
from tournaments import services
from tournaments.consumers import MIN_GAP
from tournaments.models import Pairing

pytestmark = pytest.mark.django_db(transaction=True)


class EventSocket(PageSocket):
    first = "standings"

    def __init__(self, tournament_id):
        super().__init__(f"/ws/tournament/{tournament_id}/", None, name="event page")


@database_sync_to_async
def resign_first_players(game_ids):
    for game_id in game_ids:
        game = Game.objects.select_related("player0").get(pk=game_id)
        play.resign(game_id, game.player0, game.ply_count)


def test_standings_are_pushed_after_game_ends_at_most_once_a_second(django_user_model):
    people = [django_user_model.objects.create_user(f"pushed{n}") for n in range(4)]
    tournament = services.create(
        people[0], name="pushed arena", kind="arena", game="hadron", options={"size": 5},
        time_control=TimeControl("realtime", 3, 2), rated=False,
        starts_at=timezone.now() - timedelta(seconds=1), minutes=30)
    for person in people:
        services.join(tournament.pk, person)
    services.tick()
    game_ids = list(Pairing.objects.values_list("game_id", flat=True))
    assert len(game_ids) == 2

    async def scenario():
        page = EventSocket(tournament.pk)
        first = await page.open()
        assert first["status"] == "running" and len(first["rows"]) == 4
        assert all(row["playing"] and row["points"] == 0 for row in first["rows"])
        await resign_first_players(game_ids[:1])
        await resign_first_players(game_ids[1:])
        pushes = []
        while True:
            message = await page.expect("standings")
            pushes.append(message)
            if sorted(row["points"] for row in message["rows"]) == [0, 0, 2, 2]:
                break
        # Two ends in quick succession: one push at once, the next one held back to MIN_GAP
        # after it (which then carries the second end too), never one per socket per end.
        assert len(pushes) <= 2
        assert not any(row["playing"] for row in pushes[-1]["rows"])
        # Nothing more: the changes are all told.
        assert await page.next_message(MIN_GAP * 1.5) is None
        await page.close()

    run(scenario)


def test_an_unknown_event_is_refused_at_the_handshake():
    async def scenario():
        assert not await EventSocket(999_999).connect()

    run(scenario)
