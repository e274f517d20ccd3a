"""What the engine tells people besides the rules: option labels (one wording for every page
and export), each side's tally, and why a game ended, drawn on its final position."""
import random

import pytest

import games
from games import colorful, tripen_geometry


def played_out(name, seed, **options):
    game = games.get(name)
    state, rng = game.new(**options), random.Random(seed)
    while not state.is_over:
        state = state.play(rng.choice(state.legal_actions()))
    return state


@pytest.mark.parametrize("name, options, label", [
    ("hadron", {"size": 7}, "7×7"),
    ("tripen", {"size": 9}, "9×9"),
    ("tripen", {}, "7×7"),
    ("copolymer", {"size": 5}, "hexhex side 5"),
    ("colorful", {"board": "hexhex", "size": 5}, "hexhex side 5"),
    ("colorful", {"board": "long", "size": 4}, "long board side 4"),
    ("colorful", {"size": 3}, "hexhex side 3"),
])
def test_option_label(name, options, label):
    assert games.get(name).option_label(options) == label


def test_option_values_read_like_the_label():
    colorful_game = games.get("colorful")
    assert colorful_game.option_value_text("board", "long") == "long board"
    assert colorful_game.option_value_text("size", 6) == "side 6"
    assert games.get("hadron").option_value_text("size", 9) == "9×9"
    for name in games.names():
        game = games.get(name)
        assert set(game.option_choices()) <= set(game.option_names)


def test_tallies_count_in_words():
    hadron = games.get("hadron").new(size=5).play("c3")
    assert hadron.tallies() == ["1 tile", "0 tiles"]
    copolymer = games.get("copolymer").new(size=4).play("A1").play("D4")
    assert copolymer.tallies() == ["1 cell", "1 cell"]
    assert games.get("tripen").new().tallies() == ["", ""]
    start = games.get("colorful").new(size=3)
    assert start.tallies() == ["", ""]
    # A red stone in the corner A1 reaches two sides of the board.
    assert start.play("R@A1").tallies() == ["scores 2", ""]


@pytest.mark.parametrize("seed", range(6))
def test_tripen_ending_is_the_shortest_chain_from_border_to_border(seed):
    state = played_out("tripen", seed, size=5)
    ending = state.to_dict()["ending"]
    board, side = state.board, state.winner
    chain = [board.by_node_name[name] for name in ending["chain"]]
    start, end = ending["borders"]
    assert (start, end) == {0: ("top", "bottom"), 1: ("left", "right")}[side]
    assert all(state.colour[node] == side + 1 for node in chain)
    assert start in board.borders_touched[chain[0]] and end in board.borders_touched[chain[-1]]
    for a, b in zip(chain, chain[1:]):
        assert b in board.joins[a], "consecutive tokens of the chain share a segment"
    # Nothing shorter joins the borders: no token of the chain but the ends touches a goal.
    assert all(start not in board.borders_touched[n] for n in chain[1:])
    assert all(end not in board.borders_touched[n] for n in chain[:-1])
    assert f"{len(chain)} tokens" in ending["caption"]
    assert set(tripen_geometry.BORDERS) >= {start, end}


@pytest.mark.parametrize("seed", range(4))
def test_hadron_ending_marks_the_empty_cells_nobody_may_use(seed):
    state = played_out("hadron", seed, size=5)
    ending = state.ending()
    empty = [c["name"] for c in state.to_dict()["board"]["cells"] if c["owner"] is None]
    assert ending["kind"] == "blocked" and ending["cells"] == empty
    for name in empty:
        cell = state.board.by_name[name]
        assert state.near[0][cell] != state.near[1][cell]
    assert ending["caption"].startswith(f"{state.side_name(1 - state.winner)} has no legal placement")


def test_copolymer_ending_counts_the_cells():
    state = played_out("copolymer", 3, size=4)
    ending = state.ending()
    assert ending["counts"] == state.counts and sum(ending["counts"]) == 37
    assert len(ending["cells"]) == state.counts[state.winner]
    assert ending["caption"] == f"X {state.counts[0]} cells · O {state.counts[1]} cells"


@pytest.mark.parametrize("seed", range(6))
def test_colorful_ending_names_the_deciding_groups(seed):
    state = played_out("colorful", seed, size=3)
    ending = state.ending()
    scores = state.to_dict()["board"]["scores"]
    side, k = colorful.compare(*scores)
    if side is None:
        assert ending["groups"] == []
        return
    winner = ending["groups"][0]
    assert winner["side"] == side and winner["score"] == scores[side][k]
    if len(ending["groups"]) > 1:
        loser = ending["groups"][1]
        assert loser["side"] == 1 - side and loser["score"] == scores[1 - side][k]
    else:
        assert k >= len(scores[1 - side])  # the loser has no group there: it counts as 0
    assert ending["caption"] == state.outcome()
