"""Tripen: placement, joins, borders, the pie rule, notation and errors, the drawing data, and
properties checked against an independent recount made from the polygons alone."""

import json
import random
from functools import lru_cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import games
from games import IllegalAction
from games import tripen
from games import tripen_geometry as geo
from tests.engine.checks import accepted_by_play

GAME = games.get("tripen")
RED, BLUE = 0, 1
LETTERS = "abcdefghijklm"


def play(actions, size=5):
    return GAME.replay({"size": size}, actions.split() if isinstance(actions, str) else actions)


def rejected(state, action):
    with pytest.raises(IllegalAction) as info:
        state.play(action)
    return str(info.value)


def every_placement(size):
    return [f"{LETTERS[q]}{r + 1}/{pose}"
            for r in range(size) for q in range(size) for pose in range(6)]


# -- an independent reading of a board, from polygons alone ---------------------------------------

def parse(action):
    """(q, r, pose) of a placement, read by the test itself."""
    cell, pose = action.split("/")
    return LETTERS.index(cell[0]), int(cell[1:]) - 1, int(pose)


def box(polygon):
    xs, ys = [x for x, _ in polygon], [y for _, y in polygon]
    return min(xs), min(ys), max(xs), max(ys)


def boxes_meet(a, b, slack=1e-6):
    return (a[0] <= b[2] + slack and b[0] <= a[2] + slack
            and a[1] <= b[3] + slack and b[1] <= a[3] + slack)


def boxes_overlap(a, b, slack=1e-6):
    return (a[0] < b[2] - slack and b[0] < a[2] - slack
            and a[1] < b[3] - slack and b[1] < a[3] - slack)


@lru_cache(maxsize=None)
def border_boxes(n):
    return {b: [(s, box((s.a, s.b))) for s in geo.border_segments(n) if s.border == b]
            for b in geo.BORDERS}


def touches(polygon, border, n):
    own = box(polygon)
    near = [s for s, b in border_boxes(n)[border] if boxes_meet(own, b)]
    return bool(near) and geo.touches_border(polygon, near)


def chains(n, tokens):
    """[red has a top-bottom chain, blue has a left-right chain] for tokens given as
    (polygon, side), by a search over shared segments of the polygons (no engine tables)."""
    found = []
    for side, (start, end) in ((RED, ("top", "bottom")), (BLUE, ("left", "right"))):
        mine = [polygon for polygon, s in tokens if s == side]
        boxes = [box(p) for p in mine]
        frontier = [i for i, p in enumerate(mine) if touches(p, start, n)]
        seen = set(frontier)
        while frontier:
            i = frontier.pop()
            for j, p in enumerate(mine):
                if (j not in seen and boxes_meet(boxes[i], boxes[j])
                        and geo.shared_segment_length(mine[i], p) > 0):
                    seen.add(j)
                    frontier.append(j)
        found.append(any(touches(mine[i], end, n) for i in seen))
    return found


def recount(state):
    """The chains on a state's board, from its actions re-read as polygons by the test."""
    tokens, colour = [], RED
    for action in state.actions:
        if action == "swap":
            continue
        tokens.append((geo.pentagon(*parse(action)), colour))
        colour = 1 - colour
    return chains(state.options["size"], tokens)


@lru_cache(maxsize=None)
def pose_polygons(n):
    polygons = [geo.pentagon(q, r, pose) for r in range(n) for q in range(n) for pose in range(6)]
    return polygons, [box(p) for p in polygons]


def random_fill(n, rng):
    """Fill a board completely, ignoring the end of the game: keep putting a token of a random
    colour in a random place the collision test allows until none is left."""
    polygons, boxes = pose_polygons(n)
    red_share = rng.uniform(0.2, 0.8)
    free, placed = list(range(len(polygons))), []
    while free:
        i = rng.choice(free)
        placed.append((polygons[i], RED if rng.random() < red_share else BLUE))
        free = [j for j in free if not (boxes_overlap(boxes[i], boxes[j])
                                        and geo.overlaps(polygons[i], polygons[j]))]
    return placed


# -- options, registry, notation ------------------------------------------------------------------

