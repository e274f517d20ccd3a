"""Positions set up by hand (games.setup, the analysis board's): every game and board size
takes a legal set-up; an impossible one is refused with the rules' reason."""
import itertools
import random

import pytest

import games
from games.setup import IllegalSetup, arrange


@pytest.mark.parametrize("name", games.names())
def test_every_game_and_size_sets_up_the_position_a_game_reached(name):
    """A position reached by play, its pieces set up by hand: the same pieces, the same side
    to move, the same legal actions (so the set-up is the position)."""
    game = games.get(name)
    for choice in [dict(zip(game.option_choices(), values)) for values in
                   itertools.product(*game.option_choices().values())]:
        try:
            options = game.normalize_options(**choice)
        except ValueError:
            continue
        rng, state = random.Random(1), game.new(**options)
        while state.ply < 6 and not state.is_over:
            playable = [a for a in state.legal_actions() if a != "swap"]
            # A set-up opens a turn: Colorful's second stone and Copolymer's forced claims
            # are played on.
            state = state.play(rng.choice(playable))
        while not state.is_over and mid_turn(state):
            state = state.play(rng.choice(state.legal_actions()))
        pieces = pieces_of(state)
        arranged = arrange(name, options, pieces, state.to_move)
        assert pieces_of(arranged) == pieces
        assert arranged.to_move == state.to_move
        assert sorted(arranged.legal_actions()) == sorted(
            a for a in state.legal_actions() if a != "swap")


def mid_turn(state):
    """Colorful's second stone owed, or a Copolymer claim forced."""
    return len(getattr(state, "owed", "..")) == 1 or getattr(state, "forced_by", None)


def pieces_of(state):
    if state.game.name == "tripen":
        names = state.board.node_names
        return {names[node]: str(colour - 1) for node, colour in enumerate(state.colour) if colour}
    if state.game.name == "colorful":
        return {state.board.names[i]: s for i, s in enumerate(state.stones) if s}
    return {state.board.names[i]: str(o) for i, o in enumerate(state.owner) if o is not None}


def test_overlapping_tripen_tokens_are_refused_with_the_engines_reason():
    with pytest.raises(IllegalSetup, match="c3/1: pose 1 in c3 overlaps the token already there"):
        arrange("tripen", {"size": 7}, {"c3/0": "0", "c3/1": "1"}, 0)


@pytest.mark.parametrize("name, pieces, to_move, reason", [
    ("hadron", {"c3": "0"}, 0, "Red has 1 and Blue 0"),
    ("hadron", {"c3": "0", "a1": "0"}, 1, "Red has 2 and Blue 0"),
    ("tripen", {"c3/0": "1"}, 0, "Red has 0 and Blue 1"),
    ("colorful", {"a1": "R"}, 0, "Player 1 has 1 stones and Player 2 0"),
    ("colorful", {"a1": "B", "a2": "G"}, 1, "Player 1 has 0 stones and Player 2 2"),
    ("hadron", {"z9": "0"}, 1, "z9"),
    ("hadron", {"c3": "0", "C3": "1"}, 0, "c3 is set twice"),
    ("hadron", {"c3": "2"}, 1, "not '2'"),
    ("colorful", {"a1": "X"}, 1, "not a stone"),
])
def test_impossible_counts_and_bad_pieces_are_refused(name, pieces, to_move, reason):
    with pytest.raises(IllegalSetup, match=reason):
        arrange(name, {}, pieces, to_move)


def test_a_finished_position_is_refused():
    # Hadron size 5 filled so that nobody can place: the side to move has lost already.
    state = games.get("hadron").new(size=5)
    while not state.is_over:
        state = state.play(state.legal_actions()[0])
    with pytest.raises(IllegalSetup, match="would be over already"):
        arrange("hadron", {"size": 5}, pieces_of(state), state.mover)


def test_a_game_is_found_by_any_spelling_of_its_name_every_time():
    hadron = games.get("hadron")
    for spelling in ("Hadron", " hadron ", "HADRON", "hadron"):
        assert games.get(spelling) is hadron
    for wrong in ("chess", "", None, 7):
        with pytest.raises(ValueError, match="no game"):
            games.get(wrong)
