"""Conditional moves never let their owner act twice or out of turn, on PostgreSQL: two server
processes (here two threads, each with its own connection) handle at the same moment the
opponent's move, which plays the owner's reply, and the owner's own move for the same ply, or
the owner clearing the lines. The game's row lock orders them: one action per ply."""
import threading

import pytest
from django.db import connection

from play import conditionals, services
from play.clock import TimeControl
from play.models import Action, Conditional, Game
from play.services import PlayError
from tests.site.test_premove_race import move_against_resignation
from tests.site.test_ratings_race import in_threads

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(connection.vendor != "postgresql",
                       reason="row locks and concurrent connections need PostgreSQL "
                              "(DATABASE_URL=postgres://...)"),
]

ROUNDS = 6


def started(alice, bob):
    game = services.start_game(game="hadron", options={"size": 5}, players=(alice, bob),
                               time_control=TimeControl.correspondence(3))
    services.play(game.pk, alice, 0, "c3")
    conditionals.save(game.pk, alice, 1, [[["e5"], ["a1"]]])
    return game


def test_the_opponents_move_and_the_owners_own_move_race(alice, bob):
    for _ in range(ROUNDS):
        game = started(alice, bob)
        gate = threading.Barrier(2)
        answers = []

        def opponent():
            gate.wait()
            services.play(game.pk, bob, 1, "e5")

        def owner():
            gate.wait()
            try:
                answers.append(services.play(game.pk, alice, 2, "a5"))
            except PlayError as refusal:
                answers.append(refusal.code)

        in_threads(opponent, owner)
        rows = list(Action.objects.filter(game=game).order_by("ply")
                    .values_list("ply", "player", "action"))
        # Ply 2 is hers once: the reply, stored with the move that passed her the turn.
        assert rows == [(0, 0, "c3"), (1, 1, "e5"), (2, 0, "a1")]
        assert answers == ["stale"]
        assert not Conditional.objects.filter(game=game).exists()


def test_the_opponents_move_and_the_owners_clear_race(alice, bob):
    for _ in range(ROUNDS):
        game = started(alice, bob)
        gate = threading.Barrier(2)

        def opponent():
            gate.wait()
            services.play(game.pk, bob, 1, "e5")

        def owner():
            gate.wait()
            conditionals.clear(game.pk, alice)

        in_threads(opponent, owner)
        game = Game.objects.get(pk=game.pk)
        assert game.action_list() in (["c3", "e5"], ["c3", "e5", "a1"])
        assert not Conditional.objects.filter(game=game).exists()
        assert not game.conditions_waiting


def test_the_opponents_move_and_the_owners_resignation_race(alice, bob):
    """alice resigns as bob's move would play her conditional reply."""
    for _ in range(ROUNDS):
        move_against_resignation(started(alice, bob), alice, bob)
