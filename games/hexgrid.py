"""Hex boards of pointy-topped cells in horizontal rows, with pbmserv's notation.

Rows are lettered from the top (no I); column numbers run along the diagonals, so a cell
(r, c) has the neighbours W (r, c-1), E (r, c+1), NW (r-1, c-1), NE (r-1, c),
SW (r+1, c) and SE (r+1, c+1).  Two shapes: the hexhex board of side n and Colorful
Connection's "long" board, which has two middle rows of 2n-1 cells.
"""

from __future__ import annotations

import math
from functools import lru_cache

from .base import Board

ROW_LETTERS = "ABCDEFGHJKLMNOPQRSTUVWXYZ"

# Direction offsets (dr, dc) by name; a side of the board is named by its two outward directions.
DIRECTIONS = {
    "W": (0, -1), "E": (0, 1), "NW": (-1, -1), "NE": (-1, 0), "SW": (1, 0), "SE": (1, 1),
}
SIDES = (
    ("top", ("NW", "NE")),
    ("upper-right", ("NE", "E")),
    ("lower-right", ("E", "SE")),
    ("bottom", ("SE", "SW")),
    ("lower-left", ("SW", "W")),
    ("upper-left", ("W", "NW")),
)
SQRT3 = math.sqrt(3)


def hexhex_rows(n: int) -> list[range]:
    """Columns of each row of a hexhex board of side n."""
    return [range(1, n + r + 1) if r < n else range(r - n + 2, 2 * n) for r in range(2 * n - 1)]


def long_rows(n: int) -> list[range]:
    """Columns of each row of the long board: n, n+1, ..., 2n-1, 2n-1, ..., n cells."""
    return [range(1, n + r + 1) if r < n else range(r - n + 1, 2 * n) for r in range(2 * n)]


class HexBoard(Board):
    """The cells of one board shape, indexed 0..len-1 in row order, with everything static."""

    def __init__(self, shape: str, n: int):
        rows = hexhex_rows(n) if shape == "hexhex" else long_rows(n)
        self.shape, self.n = shape, n
        self.rows = [[(r, c) for c in cols] for r, cols in enumerate(rows)]
        self.coords = [rc for row in self.rows for rc in row]
        self.index = {rc: i for i, rc in enumerate(self.coords)}
        self._name_cells([ROW_LETTERS[r] + str(c) for r, c in self.coords])
        self.neighbours = [self._neighbours(rc) for rc in self.coords]
        self.sides = [self._sides(rc) for rc in self.coords]
        self._layout()

    def _step(self, rc, direction):
        dr, dc = DIRECTIONS[direction]
        return self.index.get((rc[0] + dr, rc[1] + dc))

    def _neighbours(self, rc) -> tuple[int, ...]:
        found = (self._step(rc, d) for d in DIRECTIONS)
        return tuple(i for i in found if i is not None)

    def _sides(self, rc) -> frozenset[int]:
        """The board sides this cell lies on: both of a side's outward neighbours are missing."""
        return frozenset(
            k for k, (_, outward) in enumerate(SIDES)
            if all(self._step(rc, d) is None for d in outward)
        )

    # -- geometry for drawing (hex circumradius 1, y down) ------------------------------------

    def _point(self, r: float, c: float) -> tuple[float, float]:
        return (SQRT3 * (c - r / 2), 1.5 * r)

    def _layout(self) -> None:
        raw = [self._point(r, c) for r, c in self.coords]
        labels = self._label_positions()
        xs = [x for x, _ in raw] + [x for _, x, _ in labels]
        ys = [y for _, y in raw] + [y for _, _, y in labels]
        margin = 1.2
        self._dx, self._dy = margin - min(xs), margin - min(ys)
        self.xy = [(round(x + self._dx, 4), round(y + self._dy, 4)) for x, y in raw]
        self.labels = [
            {"text": t, "x": round(x + self._dx, 4), "y": round(y + self._dy, 4)} for t, x, y in labels
        ]
        self.viewbox = [0, 0, round(max(xs) - min(xs) + 2 * margin, 4),
                        round(max(ys) - min(ys) + 2 * margin, 4)]

    def _label_positions(self):
        """Row letters where each row's missing west neighbour would be; column numbers where
        each column's missing north-east neighbour above its first cell would be (pbmserv)."""
        out = []
        for r, row in enumerate(self.rows):
            out.append((ROW_LETTERS[r], *self._point(r, row[0][1] - 1)))
        first_row = {}
        for r, c in self.coords:
            first_row.setdefault(c, r)
        for c, r in sorted(first_row.items()):
            out.append((str(c), *self._point(r - 1, c)))
        return out

    # -- text diagram, pbmserv style -----------------------------------------------------------

    def text(self, mark) -> str:
        """The board as text, one row a line; `mark(i)` gives the one-character cell mark.

        As on pbmserv: column numbers over the first row and down the right-hand diagonal.
        """
        starts = [2 * (c0 - 1) - r for r, ((_, c0), *_) in enumerate(self.rows)]
        base = min(starts)
        first = starts[0] - base + 4   # where row A's first mark sits
        top = self.rows[0]
        last_cols = [row[-1][1] for row in self.rows]

        def new_column(r):  # the column that row r opens on the right, if any
            if 0 < r < len(self.rows) and last_cols[r] > last_cols[r - 1]:
                return f" {last_cols[r]}"
            return ""

        lines = [" " * (first + 2) + " ".join(str(c) for _, c in top),
                 " " * (first + 1) + " ".join("/" for _ in top) + new_column(1)]
        for r, row in enumerate(self.rows):
            marks = " ".join(mark(self.index[rc]) for rc in row)
            tail = new_column(r + 2)
            tail = f" /{tail}" if tail else ""
            lines.append(f"{' ' * (starts[r] - base)}{ROW_LETTERS[r]:>2}- {marks}{tail}")
        return "\n".join(lines)


@lru_cache(maxsize=None)
def board(shape: str, n: int) -> HexBoard:
    """Boards are static, so each shape and size is built once and shared by every state."""
    return HexBoard(shape, n)
