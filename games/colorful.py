"""Colorful Connection (working title): Nick Bentley's untitled game, rec.games.abstract 2009.

Player 1 owns red and pink stones, Player 2 blue and green.  Player 1 opens with one stone;
after that every turn is one stone of each of the mover's colours, in either order, except
that a turn which starts with a single empty cell is that one stone.  Red groups score the
blue stones they touch (each blue group once), green groups the pink stones; every scoring
group also earns a point per board side it reaches.  The sorted score lists are compared
position by position, the shorter padded with zeros.

One action is one stone, written colour@cell (`P@C4`).  A two-stone turn is two actions by
the same side, so `to_move` and `owed` say who places what next.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from . import hexgrid
from .base import Game, IllegalAction, State

COLOURS = "RPBG"
COLOUR_NAMES = {"R": "red", "P": "pink", "B": "blue", "G": "green"}
OWNER = {"R": 0, "P": 0, "B": 1, "G": 1}
PALETTE = (("R", "P"), ("B", "G"))          # each side's colours
PARTNER = {"R": "P", "P": "R", "B": "G", "G": "B"}
# A scoring colour counts the stones of the groups of its target colour that it touches.
TARGET = {"R": "B", "G": "P"}


@lru_cache(maxsize=None)
def _notation(shape: str, n: int):
    """Every stone's canonical text, per colour and cell, and the way back: built once per
    board so that listing and reading actions costs no string formatting."""
    board = hexgrid.board(shape, n)
    texts = {colour: tuple(f"{colour}@{name}" for name in board.names) for colour in COLOURS}
    stones = {texts[colour][i]: (colour, i) for colour in COLOURS for i in range(len(board))}
    return texts, stones


class ColorfulState(State):
    # stones[i]: colour letter or None.  empty: the empty cells in no particular order, with
    # slot[i] its position there, so a cell leaves the list in O(1) (swap with the last).
    # parent/size: union-find over stones; only same-coloured neighbours are ever joined.

    @classmethod
    def initial(cls, game: Game, options: dict[str, Any]) -> ColorfulState:
        state = cls()
        state.game, state.options, state.actions = game, options, ()
        state.board = hexgrid.board(options["board"], options["size"])
        state._texts, state._stones = _notation(options["board"], options["size"])
        cells = len(state.board)
        state.stones = [None] * cells
        state.empty = list(range(cells))
        state.slot = list(range(cells))
        state.parent = list(range(cells))
        state.size = [1] * cells
        state._mover = 0
        state.owed = PALETTE[0]
        state._turn_start = 0        # ply at which the turn of the latest stone began
        state._tally = None          # cached (groups, scores); positions never change
        return state

    @classmethod
    def setup(cls, game: Game, options: dict[str, Any], stones: dict[str, str],
              to_move: int = 0, owed: str | None = None) -> ColorfulState:
        """A position set up by hand (rule examples, puzzles): `stones` maps cells to colour
        letters.  `owed` is the colour still to place when the position is mid-turn; by
        default a turn opens.  It has no history, so its actions start empty."""
        state = cls.initial(game, game.normalize_options(**options))
        for name, colour in stones.items():
            if colour.upper() not in COLOUR_NAMES:
                raise ValueError(f"{colour!r} is not a stone colour: use R, P, B or G")
            state._put(state.board.cell(name), colour.upper())
        if owed and owed.upper() not in PALETTE[to_move]:
            raise ValueError(f"{state.side_name(to_move)} cannot owe a {owed!r} stone")
        state._mover = to_move
        if not state.empty:
            state.owed = ()
        else:
            state.owed = (owed.upper(),) if owed else PALETTE[to_move]
        return state

    def copy(self) -> ColorfulState:
        child = super().copy()
        child.stones = self.stones[:]
        child.empty = self.empty[:]
        child.slot = self.slot[:]
        child.parent = self.parent[:]
        child.size = self.size[:]
        child._tally = None
        return child

    # -- whose turn ----------------------------------------------------------------------------

    @property
    def to_move(self) -> int | None:
        return None if self.is_over else self._mover

    @property
    def is_over(self) -> bool:
        return not self.empty

    def _turn_opens(self) -> bool:
        """True when the next stone is the first of a turn (both colours on offer)."""
        return len(self.owed) == 2

    # -- reading and checking actions ----------------------------------------------------------

    def parse_action(self, text: str) -> str:
        known = self._stones.get(text)
        if known is not None:
            return text
        colour, at, cell = text.strip().partition("@")
        colour = colour.strip().upper()
        if not at or colour not in COLOUR_NAMES:
            raise IllegalAction(f"{text!r} is not a stone: write colour@cell, e.g. P@C4")
        i = self.board.cell(cell.strip())
        return self._texts[colour][i]

    def check(self, action: str) -> None:
        if self.is_over:
            raise IllegalAction("the game is over")
        colour, i = self._stones[action]
        mover = self._mover
        if OWNER[colour] != mover:
            mine = " or ".join(COLOUR_NAMES[c] for c in PALETTE[mover])
            raise IllegalAction(f"{action}: {self.side_name(mover)} places {mine} stones")
        if colour not in self.owed:
            raise IllegalAction(
                f"{action}: {COLOUR_NAMES[colour]} already placed this turn; "
                f"place {COLOUR_NAMES[self.owed[0]]}"
            )
        if self.stones[i] is not None:
            raise IllegalAction(f"{self.board.names[i]} is not empty")

    def legal_actions(self) -> list[str]:
        texts = [self._texts[colour] for colour in self.owed]
        return [text[i] for text in texts for i in self.empty]

    # -- placing a stone -----------------------------------------------------------------------

    def apply(self, action: str) -> None:
        colour, i = self._stones[action]
        if self._turn_opens():
            self._turn_start = len(self.actions)
        self._put(i, colour)
        self._next_owed(colour)

    def _put(self, i: int, colour: str) -> None:
        self.stones[i] = colour
        self._take(i)
        for j in self.board.neighbours[i]:
            if self.stones[j] == colour:
                self._union(i, j)

    def _take(self, i: int) -> None:
        last = self.empty.pop()
        if last != i:
            k = self.slot[i]
            self.empty[k] = last
            self.slot[last] = k
        self.slot[i] = -1

    def _next_owed(self, colour: str) -> None:
        """The first stone of a two-stone turn leaves the partner colour owed; otherwise the
        turn passes.  The opening stone is a whole turn, and so is a stone that fills the last
        empty cell (a turn that starts with one empty cell left)."""
        opening = len(self.empty) == len(self.board) - 1   # this was the board's first stone
        if self._turn_opens() and not opening and self.empty:
            self.owed = (PARTNER[colour],)
        else:
            self._mover = 1 - self._mover
            self.owed = PALETTE[self._mover] if self.empty else ()

    def _find(self, i: int) -> int:
        parent = self.parent
        root = i
        while parent[root] != root:
            root = parent[root]
        while parent[i] != root:        # path compression: later finds are near O(1)
            parent[i], i = root, parent[i]
        return root

    def _union(self, i: int, j: int) -> None:
        a, b = self._find(i), self._find(j)
        if a == b:
            return
        if self.size[a] < self.size[b]:
            a, b = b, a
        self.parent[b] = a
        self.size[a] += self.size[b]

    # -- groups and scores (on demand: O(cells), only for display and the result) -------------

    def _groups(self) -> tuple[list[dict], list[list[int]]]:
        if self._tally is None:
            self._tally = self._count()
        return self._tally

    def _count(self):
        board, stones = self.board, self.stones
        members: dict[int, list[int]] = {}    # root -> cells; insertion order = first cell
        for i, colour in enumerate(stones):
            if colour is not None:
                members.setdefault(self._find(i), []).append(i)
        groups = []
        for root, cells in members.items():
            colour = stones[root]
            sides = frozenset().union(*(board.sides[i] for i in cells))
            group = {"colour": colour, "cells": [board.names[i] for i in cells],
                     "score": None, "sides": len(sides), "touching": None}
            if colour in TARGET:
                group["touching"] = self._touching(cells, TARGET[colour])
                group["score"] = group["touching"] + group["sides"]
            groups.append(group)
        scores = [sorted((g["score"] for g in groups if g["score"] is not None
                          and OWNER[g["colour"]] == side), reverse=True) for side in (0, 1)]
        return groups, scores

    def _touching(self, cells: list[int], target: str) -> int:
        """Stones in the distinct `target` groups next to these cells; each group counts once."""
        seen = {}
        for i in cells:
            for j in self.board.neighbours[i]:
                if self.stones[j] == target:
                    root = self._find(j)
                    seen[root] = self.size[root]
        return sum(seen.values())

    def scores(self) -> list[list[int]]:
        """Each player's scoring-group scores, highest first."""
        return [list(s) for s in self._groups()[1]]

    @property
    def winner(self) -> int | None:
        if not self.is_over:
            return None
        return compare(*self._groups()[1])[0]

    # -- text for people -----------------------------------------------------------------------

    def prompt(self) -> str:
        if self.is_over:
            return self.result_text()
        who = self.side_name(self._mover)
        names = [COLOUR_NAMES[c] for c in self.owed]
        if not self._turn_opens():
            return f"{who} to place a {names[0]} stone (second stone of the turn)"
        if len(self.empty) == len(self.board):
            return f"{who} to place one stone: {names[0]} or {names[1]}"
        if len(self.empty) == 1:
            return f"{who} to place the last stone: {names[0]} or {names[1]}"
        return f"{who} to place two stones: {names[0]} and {names[1]}"

    def result_text(self) -> str | None:
        if not self.is_over:
            return None
        side, k = compare(*self._groups()[1])
        if side is None:
            return "Draw: equal scores all the way down"
        ours, theirs = self._groups()[1]
        length = max(len(ours), len(theirs))
        mine = _padded((ours, theirs)[side], length)
        other = _padded((ours, theirs)[1 - side], length)
        who = self.side_name(side)
        if k == 0:
            return f"{who} wins: best groups {mine[0]} against {other[0]}"
        tied = ", ".join(map(str, mine[:k]))
        return f"{who} wins: best groups tie ({tied}), then {mine[k]} against {other[k]}"

    def last_turn(self) -> list[str]:
        return list(self.actions[self._turn_start:])

    def board_dict(self) -> dict[str, Any]:
        groups, scores = self._groups()
        stones = self.stones
        return {
            "kind": "hex",
            "viewbox": list(self.board.viewbox),
            "cells": self.board.cells_dict(lambda i: {"colour": stones[i]}),
            "labels": [dict(label) for label in self.board.labels],
            "groups": [{**g, "cells": list(g["cells"])} for g in groups],
            "scores": [list(s) for s in scores],
            "owed": list(self.owed),
        }

    def text(self) -> str:
        """The board for the command line, pbmserv style, with the score lists under it."""
        diagram = self.board.text(lambda i: self.stones[i] or ".")
        ours, theirs = self._groups()[1]
        lines = [diagram, "",
                 f"{self.side_name(0)} (red groups): {_listing(ours)}",
                 f"{self.side_name(1)} (green groups): {_listing(theirs)}",
                 self.prompt()]
        return "\n".join(lines)