def test_registry_facts_and_options():
    assert GAME.name == "tripen" and GAME.sides == ("Red", "Blue")
    assert GAME.title == "Tripen" and GAME.designer == "Mark Steere" and GAME.year == 2013
    assert GAME.option_choices() == {"size": list(range(5, 14))}
    assert GAME.new().options == {"size": 7}
    for size in range(5, 14):
        assert len(GAME.new(size=size).legal_actions()) == 6 * size * size
    assert GAME.new(size="9").options == {"size": 9}
    for bad in (4, 14, 0, "big", True):
        with pytest.raises(ValueError, match="Tripen size must be one of 5, 6, 7"):
            GAME.new(size=bad)
    with pytest.raises(ValueError, match="Tripen has no option 'board'"):
        GAME.new(board="hexhex")


@pytest.mark.parametrize("text, canonical", [
    ("c3/4", "c3/4"), ("C3/4", "c3/4"), (" e5 / 0 ", "e5/0"), ("a1/5", "a1/5"),
    ("SWAP", "swap"), ("swap", "swap"), ("m13/2", "m13/2"), ("c03/4", "c3/4"),
])
def test_notation_is_case_insensitive_and_canonical_lower_case(text, canonical):
    assert GAME.parse_action(text, {"size": 13}) == canonical


@pytest.mark.parametrize("text, message", [
    ("z9/1", "'z9/1' is not a cell of this board"),
    ("f1/0", "'f1/0' is not a cell of this board"),
    ("a6/0", "'a6/0' is not a cell of this board"),
    ("a0/0", "'a0/0' is not a cell of this board"),
    ("c3/7", "pose 7 does not exist: poses are 0 to 5"),
    ("c3/-1", "pose -1 does not exist: poses are 0 to 5"),
    ("c3/x", "pose x does not exist: poses are 0 to 5"),
    ("c3", "'c3' has no pose: write the pose after a slash, like c3/0"),
    ("c3/", "'c3/' has no pose: write the pose after a slash, like c3/0"),
    ("hello", "'hello' is not a Tripen action: write a cell and a pose like c3/4, or swap"),
    ("", "'' is not a Tripen action: write a cell and a pose like c3/4, or swap"),
    ("3c/1", "'3c/1' is not a Tripen action: write a cell and a pose like c3/4, or swap"),
])
def test_malformed_actions_say_what_is_wrong(text, message):
    assert rejected(GAME.new(size=5), text) == message


def test_letters_outside_a_to_z_are_not_columns():
    # Unicode case folding matches the long s with [a-z] under IGNORECASE.
    assert rejected(GAME.new(size=5), "\u017f1/0") == (
        "'\u017f1/0' is not a Tripen action: write a cell and a pose like c3/4, or swap")


def test_odd_digits_are_refused_with_a_reason():
    # '²' passes str.isdigit() but not int(); a very long row would hit int()'s digit limit.
    assert rejected(GAME.new(size=5), "c3/\u00b2") == "pose \u00b2 does not exist: poses are 0 to 5"
    long_row = "c" + "9" * 5000 + "/1"
    assert rejected(GAME.new(size=5), long_row) == f"{long_row!r} is not a cell of this board"


def test_an_action_must_be_text():
    assert "not 3" in rejected(GAME.new(size=5), 3)


# -- placement --------------------------------------------------------------------------------

def test_a_fresh_board_allows_every_pose_of_every_cell_and_no_swap():
    state = GAME.new(size=5)
    assert state.to_move == RED and not state.is_over and state.winner is None
    assert state.legal_actions() == every_placement(5)
    assert state.prompt() == "Red to place a token"
    assert state.result_text() is None


def test_after_a_token_its_cell_takes_only_the_complementary_half():
    state = play("c3/4")
    legal = state.legal_actions()
    assert [a for a in legal if a.startswith("c3/")] == ["c3/1"]
    assert len(legal) == 6 * 25 - 5 + 1          # the other 24 cells, c3/1, and swap
    for pose in (0, 2, 3, 4, 5):
        assert rejected(state, f"c3/{pose}") == (
            f"pose {pose} in c3 overlaps the token already there")
    full = state.play("c3/1")
    assert not [a for a in full.legal_actions() if a.startswith("c3/")]
    assert rejected(full, "c3/2") == "pose 2 in c3 overlaps the tokens already there: c3 is full"
    assert rejected(full, "c3/1") == "pose 1 in c3 overlaps a token already there: c3 is full"


