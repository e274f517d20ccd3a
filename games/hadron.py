"""Hadron, by Mark Steere (2022).

Red and Blue take turns placing one tile of their colour on an n x n board, Red first.
A tile may go on an empty cell whose orthogonal neighbours hold as many red tiles as blue
ones (0/0, 1/1 or 2/2).  The player to move with no such cell loses, so the last player to
place wins; there are no draws.
"""

from __future__ import annotations

from . import squaregrid
from .base import Game, IllegalAction, State


class HadronState(State):
    @classmethod
    def initial(cls, game, options):
        state = cls()
        state.game, state.options, state.actions = game, options, ()
        state.board = squaregrid.board(options["size"])
        cells = len(state.board)
        state.owner = [None] * cells
        # near[side][cell]: how many of the cell's neighbours hold a tile of that side, kept
        # up to date on each placement so legality is an O(1) comparison.
        state.near = ([0] * cells, [0] * cells)
        # Legal cells as a list with each cell's position in it (-1: not legal), so a cell
        # enters or leaves the legal set in O(1).  Legality does not depend on who moves.
        state.legal = list(range(cells))
        state.slot = list(range(cells))
        state.tiles = [0, 0]
        state.mover = 0
        return state

    @classmethod
    def setup(cls, game, options, tiles: dict[str, int], to_move: int):
        """A position set up by hand (the rule sheet's figures, puzzles): `tiles` maps cells
        to sides. It has no history, so its actions start empty."""
        state = cls.initial(game, {**game.defaults, **options})
        for name, side in tiles.items():
            state._place(state.board.cell(name), side)
        state.mover = to_move
        return state

    def copy(self):
        child = super().copy()
        child.owner = self.owner[:]
        child.near = (self.near[0][:], self.near[1][:])
        child.legal = self.legal[:]
        child.slot = self.slot[:]
        child.tiles = self.tiles[:]
        return child

    # -- rules ---------------------------------------------------------------------------------

    @property
    def to_move(self):
        return None if self.is_over else self.mover

    @property
    def is_over(self):
        return not self.legal

    @property
    def winner(self):
        # The side to move with nothing to place loses.
        return 1 - self.mover if not self.legal else None

    def legal_actions(self):
        names = self.board.names
        return [names[i] for i in self.legal]

    def parse_action(self, text):
        return self.board.names[self.board.cell(text)]

    def check(self, action):
        cell = self.board.by_name[action]
        if self.owner[cell] is not None:
            raise IllegalAction(f"{action} is not empty")
        red, blue = self.near[0][cell], self.near[1][cell]
        if red != blue:
            raise IllegalAction(f"{action} has {_neighbour_counts(red, blue)}")

    def apply(self, action):
        self._place(self.board.by_name[action], self.mover)
        self.mover = 1 - self.mover

    def _place(self, cell, side):
        self.owner[cell] = side
        self.tiles[side] += 1
        self._drop(cell)
        owner, slot = self.owner, self.slot
        red, blue = self.near
        counts = self.near[side]
        for n in self.board.neighbours[cell]:
            counts[n] += 1
            if owner[n] is not None:
                continue
            if red[n] == blue[n]:
                if slot[n] < 0:
                    slot[n] = len(self.legal)
                    self.legal.append(n)
            elif slot[n] >= 0:
                self._drop(n)

    def _drop(self, cell):
        """Take `cell` out of the legal set (if it is there) by moving the last one into its slot."""
        pos = self.slot[cell]
        if pos < 0:
            return
        last = self.legal.pop()
        if last != cell:
            self.legal[pos] = last
            self.slot[last] = pos
        self.slot[cell] = -1

    # -- presentation --------------------------------------------------------------------------

    def prompt(self):
        if self.is_over:
            return self.result_text()
        return f"{self.side_name(self.mover)} to place a tile"

    def result_text(self):
        if not self.is_over:
            return None
        return f"{self.side_name(self.winner)} wins: {self.side_name(self.mover)} has no placement"

    def board_dict(self):
        b = self.board
        return {
            "kind": "square",
            "viewbox": b.viewbox,
            "size": b.n,
            "cells": b.cells_dict(lambda i: {"owner": self.owner[i]}),
            "labels": b.labels,
            "counts": list(self.tiles),
        }

    def text(self):
        """The board, R and B for tiles, + where the next tile may go, . elsewhere."""
        legal = set(self.legal)

        def mark(i):
            side = self.owner[i]
            if side is not None:
                return "RB"[side]
            return "+" if i in legal else "."

        footer = f"Red {self.tiles[0]}  Blue {self.tiles[1]}  -  {self.prompt()}"
        return self.board.text(mark) + "\n" + footer


def _neighbour_counts(red: int, blue: int) -> str:
    """'2 red and 1 blue neighbours', '1 red neighbour and no blue neighbours', ..."""
    if red and blue:
        return f"{red} red and {blue} blue neighbours"
    some, colour, other = (red, "red", "blue") if red else (blue, "blue", "red")
    noun = "neighbour" if some == 1 else "neighbours"
    return f"{some} {colour} {noun} and no {other} neighbours"


class Hadron(Game):
    name = "hadron"
    title = "Hadron"
    designer = "Mark Steere"
    year = 2022
    sides = ("Red", "Blue")
    defaults = {"size": 5}
    state_class = HadronState

    def option_choices(self):
        return {"size": [5, 7, 9, 11]}


GAME = Hadron()
