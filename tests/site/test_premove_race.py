"""A premove never lets its owner act twice, on PostgreSQL: two server processes (here two
threads, each with its own connection) handle at the same moment the opponent's move, which
plays the queued premove, and the owner's own move for the same ply, or the owner's
cancellation. The game's row lock orders them: one action per ply, whoever came first."""
import threading

import pytest
from django.db import connection

from play import premoves, services
from play.clock import TimeControl
from play.models import Action, Game, Premove
from play.services import PlayError
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
                               time_control=TimeControl.realtime(5, 0))
    services.play(game.pk, alice, 0, "c3")
    return game


def test_the_opponents_move_and_the_owners_own_move_race(alice, bob):
    for _ in range(ROUNDS):
        game = started(alice, bob)
        premoves.queue(game.pk, alice, 1, ["a1"])
        gate = threading.Barrier(2)
        answers = []

        def opponent():
            gate.wait()
            services.play(game.pk, bob, 1, "e5")

        def owner():
            gate.wait()
            try:
                # Her own move at the ply the premove would take, with another action.
                answers.append(services.play(game.pk, alice, 2, "a5"))
            except PlayError as refusal:
                answers.append(refusal.code)

        in_threads(opponent, owner)
        rows = list(Action.objects.filter(game=game).order_by("ply")
                    .values_list("ply", "player", "action"))
        # Whichever came first, ply 2 is hers exactly once: the premove, stored in the
        # transaction that passed her the turn, so her own move never finds the ply free
        # (before the opponent's move it is a ply ahead; after it, taken).
        assert rows == [(0, 0, "c3"), (1, 1, "e5"), (2, 0, "a1")]
        assert answers == ["stale"]
        assert Game.objects.get(pk=game.pk).ply_count == 3
        assert not Premove.objects.filter(game=game).exists()


def test_the_opponents_move_and_the_owners_cancel_race(alice, bob):
    for _ in range(ROUNDS):
        game = started(alice, bob)
        premoves.queue(game.pk, alice, 1, ["a1"])
        gate = threading.Barrier(2)

        def opponent():
            gate.wait()
            services.play(game.pk, bob, 1, "e5")

        def owner():
            gate.wait()
            premoves.cancel(game.pk, alice)

        in_threads(opponent, owner)
        actions = Game.objects.get(pk=game.pk).action_list()
        assert actions in (["c3", "e5"], ["c3", "e5", "a1"])
        assert not Premove.objects.filter(game=game).exists()
        assert not Game.objects.get(pk=game.pk).premove_waiting


def test_the_opponents_move_and_the_owners_resignation_race(alice, bob):
    """alice resigns (at the ply she sees) as bob's move would play her premove."""
    for _ in range(ROUNDS):
        game = started(alice, bob)
        premoves.queue(game.pk, alice, 1, ["a1"])
        move_against_resignation(game, alice, bob)


def move_against_resignation(game, alice, bob):
    """bob plays e5, which plays alice's queued a1 (a premove or a conditional reply), as alice
    resigns at ply 1: either she resigned first, and nothing is played after the end, or the
    move and her reply came first, and her resignation for an older ply is refused (stale)."""
    answers = {}

    def opponent():
        try:
            services.play(game.pk, bob, 1, "e5")
            answers["bob"] = "played"
        except PlayError as refusal:
            answers["bob"] = refusal.code

    def owner():
        try:
            services.resign(game.pk, alice, 1)
            answers["alice"] = "resigned"
        except PlayError as refusal:
            answers["alice"] = refusal.code

    gate = threading.Barrier(2)
    in_threads(*[lambda job=job: (gate.wait(), job()) for job in (opponent, owner)])
    game = Game.objects.get(pk=game.pk)
    actions = game.action_list()
    if answers["alice"] == "resigned":
        assert answers["bob"] == "game_over" and actions == ["c3"]
        assert (game.reason, game.winner) == ("resign", 1)
    else:
        assert answers == {"bob": "played", "alice": "stale"}
        assert actions == ["c3", "e5", "a1"] and game.is_active
    # Nothing stored after the end, whichever came first.
    assert Action.objects.filter(game=game).count() == game.ply_count == len(actions)
    return game