def test_tokens_alternate_in_colour_and_neighbouring_cells_stay_free():
    state = play("c3/4 c3/1 d3/0")
    tokens = {t["action"]: t["side"] for t in state.to_dict()["board"]["tokens"]}
    assert tokens == {"c3/4": RED, "c3/1": BLUE, "d3/0": RED}
    # Every pose of every neighbour of c3 other than d3 is still free.
    legal = set(state.legal_actions())
    for cell in ("b3", "c2", "d2", "b4", "c4"):
        assert {f"{cell}/{p}" for p in range(6)} <= legal
    assert state.to_move == BLUE


def test_play_leaves_the_old_state_as_it_was():
    before = play("c3/4")
    snapshot = before.to_dict()
    before.play("c3/1")
    assert before.to_dict() == snapshot


def test_play_with_a_side_checks_whose_turn_it_is():
    state = play("c3/4")
    with pytest.raises(IllegalAction, match="it is Blue's turn"):
        state.play("b2/0", side=RED)
    assert state.play("b2/0", side=BLUE).to_move == RED


# -- the pie rule ---------------------------------------------------------------------------------

def test_swap_keeps_the_red_token_and_blue_moves_again():
    first = play("c3/4")
    assert first.prompt() == "Blue to place a token or swap"
    assert first.legal_actions()[-1] == "swap"
    swapped = first.play("Swap")
    assert swapped.actions == ("c3/4", "swap") and swapped.swapped and not first.swapped
    assert swapped.to_move == BLUE
    assert swapped.prompt() == "Blue to place a token"
    assert swapped.to_dict()["board"]["tokens"] == first.to_dict()["board"]["tokens"]
    assert "swap" not in swapped.legal_actions()
    after = swapped.play("b2/0")
    assert after.to_move == RED
    sides = {t["action"]: t["side"] for t in after.to_dict()["board"]["tokens"]}
    assert sides == {"c3/4": RED, "b2/0": BLUE}
    assert after.play("d4/0").to_move == BLUE


@pytest.mark.parametrize("actions", ["", "c3/4 b2/0", "c3/4 swap", "c3/4 b2/0 d4/1"])
def test_swap_at_any_other_time_is_refused(actions):
    state = play(actions)
    assert rejected(state, "swap") == "swap is only allowed as Blue's first action"
    assert "swap" not in state.legal_actions()


# -- joins, borders and the end of the game -------------------------------------------------------

RED_COLUMN = "a1/5 e1/0 a2/5 e2/0 a3/5 e3/0 a4/5 e4/0 a5/5"


def test_red_wins_by_joining_top_and_bottom():
    before = play(RED_COLUMN.rsplit(" ", 1)[0])
    assert not before.is_over and before.to_move == RED
    state = before.play("a5/5")
    assert state.is_over and state.winner == RED and state.to_move is None
    assert state.result_text() == "Red wins: top and bottom joined"
    assert state.prompt() == "Red wins: top and bottom joined"
    assert state.legal_actions() == []
    assert state.returns() == (1.0, -1.0)
    assert rejected(state, "b2/0") == "the game is over"
    assert rejected(state, "swap") == "the game is over"
    assert recount(state) == [True, False] and recount(before) == [False, False]


def test_blue_wins_by_joining_left_and_right():
    state = play("a1/0 a3/1 b1/0 b3/1 c1/0 c3/1 d1/0 d3/1 e1/0")
    assert not state.is_over
    state = state.play("e3/1")
    assert state.winner == BLUE and state.result_text() == "Blue wins: left and right joined"
    assert recount(state) == [False, True]


def test_a_chain_between_the_other_colours_borders_wins_nothing():
    """Red tokens joined from left to right: no winner (Blue's column in the next test)."""
    state = play("a3/1 a1/0 b3/1 b1/0 c3/1 c1/0 d3/1 d1/0 e3/1")
    assert not state.is_over
    board, node = tripen.board(5), tripen.board(5).by_node_name
    row = ["a3/1", "b3/1", "c3/1", "d3/1", "e3/1"]
    assert all(node[b] in board.joins[node[a]] for a, b in zip(row, row[1:]))
    assert "left" in board.borders_touched[node["a3/1"]]
    assert "right" in board.borders_touched[node["e3/1"]]
    assert recount(state) == [False, False]


