"""Square boards of n x n cells with chess-like notation (Hadron).

Columns are lettered a.. from the left, rows numbered 1..n from the bottom, so `c3` is
column 2, row 2 (0-based) counted from the bottom-left corner.  Cells are indexed in the
order a1, b1, ..., a2, b2, ...; adjacency is orthogonal only.
"""

from __future__ import annotations

from functools import lru_cache

from .base import Board

COLUMN_LETTERS = "abcdefghijklmnopqrstuvwxyz"
LABEL_MARGIN = 0.8   # room around the squares for the coordinate labels, in square sides


class SquareBoard(Board):
    """The cells of an n x n board, indexed 0..n*n-1, with everything static."""

    def __init__(self, n: int):
        self.n = n
        self.coords = [(col, row) for row in range(n) for col in range(n)]
        self.index = {cr: i for i, cr in enumerate(self.coords)}
        self._name_cells([f"{COLUMN_LETTERS[c]}{r + 1}" for c, r in self.coords])
        self.neighbours = [self._neighbours(cr) for cr in self.coords]
        # Drawing position: top-left corner of the unit square, y pointing down.
        self.xy = [(c, n - 1 - r) for c, r in self.coords]
        self.labels = self._labels()
        m = LABEL_MARGIN
        self.viewbox = [-m, -m, n + 2 * m, n + 2 * m]

    def _neighbours(self, cr) -> tuple[int, ...]:
        c, r = cr
        found = (self.index.get(step) for step in ((c, r + 1), (c + 1, r), (c, r - 1), (c - 1, r)))
        return tuple(i for i in found if i is not None)

    def _labels(self) -> list[dict]:
        """Row numbers left of the board, column letters below it, centred in the margin."""
        n, half = self.n, LABEL_MARGIN / 2
        rows = [{"text": str(r + 1), "x": -half, "y": n - r - 0.5} for r in range(n)]
        cols = [{"text": COLUMN_LETTERS[c], "x": c + 0.5, "y": n + half} for c in range(n)]
        return rows + cols

    def text(self, mark) -> str:
        """The board as text, top row first, with row numbers and column letters;
        `mark(i)` gives the one-character mark of cell i."""
        n = self.n
        width = len(str(n))
        lines = []
        for r in reversed(range(n)):
            marks = " ".join(mark(self.index[(c, r)]) for c in range(n))
            lines.append(f"{r + 1:>{width}} {marks}")
        lines.append(" " * (width + 1) + " ".join(COLUMN_LETTERS[:n]))
        return "\n".join(lines)


@lru_cache(maxsize=None)
def board(n: int) -> SquareBoard:
    """Boards are static, so each size is built once and shared by every state."""
    return SquareBoard(n)
