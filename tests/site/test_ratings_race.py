"""Exactly once under a race, on PostgreSQL: two server processes (here two threads, each with
its own database connection) notice the same fallen flag at the same moment, or rate the same
finished game at once. The game row lock, then the rating rows' locks and the unique history
row, let one of them rate it; the other changes nothing."""
import threading
from datetime import timedelta

import pytest
from django.db import connection, connections, transaction
from django.utils import timezone

from play import services
from play.clock import TimeControl
from play.models import Game
from ratings.models import Rating, RatingChange
from ratings.services import rate_game

WAIT = 30

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(connection.vendor != "postgresql",
                       reason="row locks and concurrent connections need PostgreSQL "
                              "(DATABASE_URL=postgres://...)"),
]


def in_threads(*jobs):
    """Run each job in its own thread (its own connection); re-raise the first failure."""
    failures = []

    def run(job):
        try:
            job()
        except BaseException as error:  # noqa: BLE001 - reported to the test thread
            failures.append(error)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=(job,)) for job in jobs]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(WAIT)
        assert not thread.is_alive(), "a thread is stuck"
    if failures:
        raise failures[0]


def flagged_game(first, second):
    game = services.start_game(game="hadron", options={"size": 5}, players=(first, second),
                               time_control=TimeControl.realtime(1, 0), rated=True)
    # Both make a first move (a first move not made aborts the game instead); then the first
    # player's time runs out.
    services.play(game.pk, first, 0, "c3")
    services.play(game.pk, second, 1, "a1")
    Game.objects.filter(pk=game.pk).update(turn_started_at=timezone.now() - timedelta(minutes=5))
    return game


def assert_rated_once(game):
    assert RatingChange.objects.filter(played=game).count() == 2
    assert sorted(Rating.objects.values_list("games", "wins", "losses")) == [(1, 0, 1), (1, 1, 0)]


def test_a_flag_noticed_twice_at_once_is_rated_once(users):
    alice, bob = users("alice", "bob")
    game = flagged_game(alice, bob)
    start = threading.Barrier(2, timeout=WAIT)

    def notice():
        start.wait()
        services.expire(game.pk)

    in_threads(notice, notice)
    game.refresh_from_db()
    assert game.reason == "time" and game.winner == 1
    assert_rated_once(game)


def test_rating_the_same_game_from_two_transactions_at_once_rates_it_once(users):
    """Without the game's row lock (a caller that forgot it, or a repair job): the second
    transaction waits on the rating rows' locks, then finds the history written."""
    alice, bob = users("alice", "bob")
    game = services.start_game(game="hadron", options={"size": 5}, players=(alice, bob),
                               time_control=TimeControl.untimed(), rated=True)
    # The end recorded without a rating, as if rate_game had not been called yet.
    Game.objects.filter(pk=game.pk).update(status=Game.FINISHED, winner=0, reason="resign",
                                           finished_at=timezone.now())
    first_rated, second_waits = threading.Event(), threading.Event()

    def first():
        with transaction.atomic():
            assert len(rate_game(Game.objects.with_players().get(pk=game.pk), timezone.now())) == 2
            first_rated.set()
            # Commit only once the other transaction is blocked on our rating rows.
            assert second_waits.wait(WAIT), "the second transaction never waited on a lock"

    def second():
        assert first_rated.wait(WAIT)
        with transaction.atomic():
            rows = rate_game(Game.objects.with_players().get(pk=game.pk), timezone.now())
            assert [row.user_id for row in rows] == [alice.pk, bob.pk]

    def watch_locks():
        assert first_rated.wait(WAIT)
        with connections["default"].cursor() as cursor:
            for _ in range(WAIT * 100):
                cursor.execute("SELECT count(*) FROM pg_stat_activity "
                               "WHERE datname = current_database() AND wait_event_type = 'Lock'")
                if cursor.fetchone()[0]:
                    second_waits.set()
                    return
                threading.Event().wait(0.01)
        second_waits.set()  # let the first commit; the assertion below reports the failure

    in_threads(first, second, watch_locks)
    assert_rated_once(Game.objects.get(pk=game.pk))
