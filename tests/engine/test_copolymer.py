"""Copolymer: the worked example of the pbmserv help page (RULES.md's acceptance test), every
rule and ruling on hand-made positions, notation, and properties of random games checked
against an independent recount of the board."""

import json
import random
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import games
from games import IllegalAction, hexgrid, records
from games.copolymer import CopolymerState
from tests.engine.checks import accepted_by_play, play_leaving_the_old_state

GAME = games.get("copolymer")
X, O = 0, 1
SIZES = [4, 5, 6, 7, 8]
ROWS = "ABCDEFGHJKLMNOPQ"


def setup(claims: str, to_move, size=5):
    """A hand-made position: claims as 'X:A1 A3 O:C1' (side letter, then its cells)."""
    placed, side = {}, None
    for word in claims.split():
        if word[:2] in ("X:", "O:"):
            side, word = "XO".index(word[0]), word[2:]
        placed[word] = side
    return CopolymerState.setup(GAME, {"size": size}, placed, to_move)


# -- an independent reading of the board, from RULES.md's formulas and to_dict() alone --------

def columns(size, row):
    return range(1, size + row + 1) if row < size else range(row - size + 2, 2 * size)


def all_cells(size):
    return [f"{ROWS[r]}{c}" for r in range(2 * size - 1) for c in columns(size, r)]


def neighbours(name, size):
    r, c = ROWS.index(name[0]), int(name[1:])
    steps = [(r, c - 1), (r, c + 1), (r - 1, c - 1), (r - 1, c), (r + 1, c), (r + 1, c + 1)]
    return {f"{ROWS[rr]}{cc}" for rr, cc in steps
            if 0 <= rr < 2 * size - 1 and cc in columns(size, rr)}


def owners(state):
    return {cell["name"]: cell["owner"] for cell in state.to_dict()["board"]["cells"]}


def read_figure(figure: str):
    """The pbmserv ASCII diagram of a side-3 board: x, o, '.' (upper case: the latest claim)."""
    board = {}
    for r, line in enumerate(figure.strip("\n").splitlines()):
        for c, mark in zip(columns(3, r), line.split()):
            board[f"{ROWS[r]}{c}"] = {".": None, "x": X, "o": O}[mark.lower()]
    return board


# -- the worked example (Figures 2a-3b) ---------------------------------------------------------

FIGURES = {
    "2a": """
    x . x
   x . . .
  o o o . .
   x . o .
    . . x""",
    "2b": """
    x . x
   x O . .
  o o o . .
   x . o .
    . . x""",
    "2c": """
    x O x
   x o . .
  o o o . .
   x . o .
    . . x""",
    "2d": """
    x o x
   x o . .
  o o o . O
   x . o .
    . . x""",
    "3a": """
    x o x
   x o . .
  o o o . o
   x X o .
    . . x""",
    "3b": """
    x o x
   x o . .
  o o o . o
   x x o .
    . X x""",
}


def test_figure_2a_is_the_rules_position():
    state = setup("X:A1 A3 B1 D2 E5 O:C1 C2 C3 D4", to_move=O, size=3)
    assert owners(state) == read_figure(FIGURES["2a"])
    assert len(owners(state)) == 19
    assert state.to_move == O and state.prompt() == "O to claim a cell"


def test_worked_example():
    state = setup("X:A1 A3 B1 D2 E5 O:C1 C2 C3 D4", to_move=O, size=3)
    steps = [
        ("B2", "2b", O, "O claims again: B2 touched two enemy cells"),
        ("A2", "2c", O, "O claims again: A2 touched two enemy cells"),
        ("C5", "2d", X, "X to claim a cell"),
        ("D3", "3a", X, "X claims again: D3 touched three enemy cells"),
        ("E4", "3b", O, "O to claim a cell"),
    ]
    for action, figure, to_move, prompt in steps:
        state = state.play(action)
        assert owners(state) == read_figure(FIGURES[figure]), figure
        assert state.to_move == to_move and state.prompt() == prompt
        assert state.actions[-1] == action and not state.is_over
    assert state.actions == ("B2", "A2", "C5", "D3", "E4")
    assert state.last_turn() == ["D3", "E4"]
    assert state.to_dict()["board"]["counts"] == [7, 7]