def test_the_two_halves_of_a_cell_join_along_the_cut():
    """a3/3 joins a2/5 above and a3/0 joins a4/5 below; only the cut joins the two."""
    board = tripen.board(5)
    names = board.by_node_name
    assert names["a3/3"] in board.joins[names["a2/5"]]
    assert names["a3/0"] not in board.joins[names["a2/5"]]
    assert names["a3/3"] not in board.joins[names["a4/5"]]
    actions = "a1/5 e1/5 a2/5 e2/5 a3/3 e3/5 a4/5 e4/5 a5/5 e5/5".split()
    state = play(actions)
    # Blue's column runs top to bottom: the wrong borders for Blue.
    assert not state.is_over and recount(state) == [False, False]
    won = state.play("a3/0")
    assert won.winner == RED
    # The same cell completed by Blue instead leaves Red unjoined.
    blocked = play(actions[:-1] + ["a3/0"])
    assert not blocked.is_over


def test_tokens_of_one_colour_in_neighbouring_cells_join_only_through_a_shared_piece():
    """On the edge between b3 and c3, b3/4 covers the third next to b3's V1 and c3/1 the
    third next to b3's V2: they do not touch, so they do not join; c3/4 reaches over."""
    board = tripen.board(5)
    node = board.by_node_name
    left = geo.pentagon(*parse("b3/4"))
    assert geo.shared_segment_length(left, geo.pentagon(*parse("c3/1"))) == 0
    assert geo.shared_segment_length(left, geo.pentagon(*parse("c3/4"))) == pytest.approx(1 / 3)
    assert node["c3/1"] not in board.joins[node["b3/4"]]
    assert node["c3/4"] in board.joins[node["b3/4"]]
    # In play: red b3/4 and c3/1 stay apart; red b3/4 and c3/4 are one group.
    apart = play("b3/4 a1/0 c3/1")
    joined = play("b3/4 a1/0 c3/4")
    assert apart._find(node["b3/4"]) != apart._find(node["c3/1"])
    assert joined._find(node["b3/4"]) == joined._find(node["c3/4"])


def test_the_engine_join_and_block_tables_agree_with_the_polygons():
    n = 5
    board = tripen.board(n)
    polygons = {name: geo.pentagon(*parse(name)) for name in board.node_names}
    for name, node in board.by_node_name.items():
        q, r, _ = parse(name)
        nearby = [other for other in board.node_names
                  if abs(parse(other)[0] - q) <= 1 and abs(parse(other)[1] - r) <= 1]
        blocks = {board.node_names[i] for i in board.blocks[node]}
        joins = {board.node_names[i] for i in board.joins[node]}
        assert blocks == {o for o in nearby if geo.overlaps(polygons[name], polygons[o])}
        # Joins are between tokens that can lie on the board together.
        assert joins == {o for o in nearby if o not in blocks
                         and geo.shared_segment_length(polygons[name], polygons[o]) > 0}
        touched = {b for b in geo.BORDERS if touches(polygons[name], b, n)}
        assert set(board.borders_touched[node]) == touched


def test_a_full_board_without_a_winner_is_reported_as_a_bug():
    """With the borders forgotten nobody can win; the engine must not call the end a draw."""
    state = GAME.new(size=5)
    state.board = broken = tripen.TripenBoard(5)
    broken.borders_touched = [()] * broken.node_count
    with pytest.raises(RuntimeError, match="internal error"):
        while True:
            state = state.play(state.legal_actions()[0])


# -- the drawing data -----------------------------------------------------------------------------

def test_to_dict_carries_every_polygon_the_engine_checks():
    state = play("c3/4 swap b2/0")
    data = state.to_dict()
    json.dumps(data)
    assert data["game"] == "tripen" and data["ply"] == 3 and data["last"] == ["b2/0"]
    assert data["to_move"] == RED and data["prompt"] == "Red to place a token"
    assert data["legal"] == state.legal_actions()
    board = data["board"]
    assert board["kind"] == "tripen" and board["size"] == 5
    assert len(board["cells"]) == 25 and board["cells"][0]["name"] == "a1"
    assert [c["name"] for c in board["cells"][:6]] == ["a1", "b1", "c1", "d1", "e1", "a2"]
    for cell in board["cells"]:
        q, r = LETTERS.index(cell["name"][0]), int(cell["name"][1:]) - 1
        assert cell["hexagon"] == [[round(x, 4), round(y, 4)] for x, y in geo.hexagon(q, r)]
        assert [cell["x"], cell["y"]] == [round(c, 4) for c in geo.cell_centre(q, r)]
    assert set(board["poses"]) == set(every_placement(5))
    for action, polygon in board["poses"].items():
        assert polygon == [[round(x, 4), round(y, 4)] for x, y in geo.pentagon(*parse(action))]
    assert board["tokens"] == [
        {"action": "b2/0", "side": BLUE, "polygon": board["poses"]["b2/0"]},
        {"action": "c3/4", "side": RED, "polygon": board["poses"]["c3/4"]},
    ]
    assert [(b["side"], b["border"]) for b in board["borders"]] == [
        (0, "top"), (0, "bottom"), (1, "left"), (1, "right")]
    assert board["borders"][0]["points"][:2] == [[-0.866, -0.5], [0.0, -1.0]]
    texts = [label["text"] for label in board["labels"]]
    assert all(texts.count(t) == 2 for t in "abcde12345")


