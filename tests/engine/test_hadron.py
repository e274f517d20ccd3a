"""Hadron: the placement rule and its figures, the end of the game, notation, and properties
checked against an independent recount of the board."""

import json
import re
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import games
from games import IllegalAction, records
from games.hadron import HadronState
from tests.engine.checks import accepted_by_play, play_leaving_the_old_state

GAME = games.get("hadron")
RED, BLUE = 0, 1
SIZES = [5, 7, 9, 11]


def setup(tiles: str, to_move=RED, size=5):
    """A hand-made position: tiles as 'R:c3 d4 B:c4' (side letter, then its cells)."""
    placed, side = {}, None
    for word in tiles.split():
        if word[:2] in ("R:", "B:"):
            side, word = "RB".index(word[0]), word[2:]
        placed[word] = side
    return HadronState.setup(GAME, {"size": size}, placed, to_move)


def all_cells(size):
    return [f"{'abcdefghijk'[c]}{r}" for r in range(1, size + 1) for c in range(size)]


# -- independent reading of a position, from to_dict() alone ------------------------------------

def owners(state):
    return {cell["name"]: cell["owner"] for cell in state.to_dict()["board"]["cells"]}


def orthogonal(name, size):
    col, row = ord(name[0]) - ord("a"), int(name[1:])
    steps = [(col, row + 1), (col + 1, row), (col, row - 1), (col - 1, row)]
    return [f"{chr(ord('a') + c)}{r}" for c, r in steps if 0 <= c < size and 1 <= r <= size]


def recount_legal(state):
    """Empty cells with as many red as blue orthogonal neighbours, from the board alone."""
    size, board = state.options["size"], owners(state)
    legal = set()
    for name, owner in board.items():
        if owner is None:
            near = [board[n] for n in orthogonal(name, size)]
            if near.count(RED) == near.count(BLUE):
                legal.add(name)
    return legal


# -- the placement rule ------------------------------------------------------------------------

def test_empty_board_every_cell_is_legal_and_red_moves_first():
    state = GAME.new()
    assert state.to_move == RED
    assert sorted(state.legal_actions()) == sorted(all_cells(5))
    assert state.prompt() == "Red to place a tile"
    assert state.play("c3").prompt() == "Blue to place a tile"


def test_isolated_placement_is_legal():
    state = setup("R:a1 B:e5", to_move=RED)
    assert "c3" in state.legal_actions()   # no neighbours at all
    after = state.play("c3")
    assert owners(after)["c3"] == RED and after.to_move == BLUE


def test_figure_one_style_a_lone_pair_forbids_only_its_neighbours():
    # Red c3 and Blue d3 side by side: the six cells touching just one of them are out,
    # every other empty cell (touching nothing) is a legal placement.
    state = setup("R:c3 B:d3", to_move=RED)
    illegal = {"c4", "b3", "c2", "d4", "e3", "d2"}
    expected = set(all_cells(5)) - illegal - {"c3", "d3"}
    assert len(expected) == 17
    assert set(state.legal_actions()) == expected


def test_figure_two_style_one_red_and_one_blue_neighbour():
    # Red b2, Blue c3 on a diagonal: b3 and c2 touch one of each, so they are legal for
    # either player; a2, b1 (red only) and c4, d3 (blue only) are not.
    state = setup("R:b2 B:c3", to_move=BLUE)
    legal = set(state.legal_actions())
    assert {"b3", "c2"} <= legal
    assert not legal & {"a2", "b1", "c4", "d3"}
    assert owners(state.play("b3"))["b3"] == BLUE
    assert owners(setup("R:b2 B:c3", to_move=RED).play("c2"))["c2"] == RED


def test_two_red_and_two_blue_neighbours_is_legal():
    state = setup("R:b3 d3 B:c4 c2", to_move=RED)
    assert "c3" in state.legal_actions()
    state.play("c3")


def test_diagonal_tiles_are_not_neighbours():
    state = setup("R:b2 d4 B:b4", to_move=BLUE)
    assert "c3" in state.legal_actions()


def test_edge_and_corner_count_for_neither_colour():
    state = setup("R:b1 B:a2", to_move=RED)
    assert "a1" in state.legal_actions()      # corner: 1 red, 1 blue, the edge counts for nothing
    state = setup("R:b1", to_move=BLUE)
    with pytest.raises(IllegalAction, match="^a1 has 1 red neighbour and no blue neighbours$"):
        state.play("a1")


