"""The bounded solver against plain exhaustive search, on small boards of every game, and the
independent certificate check (games.solver)."""
import random

import pytest

import games
from games.solver import (CertificateError, Solver, brute_force, proof, solve, verify,
                          winning_moves)

# Game, small board, bound, which positions of a random game to try (late enough for the
# exhaustive search to finish), how many positions.
CASES = [
    ("hadron", {"size": 5}, 6, lambda s: len(s.legal_actions()) <= 12, 25),
    ("copolymer", {"size": 4}, 8, lambda s: len(s.empty.cells) <= 8, 25),
    ("colorful", {"size": 3}, 6, lambda s: len(s.empty.cells) <= 6, 25),
    ("colorful", {"board": "long", "size": 4}, 5, lambda s: len(s.empty.cells) <= 5, 10),
    ("tripen", {"size": 5}, 3, lambda s: s.ply >= 4, 8),
    ("tripen", {"size": 5}, 3, lambda s: s.ply >= 20, 12),
]


def random_positions(name, options, wanted, count, seed):
    """Positions of seeded random games that `wanted` accepts: mostly the first one of each
    game (the hardest to search), sometimes a later one."""
    rng, game, out = random.Random(seed), games.get(name), []
    while len(out) < count:
        state, seen = game.new(**options), []
        while not state.is_over:
            if wanted(state):
                seen.append(state)
            state = state.play(rng.choice(state.legal_actions()))
        if seen:
            out.append(seen[0] if rng.random() < 0.7 else rng.choice(seen))
    return out


@pytest.mark.parametrize("name,options,bound,wanted,count", CASES,
                         ids=[f"{c[0]}-{'-'.join(map(str, c[1].values()))}" for c in CASES])
def test_solver_claims_a_forced_win_exactly_when_exhaustive_search_finds_one(
        name, options, bound, wanted, count):
    found = 0
    for state in random_positions(name, options, wanted, count, seed=24):
        solver = Solver(state)
        shortest = None
        for depth in range(1, bound + 1):
            exhaustive = brute_force(state, depth)
            assert winning_moves(state, depth, solver) == exhaustive, (state.actions, depth)
            if exhaustive and shortest is None:
                shortest = depth
        solution = solve(state, bound)
        assert solution.depth == shortest, state.actions
        if shortest is not None:
            found += 1
            assert solution.moves == brute_force(state, shortest)
            verify(state, shortest, solution.moves, proof(state, shortest))
    # The sample must hold forced wins, or the comparison proves little.
    assert found >= 2


def test_tripen_win_in_three_is_found_by_the_pruned_replies():
    # No win at once, but a move that leaves two threats one reply cannot both stop: the
    # solver looks only at replies on or over a threat, brute force at all of them.
    state = _tripen_double_threat()
    solution = solve(state, 3)
    assert solution.depth is not None
    assert set(solution.moves) == set(brute_force(state, solution.depth))
    verify(state, solution.depth, solution.moves, proof(state, solution.depth))


def test_tripen_reply_that_overlaps_two_threats_is_searched():
    # Found by taking out of the pruned replies the tokens that overlap a threat: the solver
    # then claimed six winning moves where there are three.
    state = games.get("tripen").replay({"size": 5}, (
        "a3/5 b4/0 e5/1 b1/1 c5/2 e4/0 b2/0 c4/1 b1/4 e1/2 d1/2 c3/1 a4/1 d2/4 e3/0 b5/4 "
        "e1/5 e2/4 a1/1 d4/5 a2/5 d3/0 e2/1 c2/1 c4/4").split())
    assert winning_moves(state, 3) == brute_force(state, 3)
    assert len(brute_force(state, 3)) == 3


def _tripen_double_threat():
    """A Tripen 5x5 position found by a seeded random game where Red (to move) wins in
    exactly three actions and not in one."""
    for state in random_positions("tripen", {"size": 5}, lambda s: s.ply >= 4, 60, seed=7):
        if brute_force(state, 1) == [] and brute_force(state, 3):
            return state
    pytest.fail("no win in three among the seeded positions")


def test_verify_refuses_a_list_that_misses_a_winning_move_or_adds_a_losing_one():
    state = _copolymer_endgame()
    solution = solve(state, 8)
    certificate = proof(state, solution.depth)
    verify(state, solution.depth, solution.moves, certificate)
    with pytest.raises(CertificateError):
        verify(state, solution.depth, solution.moves[1:], certificate)
    loser = next(a for a in state.legal_actions() if a not in solution.moves)
    with pytest.raises(CertificateError):
        verify(state, solution.depth, solution.moves + [loser], certificate)
    # A refutation passed off as a win: the walk through play() finds the other ending.
    forged = {"wins": {**certificate["wins"], loser: certificate["fails"][loser]},
              "fails": {a: c for a, c in certificate["fails"].items() if a != loser}}
    with pytest.raises(CertificateError):
        verify(state, solution.depth, solution.moves + [loser], forged)


def _copolymer_endgame():
    """A Copolymer side-4 endgame where the mover wins with some of their claims only."""
    for state in random_positions("copolymer", {"size": 4}, lambda s: len(s.empty.cells) == 6,
                                  40, seed=3):
        moves = brute_force(state, 6)
        if moves and len(moves) < len(state.legal_actions()):
            return state
    pytest.fail("no such endgame among the seeded positions")


def test_forced_claims_count_as_actions_of_the_same_seat():
    # Copolymer: after a claim touching two enemy cells the same seat claims again, so a win
    # can take two actions of one seat in a row and the search must not hand the turn over.
    state = _copolymer_endgame()
    solver = Solver(state)
    for action in solve(state, 8).moves:
        child = state.play(action)
        assert solver.wins(child, 7)
        if child.person_to_move == state.person_to_move:
            assert any(solver.wins(c, 6) for c in map(child.play, child.legal_actions()))


def test_swap_is_searched_for_the_seat_not_the_colour():
    # After Tripen's swap the seat that moved first plays Blue; a forced win is the seat's.
    state = games.get("tripen").replay({"size": 5}, ["c3/0", "swap"])
    assert state.person_to_move == 0 and state.mover == 1
    assert solve(state, 1).depth is None
    assert brute_force(state, 1) == []


def test_solve_refuses_a_finished_game():
    state = games.get("hadron").new(size=5)
    while not state.is_over:
        state = state.play(state.legal_actions()[0])
    with pytest.raises(ValueError, match="over"):
        solve(state, 3)