def test_viewbox_covers_the_board_and_labels():
    for size in (5, 13):
        board = GAME.new(size=size).to_dict()["board"]
        x0, y0, w, h = board["viewbox"]
        points = [p for c in board["cells"] for p in c["hexagon"]]
        points += [[lb["x"], lb["y"]] for lb in board["labels"]]
        assert all(x0 < x < x0 + w and y0 < y < y0 + h for x, y in points)


def test_static_drawing_data_is_built_once_per_size():
    a, b = GAME.new(size=7), play("c3/4 d4/0", size=7)
    assert a.to_dict()["board"]["poses"] is b.to_dict()["board"]["poses"]
    assert a.board is b.board is tripen.board(7)


def test_text_shows_tokens_labels_and_whose_turn():
    text = play("c3/4 swap c3/1 a1/0").text()
    lines = text.splitlines()
    assert lines[0].split() == list("abcde")
    assert lines[1].split() == ["1", "R0", ".", ".", ".", ".", "1"]
    assert lines[3].split() == ["3", ".", ".", "B1R4", ".", ".", "3"]
    assert "Rk/Bk" in text
    assert lines[-1] == "Blue to place a token (colours were swapped)"
    # Each row sits half a cell further right, as the rhombus does.
    assert lines[2].index("2") == lines[1].index("1") + 3


# -- whole games ----------------------------------------------------------------------------------

# About 115 filled boards in all (a few seconds): more fills of the same sizes find nothing new.
@pytest.mark.parametrize("size, fills", [(5, 60), (7, 30), (9, 15), (11, 6), (13, 4)])
def test_every_completely_filled_board_has_exactly_one_winning_chain(size, fills):
    rng = random.Random(size)
    for _ in range(fills):
        tokens = random_fill(size, rng)
        assert len(tokens) == 2 * size * size   # every cell ends with its two halves
        assert sorted(chains(size, tokens)) == [False, True]


def random_game(seed, size, stop=None):
    """A random legal game (swapping now and then); the states it went through."""
    rng = random.Random(seed)
    state, states = GAME.new(size=size), []
    while not state.is_over and len(states) != stop:
        states.append(state)
        legal = state.legal_actions()
        assert legal, "no legal action in a game that is not over"
        action = "swap" if "swap" in legal and rng.random() < 0.3 else rng.choice(legal)
        state = state.play(action)
        assert len(states) <= 6 * size * size + 1
    return states + [state]


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), size=st.sampled_from([5, 6, 7, 9]))
def test_random_games_end_with_the_winner_a_recount_finds(seed, size):
    states = random_game(seed, size)
    final, before = states[-1], states[-2]
    assert final.is_over and final.legal_actions() == []
    red, blue = recount(final)
    assert [red, blue] == [final.winner == RED, final.winner == BLUE]
    assert recount(before) == [False, False]      # the game ended the moment a chain formed
    assert final.winner == (final.ply - 1 - final.swapped) % 2   # the mover won
    assert GAME.replay(final.options, final.actions).to_dict() == final.to_dict()


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), size=st.sampled_from([5, 6]),
       plies=st.integers(0, 40))
def test_legal_actions_are_exactly_what_play_accepts(seed, size, plies):
    state = random_game(seed, size, stop=plies)[-1]
    accepted = accepted_by_play(state, every_placement(size) + ["swap"])
    assert accepted == set(state.legal_actions())
    if not state.is_over:
        # What is legal is exactly what the polygons allow.
        placed = [geo.pentagon(*parse(a)) for a in state.actions if a != "swap"]
        free = {a for a in every_placement(size)
                if not any(geo.overlaps(geo.pentagon(*parse(a)), p) for p in placed)}
        assert accepted - {"swap"} == free
