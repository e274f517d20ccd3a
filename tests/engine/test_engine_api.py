"""The engine contract of ENGINE_API.md, checked the same way for every game."""

import importlib.util
import json
import random

import pytest

import games
from games import IllegalAction

COMMON_KEYS = {"game", "options", "sides", "ply", "actions", "to_move", "is_over", "winner",
               "prompt", "result", "legal", "last", "tallies", "ending", "board"}


def available():
    """The registered games whose module exists yet (others are being written in parallel)."""
    return [name for name in games.names() if importlib.util.find_spec(f"games.{name}")]


GAMES = available()


def random_game(game, seed, limit=None, **options):
    """The states of a random game from the start, to the end or `limit` actions."""
    rng, state = random.Random(seed), game.new(**options)
    states = [state]
    while not state.is_over and (limit is None or state.ply < limit):
        state = state.play(rng.choice(state.legal_actions()))
        states.append(state)
    return states


def test_registry():
    assert games.names() == sorted(games.names())
    assert {"copolymer", "hadron", "tripen", "colorful"} == set(games.names())
    assert {"copolymer", "hadron"} <= set(GAMES)
    with pytest.raises(ValueError, match="there is no game 'chess'"):
        games.get("chess")
    assert issubclass(IllegalAction, ValueError)


@pytest.mark.parametrize("name", GAMES)
def test_game_facts(name):
    game = games.get(name)
    assert game.name == name and games.get(name.upper()) is game
    assert game.title and game.designer and isinstance(game.year, int)
    assert len(game.sides) == 2 and all(isinstance(side, str) and side for side in game.sides)
    choices = game.option_choices()
    assert "size" in choices
    assert set(game.defaults) == set(choices)
    for key, value in game.defaults.items():
        assert value in choices[key]
    assert game.new().options == game.normalize_options() == game.defaults
    assert game.new(size=str(game.defaults["size"])).options == game.defaults


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("options", [{"size": 0}, {"size": "big"}, {"size": None}, {"size": 5.0},
                                     {"size": True}, {"colour": "red"}])
def test_bad_options(name, options):
    game = games.get(name)
    with pytest.raises(ValueError):
        game.new(**options)
    with pytest.raises(ValueError):
        game.normalize_options(**options)


@pytest.mark.parametrize("name", GAMES)
def test_to_dict_is_json_with_the_common_keys(name):
    game = games.get(name)
    states = random_game(game, seed=1)
    for state in states[:3] + states[len(states) // 2:len(states) // 2 + 2] + states[-1:]:
        data = json.loads(json.dumps(state.to_dict()))
        assert COMMON_KEYS <= set(data)
        assert data["game"] == name and data["options"] == state.options
        assert data["sides"] == list(game.sides)
        assert data["ply"] == len(data["actions"]) == state.ply
        assert data["actions"] == list(state.actions)
        assert data["legal"] == state.legal_actions()
        assert data["is_over"] == state.is_over
        assert (data["to_move"] is None) == data["is_over"] == (data["result"] is not None)
        assert data["winner"] in ((0, 1, None) if data["is_over"] else (None,))
        assert isinstance(data["prompt"], str) and data["prompt"]
        assert data["last"] == data["actions"][len(data["actions"]) - len(data["last"]):]
        assert bool(data["last"]) == bool(data["actions"])
        assert len(data["tallies"]) == 2 and all(isinstance(t, str) for t in data["tallies"])
        # Why the game ended is drawn on the final position only.
        assert (data["ending"] is not None) == data["is_over"]
        if data["ending"]:
            assert data["ending"]["kind"] and data["ending"]["caption"]
        board = data["board"]
        assert isinstance(board["kind"], str) and len(board["viewbox"]) == 4
        assert all(isinstance(v, (int, float)) for v in board["viewbox"])
        assert board["cells"] and all("name" in cell for cell in board["cells"])
    last = states[-1]
    assert last.is_over and last.legal_actions() == [] and last.to_move is None


@pytest.mark.parametrize("name", GAMES)
def test_play_returns_a_new_state_and_leaves_the_old_one(name):
    game = games.get(name)
    for state in random_game(game, seed=2, limit=12)[:-1]:
        before = json.dumps(state.to_dict())
        actions = state.legal_actions()
        children = [state.play(action) for action in actions[:3] + actions[-3:]]
        assert all(child is not state and child.ply == state.ply + 1 for child in children)
        assert json.dumps(state.to_dict()) == before


@pytest.mark.parametrize("name", GAMES)
def test_side_must_be_the_one_to_move(name):
    game = games.get(name)
    for state in random_game(game, seed=3, limit=6)[:-1]:
        action = state.legal_actions()[0]
        mover, other = state.to_move, 1 - state.to_move
        with pytest.raises(IllegalAction, match=f"^it is {game.sides[mover]}'s turn$"):
            state.play(action, side=other)
        assert state.play(action, side=mover).actions[-1] == action


@pytest.mark.parametrize("name", GAMES)
def test_notation_round_trips(name):
    game = games.get(name)
    states = random_game(game, seed=4)
    for state in states[:2] + states[len(states) // 2:len(states) // 2 + 1] + states[-2:-1]:
        for action in state.legal_actions():
            assert state.parse_action(action) == action
            assert state.parse_action(action.lower()) == action
            assert state.parse_action(action.upper()) == action
            assert state.format_action(state.parse_action(action.swapcase())) == action
    first = states[0].legal_actions()[0]
    assert game.parse_action(first.swapcase(), game.defaults) == first
    assert states[-1].actions == tuple(states[-1].parse_action(a) for a in states[-1].actions)


@pytest.mark.parametrize("name", GAMES)
def test_nonsense_is_an_illegal_action(name):
    state = games.get(name).new()
    for text in ("zz99", "", "??"):
        with pytest.raises(IllegalAction):
            state.play(text)
    with pytest.raises(IllegalAction):
        state.play(None)


@pytest.mark.parametrize("name", GAMES)
def test_replay_rebuilds_the_state_and_stops_at_a_bad_action(name):
    game = games.get(name)
    end = random_game(game, seed=5)[-1]
    again = game.replay(end.options, end.actions)
    assert again.to_dict() == end.to_dict()
    with pytest.raises(IllegalAction):
        game.replay(end.options, list(end.actions[:3]) + [end.actions[1]])


@pytest.mark.parametrize("name", GAMES)
def test_playing_after_the_end_raises(name):
    game = games.get(name)
    end = random_game(game, seed=6)[-1]
    assert end.is_over and end.winner in (0, 1, None)
    assert end.result_text()
    with pytest.raises(IllegalAction, match="^the game is over$"):
        end.play(end.actions[-1])
    with pytest.raises(IllegalAction, match="^the game is over$"):
        end.play(games.get(name).new().legal_actions()[0])
