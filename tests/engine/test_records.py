"""Game records: text and JSON round-trips for every game, turn grouping, malformed records."""

import importlib.util
import json
import random

import pytest

import games
from games import IllegalAction, records

GAMES = [name for name in games.names() if importlib.util.find_spec(f"games.{name}")]


def random_game(name, seed, limit=None, **options):
    rng, state = random.Random(seed), games.get(name).new(**options)
    while not state.is_over and (limit is None or state.ply < limit):
        state = state.play(rng.choice(state.legal_actions()))
    return state


def largest(name):
    game = games.get(name)
    return {"size": max(s for s in game.option_choices()["size"]
                        if _valid(game, {**game.defaults, "size": s}))}


def _valid(game, options):
    try:
        game.normalize_options(**options)
        return True
    except ValueError:
        return False


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("seed, limit", [(1, None), (2, None), (3, 7), (4, 0)])
def test_text_and_json_round_trip(name, seed, limit):
    state = random_game(name, seed, limit)
    players = ("alice", "bob")
    tags = {"Date": "2025-11-21", "Event": 'Club "night" \\ 3'}
    text = records.to_text(state, players, **tags)
    as_json = records.to_json(state, players, **tags)
    for record in (records.parse(text), records.parse(as_json), records.parse(json.loads(as_json))):
        assert record.state.to_dict() == state.to_dict()
        assert record.game is state.game and record.options == state.options
        assert record.actions == state.actions
        assert record.players == players and record.tags == tags
        assert record.to_text() == text and record.to_json() == as_json
    assert text.startswith(f'[Game "{name}"]\n')
    assert f'[Result "{state.result_text() or "*"}"]' in text
    for side, player in zip(state.game.sides, players):
        assert f'[{side} "{player}"]' in text


@pytest.mark.parametrize("name", GAMES)
def test_largest_board_round_trips(name):
    state = random_game(name, 7, **largest(name))
    assert records.parse(records.to_text(state)).state.to_dict() == state.to_dict()
    assert records.parse(records.to_json(state)).state.to_dict() == state.to_dict()


def test_header_and_numbered_rounds():
    state = games.get("hadron").replay({"size": 5}, ["c3", "a1", "e5"])
    text = records.to_text(state, ("alice", "bob"), date="2025-11-21")
    assert text == (
        '[Game "hadron"]\n[Options "size=5"]\n[Red "alice"]\n[Blue "bob"]\n'
        '[Date "2025-11-21"]\n[Result "*"]\n\n1. c3 a1 2. e5\n'
    )
    record = records.parse(text)
    assert record.tags == {"Date": "2025-11-21"} and record.players == ("alice", "bob")


def test_players_may_be_given_by_side_name_or_index_or_left_out():
    state = games.get("hadron").new()
    assert records.parse(records.to_text(state, {"Blue": "bob"})).players == (None, "bob")
    assert records.parse(records.to_text(state, {0: "al"})).players == ("al", None)
    assert records.parse(records.to_text(state)).players == (None, None)
    assert "[Red " not in records.to_text(state, {"Blue": "bob"})
    with pytest.raises(ValueError):
        records.to_text(state, {"Green": "carol"})
    with pytest.raises(ValueError, match="^players are two names, one per side, not 1$"):
        records.to_text(state, ["alice"])
    with pytest.raises(ValueError, match="Result tag is written from the game"):
        records.to_text(state, result="1-0")
    with pytest.raises(ValueError, match="'bad name' cannot be a tag name"):
        records.to_text(state, **{"bad name": "x"})


def test_copolymer_turns_are_grouped():
    # O claims A1 between X's A2 and B1: two enemy neighbours, so O claims again (J5).
    state = games.get("copolymer").replay({"size": 5}, ["A2", "J9", "B1", "A1"])
    assert state.to_move == 1
    state = state.play("J5")
    assert records.turns(state) == [["A2"], ["J9"], ["B1"], ["A1", "J5"]]
    assert records.to_text(state).endswith("\n1. A2 J9 2. B1 A1,J5\n")
    assert records.parse(records.to_text(state)).state.to_dict() == state.to_dict()


@pytest.mark.parametrize("name", GAMES)
def test_turns_alternate_between_the_sides(name):
    state = random_game(name, 8)
    game, replayed = state.game, state.game.new(**state.options)
    sides = []
    for action in state.actions:
        sides.append(replayed.to_move)
        replayed = replayed.play(action)
    k = 0
    for turn in records.turns(state):
        assert len({sides[j] for j in range(k, k + len(turn))}) == 1
        k += len(turn)
    if name == "colorful":
        assert [len(t) for t in records.turns(state)][:3] == [1, 2, 2]
    if name in ("hadron", "tripen"):
        assert all(len(t) == 1 for t in records.turns(state))


