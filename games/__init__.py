"""Tessera's rules engine: the four games as plain Python, with no web framework in sight.

    >>> import games
    >>> state = games.get("hadron").new(size=5)
    >>> state = state.play("c3")
    >>> state.to_move
    1
"""

from importlib import import_module

from .base import Game, IllegalAction, State

__all__ = ["Game", "IllegalAction", "State", "get", "names"]

# name -> module; each module defines GAME, the game object.
_MODULES = {
    "colorful": "colorful",
    "copolymer": "copolymer",
    "hadron": "hadron",
    "tripen": "tripen",
}


def names() -> list[str]:
    return sorted(_MODULES)


def get(name: str) -> Game:
    """The game called `name`; ValueError for a name that is not one of ours."""
    module = _MODULES.get(str(name).strip().lower())
    if module is None:
        raise ValueError(f"there is no game {name!r}; the games are {', '.join(names())}")
    return import_module(f".{module}", __name__).GAME
