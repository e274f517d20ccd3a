"""The top levels' search: the MCTS-solver's proofs (checked by games.solver.brute_force, the
plain exhaustive search, on small boards near the end of a game) and the tree a player keeps
between its moves."""

import random

import pytest

import games
from games import mcts
from games.bots import MctsPlayer, RandomPlayer
from games.solver import brute_force

SMALL = {"copolymer": {"size": 4}, "hadron": {"size": 5}, "tripen": {"size": 5},
         "colorful": {"size": 3}}


def random_states(name, seed, **options):
    rng, state = random.Random(seed), games.get(name).new(**options)
    states = [state]
    while not state.is_over:
        state = state.play(rng.choice(state.legal_actions()))
        states.append(state)
    return states


def endgames(name, seeds, most_actions=9):
    """Positions of seeded random games with at most `most_actions` legal actions left and no
    immediate win (the search answers those, and a single action, without searching)."""
    for seed in seeds:
        for state in random_states(name, seed, **SMALL[name])[:-1]:
            if 2 <= len(state.legal_actions()) <= most_actions \
                    and not mcts.immediate_wins(state):
                yield state


# -- the solver ----------------------------------------------------------------------------------

@pytest.mark.parametrize("name", sorted(SMALL))
def test_every_proof_at_the_root_is_what_exhaustive_search_finds(name):
    """A root action proven won for the mover wins by force; one proven lost does not (the
    rest of the game is well within brute_force's depth)."""
    proofs = 0
    for state in endgames(name, range(4)):
        result = mcts.search(state, 3000, random.Random(1), solver=True, settle=False)
        seat = state.person_to_move
        winning = set(brute_force(state, 60))
        for child in result.tree.children:
            if child.proof is not None:
                proofs += 1
                assert (child.action in winning) == (child.proof == seat), child.action
        if result.proven is not None:
            assert bool(winning) == (result.proven == seat)
            if result.proven == seat:
                assert result.action in winning   # a won position is played straight
    assert proofs


def test_a_proven_position_is_played_without_more_simulations():
    """Once the root is proven the search stops: a won endgame takes far fewer simulations
    than its budget, and answers a winning action."""
    stopped = 0
    for state in endgames("hadron", range(6), most_actions=7):
        result = mcts.search(state, 20000, random.Random(3), solver=True, settle=False)
        if result.proven == state.person_to_move:
            stopped += 1
            assert result.playouts < 20000
            assert result.action in brute_force(state, 60)
    assert stopped


def test_the_solver_never_picks_a_proven_loss_when_something_else_is_left():
    for state in endgames("copolymer", range(6)):
        result = mcts.search(state, 400, random.Random(2), solver=True)
        if result.tree is None:
            continue
        chosen = next(c for c in result.tree.children if c.action == result.action)
        seat = state.person_to_move
        if any(c.proof != (1 - seat) for c in result.tree.children) or result.tree.untried:
            assert chosen.proof != 1 - seat


def test_without_the_solver_nothing_inside_the_tree_is_proven():
    state = next(endgames("hadron", range(3)))
    result = mcts.search(state, 2000, random.Random(1), settle=False)
    assert result.proven is None
    # Only ends of the game carry a result (as they always did); nothing is carried up.
    assert all(c.proof is None or c.state.is_over for c in result.tree.children)


# -- the kept tree -------------------------------------------------------------------------------

def test_a_reply_the_tree_never_tried_is_searched_afresh_as_without_a_tree():
    """A kept tree that does not hold the position changes nothing: same seed, same budget,
    same answer and the same visits as a fresh search."""
    game = games.get("hadron")
    state = game.new(size=7)
    first = mcts.search(state, 300, random.Random(1), settle=False)
    ours = first.action
    node = next(c for c in first.tree.children if c.action == ours)
    tried = {c.action for c in node.children}
    reply = next(a for a in state.play(ours).legal_actions() if a not in tried)
    now = state.play(ours).play(reply)
    assert mcts.reuse(first.tree, now) is None
    kept = mcts.search(now, 300, random.Random(5), tree=first.tree, settle=False)
    fresh = mcts.search(now, 300, random.Random(5), settle=False)
    assert (kept.action, kept.visits) == (fresh.action, fresh.visits)


