"""What every game shares: the game object (static facts, options) and the state protocol.

A state is immutable from the outside: `play` returns a new state and leaves the old one as
it was, so the site, bots and tests can keep any position they like.  Inside, each game keeps
incremental bookkeeping (empty-cell lists, neighbour counters, union-find) that `play` copies
and updates, so the cost of an action does not grow with the board.
"""

from __future__ import annotations

import copy
from typing import Any


class IllegalAction(ValueError):
    """An action the rules do not allow, or text that is not an action; the message says why."""


class Game:
    """Static facts and options of one game. Subclasses set the class attributes."""

    name: str = ""
    title: str = ""
    designer: str = ""
    year: int = 0
    sides: tuple[str, str] = ("", "")
    defaults: dict[str, Any] = {}
    state_class: type[State]

    def option_choices(self) -> dict[str, list]:
        raise NotImplementedError

    def normalize_options(self, **options) -> dict[str, Any]:
        """Fill in defaults and check every option, raising ValueError with a useful message."""
        choices = self.option_choices()
        unknown = sorted(set(options) - set(choices))
        if unknown:
            raise ValueError(
                f"{self.title} has no option {', '.join(map(repr, unknown))}; "
                f"its options are {', '.join(sorted(choices))}"
            )
        full = {**self.defaults, **options}
        for key, allowed in choices.items():
            value = full[key]
            if isinstance(value, str) and all(isinstance(a, int) for a in allowed):
                value = _int_or_self(value)
            if value not in allowed or isinstance(value, bool):
                raise ValueError(
                    f"{self.title} {key} must be one of {', '.join(map(str, allowed))}, not {value!r}"
                )
            full[key] = value
        self.check_options(full)
        return full

    def check_options(self, options: dict[str, Any]) -> None:
        """Checks that depend on several options at once (the default has none)."""

    def new(self, **options) -> State:
        return self.state_class.initial(self, self.normalize_options(**options))

    def replay(self, options: dict[str, Any], actions) -> State:
        state = self.new(**options)
        for action in actions:
            state = state.play(action)
        return state

    def parse_action(self, text: str, options: dict[str, Any] | None = None) -> str:
        """The canonical notation of `text` on a board with these options."""
        return self.new(**(options or {})).parse_action(text)

    def __repr__(self) -> str:
        return f"<game {self.name}>"


def _int_or_self(value: str):
    try:
        return int(value)
    except ValueError:
        return value


class State:
    """One position. Subclasses implement the rules; this class holds the common protocol."""

    game: Game
    options: dict[str, Any]
    actions: tuple[str, ...]

    # -- what subclasses provide -------------------------------------------------------------

    @classmethod
    def initial(cls, game: Game, options: dict[str, Any]) -> State:
        raise NotImplementedError

    @property
    def to_move(self) -> int | None:
        raise NotImplementedError

    @property
    def is_over(self) -> bool:
        raise NotImplementedError

    @property
    def winner(self) -> int | None:
        raise NotImplementedError

    def legal_actions(self) -> list[str]:
        raise NotImplementedError

    def parse_action(self, text: str) -> str:
        """Canonical notation of `text`, or IllegalAction saying why it is not an action."""
        raise NotImplementedError

    def check(self, action: str) -> None:
        """Raise IllegalAction with the reason if the (canonical) action may not be played now."""
        raise NotImplementedError

    def apply(self, action: str) -> None:
        """Play a checked, canonical action on this (fresh, unshared) copy."""
        raise NotImplementedError

    def prompt(self) -> str:
        """Whose turn it is and why, for a person."""
        raise NotImplementedError

    def result_text(self) -> str | None:
        """How the game ended, for a person; None while it goes on."""
        raise NotImplementedError

    def last_turn(self) -> list[str]:
        """The actions of the most recent turn, for highlighting."""
        return list(self.actions[-1:])

    def board_dict(self) -> dict[str, Any]:
        raise NotImplementedError

    # Keys of board_dict() that never change during a game (geometry, labels). A live client
    # receives them once, in its snapshot, and keeps them; each action message leaves them out.
    static_board_keys: tuple[str, ...] = ("viewbox", "labels")

    # -- the shared protocol -------------------------------------------------------------------

    def play(self, action: str, side: int | None = None) -> State:
        """The state after `action`. With `side`, also check that it is that side's turn."""
        if not isinstance(action, str):
            raise IllegalAction(f"an action is text in {self.game.title} notation, not {action!r}")
        if self.is_over:
            raise IllegalAction("the game is over")
        if side is not None and side != self.to_move:
            raise IllegalAction(f"it is {self.side_name(self.to_move)}'s turn")
        canonical = self.parse_action(action)
        self.check(canonical)
        child = self.copy()
        child.apply(canonical)
        child.actions = self.actions + (canonical,)
        return child

    def copy(self) -> State:
        """A copy whose mutable bookkeeping is not shared; subclasses copy what they mutate."""
        return copy.copy(self)

    def returns(self) -> tuple[float, float]:
        """OpenSpiel-style payoff per side: 1 for a win, -1 for a loss, 0 for a draw or running."""
        if not self.is_over or self.winner is None:
            return (0.0, 0.0)
        return (1.0, -1.0) if self.winner == 0 else (-1.0, 1.0)

    @property
    def ply(self) -> int:
        return len(self.actions)

    def side_name(self, side: int) -> str:
        return self.game.sides[side]

    def to_dict(self, static: bool = True) -> dict[str, Any]:
        """Everything the browser needs to draw and play this position; with static=False,
        without the board's unchanging geometry (see static_board_keys)."""
        over = self.is_over
        board = self.board_dict()
        if not static:
            board = {k: v for k, v in board.items() if k not in self.static_board_keys}
        return {
            "game": self.game.name,
            "options": dict(self.options),
            "sides": list(self.game.sides),
            "ply": self.ply,
            "actions": list(self.actions),
            "to_move": None if over else self.to_move,
            "is_over": over,
            "winner": self.winner if over else None,
            "prompt": self.prompt(),
            "result": self.result_text(),
            "legal": self.legal_actions(),
            "last": self.last_turn(),
            "board": board,
        }

    def __repr__(self) -> str:
        return f"<{self.game.name} {self.options} after {self.ply} actions>"