def compare(first: list[int], second: list[int]) -> tuple[int | None, int | None]:
    """The rule's comparison of two score lists sorted high to low: (winning side, index of
    the first difference), the shorter list padded with zeros; (None, None) when equal all
    the way down."""
    length = max(len(first), len(second))
    for k, (a, b) in enumerate(zip(_padded(first, length), _padded(second, length))):
        if a != b:
            return (0 if a > b else 1), k
    return None, None


def _padded(scores: list[int], length: int) -> list[int]:
    return list(scores) + [0] * (length - len(scores))


def _listing(scores: list[int]) -> str:
    return " ".join(map(str, scores)) if scores else "none yet"


class Colorful(Game):
    name = "colorful"
    title = "Colorful Connection"
    designer = "Nick Bentley"
    year = 2009
    sides = ("Player 1", "Player 2")
    defaults = {"board": "hexhex", "size": 5}
    state_class = ColorfulState

    def option_choices(self) -> dict[str, list]:
        return {"board": ["hexhex", "long"], "size": [3, 4, 5, 6, 7]}

    def check_options(self, options: dict[str, Any]) -> None:
        # The long board is only meant in the sizes the rules name; hexhex takes all of 3..7.
        if options["board"] == "long" and options["size"] not in (4, 5, 6):
            raise ValueError(f"a long board has size 4, 5 or 6, not {options['size']}")


GAME = Colorful()
