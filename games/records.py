"""Game records: a readable text form and a JSON form, both read back by replaying the actions.

The text form has header tags, then the actions numbered by round (two turns), the actions of
one turn joined by commas (Copolymer's forced claims, Colorful's two stones):

    [Game "copolymer"]
    [Options "size=5"]
    [X "alice"]
    [O "bob"]
    [Date "2025-11-21"]
    [Result "X wins with 31 cells to 30"]

    1. C3 D4 2. B2,A2,C5 D3,E4 3. ...

Players are named by side, as they hold the sides when the game ends: in Tripen, after a
`swap` the player who placed the first red token plays Blue, so the Blue tag names them, and
the record says so in a `Swap` tag.  Tags other than the game, options, sides, result and
swap (Date, Event, ...) are kept as they are.  The grouping and the round numbers are for
the reader: what the record means is its actions in order, which are replayed (so a record
with an illegal action is rejected) and must lead to the result it states, if it states one.

JSON carries the same: {"game", "options", "players" (side name -> player), "tags",
"result", "winner", "actions"}; the winner (a side index, or null) is for other programs:
reading a record derives it from the actions.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from . import get
from .base import Game, IllegalAction, State

UNFINISHED = "*"
LINE_WIDTH = 79
TAG_LINE = re.compile(r'^\[([A-Za-z][A-Za-z0-9_ ]*?)\s+"((?:[^"\\]|\\.)*)"\]$')
TAG_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")
ROUND_NUMBER = re.compile(r"^(\d+)\.$")


@dataclass
class Record:
    game: Game
    options: dict[str, Any]
    actions: tuple[str, ...]
    players: tuple[str | None, str | None] = (None, None)
    tags: dict[str, str] = field(default_factory=dict)   # the other tags: Date, Event, ...
    state: State | None = None   # the replay of the actions

    def to_text(self) -> str:
        """The record as text (see to_text)."""
        return to_text(self.state, self.players, **self.tags)

    def to_json(self) -> str:
        """The record as JSON (see to_json)."""
        return to_json(self.state, self.players, **self.tags)


# -- writing ----------------------------------------------------------------------------------

def to_text(state: State, players=None, **tags) -> str:
    """The record of `state` as text; `players` by side (a pair, or a dict by side index or
    side name); keyword tags such as date="2025-11-21" become [Date "2025-11-21"]."""
    game = state.game
    players = _players(game, players)
    header = [("Game", game.name), ("Options", options_text(state.options))]
    header += [(side, name) for side, name in zip(game.sides, players) if name is not None]
    header += [(_tag_name(key), str(value)) for key, value in _extra_tags(game, tags).items()]
    swap = _swap_note(state, players)
    if swap:
        header.append(("Swap", swap))
    header.append(("Result", state.result_text() or UNFINISHED))
    lines = [f'[{key} "{_escape(value)}"]' for key, value in header]
    return "\n".join(lines + [""] + _movetext(turns(state))) + "\n"


def to_json(state: State, players=None, indent: int | None = None, **tags) -> str:
    """The record of `state` as JSON; players and tags as for to_text."""
    game = state.game
    players = _players(game, players)
    return json.dumps({
        "game": game.name,
        "options": dict(state.options),
        "players": {side: name for side, name in zip(game.sides, players)},
        "tags": {_tag_name(k): str(v) for k, v in _extra_tags(game, tags).items()},
        "result": state.result_text(),
        "winner": state.winner if state.is_over else None,
        "actions": list(state.actions),
    }, indent=indent)


def turns(state: State) -> list[list[str]]:
    """The actions of `state` grouped by turn, found by replaying them: an action continues
    the turn when the same side played the one before and the game counts both in the turn
    (`last_turn`), so Tripen's swap and the placement after it stay two turns."""
    current = state.game.new(**state.options)
    grouped: list[list[str]] = []
    previous_side = None
    for action in state.actions:
        side = current.to_move
        current = current.play(action)
        if grouped and side == previous_side and len(current.last_turn()) > 1:
            grouped[-1].append(action)
        else:
            grouped.append([action])
        previous_side = side
    return grouped


def _movetext(grouped: list[list[str]]) -> list[str]:
    rounds = [
        f"{k // 2 + 1}. " + " ".join(",".join(turn) for turn in grouped[k:k + 2])
        for k in range(0, len(grouped), 2)
    ]
    lines, line = [], ""
    for item in rounds:
        if line and len(line) + 1 + len(item) > LINE_WIDTH:
            lines.append(line)
            line = item
        else:
            line = f"{line} {item}" if line else item
    return lines + [line] if line else lines


def options_text(options: dict[str, Any]) -> str:
    """Options as the Options tag writes them: 'board=long size=5'."""
    return " ".join(f"{key}={value}" for key, value in sorted(options.items()))


def _players(game: Game, players) -> tuple[str | None, str | None]:
    if players is None:
        return (None, None)
    if isinstance(players, dict):
        by_index = {}
        for key, name in players.items():
            index = game.sides.index(key) if key in game.sides else key
            if index not in (0, 1):
                raise ValueError(f"{key!r} is not a side of {game.title}")
            by_index[index] = name
        return (by_index.get(0), by_index.get(1))
    players = tuple(players)
    if len(players) != 2:
        raise ValueError(f"players are two names, one per side, not {len(players)}")
    return players


def _reserved(game: Game) -> set[str]:
    return {"game", "options", "result", "swap"} | {side.lower() for side in game.sides}


def _extra_tags(game: Game, tags: dict) -> dict:
    reserved = _reserved(game)
    for key in tags:
        if not TAG_NAME.match(key):
            raise ValueError(f"{key!r} cannot be a tag name")
        if key.lower() in reserved:
            raise ValueError(f"the {_tag_name(key)} tag is written from the game itself")
    return tags