def test_worked_example_turns_and_sides():
    state = setup("X:A1 A3 B1 D2 E5 O:C1 C2 C3 D4", to_move=O, size=3)
    for action in ("B2", "A2"):
        state = state.play(action, side=O)
    with pytest.raises(IllegalAction, match="^it is O's turn$"):
        state.play("C5", side=X)
    state = state.play("C5", side=O)
    assert state.last_turn() == ["B2", "A2", "C5"]
    with pytest.raises(IllegalAction, match="^it is X's turn$"):
        state.play("D3", side=O)


# -- rules and rulings on hand-made positions ---------------------------------------------------

def test_x_moves_first_on_an_empty_board():
    state = GAME.new()
    assert state.to_move == X and state.prompt() == "X to claim a cell"
    assert len(state.legal_actions()) == 61
    assert state.play("E5").to_move == O


@pytest.mark.parametrize("enemies, again", [(0, False), (1, False), (2, True), (3, True),
                                            (4, True), (5, True), (6, True)])
def test_two_or_more_enemy_neighbours_oblige_another_claim(enemies, again):
    # E5 is the centre of the side-5 board; its six neighbours in turn hold O cells.
    ring = ["E4", "E6", "D4", "D5", "F5", "F6"]
    claims = " ".join(ring[:enemies])
    state = setup(f"O:{claims}" if claims else "", to_move=X).play("E5")
    assert state.to_move == (X if again else O)
    if again:
        words = ["two", "three", "four", "five", "six"][enemies - 2]
        assert state.prompt() == f"X claims again: E5 touched {words} enemy cells"


def test_friendly_neighbours_do_not_count():
    state = setup("X:E4 E6 D4 D5 F5 O:F6", to_move=X).play("E5")
    assert state.to_move == O


def test_the_turn_ends_with_a_claim_touching_at_most_one_enemy():
    state = setup("O:A2 B1 H5", to_move=X).play("A1")     # A1 touches A2, B1
    assert state.to_move == X
    state = state.play("J5")                              # J5 touches H5 only
    assert state.to_move == O and state.last_turn() == ["A1", "J5"]


def test_a_forced_claim_may_go_anywhere():
    state = setup("O:A2 B1", to_move=X).play("A1")
    assert sorted(state.legal_actions()) == sorted(set(all_cells(5)) - {"A1", "A2", "B1"})
    assert state.play("J9").to_move == O


def test_continuation_can_chain():
    state = setup("O:A2 B1 A4 B5 H5", to_move=X)
    state = state.play("A1").play("A5").play("J5")         # 2 enemies, 2 enemies, 1
    assert state.to_move == O and state.last_turn() == ["A1", "A5", "J5"]


def test_the_game_ends_when_the_board_fills_even_in_mid_turn():
    cells = all_cells(4)
    # O everywhere but A1, A2 and the X cell D7: X claims A1 (two enemy neighbours, A2 is
    # empty) and must go on; claiming A2 fills the board and ends the game there.
    claims = {cell: O for cell in cells if cell not in ("A1", "A2", "D7")}
    claims["D7"] = X
    state = CopolymerState.setup(GAME, {"size": 4}, claims, X)
    state = state.play("A1")
    assert state.to_move == X and not state.is_over
    state = state.play("A2")
    assert state.is_over and state.to_move is None
    assert state.legal_actions() == []
    assert state.winner == O and state.result_text() == "O wins with 34 cells to 3"
    with pytest.raises(IllegalAction, match="^the game is over$"):
        state.play("A3")


