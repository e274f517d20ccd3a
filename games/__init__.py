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

# Each game is the module of its name, which defines GAME; modules load on first use.
_NAMES = ("colorful", "copolymer", "hadron", "tripen")


def names() -> list[str]:
    """The games' names, in alphabetical order."""
    return list(_NAMES)


_loaded = {}  # name as asked -> its Game: the server asks on every move (a game's title)


def get(name: str) -> Game:
    """The game called `name` (any case); ValueError for a name that is not one of ours."""
    found = _loaded.get(name) if isinstance(name, str) else None
    if found is not None:
        return found
    key = str(name).strip().lower()
    if key not in _NAMES:
        raise ValueError(f"there is no game {name!r}; the games are {', '.join(names())}")
    found = import_module(f".{key}", __name__).GAME
    if isinstance(name, str):
        _loaded[name] = found
    return found
