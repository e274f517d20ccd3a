"""Each game's State.playout, the bots' fast random game, against the rules: every playout is
replayed through play(), which must accept each action from the seat the playout names and
reach the winner the playout reports.  Colorful and Tripen fill the board at random and
look at it once; Copolymer claims the empty cells in a random order; Hadron keeps its own
legal list.  None of them may change the state it starts from."""

import json
import random

import pytest

import games
from games.base import State, shuffled
from games.colorful import _full_board_scores

BOARDS = [
    ("hadron", {}), ("hadron", {"size": 7}),
    ("copolymer", {}), ("copolymer", {"size": 4}), ("copolymer", {"size": 8}),
    ("colorful", {}), ("colorful", {"size": 3}), ("colorful", {"board": "long", "size": 4}),
    ("tripen", {}), ("tripen", {"size": 5}), ("tripen", {"size": 9}),
]


def positions(name, options, seeds):
    """Positions of seeded random games via play(): the start, the second action (Tripen's
    pie rule, Colorful's first two-stone turn), a random point, and the last before the end."""
    game = games.get(name)
    for seed in seeds:
        rng, state = random.Random(seed), game.new(**options)
        line = [state]
        while not state.is_over:
            state = state.play(rng.choice(state.legal_actions()))
            line.append(state)
        yield from {0: line[0], 1: line[1], 2: line[rng.randrange(len(line) - 1)],
                    3: line[-2]}.values()


def replay(state, moves):
    """Play the playout's actions through play() from `state`, checking the seat of each;
    returns the state where the game ends and how many actions it took."""
    for k, (seat, action) in enumerate(moves):
        if state.is_over:
            return state, k
        assert seat == state.person_to_move, (k, action)
        state = state.play(action)
    return state, len(moves)


def seat_won(state):
    return None if state.winner is None else state.winner ^ state.swapped


@pytest.mark.parametrize("name,options", BOARDS, ids=[f"{n}-{o}" for n, o in BOARDS])
def test_playouts_replayed_through_play_reach_the_same_winner(name, options):
    for k, state in enumerate(positions(name, options, range(6))):
        before = json.dumps(state.to_dict())
        seat, moves = state.playout(random.Random(k))
        assert json.dumps(state.to_dict()) == before      # the state is left as it was
        end, used = replay(state, moves)
        assert end.is_over and seat_won(end) == seat
        if name == "tripen":
            # The fill goes on after the chain that won: the rest is legal too, and a full
            # board has exactly one winner, the one the game stopped at.
            assert used <= len(moves)
        else:
            assert used == len(moves)


def test_playouts_are_seeded():
    for name, options in BOARDS:
        state = games.get(name).new(**options)
        assert state.playout(random.Random(3)) == state.playout(random.Random(3))
        assert len({tuple(state.playout(random.Random(s))[1]) for s in range(4)}) == 4


def test_the_generic_playout_is_the_same_game_by_steps():
    """The base class's playout (clone, legal_actions, apply_action), which a game without
    its own would use, also replays through play()."""
    for name, options in BOARDS[::2]:
        state = next(positions(name, options, [4]))
        seat, moves = State.playout(state, random.Random(2))
        end, used = replay(state, moves)
        assert end.is_over and used == len(moves) and seat_won(end) == seat


def test_tripen_playouts_swap_at_the_pie_rules_moment():
    state = games.get("tripen").new(size=5).play("c3/0")
    swaps = [moves for moves in (state.playout(random.Random(s))[1] for s in range(1500))
             if moves[0][1] == "swap"]
    # 1 chance in 151 (150 free tokens and swap) each: about 10 of 1500.
    assert 2 <= len(swaps) <= 30
    for seed in range(1500):
        seat, moves = state.playout(random.Random(seed))
        if moves[0][1] == "swap":
            end, _ = replay(state, moves)
            assert moves[0][0] == 1 and end.swapped and seat_won(end) == seat
            break
    # Only the second action may swap.
    later = state.play("swap").play("a1/0")
    assert all(m[1] != "swap" for s in range(200) for m in later.playout(random.Random(s))[1])