def test_a_reply_the_tree_explored_goes_on_from_its_node():
    game = games.get("hadron")
    state = game.new(size=5)
    first = mcts.search(state, 2000, random.Random(1), settle=False)
    ours = next(c for c in first.tree.children if c.action == first.action)
    reply = max(ours.children, key=lambda c: c.n)
    now = state.play(first.action).play(reply.action)
    before = reply.n
    assert mcts.reuse(first.tree, now) is reply
    kept = mcts.search(now, 500, random.Random(2), tree=first.tree, settle=False)
    assert kept.tree is reply and reply.n == before + 500
    assert kept.action in now.legal_actions()
    # A tree of another board, or of a later position, is not used.
    assert mcts.reuse(first.tree, game.new(size=7)) is None
    assert mcts.reuse(kept.tree, state) is None


def test_a_decided_position_gives_the_same_move_kept_or_fresh():
    """Where the answer is forced by a proof, the kept tree and a fresh search agree."""
    agreed = 0
    for state in endgames("hadron", range(8), most_actions=8):
        fresh = mcts.search(state, 5000, random.Random(4), solver=True, settle=False)
        if fresh.proven != state.person_to_move:
            continue
        parent_state = games.get("hadron").replay(state.options, state.actions[:-2])
        earlier = mcts.search(parent_state, 3000, random.Random(4), solver=True, settle=False)
        kept = mcts.search(state, 5000, random.Random(4), solver=True, settle=False,
                           tree=earlier.tree)
        winning = set(brute_force(state, 60))
        assert fresh.action in winning and kept.action in winning
        agreed += 1
    assert agreed


def test_a_player_keeps_its_tree_through_a_game():
    """A player that reuses goes on from the node of its opponent's reply when the search
    had tried it, and plays legal actions to the end from either seat."""
    for seat in (0, 1):
        bot, other = MctsPlayer(4, seed=seat, simulations=300, reuse=True), RandomPlayer(9)
        state, went_on = games.get("copolymer").new(size=4), 0
        while not state.is_over:
            if state.person_to_move == seat:
                kept = mcts.reuse(bot.tree, state)
                action = bot.choose(state)
                went_on += kept is not None and bot.last.tree is kept
            else:
                action = other.choose(state)
            assert action in state.legal_actions()
            state = state.play(action)
        assert went_on


# -- widening: children grown in AMAF's order --------------------------------------------------

def test_widening_expands_an_unseen_action_first_then_the_best_by_amaf():
    state = games.get("hadron").new()
    node = mcts.Node(state, None, None)
    node.n, first, *rest = 10, *node.untried[:3]
    (second, third), node.untried = rest, [first, *rest]
    node.amaf_n = {first: 4, second: 4}
    node.amaf_won = {first: 1, second: 3}
    assert mcts._widen(node, 0.0, 500.0) == 2          # `third`: AMAF has never seen it
    node.amaf_n[third], node.amaf_won[third] = 4, 2
    assert mcts._widen(node, 0.0, 500.0) == 1          # `second`: 3 wins in 4


def test_widening_goes_down_to_a_child_that_scores_above_every_untried_action():
    state = games.get("hadron").new()
    root = mcts.Node(state, None, None)
    played = root.untried.pop()
    child = mcts.Node(state.play(played), played, 0)
    child.n, child.w, child.sqrt_n = 5, 5.0, 5 ** 0.5
    root.children, root.n = [child], 6
    root.amaf_n = {action: 4 for action in root.untried}
    root.amaf_won = {action: 2 for action in root.untried}      # 0.5 each, below the child's 1
    assert mcts._widen(root, 0.0, 500.0) is None
    child.proof = 1          # the child is proven lost for the chooser: never gone down to
    assert mcts._widen(root, 0.0, 500.0) is not None


@pytest.mark.parametrize("name", sorted(SMALL))
def test_a_widening_search_proves_what_exhaustive_search_finds_and_plays_legally(name):
    for state in endgames(name, range(2)):
        result = mcts.search(state, 2000, random.Random(1), solver=True, settle=False,
                             exploration=0.0, widen=True)
        assert result.action in state.legal_actions()
        winning = set(brute_force(state, 60))
        for child in result.tree.children:
            if child.proof == state.person_to_move:
                assert child.action in winning, (state.actions, child.action)
        if result.proven == state.person_to_move:
            assert result.action in winning
