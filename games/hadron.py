"""Hadron, by Mark Steere (2022).

Red and Blue take turns placing one tile of their colour on an n x n board, Red first.
A tile may go on an empty cell whose orthogonal neighbours hold as many red tiles as blue
ones (0/0, 1/1 or 2/2).  The player to move with no such cell loses, so the last player to
place wins; there are no draws.
"""

from __future__ import annotations

from . import squaregrid
from .base import CellSet, Game, IllegalAction, State


# A taken cell's count in a playout: more than four neighbours away from 0.
TAKEN = 100


class HadronState(State):
    def __init__(self, game, options):
        super().__init__(game, options)
        self.board = squaregrid.board(options["size"])
        cells = len(self.board)
        self.owner = [None] * cells
        # near[side][cell]: how many of the cell's neighbours hold a tile of that side, kept
        # up to date on each placement so legality is an O(1) comparison.
        self.near = ([0] * cells, [0] * cells)
        # Legality does not depend on who moves, so one set serves both sides.
        self.legal = CellSet(cells)
        self.tiles = [0, 0]
        self.mover = 0

    @classmethod
    def setup(cls, game, options, tiles: dict[str, int], to_move: int):
        """A position set up by hand (the rule sheet's figures, puzzles): `tiles` maps cells
        to sides. It has no history, so its actions start empty."""
        state = cls(game, {**game.defaults, **options})
        for name, side in tiles.items():
            state._place(state.board.cell(name), side)
        state.mover = to_move
        return state

    def copy(self):
        child = super().copy()
        child.owner = self.owner[:]
        child.near = (self.near[0][:], self.near[1][:])
        child.legal = self.legal.copy()
        child.tiles = self.tiles[:]
        return child

    # -- rules ---------------------------------------------------------------------------------

    @property
    def is_over(self):
        """The game ends when the side to move has no legal placement."""
        return not self.legal.cells

    @property
    def winner(self):
        """The side to move with nothing to place loses: the last to place wins."""
        return 1 - self.mover if not self.legal.cells else None

    def legal_actions(self):
        names = self.board.names
        return [names[i] for i in self.legal.cells]

    def parse_action(self, text):
        return self.board.canonical(text)

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
        """Put a tile down; only its own cell and its empty neighbours can change legality."""
        self.owner[cell] = side
        self.tiles[side] += 1
        legal, owner = self.legal, self.owner
        legal.discard(cell)
        red, blue = self.near
        counts = self.near[side]
        for n in self.board.neighbours[cell]:
            counts[n] += 1
            if owner[n] is None:
                if red[n] == blue[n]:
                    legal.add(n)
                else:
                    legal.discard(n)

    def playout(self, rng):
        """A random game to the end on private lists (see State.playout), updated around
        each tile as _place does: per cell, red minus blue neighbours (a tile may go where
        it is 0), pushed far from 0 once the cell is taken, so that no count of a taken cell
        can come back to 0; and the legal cells as a list with each cell's slot in it."""
        neighbours, names = self.board.neighbours, self.board.names
        red, blue = self.near
        diff = [r - b if o is None else TAKEN for r, b, o in zip(red, blue, self.owner)]
        legal, slot = self.legal.cells[:], self.legal.slot[:]
        side = self.mover
        step = 1 - 2 * side
        moves = []
        append, random = moves.append, rng.random
        while legal:
            k = int(random() * len(legal))
            cell = legal[k]
            last = legal.pop()
            if last != cell:
                legal[k] = last
                slot[last] = k
            diff[cell] = TAKEN
            append((side, names[cell]))
            for n in neighbours[cell]:
                d = diff[n] + step
                diff[n] = d
                if d == 0:
                    slot[n] = len(legal)
                    legal.append(n)
                elif d == step:       # it was balanced, so legal: no longer
                    pos = slot[n]
                    last = legal.pop()
                    if last != n:
                        legal[pos] = last
                        slot[last] = pos
            side, step = 1 - side, -step
        # The side to move with nothing to place loses; Hadron has no swap, seats are sides.
        return 1 - side, moves

    # -- presentation --------------------------------------------------------------------------

    def turn_prompt(self):
        return f"{self.side_name(self.mover)} to place a tile"

    def outcome(self):
        return f"{self.side_name(self.winner)} wins: {self.side_name(self.mover)} has no placement"

    def tallies(self):
        return [f"{n} tile{'' if n == 1 else 's'}" for n in self.tiles]

    def ending(self):
        """The empty cells the loser could not use: each has unequal red and blue neighbours."""
        names, loser = self.board.names, self.side_name(self.mover)
        empty = [names[i] for i, owner in enumerate(self.owner) if owner is None]
        why = ("every empty cell touches more tiles of one colour than of the other" if empty
               else "the board is full")
        return {"kind": "blocked", "cells": empty,
                "caption": f"{loser} has no legal placement: {why}"}

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
        def mark(i):
            side = self.owner[i]
            if side is not None:
                return "RB"[side]
            return "+" if i in self.legal else "."

        return self.board.text(mark) + "\n" + self.tally_line(self.tiles)


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

    def option_value_text(self, option, value):
        return f"{value}×{value}"


GAME = Hadron()
