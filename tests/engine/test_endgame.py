"""The exact endgame search (games.endgame): Hadron's bitboards agree with the rules, its
answers with the solver that the puzzles' proofs are checked against, and the top levels play
what it finds (issue 28)."""

import random

import pytest

import games
from games.bots import LEVELS, player
from games.endgame import (
    HADRON_LIVE_CELLS, HadronEndgame, OutOfBudget, _shifts, _touching, decide, hadron_legal,
    hadron_live_cells, hadron_tiles,
)
from games import mcts
from games.mcts import immediate_wins, search
from games.solver import brute_force, winning_moves


def hadron(size=5):
    return games.get("hadron").new(size=size)


def random_positions(size, games_played, seed):
    """Every position of a few random games."""
    rng = random.Random(seed)
    for _ in range(games_played):
        state = hadron(size)
        while not state.is_over:
            yield state
            state = state.play(rng.choice(state.legal_actions()))
        yield state


def late_positions(count, seed, live=14):
    """Positions of random 5x5 games, not over, with at most `live` cells left to take."""
    found = []
    for state in random_positions(5, 40, seed):
        if not state.is_over and len(hadron_live_cells(state)) <= live:
            found.append(state)
    return random.Random(seed).sample(found, count)


def cell_names(state, board):
    return {state.board.names[cell] for cell in range(len(state.owner)) if board >> cell & 1}


@pytest.mark.parametrize("size", [5, 7, 9, 11])
def test_the_bitboards_legal_cells_are_the_rules_legal_cells_on_every_size(size):
    for state in random_positions(size, 3, seed=size):
        mine, theirs = hadron_tiles(state)
        legal = hadron_legal(mine, theirs, _shifts(size))
        assert cell_names(state, legal) == set(state.legal_actions())
        # Legality does not depend on who moves.
        assert hadron_legal(theirs, mine, _shifts(size)) == legal


def test_a_dead_cell_never_takes_a_tile():
    """A cell counted out of the live cells (more tiles of one side around it than empty
    neighbours left to even them) is never legal again in the rest of the game."""
    seen = 0
    for state in random_positions(7, 4, seed=3):
        empty = {cell for cell, side in enumerate(state.owner) if side is None}
        dead = empty - hadron_live_cells(state)
        seen += len(dead)
        rng = random.Random(len(state.actions))
        later = state
        while not later.is_over:
            assert not dead & set(later.legal.cells)
            later = later.play(rng.choice(later.legal_actions()))
    assert seen


def test_a_cell_with_two_red_neighbours_and_none_empty_is_dead():
    game = games.get("hadron")
    state = game.state_class.setup(game, {"size": 5}, {"a2": 0, "b1": 0}, to_move=1)
    # a1 has two red neighbours and no empty one: 25 - 2 tiles - a1.
    assert len(hadron_live_cells(state)) == 22


# The puzzles' solver (a table, Hadron's move order) on 25 late positions, and brute force
# (nothing known of any game) on 12 smaller ones.
@pytest.mark.parametrize("check,count,seed,live", [(winning_moves, 25, 1, 14),
                                                   (brute_force, 12, 2, 9)],
                         ids=["solver", "brute_force"])
def test_decided_positions_agree_with_exhaustive_search(check, count, seed, live):
    """Won exactly where the other search finds a forced win within the cells left, with a
    placement it also finds winning."""
    for state in late_positions(count, seed, live):
        empty = sum(side is None for side in state.owner)
        winners = check(state, empty)
        found = decide(state, 200_000)
        assert found.won is bool(winners)
        assert found.action in (winners or [None])