@pytest.mark.parametrize("options", [{}, {"size": 3}, {"size": 7}, {"board": "long", "size": 6}])
def test_colorful_full_board_scores_are_the_rules_scores(options):
    # positions() stops short of the end, so the full boards are its games played out.
    game, checked = games.get("colorful"), 0
    for seed in range(10):
        rng, state = random.Random(seed), game.new(**options)
        while not state.is_over:
            state = state.play(rng.choice(state.legal_actions()))
        assert _full_board_scores(state.board, state.stones) == state._groups_and_scores()[1]
        checked += 1
    assert checked == 10


def walk_the_whole_shuffle(state, rng):
    """Tripen's playout as the rules say it, the reference for the faster one: every free
    token in shuffled()'s random order, each put down if still free, colours alternating."""
    b = state.board
    colour, free = state.colour[:], state.free[:]
    side, swapped, moves = state.mover, state.swapped, []
    if len(state.actions) == 1 and int(rng.random() * (len(state.legal) + 1)) == len(state.legal):
        moves.append((side ^ swapped, "swap"))
        swapped = not swapped
    tokens = [node for node in range(b.node_count) if free[node]]
    for node in shuffled(tokens, b.node_count, rng):
        if free[node]:
            colour[node] = side + 1
            for other in b.blocks[node]:
                free[other] = 0
            moves.append((side ^ swapped, b.node_names[node]))
            side = 1 - side
    return moves


@pytest.mark.parametrize("size", [5, 7, 13])
def test_tripen_playouts_put_down_what_walking_the_whole_shuffle_would(size):
    """The playout sorts only the tokens that go down (a cell's first token and its partner);
    the tokens and their order must be those of the whole shuffled list, seed for seed, from
    the start, the pie rule's moment and positions with cells half or wholly taken."""
    for k, state in enumerate(positions("tripen", {"size": size}, range(4))):
        for seed in range(3):
            expected = walk_the_whole_shuffle(state, random.Random(100 * k + seed))
            assert state.playout(random.Random(100 * k + seed))[1] == expected


def test_tripen_partners_are_the_only_tokens_a_token_leaves_free_in_its_cell():
    board = games.get("tripen").new().board
    for node, blocked in enumerate(board.blocks):
        cell = range(6 * (node // 6), 6 * (node // 6) + 6)
        assert set(blocked) | {board.partner[node]} == set(cell)
        assert board.partner[board.partner[node]] == node


def test_colorful_fills_the_colours_each_turn_owes():
    """From the start of a side-3 board (19 cells): one stone, then nine turns of one stone
    of each colour; mid-turn, the owed colour comes first."""
    state = games.get("colorful").new(size=3)
    for seed in range(5):
        _, moves = state.playout(random.Random(seed))
        colours = [action[0] for _, action in moves]
        seats = [seat for seat, _ in moves]
        assert seats == [0] + [1, 1, 0, 0] * 4 + [1, 1]
        assert colours[0] in "RP"
        assert all({colours[k], colours[k + 1]} in ({"R", "P"}, {"B", "G"})
                   for k in range(1, 19, 2))
    mid = state.play("R@C3").play("G@A1")
    _, moves = mid.playout(random.Random(1))
    assert moves[0][1][0] == "B" and moves[0][0] == 1


def test_shuffled_is_a_seeded_permutation():
    items = [3, 17, 5, 40, 22, 9]
    orders = {tuple(shuffled(items, 41, random.Random(s))) for s in range(50)}
    assert all(sorted(order) == sorted(items) for order in orders)
    assert len(orders) > 40     # 720 orders possible: 50 seeds rarely repeat one
    assert shuffled(items, 41, random.Random(7)) == shuffled(items, 41, random.Random(7))