ARMS = ["c4", "d3", "c2", "b3"]   # the four neighbours of c3


@pytest.mark.parametrize("red, blue", [(r, b) for r in range(5) for b in range(5 - r)])
def test_every_neighbour_count_on_an_inner_cell(red, blue):
    tiles = {cell: RED for cell in ARMS[:red]} | {cell: BLUE for cell in ARMS[red:red + blue]}
    state = HadronState.setup(GAME, {"size": 5}, tiles, RED)
    assert ("c3" in state.legal_actions()) == (red == blue)
    if red == blue:
        assert owners(state.play("c3"))["c3"] == RED
    else:
        with pytest.raises(IllegalAction) as error:
            state.play("c3")
        assert str(error.value) == "c3 has " + describe(red, blue)


def describe(red, blue):
    """The reason the engine should give, written out case by case."""
    if red and blue:
        return f"{red} red and {blue} blue neighbours"
    if red:
        return f"{red} red {'neighbour' if red == 1 else 'neighbours'} and no blue neighbours"
    return f"{blue} blue {'neighbour' if blue == 1 else 'neighbours'} and no red neighbours"


def test_error_messages():
    state = setup("R:e4 e3 B:d4", to_move=BLUE)
    with pytest.raises(IllegalAction, match="^e4 is not empty$"):
        state.play("e4")
    with pytest.raises(IllegalAction, match="^e5 has 1 red neighbour and no blue neighbours$"):
        state.play("e5")
    with pytest.raises(IllegalAction, match="^'z9' is not a cell of this board$"):
        state.play("z9")
    with pytest.raises(IllegalAction, match="^it is Blue's turn$"):
        state.play("a1", side=RED)
    # The issue's own example, on a 7 x 7 board: E4 between two red tiles and one blue.
    state = setup("R:d4 f4 B:e5", to_move=RED, size=7)
    with pytest.raises(IllegalAction, match="^e4 has 2 red and 1 blue neighbours$"):
        state.play("E4")


# -- the end of the game ------------------------------------------------------------------------

# A real game (python -m games random hadron --seed 1) that leaves Red without a placement.
LOST_BY_RED = ["e1", "d4", "c1", "e5", "e3", "a4", "d3", "c5", "a2", "b3", "b2", "c3"]
FIGURE_THREE = "R:e1 c1 e3 d3 a2 b2 B:d4 e5 a4 c5 b3 c3"


def test_figure_three_style_no_legal_placement_loses():
    played = GAME.replay({"size": 5}, LOST_BY_RED)
    board = setup(FIGURE_THREE, to_move=RED)
    for state in (played, board):
        assert owners(state) == owners(played)
        assert recount_legal(state) == set()
        assert state.legal_actions() == []
        assert state.is_over and state.to_move is None
        assert state.winner == BLUE and state.returns() == (-1.0, 1.0)
        assert state.result_text() == "Blue wins: Red has no placement"
        assert state.prompt() == state.result_text()
        with pytest.raises(IllegalAction, match="^the game is over$"):
            state.play("a1")


def test_blue_without_a_placement_loses_too():
    state = setup(FIGURE_THREE, to_move=BLUE)
    assert state.is_over and state.winner == RED
    assert state.result_text() == "Red wins: Blue has no placement"


def test_the_game_goes_on_while_some_cell_is_legal():
    state = GAME.replay({"size": 5}, LOST_BY_RED[:-1])
    assert not state.is_over and state.winner is None and state.result_text() is None
    assert state.to_move == BLUE and "c3" in state.legal_actions()


# -- board, options, notation ----------------------------------------------------------------

def test_sizes():
    assert GAME.option_choices() == {"size": SIZES}
    assert GAME.defaults == {"size": 5}
    assert GAME.sides == ("Red", "Blue")
    for size in SIZES:
        state = GAME.new(size=size)
        assert len(state.legal_actions()) == size * size
        assert state.to_dict()["board"]["size"] == size
    for bad in (0, 3, 4, 6, 13, "big", True):
        with pytest.raises(ValueError):
            GAME.new(size=bad)
    with pytest.raises(ValueError, match="no option 'board'"):
        GAME.new(board="long")