def test_placements_apart_from_the_rest_cancel_in_pairs():
    """Positions with two or more legal cells that touch no empty cell, which the search
    fills in pairs before asking its table, are decided as plain exhaustive search decides
    them."""
    s, checked = _shifts(5), 0
    for state in random_positions(5, 80, seed=7):
        if state.is_over or len(hadron_live_cells(state)) > 10:
            continue
        mine, theirs = hadron_tiles(state)
        apart = hadron_legal(mine, theirs, s) & ~_touching(s.full & ~(mine | theirs), s)
        if apart.bit_count() < 2:
            continue
        empty = sum(side is None for side in state.owner)
        assert decide(state, 200_000).won is bool(brute_force(state, empty))
        checked += 1
    assert checked >= 10


def test_an_undecided_position_says_so():
    """Too big for the budget, or too many live cells to try: no answer, and the tree search
    plays instead."""
    state = hadron().play("c3").play("a1").play("e5")
    assert len(hadron_live_cells(state)) <= HADRON_LIVE_CELLS
    assert decide(state, 50) == (None, None, 51)
    assert decide(hadron(), 10 ** 9) == (None, None, 0)    # the empty board is not tried
    assert decide(games.get("copolymer").new(), 10 ** 6) == (None, None, 0)


def test_a_deadline_stops_the_search():
    state = hadron().play("c3").play("a1")
    endgame = HadronEndgame(5, nodes=10 ** 9, deadline=0.0, clock=lambda: 1.0)
    mine, theirs = hadron_tiles(state)
    with pytest.raises(OutOfBudget):
        endgame.wins(mine, theirs)
    assert decide(state, 10 ** 9, deadline=0.0, clock=lambda: 1.0).won is None


def test_the_tree_search_keeps_a_share_of_the_time(monkeypatch):
    """With a time limit, the exact search must stop at ENDGAME_SHARE of it, so that a slow
    or starved machine still leaves the tree search time to answer; without one, no
    deadline."""
    asked = []

    def decide_nothing(state, nodes, deadline, clock):
        asked.append(deadline)
        return decide(state, 0)

    monkeypatch.setattr(mcts, "decide", decide_nothing)
    state = hadron().play("c3").play("a1").play("e5")
    result = search(state, 20, random.Random(0), time_limit=2.0, clock=lambda: 100.0,
                    endgame=1000)
    assert asked == [100.0 + mcts.ENDGAME_SHARE * 2.0] and 0 < mcts.ENDGAME_SHARE < 1
    assert result.playouts > 0
    search(state, 20, random.Random(0), endgame=1000)
    assert asked[-1] is None


def test_the_search_plays_the_endgames_win_without_a_tree_search():
    outcomes = set()
    for state in late_positions(10, seed=5, live=20):
        if immediate_wins(state) or len(state.legal_actions()) == 1:
            continue   # played before any search
        found = decide(state, 200_000)
        result = search(state, 10, random.Random(0), endgame=200_000)
        if found.won:
            assert result.playouts == 0 and result.proven == state.person_to_move
            assert result.action == found.action and result.value == 1.0
        else:   # lost or undecided: the tree search answers, and the opponent may go wrong
            assert result.playouts > 0 and result.action in state.legal_actions()
        outcomes.add(found.won)
    assert outcomes == {True, False}


def test_the_top_levels_try_the_endgame_and_the_old_level_does_not():
    assert LEVELS[4].endgame and LEVELS[5].endgame > LEVELS[4].endgame
    assert all(not LEVELS[level].endgame for level in (1, 2, 3))
    assert player("mcts4", 1).settings("hadron")["endgame"] == LEVELS[4].endgame
    assert player("mcts4-old", 1).settings("hadron")["endgame"] == 0
    assert player("mcts4,endgame=0", 1).settings("hadron")["endgame"] == 0


@pytest.mark.parametrize("size", [5, 7])
def test_the_top_level_plays_legal_placements_to_the_end_and_the_same_twice(size):
    def game(seed):
        bot, state = player("mcts4", seed, simulations=200), hadron(size)
        while not state.is_over:
            state = state.play(bot.choose(state))   # play() refuses an illegal placement
        return state.actions

    assert game(3) == game(3)
