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
from .base import CellSet, Game, IllegalAction, State, shuffled

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
    def __init__(self, game: Game, options: dict[str, Any]):
        super().__init__(game, options)
        self.board = hexgrid.board(options["board"], options["size"])
        self._texts, self._stones = _notation(options["board"], options["size"])
        cells = len(self.board)
        self.stones = [None] * cells          # colour letter per cell, None when empty
        self.empty = CellSet(cells)
        # Union-find over stones; only same-coloured neighbours are ever joined, so each root
        # stands for a group and size[root] is its number of stones.
        self.parent = list(range(cells))
        self.size = [1] * cells
        self.mover = 0
        self.owed = PALETTE[0]       # the colours the mover may still place this turn
        self.turn_start = 0          # ply at which the turn of the latest stone began
        self._tally = None           # (groups, scores), worked out when first asked for

    @classmethod
    def setup(cls, game: Game, options: dict[str, Any], stones: dict[str, str],
              to_move: int = 0, owed: str | None = None) -> ColorfulState:
        """A position set up by hand (rule examples, puzzles): `stones` maps cells to colour
        letters.  `owed` is the colour still to place when the position is mid-turn; by
        default a turn opens.  It has no history, so its actions start empty."""
        state = cls(game, game.normalize_options(**options))
        for name, colour in stones.items():
            if colour.upper() not in COLOUR_NAMES:
                raise ValueError(f"{colour!r} is not a stone colour: use R, P, B or G")
            state._put(state.board.cell(name), colour.upper())
        if owed and owed.upper() not in PALETTE[to_move]:
            raise ValueError(f"{state.side_name(to_move)} cannot owe a {owed!r} stone")
        state.mover = to_move
        if not state.empty.cells:
            state.owed = ()
        else:
            state.owed = (owed.upper(),) if owed else PALETTE[to_move]
        return state

    def copy(self) -> ColorfulState:
        child = super().copy()
        child.stones = self.stones[:]
        child.empty = self.empty.copy()
        child.parent = self.parent[:]
        child.size = self.size[:]
        child._tally = None
        return child

    # -- whose turn ----------------------------------------------------------------------------

    @property
    def is_over(self) -> bool:
        """The game ends when the board is full."""
        return not self.empty.cells

    def _turn_opens(self) -> bool:
        """True when the next stone is the first of a turn (both colours on offer)."""
        return len(self.owed) == 2

    def _single_stone_turn(self) -> bool:
        """Whether the turn that opens now is one stone: Player 1's first turn, and a turn
        that starts with one empty cell left."""
        return len(self.empty.cells) in (len(self.board), 1)

    # -- reading and checking actions ----------------------------------------------------------

    def parse_action(self, text: str) -> str:
        if text in self._stones:          # already canonical: the common case, kept cheap
            return text
        colour, at, cell = text.strip().partition("@")
        colour = colour.strip().upper()
        if not at or colour not in COLOUR_NAMES:
            raise IllegalAction(f"{text!r} is not a stone: write colour@cell, e.g. P@C4")
        return self._texts[colour][self.board.cell(cell)]

    def check(self, action: str) -> None:
        colour, i = self._stones[action]
        mover = self.mover
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
        return [text[i] for text in texts for i in self.empty.cells]

    # -- placing a stone -----------------------------------------------------------------------

    def apply(self, action: str) -> None:
        colour, i = self._stones[action]
        self._tally = None           # stale once a stone goes down (apply_action works in place)
        opens = self._turn_opens()
        first_of_two = opens and not self._single_stone_turn()
        if opens:
            self.turn_start = len(self.actions)
        self._put(i, colour)
        if first_of_two:
            self.owed = (PARTNER[colour],)
        else:
            self.mover = 1 - self.mover
            self.owed = PALETTE[self.mover] if self.empty.cells else ()

    def _put(self, i: int, colour: str) -> None:
        self.stones[i] = colour
        self.empty.discard(i)
        for j in self.board.neighbours[i]:
            if self.stones[j] == colour:
                self._union(i, j)

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

    def _groups_and_scores(self) -> tuple[list[dict], list[list[int]]]:
        if self._tally is None:
            groups = [self._group(cells) for cells in self._members().values()]
            scores = [sorted((g["score"] for g in groups if g["score"] is not None
                              and OWNER[g["colour"]] == side), reverse=True) for side in (0, 1)]
            self._tally = groups, scores
        return self._tally

    def _members(self) -> dict[int, list[int]]:
        """The cells of each group by its root, groups in the order of their first cell."""
        members: dict[int, list[int]] = {}
        for i, colour in enumerate(self.stones):
            if colour is not None:
                members.setdefault(self._find(i), []).append(i)
        return members

    def _group(self, cells: list[int]) -> dict[str, Any]:
        """One group as to_dict() shows it; only red and green groups have a score."""
        board, colour = self.board, self.stones[cells[0]]
        sides = len(frozenset().union(*(board.sides[i] for i in cells)))
        touching = self._touching(cells, TARGET[colour]) if colour in TARGET else None
        return {"colour": colour, "cells": [board.names[i] for i in cells],
                "score": None if touching is None else touching + sides,
                "sides": sides, "touching": touching}

    def _touching(self, cells: list[int], target: str) -> int:
        """Stones in the distinct `target` groups next to these cells; each group counts once."""
        seen = {}
        for i in cells:
            for j in self.board.neighbours[i]:
                if self.stones[j] == target:
                    root = self._find(j)
                    seen[root] = self.size[root]
        return sum(seen.values())

    @property
    def winner(self) -> int | None:
        """The better of the two sorted score lists (see compare); None for a draw."""
        if not self.is_over:
            return None
        return compare(*self._groups_and_scores()[1])[0]

    # -- the bots' playout ---------------------------------------------------------------------

    def playout(self, rng):
        """A random game to the end (see State.playout), as a random fill: the colours of
        the stones still to come follow from the turns alone (one stone when a turn starts
        on an empty board or with one empty cell, else one of each of the mover's colours),
        and uniformly random stones put them on the empty cells in a random order.  Only the
        full board counts, so it is scored once (_full_board_scores)."""
        colours = self._colours_to_come(rng)
        texts, stones = self._texts, self.stones[:]
        moves = []
        append = moves.append
        for cell, colour in zip(shuffled(self.empty.cells, len(stones), rng), colours):
            stones[cell] = colour
            append((OWNER[colour], texts[colour][cell]))
        # Colorful has no swap: seats are sides.
        return compare(*_full_board_scores(self.board, stones))[0], moves

    def _colours_to_come(self, rng) -> list[str]:
        """The colour of every stone still to be placed, in the order of play."""
        left, board_cells = len(self.empty.cells), len(self.board)
        mover, owed, random = self.mover, self.owed, rng.random
        colours = []
        if len(owed) == 1:                 # mid-turn: the second stone first
            colours.append(owed[0])
            left -= 1
            mover = 1 - mover
        while left:
            first, second = PALETTE[mover]
            if random() < 0.5:
                first, second = second, first
            if left in (board_cells, 1):   # a one-stone turn, either colour
                colours.append(first)
                left -= 1
            else:
                colours += (first, second)
                left -= 2
            mover = 1 - mover
        return colours

    # -- text for people -----------------------------------------------------------------------

    def turn_prompt(self) -> str:
        who = self.side_name(self.mover)
        names = [COLOUR_NAMES[c] for c in self.owed]
        if not self._turn_opens():
            return f"{who} to place a {names[0]} stone (second stone of the turn)"
        if len(self.empty.cells) == len(self.board):
            return f"{who} to place one stone: {names[0]} or {names[1]}"
        if len(self.empty.cells) == 1:
            return f"{who} to place the last stone: {names[0]} or {names[1]}"
        return f"{who} to place two stones: {names[0]} and {names[1]}"

    def outcome(self) -> str:
        scores = self._groups_and_scores()[1]
        side, k = compare(*scores)
        if side is None:
            return "Draw: equal scores all the way down"
        length = max(map(len, scores))
        mine, other = (_padded(scores[s], length) for s in (side, 1 - side))
        who = self.side_name(side)
        if k == 0:
            return f"{who} wins: best groups {mine[0]} against {other[0]}"
        tied = ", ".join(map(str, mine[:k]))
        return f"{who} wins: best groups tie ({tied}), then {mine[k]} against {other[k]}"

    def last_turn(self) -> list[str]:
        return list(self.actions[self.turn_start:])

    def tallies(self) -> list[str]:
        scores = self._groups_and_scores()[1]
        return [f"scores {' · '.join(map(str, s))}" if s else "" for s in scores]

    def ending(self) -> dict[str, Any]:
        """The groups that decided: each side's group at the first place where the sorted
        score lists differ (none for a draw)."""
        groups, scores = self._groups_and_scores()
        side, k = compare(*scores)
        deciding = []
        if side is not None:
            for s in (side, 1 - side):
                ranked = sorted((g for g in groups if g["score"] is not None
                                 and OWNER[g["colour"]] == s),
                                key=lambda g: (-g["score"], -len(g["cells"])))
                if k < len(ranked):
                    deciding.append({"side": s, "score": ranked[k]["score"],
                                     "cells": list(ranked[k]["cells"])})
        return {"kind": "groups", "groups": deciding,
                "cells": [cell for group in deciding for cell in group["cells"]],
                "caption": self.outcome()}

    def board_dict(self) -> dict[str, Any]:
        groups, scores = self._groups_and_scores()
        stones = self.stones
        return {
            "kind": "hex",
            "viewbox": self.board.viewbox,
            "cells": self.board.cells_dict(lambda i: {"colour": stones[i]}),
            "labels": self.board.labels,
            # Copies: the tally is cached on this state, and callers may change what they get.
            "groups": [{**g, "cells": list(g["cells"])} for g in groups],
            "scores": [list(s) for s in scores],
            "owed": list(self.owed),
        }

    def text(self) -> str:
        """The board for the command line, pbmserv style, with the score lists under it."""
        diagram = self.board.text(lambda i: self.stones[i] or ".")
        ours, theirs = self._groups_and_scores()[1]
        lines = [diagram, "",
                 f"{self.side_name(0)} (red groups): {_listing(ours)}",
                 f"{self.side_name(1)} (green groups): {_listing(theirs)}",
                 self.prompt()]
        return "\n".join(lines)


