"""Copolymer, by Mark Steere (2006).

Players take turns claiming cells of a hexhex board, X first.  A claim that touches two or
more enemy cells obliges the same player to claim again; the turn ends with a claim that
touches at most one.  When every cell is claimed (even in mid-turn) the player with more
cells wins; the cell count is odd, so there are no draws.
"""

from __future__ import annotations

from . import hexgrid
from .base import Game, IllegalAction, State

NUMBER_WORDS = ["no", "one", "two", "three", "four", "five", "six"]


class CopolymerState(State):
    @classmethod
    def initial(cls, game, options):
        state = cls()
        state.game, state.options, state.actions = game, options, ()
        state.board = hexgrid.board("hexhex", options["size"])
        cells = len(state.board)
        state.owner = [None] * cells
        # Empty cells as a list with each cell's position in it, so a claim removes in O(1).
        state.empty = list(range(cells))
        state.slot = list(range(cells))
        state.counts = [0, 0]
        state.mover = 0
        state.forced_by = None   # (cell, enemy neighbours) of the claim that obliges another
        state.turn_start = 0     # ply at which the latest turn began
        return state

    @classmethod
    def setup(cls, game, options, claims: dict[str, int], to_move: int):
        """A position set up by hand (the rule sheet's figures, puzzles): `claims` maps cells
        to sides. It has no history, so its actions start empty."""
        state = cls.initial(game, options)
        for name, side in claims.items():
            cell = state.board.cell(name)
            state.owner[cell] = side
            state.counts[side] += 1
            state._remove_empty(cell)
        state.mover = to_move
        return state

    def copy(self):
        child = super().copy()
        child.owner = self.owner[:]
        child.empty = self.empty[:]
        child.slot = self.slot[:]
        child.counts = self.counts[:]
        return child

    # -- rules ---------------------------------------------------------------------------------

    @property
    def to_move(self):
        return None if self.is_over else self.mover

    @property
    def is_over(self):
        return not self.empty

    @property
    def winner(self):
        if self.empty:
            return None
        return 0 if self.counts[0] > self.counts[1] else 1

    def legal_actions(self):
        names = self.board.names
        return [names[i] for i in self.empty]

    def parse_action(self, text):
        return self.board.names[self.board.cell(text)]

    def check(self, action):
        if self.owner[self.board.by_name[action]] is not None:
            raise IllegalAction(f"{action} is not empty")

    def enemy_neighbours(self, cell: int, side: int) -> int:
        enemy = 1 - side
        return sum(1 for n in self.board.neighbours[cell] if self.owner[n] == enemy)

    def apply(self, action):
        cell, side = self.board.by_name[action], self.mover
        if self.forced_by is None:
            self.turn_start = len(self.actions)
        self.owner[cell] = side
        self.counts[side] += 1
        self._remove_empty(cell)
        enemies = self.enemy_neighbours(cell, side)
        # Two or more enemy neighbours oblige another claim in the same turn.
        if enemies >= 2:
            self.forced_by = (cell, enemies)
        else:
            self.forced_by = None
            self.mover = 1 - side

    def _remove_empty(self, cell):
        pos, last = self.slot[cell], self.empty[-1]
        self.empty[pos], self.slot[last] = last, pos
        self.empty.pop()

    # -- presentation --------------------------------------------------------------------------

    def last_turn(self):
        return list(self.actions[self.turn_start:])

    def prompt(self):
        if self.is_over:
            return self.result_text()
        side = self.side_name(self.mover)
        if self.forced_by is None:
            return f"{side} to claim a cell"
        cell, enemies = self.forced_by
        return (f"{side} claims again: {self.board.names[cell]} touched "
                f"{NUMBER_WORDS[enemies]} enemy cells")

    def result_text(self):
        if not self.is_over:
            return None
        w = self.winner
        return (f"{self.side_name(w)} wins with {self.counts[w]} cells "
                f"to {self.counts[1 - w]}")

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
        marks = {None: ".", 0: "x", 1: "o"}
        footer = f"X {self.counts[0]}  O {self.counts[1]}  -  {self.prompt()}"
        return self.board.text(lambda i: marks[self.owner[i]]) + "\n" + footer


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


GAME = Copolymer()
