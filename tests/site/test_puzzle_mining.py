"""Puzzles mined from the site's archive (`manage.py make_puzzles`, learn.mining): a missed
forced win in a stored game becomes a puzzle, served at /puzzles/<game>/; a position whose
win was found, or whose proof fails the independent check, does not."""
import random

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.urls import reverse

import games
import games.puzzles
from games.puzzles import BOUNDS, check, load, position_key
from games.solver import Solver, solve
from learn.models import MinedGame, MinedPuzzle
from play import services
from tests.site.played import start

pytestmark = pytest.mark.django_db


def line_with(seed, blunder: bool):
    """A random Hadron line (size 5) that reaches a position with a forced win not in the
    shipped set; there the mover plays an action that does not win (`blunder`) or one that
    does. Returns the line, the position's ply and its winning moves."""
    rng, shipped = random.Random(seed), {position_key(games.puzzles.position_of(p))
                                         for p in load("hadron")}
    state, ply, answers = games.get("hadron").new(size=5), None, None
    while not state.is_over:
        if ply is None and position_key(state) not in shipped:
            solver = Solver(state)
            solution = solve(state, BOUNDS["hadron"], solver)
            if solution.wins:
                losing = [a for a in state.legal_actions()
                          if not solver.wins(state.play(a), BOUNDS["hadron"] - 1)]
                if losing:
                    ply, answers = state.ply, sorted(solution.moves)
                    state = state.play(rng.choice(losing) if blunder else answers[0])
                    continue
        state = state.play(rng.choice(state.legal_actions()))
    assert ply is not None
    return list(state.actions), ply, answers


def stored(alice, bob, actions):
    game = start(alice, bob, "hadron", {"size": 5})
    for action in actions:
        game = services.load(game.pk)
        mover = game.players()[game.player_of(game.state().to_move)]
        services.play(game.pk, mover, game.ply_count, action)
    game = services.load(game.pk)
    assert not game.is_active and game.has_result
    return game


def mined_at(ply):
    return [m for m in MinedPuzzle.objects.filter(game="hadron") if m.data["ply"] == ply]


def test_a_missed_win_in_a_stored_game_becomes_a_served_puzzle(client, alice, bob):
    actions, ply, answers = line_with(3, blunder=True)
    game = stored(alice, bob, actions)
    call_command("make_puzzles", "hadron", "--per-game", "99")
    [puzzle] = mined_at(ply)
    assert puzzle.source_game == game
    assert puzzle.data["moves"] == answers
    assert puzzle.data["played"] == actions[ply] and actions[ply] not in answers
    assert puzzle.data["actions"] == actions[:ply]
    check(puzzle.data)  # the same independent re-check as the shipped set's
    # Served beside the shipped set, credited to the game it came from.
    page = client.get(reverse("learn:puzzle", args=["hadron", puzzle.puzzle_id]))
    assert page.status_code == 200 and game.get_absolute_url() in page.content.decode()
    solved = client.post(reverse("learn:puzzle", args=["hadron", puzzle.puzzle_id]),
                         {"action": answers[0], "moves": ""})
    assert solved.status_code == 200
    assert "verdict-solved" in solved.content.decode() or \
        "verdict-again" in solved.content.decode()
    # A rerun reads only the games that ended since: nothing is mined twice.
    assert MinedGame.objects.get(source_game=game).puzzles == MinedPuzzle.objects.count()
    call_command("make_puzzles", "hadron", "--per-game", "99")
    assert len(mined_at(ply)) == 1


def test_a_win_that_was_found_is_no_puzzle(alice, bob):
    actions, ply, _ = line_with(3, blunder=False)
    stored(alice, bob, actions)
    call_command("make_puzzles", "hadron", "--per-game", "99")
    assert mined_at(ply) == []
    assert MinedGame.objects.count() == 1


def test_a_proof_that_fails_the_independent_check_stores_nothing(monkeypatch, alice, bob):
    actions, ply, _ = line_with(3, blunder=True)
    game = stored(alice, bob, actions)
    real = games.puzzles.proof
    # A certificate one action short proves nothing: verify's own walk must refuse it.
    monkeypatch.setattr(games.puzzles, "proof",
                        lambda state, depth, solver=None: real(state, max(depth - 1, 1)))
    call_command("make_puzzles", "hadron", "--per-game", "99")
    assert MinedPuzzle.objects.count() == 0
    assert not MinedGame.objects.filter(source_game=game).exists()  # mined again once fixed


def test_unknown_game_is_refused():
    with pytest.raises(CommandError, match="no such game: chess"):
        call_command("make_puzzles", "chess")


def test_a_thin_archive_is_topped_up_with_fresh_computer_games():
    """The shipped set's seeds would replay its own games: the top-up starts after them, and
    a second run after the first."""
    from learn import mining
    call_command("make_puzzles", "tripen", "--count", "2")
    first = list(MinedPuzzle.objects.filter(game="tripen"))
    assert len(first) == 2 and all(p.source_game is None for p in first)
    shipped = games.puzzles.shipped("tripen")
    assert min(p.data["source"]["seed"] for p in first) >= shipped["seed"] + shipped["games"]
    for puzzle in first:
        check(puzzle.data)
    assert mining.first_fresh_seed("tripen") > max(p.data["source"]["seed"] for p in first)