def _full_board_scores(board, stones: list[str]) -> list[list[int]]:
    """Each side's sorted group scores on a full board (the bots' playouts): the rule of
    _groups_and_scores, on flood fills over plain lists instead of the union-find and the
    dicts made for display.  Tested to agree with the real rules on random boards.

    Two passes, so that each neighbour of each cell is looked at once: the target colours'
    groups (blue, pink) are labelled first with their sizes; then each scoring group (red,
    green) is filled, gathering as it goes the sides it reaches and the labels of the target
    groups it touches.  (One fill of every group and a second look around each scoring
    stone cost half as much again: this is most of a Colorful playout.)"""
    neighbours, side_bits = board.neighbours, _side_bits(board.shape, board.n)
    group = [-1] * len(stones)
    sizes = []
    for start, colour in enumerate(stones):
        if group[start] >= 0 or colour in TARGET:
            continue
        g = len(sizes)
        group[start] = g
        cells = [start]
        for i in cells:                    # grows as it goes: a breadth-first fill
            for j in neighbours[i]:
                if group[j] < 0 and stones[j] == colour:
                    group[j] = g
                    cells.append(j)
        sizes.append(len(cells))
    scores = ([], [])
    for start, colour in enumerate(stones):
        if group[start] >= 0:              # a target group, or a scoring one already filled
            continue
        target = TARGET[colour]
        group[start] = 0                   # any label: only "filled" matters from here on
        cells = [start]
        bits, touched = 0, set()
        for i in cells:
            bits |= side_bits[i]
            for j in neighbours[i]:
                there = stones[j]
                if there == colour:
                    if group[j] < 0:
                        group[j] = 0
                        cells.append(j)
                elif there == target:
                    touched.add(group[j])
        scores[OWNER[colour]].append(bits.bit_count() + sum(sizes[g] for g in touched))
    return [sorted(s, reverse=True) for s in scores]


@lru_cache(maxsize=None)
def _side_bits(shape: str, n: int) -> list[int]:
    """The board sides each cell lies on, as bits of an int."""
    return [sum(1 << k for k in sides) for sides in hexgrid.board(shape, n).sides]


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

    def option_value_text(self, option: str, value) -> str:
        if option == "board":
            return {"hexhex": "hexhex", "long": "long board"}.get(value, str(value))
        return f"side {value}"

    def check_options(self, options: dict[str, Any]) -> None:
        # The long board is only meant in the sizes the rules name; hexhex takes all of 3..7.
        if options["board"] == "long" and options["size"] not in (4, 5, 6):
            raise ValueError(f"a long board has size 4, 5 or 6, not {options['size']}")


GAME = Colorful()