@pytest.mark.skipif("tripen" not in GAMES, reason="tripen not written yet")
def test_tripen_swap_is_its_own_turn_and_noted():
    game = games.get("tripen")
    state = game.new()
    state = state.play(state.legal_actions()[0]).play("swap")
    state = state.play(state.legal_actions()[0])
    assert records.turns(state) == [[a] for a in state.actions]
    text = records.to_text(state, ("bob", "alice"))
    assert '[Swap "alice placed the first token as Red; bob swapped and took Red"]' in text
    record = records.parse(text)
    assert record.players == ("bob", "alice") and "Swap" not in record.tags
    assert record.state.to_dict() == state.to_dict()
    unswapped = records.to_text(game.new().play("a1/0"))
    with pytest.raises(ValueError, match="a Swap tag, but nobody swapped"):
        records.parse(unswapped.replace("[Result", '[Swap "x"]\n[Result'))


def test_hand_written_text_is_read_leniently():
    text = """
; a game typed by hand
[Game "Hadron"]
[Options "size=7"]

1. C3 A1
2.   e5
   b7
"""
    record = records.parse(text)
    assert record.options == {"size": 7}
    assert record.actions == ("c3", "a1", "e5", "b7")
    assert records.parse('[Game "hadron"]\n').state.ply == 0


BASE = '[Game "hadron"]\n[Options "size=5"]\n'


@pytest.mark.parametrize("text, error, message", [
    ("1. c3 a1", ValueError, "^the record has no Game tag$"),
    ('[Game "chess"]\n', ValueError, "^line 1: there is no game 'chess'"),
    ('[Game "hadron"]\n[Options "size=6"]\n', ValueError, "^line 2: Hadron size must be one of"),
    ('[Game "hadron"]\n[Options "size"]\n', ValueError, "^line 2: options are written name=value"),
    ('[Game "hadron"]\n[Options "board=long"]\n', ValueError, "^line 2: Hadron has no option"),
    ('[Game hadron]\n', ValueError, "^line 1: a tag is written"),
    (BASE + '[Game "hadron"]\n', ValueError, "^line 3: a second Game tag$"),
    (BASE + "\n1. c3 a1\n2. c3", IllegalAction, r"^line 5: action 3 \(c3\): c3 is not empty$"),
    (BASE + "\n1. c3 z9", IllegalAction,
     r"^line 4: action 2 \(z9\): 'z9' is not a cell of this board$"),
    (BASE + "\n1. c3 c4", IllegalAction,
     r"^line 4: action 2 \(c4\): c4 has 1 red neighbour and no blue neighbours$"),
    (BASE + "\n1. c3 a1 3. e5", ValueError, "^line 4: round 2 is numbered '3.'$"),
    (BASE + "\n1. c3,,a1", ValueError, "^line 4: an empty action in 'c3,,a1'$"),
    (BASE + "\n1. c3\n[Red \"al\"]", ValueError, "^line 5: a tag after the actions$"),
    (BASE + '[Result "Red wins: Blue has no placement"]\n1. c3', ValueError,
     "^line 3: the record says 'Red wins: Blue has no placement' but its actions give '\\*'$"),
    ('{"game": "hadron", "actions": "c3"}', ValueError, "actions are not a list of text"),
    ('{"game": "hadron", "actions": ["c3", "c3"]}', IllegalAction,
     r"^action 2 \(c3\): c3 is not empty$"),
    ('{"game": "hadron", "options": {"size": 4}}', ValueError, "^Hadron size must be one of"),
    ('{"game": "hadron", "players": {"Green": "x"}}', ValueError, "^Green is not a side of Hadron$"),
    ('{"game": "hadron", "result": "Red wins", "actions": []}', ValueError, "the record says"),
    ('{"actions": []}', ValueError, "^a JSON record is an object with a game$"),
    ('{"game": "hadron",', ValueError, "^the JSON record does not parse"),
])
def test_malformed_records(text, error, message):
    with pytest.raises(error, match=message):
        records.parse(text)


def test_not_a_record():
    with pytest.raises(ValueError, match="a record is text or JSON, not int"):
        records.parse(5)
