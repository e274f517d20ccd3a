"""Mined puzzles (games.puzzles): the generator's output re-checked, and the shipped sets."""
import random

import pytest

import games
from games.puzzles import BOUNDS, check, load, mine_game, position_of
from games.solver import CertificateError, Solver, brute_force

# Re-checking a whole shipped set takes minutes (`python -m games.puzzles check <game>`, timed
# in docs/measurements.md); the tests re-check a seeded sample of each.
SAMPLE = 12


@pytest.mark.parametrize("name", games.names())
def test_shipped_set_has_200_distinct_missed_wins_on_the_default_board(name):
    puzzles = load(name)
    game = games.get(name)
    assert len(puzzles) >= 200
    assert len({p["id"] for p in puzzles}) == len(puzzles)
    assert len({tuple(p["actions"]) for p in puzzles}) == len(puzzles)
    for puzzle in puzzles:
        assert puzzle["options"] == game.normalize_options()
        assert puzzle["moves"] and puzzle["played"] not in puzzle["moves"]
        assert 1 <= puzzle["depth"] <= BOUNDS[name]
        assert puzzle["line"][0] in puzzle["moves"] and len(puzzle["line"]) == puzzle["depth"]
        assert puzzle["themes"]


@pytest.mark.parametrize("name", games.names())
def test_a_sample_of_the_shipped_set_is_proven_again(name):
    for puzzle in random.Random(24).sample(load(name), SAMPLE):
        check(puzzle)
        state = position_of(puzzle)
        # The move the player made in the game does not win within the bound at all.
        assert not Solver(state).wins(state.play(puzzle["played"]), BOUNDS[name] - 1)


def test_mining_is_repeatable_and_every_puzzle_is_a_missed_win():
    first = mine_game("hadron", {"size": 5}, seed=13)
    assert first and first == mine_game("hadron", {"size": 5}, seed=13)
    for puzzle in first:
        state = position_of(puzzle)
        assert puzzle["played"] in state.legal_actions()
        assert puzzle["moves"] == sorted(brute_force(state, puzzle["depth"]))
        if puzzle["depth"] > 1:
            assert brute_force(state, puzzle["depth"] - 1) == []


def test_check_finds_a_missing_answer_an_extra_answer_a_wrong_length_and_a_short_line():
    puzzle = next(p for p in load("copolymer") if len(p["moves"]) >= 2)
    check(puzzle)
    with pytest.raises(CertificateError):
        check({**puzzle, "moves": puzzle["moves"][1:]})
    state = position_of(puzzle)
    wrong = next(a for a in state.legal_actions() if a not in puzzle["moves"])
    with pytest.raises(CertificateError):
        check({**puzzle, "moves": puzzle["moves"] + [wrong]})
    with pytest.raises(AssertionError, match="shortest win"):
        check({**puzzle, "depth": puzzle["depth"] + 1})
    with pytest.raises(AssertionError, match="does not end in the win"):
        check({**puzzle, "line": puzzle["line"][:-1]})


def test_tripen_puzzles_include_double_threats_and_copolymer_forced_claims():
    assert any("double threat" in p["themes"] for p in load("tripen"))
    assert any("forced claim" in p["themes"] for p in load("copolymer"))
