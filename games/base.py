"""What every game shares: the game object (static facts, options), the state protocol, and
the two structures several games build their positions from (a board of named cells, a set
of cells).

A state is immutable from the outside: `play` returns a new state and leaves the old one as
it was, so the site, bots and tests can keep any position they like.  Inside, each game keeps
incremental bookkeeping (cell sets, neighbour counters, union-find) that `play` copies and
updates, so the cost of an action does not grow with the board.
"""

from __future__ import annotations

from array import array
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
    # What each option is called on a form, for a person.
    option_names: dict[str, str] = {"size": "Board size", "board": "Board"}

    def option_choices(self) -> dict[str, list]:
        """Each option and the values it may take."""
        raise NotImplementedError

    # -- how options read, for every page and export (one wording, declared here) ------------

    def option_value_text(self, option: str, value) -> str:
        """One option's value as players say it: '7×7', 'side 5', 'long board'."""
        return str(value)

    def option_label(self, options: dict[str, Any]) -> str:
        """The board a game is played on, in the one wording every page uses: '7×7',
        'hexhex side 5', 'long board side 4'. Options left out take their defaults."""
        full = {**self.defaults, **options}
        return " ".join(self.option_value_text(option, full[option])
                        for option in self.option_choices())

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
            full[key] = self._option_value(key, full[key], allowed)
        self.check_options(full)
        return full

    def _option_value(self, key: str, value, allowed: list):
        # Options arrive as text from forms, records and the command line.
        if isinstance(value, str) and all(isinstance(a, int) for a in allowed):
            value = _int_or_self(value)
        # True == 1 and 5.0 == 5, but neither is a board size.
        if type(value) not in {type(a) for a in allowed} or value not in allowed:
            raise ValueError(
                f"{self.title} {key} must be one of {', '.join(map(str, allowed))}, not {value!r}"
            )
        return value

    def check_options(self, options: dict[str, Any]) -> None:
        """Checks that depend on several options at once (the default has none)."""

    def new(self, **options) -> State:
        """The start of a game with these options (defaults for those left out)."""
        return self.state_class(self, self.normalize_options(**options))

    def replay(self, options: dict[str, Any], actions) -> State:
        """The state reached by playing `actions` from the start; IllegalAction at a bad one."""
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
    """One position. Subclasses implement the rules; this class holds the common protocol.

    A subclass's __init__ lays out the empty board; `check` and `apply` are the rules of one
    action, `is_over`, `winner` and `mover` read the position.
    """

    game: Game
    options: dict[str, Any]
    actions: tuple[str, ...]
    mover: int          # the side whose turn it is, or was when the game ended
    swapped = False     # whether Tripen's pie rule was used; no other game has one

    def __init__(self, game: Game, options: dict[str, Any]):
        self.game, self.options, self.actions = game, options, ()

    # -- what subclasses provide -------------------------------------------------------------

    @property
    def is_over(self) -> bool:
        """Whether the game has ended."""
        raise NotImplementedError

    @property
    def winner(self) -> int | None:
        """0 or 1 once the game is over; None for a draw or a game in progress."""
        raise NotImplementedError

    def legal_actions(self) -> list[str]:
        """Every action the mover may play, in notation; none once the game is over."""
        raise NotImplementedError

    def parse_action(self, text: str) -> str:
        """Canonical notation of `text`, or IllegalAction saying why it is not an action."""
        raise NotImplementedError

    def format_action(self, action: str) -> str:
        """The notation of an action as records and the site write it. Actions are held as
        their canonical text, so formatting one is parsing it (upper or lower case as the
        game's notation has it)."""
        return self.parse_action(action)

    def check(self, action: str) -> None:
        """Raise IllegalAction with the reason if the (canonical) action may not be played in
        this position, which is not over."""
        raise NotImplementedError

    def apply(self, action: str) -> None:
        """Play a checked, canonical action on this (fresh, unshared) copy."""
        raise NotImplementedError

    def turn_prompt(self) -> str:
        """Whose turn it is and what they are to do, for a person (the game goes on)."""
        raise NotImplementedError

    def outcome(self) -> str:
        """How the game ended, for a person (it is over)."""
        raise NotImplementedError

    def last_turn(self) -> list[str]:
        """The actions of the most recent turn, for highlighting."""
        return list(self.actions[-1:])

    def tallies(self) -> list[str]:
        """What each side has on the board, in words, side 0 first: '23 cells', '1 tile',
        'scores 7 · 3'; empty strings for a game that counts nothing."""
        return ["", ""]

    def ending(self) -> dict[str, Any] | None:
        """Why the game ended, as something to draw on the final position (None while it goes
        on): `kind` (each game's own), `caption` (a line under the board) and what to mark,
        e.g. Tripen's winning `chain` of tokens or the `cells` Hadron's loser could not use."""
        return None

    def board_dict(self) -> dict[str, Any]:
        """The board part of to_dict(): what the renderer draws.  Its static parts (geometry,
        labels) are the board's own objects, shared by every state so that to_dict() stays
        cheap: read them, never change them."""
        raise NotImplementedError

    def text(self) -> str:
        """The position as text, for the command line."""
        raise NotImplementedError

    # Keys of board_dict() that never change during a game (geometry, labels). A live client
    # receives them once, in its snapshot, and keeps them; each action message leaves them out.
    static_board_keys: tuple[str, ...] = ("viewbox", "labels")

    # -- the shared protocol -------------------------------------------------------------------

    @property
    def to_move(self) -> int | None:
        """The side to play next: 0 (the side that moves first) or 1; None once it is over."""
        return None if self.is_over else self.mover

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
        """A copy whose mutable bookkeeping is not shared; subclasses copy what they mutate.

        Built directly rather than with copy.copy, whose generic path (reduce protocol,
        copyreg) cost as much as all the rest of an action."""
        child = object.__new__(type(self))
        child.__dict__.update(self.__dict__)
        return child

    # -- the playout path (bots, benchmarks): OpenSpiel's clone / apply_action ----------------

    def clone(self) -> State:
        """A copy of this state that you own and may change in place with apply_action."""
        return self.copy()

    def apply_action(self, action: str) -> None:
        """Play `action` on this state in place. The action must be one of legal_actions() as
        listed (canonical text): nothing is parsed or checked and nothing is copied, so this is
        for search and playouts on a clone, never for actions from people (that is play()).
        The state reached is the one play(action) would return."""
        self.apply(action)
        self.actions += (action,)

    def playout(self, rng) -> tuple[int | None, list[tuple[int, str]]]:
        """A whole random game from this position, for the bots: each action uniformly random
        among the legal ones, to the end.  Returns the winning seat (None for a draw) and the
        actions played, in order, as (seat, action); the state itself is left as it was.

        This generic one walks clone / legal_actions / apply_action.  A game may override it
        with its own private structures (a random fill of the board where the order of play
        cannot change the result), as long as the distribution of results is the same and
        every action listed is one play() accepts in that order: the tests replay playouts
        through play().  A playout never decides what is legal for a person; play() does."""
        state = self.clone()
        moves = []
        random = rng.random
        while not state.is_over:
            legal = state.legal_actions()
            action = legal[int(random() * len(legal))]
            moves.append((state.person_to_move, action))
            state.apply_action(action)
        side = state.winner
        return (None if side is None else side ^ state.swapped), moves

    @property
    def person_to_move(self) -> int | None:
        """Who plays next by seat (0: the player who moved first), not by side: the same as
        to_move except after Tripen's swap, when the seats have exchanged sides."""
        side = self.to_move
        return None if side is None else side ^ self.swapped

    def returns(self) -> tuple[float, float]:
        """OpenSpiel-style payoff per side: 1 for a win, -1 for a loss, 0 for a draw or running."""
        if not self.is_over or self.winner is None:
            return (0.0, 0.0)
        return (1.0, -1.0) if self.winner == 0 else (-1.0, 1.0)

    def prompt(self) -> str:
        """Whose turn it is and why, for a person; once the game is over, how it ended."""
        return self.outcome() if self.is_over else self.turn_prompt()

    def result_text(self) -> str | None:
        """How the game ended, for a person; None while it goes on."""
        return self.outcome() if self.is_over else None

    @property
    def ply(self) -> int:
        """How many actions have been played."""
        return len(self.actions)

    def side_name(self, side: int) -> str:
        """'Red', 'X', 'Player 1', ... for side 0 or 1."""
        return self.game.sides[side]

    def tally_line(self, counts) -> str:
        """Each side's count of pieces and the prompt, under a text diagram:
        'X 31  O 30  -  X wins with 31 cells to 30'."""
        (first, second), (a, b) = self.game.sides, counts
        return f"{first} {a}  {second} {b}  -  {self.prompt()}"

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
            "tallies": self.tallies(),
            "ending": self.ending() if over else None,
            "board": board,
        }

    def __repr__(self) -> str:
        return f"<{self.game.name} {self.options} after {self.ply} actions>"


