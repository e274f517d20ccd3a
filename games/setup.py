"""Positions set up by hand (the analysis board): pieces put on the board and a side to move,
checked by the rules before anything is analysed.

    >>> import games
    >>> from games.setup import arrange
    >>> arrange("hadron", {"size": 5}, {"c3": "0", "b2": "1"}, 0).legal_actions()[:3]
    ['a1', 'b1', 'c1']

`pieces` maps a cell (Tripen: a token, `c3/2`) to what stands there: the side's index
("0", "1") for Hadron, Copolymer and Tripen, a colour letter (R, P, B, G) for Colorful
Connection. A set-up is refused (IllegalSetup, the reason in the game's words) when a cell is
not on the board, the counts of pieces could not arise with this side to move, the game
would already be over, or, in Tripen, a token overlaps another: Tripen's tokens are placed
through `play()`, Red and Blue in turn, so the engine's own reason for an overlap is the
answer. Hadron's placement rule depends on the order the tiles went down, so a Hadron set-up
is held to its counts only; Copolymer's forced claims give a turn any number of claims, so its
counts are free.
"""

from __future__ import annotations

from . import IllegalAction, get
from .colorful import PALETTE

# What a piece may be called in a set-up, per game: sides by index, or Colorful's colours.
SIDES = ("0", "1")


class IllegalSetup(ValueError):
    """A set-up the rules cannot reach; the message says why."""


def arrange(game_name: str, options: dict, pieces: dict[str, str], to_move: int):
    """The position with `pieces` on the board and `to_move` (0 or 1) to move, or
    IllegalSetup with the reason."""
    game = get(game_name)
    try:
        options = game.normalize_options(**options)
    except ValueError as error:
        raise IllegalSetup(str(error)) from None
    if to_move not in (0, 1):
        raise IllegalSetup(f"the side to move must be {game.sides[0]} or {game.sides[1]}")
    state = _ARRANGERS[game.name](game, options, canonical(game_name, options, pieces), to_move)
    if state.is_over:
        raise IllegalSetup(f"the game would be over already: {state.outcome()}")
    return state


def canonical(game_name: str, options: dict, pieces: dict[str, str]) -> dict[str, str]:
    """`pieces` with each cell (or token) as the engine writes it ("C3" is "c3") and each
    colour letter in capitals; IllegalSetup for a cell not on the board or set twice."""
    game = get(game_name)
    empty = game.new(**game.normalize_options(**options))
    named = {}
    for where, what in pieces.items():
        try:
            if game.name == "colorful":
                what, _, cell = empty.parse_action(f"{what}@{where}").partition("@")
            else:
                cell = empty.parse_action(where)
        except IllegalAction as error:
            raise IllegalSetup(f"{where}: {error}") from None
        if cell in named:
            raise IllegalSetup(f"{cell} is set twice")
        named[cell] = what
    return named


def turn_of(game_name: str, pieces: dict[str, str]) -> int | None:
    """The side whose turn the counts of `pieces` say it is, in the games where they say it
    (one piece a turn; Colorful's one stone, then two), None in Copolymer."""
    if game_name == "copolymer":
        return None
    if game_name == "colorful":
        first = sum(1 for colour in pieces.values() if colour.upper() in PALETTE[0])
        return 1 if first > len(pieces) - first else 0
    first = sum(1 for side in pieces.values() if side == "0")
    return 1 if first > len(pieces) - first else 0


def _sides(game, pieces) -> dict[str, int]:
    for cell, what in pieces.items():
        if what not in SIDES:
            raise IllegalSetup(f"{cell}: a piece is {game.sides[0]} (0) or {game.sides[1]} (1), "
                               f"not {what!r}")
    return {cell: int(what) for cell, what in pieces.items()}


def _alternating(game, counts, to_move):
    """One piece a turn, the first side first: the side to move has as many pieces as the
    other, or one fewer when it is the second side's turn."""
    first, second = counts
    if (first - second) != to_move:
        raise IllegalSetup(
            f"{game.sides[0]} has {first} and {game.sides[1]} {second}: with one piece a turn "
            f"and {game.sides[0]} first, {game.sides[to_move]} to move needs "
            + ("as many of each" if to_move == 0 else f"{game.sides[0]} one ahead"))


def _hadron(game, options, pieces, to_move):
    sides = _sides(game, pieces)
    _alternating(game, [list(sides.values()).count(s) for s in (0, 1)], to_move)
    return game.state_class.setup(game, options, sides, to_move)


def _copolymer(game, options, pieces, to_move):
    return game.state_class.setup(game, options, _sides(game, pieces), to_move)


def _tripen(game, options, pieces, to_move):
    sides = _sides(game, pieces)
    reds = [token for token, side in sides.items() if side == 0]
    blues = [token for token, side in sides.items() if side == 1]
    _alternating(game, [len(reds), len(blues)], to_move)
    state = game.new(**options)
    order = [token for pair in zip(reds, blues + [None]) for token in pair if token]
    for token in order:
        if state.is_over:
            break   # a chain complete before the last token: over either way
        try:
            state = state.play(token)
        except IllegalAction as error:
            raise IllegalSetup(f"{token}: {error}") from None
    return state


def _colorful(game, options, pieces, to_move):
    state = game.state_class.setup(game, options, pieces, to_move)
    counts = [sum(1 for colour in pieces.values() if colour.upper() in PALETTE[side])
              for side in (0, 1)]
    # The first turn is one stone, every later turn two: after the first side's turns it has
    # one stone more than the second side, after the second side's one fewer.
    first, second = counts
    if not (first == second == 0 and to_move == 0) and first - second != (1 if to_move else -1):
        raise IllegalSetup(
            f"{game.sides[0]} has {first} stones and {game.sides[1]} {second}: with one stone "
            f"on the first turn and two a turn after, {game.sides[to_move]} to move needs "
            + (f"{game.sides[0]} one ahead" if to_move else
               f"{game.sides[1]} one ahead (or an empty board)"))
    return state


_ARRANGERS = {"hadron": _hadron, "copolymer": _copolymer, "tripen": _tripen,
              "colorful": _colorful}