def _tag_name(key: str) -> str:
    return key[:1].upper() + key[1:]


def _swap_note(state: State, players) -> str | None:
    if not state.swapped:
        return None
    first_side, swapper_side = state.game.sides[0], state.game.sides[1]
    first = players[1] or f"{swapper_side}'s player"
    swapper = players[0] or f"{first_side}'s player"
    return f"{first} placed the first token as {first_side}; {swapper} swapped and took {first_side}"


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"')


def _unescape(value: str) -> str:
    return re.sub(r"\\(.)", r"\1", value)


# -- reading ----------------------------------------------------------------------------------

def parse(record) -> Record:
    """Read a text or JSON record (a str, or an already decoded JSON dict) and replay it.
    A malformed record raises ValueError, an illegal action IllegalAction, saying where."""
    if isinstance(record, dict):
        return _from_json(record)
    if not isinstance(record, str):
        raise ValueError(f"a record is text or JSON, not {type(record).__name__}")
    if record.lstrip().startswith("{"):
        try:
            data = json.loads(record)
        except json.JSONDecodeError as error:
            raise ValueError(f"the JSON record does not parse: {error}") from None
        return _from_json(data)
    return _from_text(record)


def _from_text(text: str) -> Record:
    tags: dict[str, tuple[str, int]] = {}
    moves: list[tuple[str, int]] = []   # (action, line number)
    rounds_seen = 0
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith(";"):
            continue
        if line.startswith("["):
            if moves or rounds_seen:
                raise ValueError(f"line {number}: a tag after the actions")
            key, value = _tag(line, number)
            if key in tags:
                raise ValueError(f"line {number}: a second {key} tag")
            tags[key] = (value, number)
            continue
        for token in line.split():
            numbered = ROUND_NUMBER.match(token)
            if numbered:
                rounds_seen += 1
                if int(numbered.group(1)) != rounds_seen:
                    raise ValueError(f"line {number}: round {rounds_seen} is numbered {token!r}")
                continue
            for action in token.split(","):
                if not action:
                    raise ValueError(f"line {number}: an empty action in {token!r}")
                moves.append((action, number))
    return _build(tags, moves)


def _tag(line: str, number: int) -> tuple[str, str]:
    match = TAG_LINE.match(line)
    if not match:
        raise ValueError(f'line {number}: a tag is written [Name "value"], not {line!r}')
    return match.group(1), _unescape(match.group(2))


def _build(tags: dict[str, tuple[str, int]], moves: list[tuple[str, int]]) -> Record:
    if "Game" not in tags:
        raise ValueError("the record has no Game tag")
    name, line = tags.pop("Game")
    game = _game(name, f"line {line}: ")
    written, line = tags.pop("Options", ("", 0))
    options = _options(game, written, f"line {line}: ")
    players = tuple(tags.pop(side, (None, 0))[0] for side in game.sides)
    result = tags.pop("Result", (None, 0))
    swap = tags.pop("Swap", (None, 0))
    state = _replay(game, options, [(a, f"line {line}: ") for a, line in moves])
    _check_result(state, result[0], f"line {result[1]}: ")
    if swap[0] is not None and not state.swapped:
        raise ValueError(f"line {swap[1]}: a Swap tag, but nobody swapped")
    extra = {key: value for key, (value, _) in tags.items()}
    return Record(game, state.options, state.actions, players, extra, state)


def _from_json(data) -> Record:
    if not isinstance(data, dict) or "game" not in data:
        raise ValueError("a JSON record is an object with a game")
    game = _game(data["game"], "")
    options = data.get("options") or {}
    if not isinstance(options, dict):
        raise ValueError("the JSON record's options are not an object")
    options = _options_from_dict(game, options, "")
    actions = data.get("actions", [])
    if not isinstance(actions, list) or not all(isinstance(a, str) for a in actions):
        raise ValueError("the JSON record's actions are not a list of text")
    players = data.get("players") or {}
    if not isinstance(players, dict):
        raise ValueError("the JSON record's players are not an object of side: name")
    unknown = set(players) - set(game.sides)
    if unknown:
        raise ValueError(f"{', '.join(sorted(unknown))} is not a side of {game.title}")
    tags = data.get("tags") or {}
    if not isinstance(tags, dict):
        raise ValueError("the JSON record's tags are not an object")
    state = _replay(game, options, [(a, "") for a in actions])
    _check_result(state, data.get("result"), "")
    players = tuple(players.get(side) for side in game.sides)
    return Record(game, state.options, state.actions, players, dict(tags), state)


def _game(name: str, where: str) -> Game:
    try:
        return get(name)
    except ValueError as error:
        raise ValueError(f"{where}{error}") from None


def _options(game: Game, text: str, where: str) -> dict:
    options = {}
    for item in text.split():
        key, sep, value = item.partition("=")
        if not sep or not key or not value:
            raise ValueError(f"{where}options are written name=value, not {item!r}")
        options[key] = value
    return _options_from_dict(game, options, where)


def _options_from_dict(game: Game, options: dict, where: str) -> dict:
    try:
        return game.normalize_options(**options)
    except (TypeError, ValueError) as error:
        raise ValueError(f"{where}{error}") from None


def _replay(game: Game, options: dict, moves: list[tuple[str, str]]) -> State:
    state = game.new(**options)
    for ply, (action, where) in enumerate(moves, 1):
        try:
            state = state.play(action)
        except IllegalAction as error:
            raise IllegalAction(f"{where}action {ply} ({action}): {error}") from None
    return state


def _check_result(state: State, stated: str | None, where: str) -> None:
    if stated is None:
        return
    actual = state.result_text() or UNFINISHED
    if stated != actual:
        raise ValueError(f"{where}the record says {stated!r} but its actions give {actual!r}")