class Board:
    """The cells of one board, indexed 0..len-1, each with its name in the game's notation and
    its drawing position.  Boards are static: each shape and size is built once and shared
    by every state.  A subclass names its cells with `_name_cells` and sets `xy`,
    `neighbours`, `labels` and `viewbox`."""

    names: list[str]
    by_name: dict[str, int]          # canonical name -> index
    xy: list[tuple[float, float]]

    def _name_cells(self, names: list[str]) -> None:
        self.names = names
        self.by_name = {name: i for i, name in enumerate(names)}
        # Players may type either case; each game writes its own (C4 on hex boards, c3 on square).
        self._by_folded_name = {name.casefold(): i for i, name in enumerate(names)}

    def __len__(self) -> int:
        return len(self.names)

    def cell(self, text: str) -> int:
        """Index of a cell named case-insensitively, or IllegalAction."""
        i = self._by_folded_name.get(text.strip().casefold())
        if i is None:
            raise IllegalAction(f"{text!r} is not a cell of this board")
        return i

    def canonical(self, text: str) -> str:
        """The name of the cell `text` names, as the game writes it, or IllegalAction."""
        if text in self.by_name:   # already canonical: the common case, kept cheap
            return text
        return self.names[self.cell(text)]

    def cells_dict(self, contents) -> list[dict]:
        """Cells with their drawing position; `contents(i)` gives the game's fields per cell."""
        return [
            {"name": name, "x": x, "y": y, **contents(i)}
            for i, (name, (x, y)) in enumerate(zip(self.names, self.xy))
        ]