def test_a_forced_claim_that_fills_the_board_ends_the_game():
    claims = {cell: X for cell in all_cells(4) if cell != "A1"}
    claims["A2"] = claims["B1"] = O
    state = CopolymerState.setup(GAME, {"size": 4}, claims, X).play("A1")
    assert state.is_over and state.winner == X
    assert state.result_text() == "X wins with 35 cells to 2"
    assert state.prompt() == state.result_text()


@pytest.mark.parametrize("size", SIZES)
def test_majority_wins_and_no_draws(size):
    cells = all_cells(size)
    assert len(cells) == 3 * size * (size - 1) + 1 and len(cells) % 2 == 1
    for x_total in (len(cells) // 2, len(cells) // 2 + 1):
        # X holds x_total - 1 cells, O all the others but one, which X claims last.
        claims = {cell: (X if k < x_total - 1 else O) for k, cell in enumerate(cells[:-1])}
        state = CopolymerState.setup(GAME, {"size": size}, claims, X).play(cells[-1])
        o_total = len(cells) - x_total
        assert state.is_over and state.to_dict()["board"]["counts"] == [x_total, o_total]
        assert state.winner == (X if x_total > o_total else O)
        assert state.returns() == ((1.0, -1.0) if state.winner == X else (-1.0, 1.0))


# -- board geometry and notation ----------------------------------------------------------------

@pytest.mark.parametrize("size", SIZES)
def test_board_cells_and_neighbours_follow_rules_md(size):
    state = GAME.new(size=size)
    board = state.board
    assert board.names == all_cells(size)
    assert len(state.legal_actions()) == 3 * size * (size - 1) + 1
    for i, name in enumerate(board.names):
        assert {board.names[n] for n in board.neighbours[i]} == neighbours(name, size)


def test_neighbours_of_the_centre_and_a_corner():
    assert neighbours("E5", 5) == {"E4", "E6", "D4", "D5", "F5", "F6"}
    assert neighbours("A1", 5) == {"A2", "B1", "B2"}
    assert neighbours("J9", 5) == {"J8", "H8", "H9"}


@pytest.mark.parametrize("size", SIZES)
def test_board_sides(size):
    board = hexgrid.board("hexhex", size)
    side_names = [name for name, _ in hexgrid.SIDES]
    on = {name: {board.names[i] for i in range(len(board)) if side_names.index(name) in board.sides[i]}
          for name in side_names}
    last = ROWS[2 * size - 2]
    middle = ROWS[size - 1]
    corners = {"A1": {"top", "upper-left"}, f"A{size}": {"top", "upper-right"},
               f"{middle}{2 * size - 1}": {"upper-right", "lower-right"},
               f"{last}{2 * size - 1}": {"lower-right", "bottom"},
               f"{last}{size}": {"bottom", "lower-left"}, f"{middle}1": {"lower-left", "upper-left"}}
    for name in side_names:
        assert len(on[name]) == size
    for cell, sides in corners.items():
        assert {name for name in side_names if cell in on[name]} == sides
    assert on["top"] == {f"A{c}" for c in range(1, size + 1)}
    assert on["upper-left"] == {f"{ROWS[r]}1" for r in range(size)}


def test_sizes_and_options():
    assert GAME.option_choices() == {"size": SIZES}
    assert GAME.defaults == {"size": 5} and GAME.sides == ("X", "O")
    for bad in (0, 3, 9, "big", 5.5):
        with pytest.raises(ValueError):
            GAME.new(size=bad)
    assert GAME.new(size="6").options == {"size": 6}


@pytest.mark.parametrize("size", SIZES)
def test_every_cell_round_trips_in_any_case(size):
    state = GAME.new(size=size)
    for cell in state.legal_actions():
        assert state.parse_action(cell) == cell
        assert state.parse_action(cell.lower()) == cell
        assert state.parse_action(f"  {cell.lower()}") == cell


@pytest.mark.parametrize("text", ["I1", "A6", "F1", "J4", "A0", "Z9", "", "5", "AA1", "E"])
def test_not_a_cell(text):
    with pytest.raises(IllegalAction, match="^" + re.escape(repr(text)) + " is not a cell of this board$"):
        GAME.new().play(text)


def test_error_messages():
    state = GAME.new().play("c3")
    with pytest.raises(IllegalAction, match="^C3 is not empty$"):
        state.play("C3")
    with pytest.raises(IllegalAction, match="^an action is text in Copolymer notation, not 5$"):
        state.play(5)
    with pytest.raises(IllegalAction, match="^it is O's turn$"):
        state.play("A1", side=X)


def test_board_dict():
    state = GAME.replay({}, ["E5", "A1"])
    data = json.loads(json.dumps(state.to_dict()))
    board = data["board"]
    assert board["kind"] == "hex" and len(board["cells"]) == 61
    assert {c["name"]: c["owner"] for c in board["cells"] if c["owner"] is not None} == {"E5": X, "A1": O}
    x0, y0, width, height = board["viewbox"]
    for item in board["cells"] + board["labels"]:
        assert x0 < item["x"] < x0 + width and y0 < item["y"] < y0 + height
    assert data["last"] == ["A1"]


# -- properties of random games -----------------------------------------------------------------

def expected_movers(actions, size):
    """Who claims each cell, and who moves at the end, from the rules alone."""
    board, side, sides = {}, X, []
    for action in actions:
        sides.append(side)
        board[action] = side
        enemies = sum(1 for n in neighbours(action, size) if board.get(n) == 1 - side)
        if enemies < 2:
            side = 1 - side
    return sides, side


def play_out(size, seed, every_cell):
    rng, state = random.Random(seed), GAME.new(size=size)
    cells = all_cells(size)
    while True:
        legal = set(state.legal_actions())
        empty = {name for name, owner in owners(state).items() if owner is None}
        assert legal == empty
        if every_cell:
            assert accepted_by_play(state, cells) == legal
        if state.is_over:
            return state
        state = play_leaving_the_old_state(state, rng.choice(sorted(legal)))


@settings(max_examples=15, deadline=None)
@given(size=st.sampled_from(SIZES), seed=st.integers(0, 2**32))
def test_random_games_end_and_agree_with_a_recount(size, seed):
    state = play_out(size, seed, every_cell=size <= 6)
    board = owners(state)
    assert None not in board.values() and state.ply == len(board)
    sides, _ = expected_movers(state.actions, size)
    assert [board[a] for a in state.actions] == sides
    x_cells = sum(1 for owner in board.values() if owner == X)
    o_cells = len(board) - x_cells
    assert state.winner == (X if x_cells > o_cells else O)
    assert state.to_dict()["board"]["counts"] == [x_cells, o_cells]
    assert state.result_text() == (f"{GAME.sides[state.winner]} wins with "
                                   f"{max(x_cells, o_cells)} cells to {min(x_cells, o_cells)}")
    for record in (records.to_text(state), records.to_json(state)):
        assert records.parse(record).state.to_dict() == state.to_dict()
    assert GAME.replay(state.options, state.actions).to_dict() == state.to_dict()


@settings(max_examples=15, deadline=None)
@given(size=st.sampled_from(SIZES), seed=st.integers(0, 2**32), stop=st.floats(0, 1))
def test_mover_follows_the_rules_in_mid_game(size, seed, stop):
    rng, state = random.Random(seed), GAME.new(size=size)
    for _ in range(int(stop * len(all_cells(size)))):
        state = state.play(rng.choice(state.legal_actions()))
    if state.is_over:
        return
    sides, mover = expected_movers(state.actions, size)
    assert state.to_move == mover
    last = state.last_turn()
    assert last == list(state.actions[len(state.actions) - len(last):])
    assert len({sides[k] for k in range(len(sides) - len(last), len(sides))}) <= 1


@settings(max_examples=4, deadline=None)
@given(seed=st.integers(0, 2**32))
def test_largest_board_legal_set_matches_play(seed):
    play_out(8, seed, every_cell=True)
