"""Copolymer, by Mark Steere (2006).

Players take turns claiming cells of a hexhex board, X first.  A claim that touches two or
more enemy cells obliges the same player to claim again; the turn ends with a claim that
touches at most one.  When every cell is claimed (even in mid-turn) the player with more
cells wins; the cell count is odd, so there are no draws.
"""

from __future__ import annotations

from functools import lru_cache
from operator import itemgetter

from . import hexgrid
from .base import CellSet, Game, IllegalAction, State, shuffled

NUMBER_WORDS = ["no", "one", "two", "three", "four", "five", "six"]


class CopolymerState(State):
    def __init__(self, game, options):
        super().__init__(game, options)
        self.board = hexgrid.board("hexhex", options["size"])
        self.owner = [None] * len(self.board)
        self.empty = CellSet(len(self.board))
        self.counts = [0, 0]
        self.mover = 0
        self.forced_by = None   # (cell, enemy neighbours) of the claim that obliges another
        self.turn_start = 0     # ply at which the latest turn began

    @classmethod
    def setup(cls, game, options, claims: dict[str, int], to_move: int):
        """A position set up by hand (the rule sheet's figures, puzzles): `claims` maps cells
        to sides. It has no history, so its actions start empty.  The options are not
        checked, because the rule sheet's worked example is on a side-3 board, smaller than
        any offered for play."""
        state = cls(game, {**game.defaults, **options})
        for name, side in claims.items():
            state._claim(state.board.cell(name), side)
        state.mover = to_move
        return state

    def copy(self):
        child = super().copy()
        child.owner = self.owner[:]
        child.empty = self.empty.copy()
        child.counts = self.counts[:]
        return child

    # -- rules ---------------------------------------------------------------------------------

    @property
    def is_over(self):
        """The game ends as soon as every cell is claimed, even in mid-turn."""
        return not self.empty.cells

    @property
    def winner(self):
        """The side with more cells; the count is odd, so there is one."""
        if self.empty.cells:
            return None
        return 0 if self.counts[0] > self.counts[1] else 1

    def legal_actions(self):
        names = self.board.names
        return [names[i] for i in self.empty.cells]

    def parse_action(self, text):
        return self.board.canonical(text)

    def check(self, action):
        if self.owner[self.board.by_name[action]] is not None:
            raise IllegalAction(f"{action} is not empty")

    def enemy_neighbours(self, cell: int, side: int) -> int:
        """How many of the cell's neighbours the other side has claimed."""
        owner = self.owner
        return [owner[n] for n in self.board.neighbours[cell]].count(1 - side)

    def apply(self, action):
        cell, side = self.board.by_name[action], self.mover
        if self.forced_by is None:
            self.turn_start = len(self.actions)
        self._claim(cell, side)
        enemies = self.enemy_neighbours(cell, side)
        # Two or more enemy neighbours oblige another claim in the same turn.
        if enemies >= 2:
            self.forced_by = (cell, enemies)
        else:
            self.forced_by = None
            self.mover = 1 - side

    def _claim(self, cell, side):
        self.owner[cell] = side
        self.counts[side] += 1
        self.empty.discard(cell)

    def playout(self, rng):
        """A random game to the end (see State.playout).  Every empty cell may be claimed at
        every step, so uniformly random claims are the empty cells in a random order; only
        who claims each one depends on the enemy neighbours met on the way, as in apply."""
        board = self.board
        enemies_of = _neighbour_getters(board.shape, board.n)
        claims = _claims(board.shape, board.n)
        owner = self.owner[:]
        side = self.mover
        enemy, mine = 1 - side, claims[side]
        moves = []
        append = moves.append
        for cell in shuffled(self.empty.cells, len(owner), rng):
            owner[cell] = side
            append(mine[cell])
            if enemies_of[cell](owner).count(enemy) < 2:
                side, enemy = enemy, side
                mine = claims[side]
        # The board is full: the cells are counted once, at the end.  The count is odd, so
        # there is a winner; Copolymer has no swap.
        return (0 if owner.count(0) > owner.count(1) else 1), moves

    # -- presentation --------------------------------------------------------------------------

    def last_turn(self):
        return list(self.actions[self.turn_start:])

    def turn_prompt(self):
        side = self.side_name(self.mover)
        if self.forced_by is None:
            return f"{side} to claim a cell"
        cell, enemies = self.forced_by
        return (f"{side} claims again: {self.board.names[cell]} touched "
                f"{NUMBER_WORDS[enemies]} enemy cells")

    def outcome(self):
        w = self.winner
        return f"{self.side_name(w)} wins with {self.counts[w]} cells to {self.counts[1 - w]}"

    def tallies(self):
        return [_cells(n) for n in self.counts]

    def ending(self):
        """The cell counts, and the winner's cells to mark."""
        w, (first, second) = self.winner, self.game.sides
        names = self.board.names
        return {"kind": "counts", "counts": list(self.counts),
                "cells": [names[i] for i, owner in enumerate(self.owner) if owner == w],
                "caption": f"{first} {_cells(self.counts[0])} · {second} {_cells(self.counts[1])}"}

    def board_dict(self):
        b = self.board
        return {
            "kind": "hex",
            "viewbox": b.viewbox,
            "cells": b.cells_dict(lambda i: {"owner": self.owner[i]}),
            "labels": b.labels,
            "counts": list(self.counts),
        }

    def text(self):
        """The board, pbmserv style: x and o for claimed cells, . for empty ones."""
        marks = {None: ".", 0: "x", 1: "o"}
        return self.board.text(lambda i: marks[self.owner[i]]) + "\n" + self.tally_line(self.counts)


@lru_cache(maxsize=None)
def _neighbour_getters(shape: str, n: int) -> list[itemgetter]:
    """Per cell, a function from the owner list to the owners of its neighbours (a tuple: on
    a hexhex board every cell has at least three), read in C rather than in a Python loop."""
    board = hexgrid.board(shape, n)
    assert min(map(len, board.neighbours)) >= 2
    return [itemgetter(*around) for around in board.neighbours]


@lru_cache(maxsize=None)
def _claims(shape: str, n: int) -> tuple[tuple[tuple[int, str], ...], ...]:
    """Per side, per cell, the playout's (side, action) for that side claiming that cell,
    made once per board instead of once per claim of every playout."""
    names = hexgrid.board(shape, n).names
    return tuple(tuple((side, name) for name in names) for side in (0, 1))


def _cells(n: int) -> str:
    return f"{n} cell{'' if n == 1 else 's'}"


class Copolymer(Game):
    name = "copolymer"
    title = "Copolymer"
    designer = "Mark Steere"
    year = 2006
    sides = ("X", "O")
    defaults = {"size": 5}
    state_class = CopolymerState

    def option_choices(self):
        return {"size": list(range(4, 9))}

    def option_value_text(self, option, value):
        return f"hexhex side {value}"


GAME = Copolymer()
