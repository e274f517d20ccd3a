"""Vacations racing the sweeper and the opponent's move, on PostgreSQL: two server processes
(here two threads, each with its own connection) at the same moment. The player's row orders
vacation changes, the game's row orders everything done to a game: a vacation never un-flags a
game whose deadline passed, nor gives a turn its time away twice."""
import threading
from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from play import services, sweeper, vacations
from play.clock import TimeControl
from play.models import Game, Vacation
from play.signals import game_ending
from tests.site.test_ratings_race import in_threads

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(connection.vendor != "postgresql",
                       reason="row locks and concurrent connections need PostgreSQL "
                              "(DATABASE_URL=postgres://...)"),
]

ROUNDS = 5
DAY = timedelta(days=1)


def refresh(game):
    return Game.objects.get(pk=game.pk)


# Moments are now and later: a turn's clock cannot start before the game was created.


def correspondence(alice, bob, t0):
    """A 3-day game, bob to move since t0."""
    game = services.start_game(game="hadron", options={"size": 5}, players=(alice, bob),
                               time_control=TimeControl.correspondence(3))
    services.play(game.pk, alice, 0, "c3", now=t0)
    return game


def both_at_once(*jobs):
    gate = threading.Barrier(len(jobs))

    def gated(job):
        def run():
            gate.wait()
            job()
        return run
    in_threads(*[gated(job) for job in jobs])


def test_leaving_after_the_deadline_and_the_sweeper_race(alice, bob):
    """bob's deadline passed a minute ago; he leaves as the sweeper comes by. Whichever takes
    the game's row first, the game is lost on time, once; bob is on vacation either way."""
    for _ in range(ROUNDS):
        t0 = timezone.now()
        game = services.start_game(game="hadron", options={"size": 5}, players=(alice, bob),
                                   time_control=TimeControl.correspondence(3))
        for ply, (player, action) in enumerate(((alice, "c3"), (bob, "a1"), (alice, "e5"))):
            services.play(game.pk, player, ply, action, now=t0)
        now = t0 + 3 * DAY + timedelta(minutes=1)
        ended = []

        def counted(sender, game, now, **kwargs):
            ended.append(game.pk)
        game_ending.connect(counted, dispatch_uid="vacation-race")
        try:
            both_at_once(lambda: vacations.start(bob, now=now), lambda: sweeper.sweep(now))
        finally:
            game_ending.disconnect(dispatch_uid="vacation-race")
        game = refresh(game)
        assert (game.status, game.reason, game.winner) == (Game.FINISHED, "time", 0)
        assert game.finished_at == now and game.vacation1_since is None
        assert ended == [game.pk]
        assert Vacation.objects.filter(user=bob, ended_at__isnull=True).count() == 1
        vacations.end(bob, now=now + DAY)
        assert not refresh(game).is_active       # coming back does not bring it back
        Vacation.objects.all().delete()


def test_leaving_and_the_opponents_move_race(alice, bob):
    """alice moves as bob leaves: either order, bob's new turn stands still while he is away
    and, once he is back, he has his whole three days, not more."""
    for _ in range(ROUNDS):
        t0 = timezone.now()
        game = services.start_game(game="hadron", options={"size": 5}, players=(alice, bob),
                                   time_control=TimeControl.correspondence(3))
        services.play(game.pk, alice, 0, "c3", now=t0)
        services.play(game.pk, bob, 1, "a1", now=t0)
        now = t0 + DAY

        def leave():
            vacations.start(bob, now=now)

        def opponent():
            services.play(game.pk, alice, 2, "e5", now=now)

        both_at_once(leave, opponent)
        game = refresh(game)
        assert game.is_active and game.ply_count == 3 and game.running == 1
        assert game.vacation1_since == now and game.deadline is None
        back = now + 5 * DAY
        vacations.end(bob, now=back)
        assert refresh(game).deadline == back + 3 * DAY
        Vacation.objects.all().delete()


def test_coming_back_and_the_sweeper_ending_the_allowance_race(alice, bob):
    """bob's days ran out; he comes back as the sweeper ends his vacation. One of them ends it:
    his turn gets its time away back once (given twice, the deadline would move on twice)."""
    for _ in range(ROUNDS):
        t0 = timezone.now()
        game = correspondence(alice, bob, t0)
        begun = refresh(game).turn_started_at
        vacations.start(bob, now=t0 + DAY)       # a day of his three used; 30 days away at most
        out = t0 + 31 * DAY
        now = out + timedelta(hours=1)
        refusals = []

        def back():
            try:
                vacations.end(bob, now=now)
            except vacations.VacationError as refusal:
                refusals.append(refusal.code)

        def sweep():
            sweeper.sweep(now)

        both_at_once(back, sweep)
        assert refusals in ([], ["not_on_vacation"])
        vacation = Vacation.objects.get(user=bob)
        assert vacation.ended_at == out          # the allowance's end, whoever ended it
        game = refresh(game)
        assert game.is_active and game.vacation1_since is None
        assert game.deadline == begun + 30 * DAY + 3 * DAY   # his 30 days away, given once
        Vacation.objects.all().delete()
        Game.objects.filter(pk=game.pk).update(status=Game.ABORTED)