_new_object = object.__new__


class CellSet:
    """A set of cells kept as a list in no particular order plus each cell's slot in that list
    (-1 when absent): adding, removing and testing a cell cost O(1) whatever the board's size,
    and copying or listing the set is one list copy.  Hot loops may read `cells` directly."""

    __slots__ = ("cells", "slot")

    def __init__(self, size: int):
        """Every cell of a board of `size` cells."""
        self.cells = list(range(size))
        self.slot = list(range(size))

    def copy(self) -> CellSet:
        twin = _new_object(CellSet)   # skips __init__: copying is on every action's path
        twin.cells = self.cells[:]
        twin.slot = self.slot[:]
        return twin

    def __contains__(self, cell: int) -> bool:
        return self.slot[cell] >= 0

    def __iter__(self):
        return iter(self.cells)

    def __len__(self) -> int:
        return len(self.cells)

    def add(self, cell: int) -> None:
        """Put `cell` in, if it is not there yet, at the end of the list."""
        if self.slot[cell] < 0:
            self.slot[cell] = len(self.cells)
            self.cells.append(cell)

    def discard(self, cell: int) -> None:
        """Take `cell` out, if it is in, by moving the last cell into its slot."""
        pos = self.slot[cell]
        if pos < 0:
            return
        last = self.cells.pop()
        if last != cell:
            self.cells[pos] = last
            self.slot[last] = pos
        self.slot[cell] = -1


_KEYS = array("I")


def shuffled(items: list[int], size: int, rng) -> list[int]:
    """`items` (distinct integers below `size`) in a random order: sorted by one random
    32-bit key each, drawn in one call and compared in C, about three times cheaper than
    random.shuffle's Python loop.  Equal keys keep their order, which biases the order only
    when two of the keys collide (about 1 in 100,000 for 300 items); the same rng state gives
    the same order."""
    return sorted(items, key=random_keys(size, rng).__getitem__)


def random_keys(size: int, rng) -> array:
    """`shuffled`'s random 32-bit key for each of the integers below `size`, for a caller
    that sorts only some of them (Tripen's playout): one rng.randbytes call."""
    return array("I", rng.randbytes(_KEYS.itemsize * size))