def test_notation_rows_from_the_bottom_columns_from_the_left():
    cells = {cell["name"]: cell for cell in GAME.new(size=7).to_dict()["board"]["cells"]}
    assert (cells["a1"]["x"], cells["a1"]["y"]) == (0, 6)   # bottom left
    assert (cells["g7"]["x"], cells["g7"]["y"]) == (6, 0)   # top right
    assert (cells["c3"]["x"], cells["c3"]["y"]) == (2, 4)
    assert list(cells)[:2] == ["a1", "b1"]


@pytest.mark.parametrize("size", SIZES)
def test_every_cell_round_trips_in_any_case(size):
    state = GAME.new(size=size)
    for cell in state.legal_actions():
        assert state.parse_action(cell) == cell
        assert state.parse_action(cell.upper()) == cell
        assert state.parse_action(f" {cell} ") == cell
    assert sorted(state.legal_actions()) == sorted(all_cells(size))


@pytest.mark.parametrize("text", ["z9", "f1", "a6", "a0", "c", "3c", "", "c3/1", "cc3"])
def test_not_a_cell(text):
    with pytest.raises(IllegalAction, match="^" + re.escape(repr(text)) + " is not a cell of this board$"):
        GAME.new().play(text)


def test_orthogonal_neighbours():
    board = GAME.new().board
    def named(cell):
        return sorted(board.names[i] for i in board.neighbours[board.by_name[cell]])
    assert named("a1") == ["a2", "b1"]
    assert named("c3") == ["b3", "c2", "c4", "d3"]
    assert named("e3") == ["d3", "e2", "e4"]


def test_board_dict_and_text():
    state = GAME.replay({}, ["c3", "a1"])
    data = state.to_dict()
    json.dumps(data)
    board = data["board"]
    assert board["kind"] == "square" and board["size"] == 5 and len(board["cells"]) == 25
    assert data["last"] == ["a1"] and data["prompt"] == "Red to place a tile"
    x0, y0, width, height = board["viewbox"]
    for item in board["cells"]:
        assert x0 <= item["x"] and item["x"] + 1 <= x0 + width
        assert y0 <= item["y"] and item["y"] + 1 <= y0 + height
    for label in board["labels"]:
        assert x0 < label["x"] < x0 + width and y0 < label["y"] < y0 + height
    assert {label["text"] for label in board["labels"]} == set("abcde12345")
    text = state.text().splitlines()
    assert text[0].startswith("5 ") and text[5].split() == list("abcde")
    assert text[2].split() == ["3", "+", ".", "R", ".", "+"]
    assert text[4].split()[:2] == ["1", "B"]
    assert text[-1].endswith("Red to place a tile")


# -- properties of random games -----------------------------------------------------------------

def play_out(size, seed, every_cell=True):
    """A random game, checking at each ply that the engine's legal set is the recount's and
    exactly what play() accepts; returns the final state."""
    rng, state = random.Random(seed), GAME.new(size=size)
    cells = all_cells(size)
    while True:
        legal = set(state.legal_actions())
        assert legal == recount_legal(state)
        assert state.is_over == (not legal)
        if every_cell:
            assert accepted_by_play(state, cells) == legal
        if state.is_over:
            return state
        state = play_leaving_the_old_state(state, rng.choice(sorted(legal)))


@settings(max_examples=30, deadline=None)
@given(size=st.sampled_from(SIZES), seed=st.integers(0, 2**32))
def test_random_games_end_and_agree_with_a_recount(size, seed):
    state = play_out(size, seed, every_cell=size <= 7)
    board = owners(state)
    tiles = [owner for owner in board.values() if owner is not None]
    assert len(tiles) == state.ply <= size * size
    assert tiles.count(RED) - tiles.count(BLUE) == state.ply % 2
    # The last player to place wins: Red placed last exactly when the count of tiles is odd.
    assert state.winner == (RED if state.ply % 2 else BLUE)
    assert state.to_dict()["board"]["counts"] == [tiles.count(RED), tiles.count(BLUE)]
    for record in (records.to_text(state), records.to_json(state)):
        assert records.parse(record).state.to_dict() == state.to_dict()
    assert GAME.replay(state.options, state.actions).to_dict() == state.to_dict()


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**32))
def test_largest_board_legal_set_matches_play(seed):
    play_out(11, seed, every_cell=True)
