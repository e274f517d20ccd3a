"""Exact play near the end of a game, where a bitboard search decides the position within a
budget of nodes: Hadron's, for now.

    >>> import games
    >>> from games.endgame import decide
    >>> state = games.get("hadron").replay({"size": 5}, ["c3", "b4", "a5", "d5", "e3", "d2", "e1"])
    >>> decide(state, nodes=200_000)
    Decision(won=True, action='b2', nodes=1116)

Hadron is played to the last placement and scored by who made it, so a position is won or
lost outright and a search to the end, with a table of the positions decided, tells which.
Its positions are small enough for that early: on the 5x5 board, two or three tiles in, a
few hundred thousand positions decide the game, where the tree search only proves a win a few
placements from the end (docs/measurements.md; bench/hadron_opening.py shows with it that the
5x5 board is a win for Red whatever Red and Blue place first).  The top levels ask `decide`
first and play the winning placement it finds; where the position is lost or too big for the
budget they search as before (games.mcts.search's `endgame`).

A position is two bitboards, the mover's tiles and the other side's: cell i (squaregrid's
order, a1, b1, .., a2, ..) is bit i.  Legality does not depend on who moves, so the table's
key is the pair as the mover sees it, in one integer.  A cell is legal when its red and blue
neighbour counts are equal; both counts come out of four shifted copies of a side's tiles
added bit-sliced (three bits per cell: 0..4), a few dozen integer operations for the whole
board.  Placements are tried fewest replies first (the other side's legal cells after the
placement): a placement that leaves nothing to answer wins at once, and few replies keep the
refutations short.

The budget is counted in nodes, not seconds, so a level plays the same placement in the same
position on any machine; a `deadline` on `clock` only guards the machine (a slow one gives up
sooner, and the tree search answers instead).
"""

from __future__ import annotations

from functools import lru_cache
from time import process_time
from typing import NamedTuple


class Decision(NamedTuple):
    """What the exact search found: `won` True (with `action`, a winning placement), False
    (every placement loses) or None (undecided within the budget); `nodes` searched."""
    won: bool | None
    action: str | None
    nodes: int


class OutOfBudget(Exception):
    """The search met its node budget or its deadline before deciding."""


class _Shifts(NamedTuple):
    """Per board size: how to move every tile one cell north, south, east or west at once."""
    n: int
    full: int          # every cell
    not_west: int      # cells with a neighbour to the west: where an eastward shift may land
    not_east: int


@lru_cache(maxsize=None)
def _shifts(n: int) -> _Shifts:
    cells = range(n * n)
    return _Shifts(n, (1 << n * n) - 1,
                   sum(1 << i for i in cells if i % n != 0),
                   sum(1 << i for i in cells if i % n != n - 1))


def _counts(tiles: int, s: _Shifts) -> tuple[int, int, int]:
    """Per cell, how many of its orthogonal neighbours hold one of `tiles`, as three bitboards
    of its binary digits (1, 2, 4)."""
    # Per cell, whether its neighbour on that side holds a tile: the row below is the south.
    south = (tiles << s.n) & s.full
    north = tiles >> s.n
    west = (tiles << 1) & s.not_west
    east = (tiles >> 1) & s.not_east
    ones_a, twos_a = north ^ south, north & south
    ones_b, twos_b = east ^ west, east & west
    ones, carry = ones_a ^ ones_b, ones_a & ones_b
    twos = twos_a ^ twos_b ^ carry
    fours = (twos_a & twos_b) | (twos_a & carry) | (twos_b & carry)
    return ones, twos, fours


def _touching(cells: int, s: _Shifts) -> int:
    """The cells with an orthogonal neighbour among `cells`."""
    return ((cells << s.n) & s.full) | (cells >> s.n) | ((cells << 1) & s.not_west) \
        | ((cells >> 1) & s.not_east)


def hadron_legal(mine: int, theirs: int, s: _Shifts) -> int:
    """The empty cells with as many neighbours of one side as of the other."""
    m1, m2, m4 = _counts(mine, s)
    t1, t2, t4 = _counts(theirs, s)
    return ~((m1 ^ t1) | (m2 ^ t2) | (m4 ^ t4) | mine | theirs) & s.full


class HadronEndgame:
    """The exact search of one position: `wins(mine, theirs)` for the side to move."""

    def __init__(self, n: int, nodes: int, deadline: float | None = None, clock=process_time):
        self.shifts = _shifts(n)
        self.budget, self.deadline, self.clock = nodes, deadline, clock
        self.nodes = 0
        # The mover's board above the other's: a smaller entry and a faster hash than a pair.
        self.table: dict[int, bool] = {}
        self.cells = n * n

    def placements(self, mine: int, theirs: int, legal: int | None = None) -> list[int]:
        """The mover's legal placements (`legal`, if known) as one-bit boards, fewest replies
        first."""
        s = self.shifts
        if legal is None:
            legal = hadron_legal(mine, theirs, s)
        cells = []
        while legal:
            cell = legal & -legal
            legal ^= cell
            cells.append(cell)
        if len(cells) > 2:
            cells.sort(key=lambda cell: hadron_legal(theirs, mine | cell, s).bit_count())
        return cells

    def wins(self, mine: int, theirs: int) -> bool:
        """Whether the side to move, holding `mine`, wins against `theirs`."""
        s = self.shifts
        legal = hadron_legal(mine, theirs, s)
        # A legal cell with no empty neighbour is a placement apart from the rest: it changes
        # no empty cell's neighbours, and nothing changes its own, so either side may take it
        # whenever it likes.  Two such cells cancel (a second player answers one with the
        # other, as * + * = 0 in a game where the last to move wins), so all but one of an
        # odd number, or all of an even one, are filled before the table is asked: the
        # table then holds one position for them all.
        apart = legal & ~_touching(s.full & ~(mine | theirs), s)
        if apart & (apart - 1):
            filled = apart ^ (apart & -apart) if apart.bit_count() % 2 else apart
            mine |= filled
            legal ^= filled
        key = mine << self.cells | theirs
        known = self.table.get(key)
        if known is not None:
            return known
        self.nodes += 1
        if self.nodes > self.budget or (
                self.deadline is not None and self.nodes & 1023 == 0
                and self.clock() >= self.deadline):
            raise OutOfBudget
        won = any(not self.wins(theirs, mine | cell)
                  for cell in self.placements(mine, theirs, legal))
        self.table[key] = won
        return won


# The most cells that may still take a tile for which the search is tried.  On the 5x5 board,
# two tiles in (23 cells), the Strong level's 300,000 positions decide 103 positions in 124
# (bench/hadron_opening.py); one tile in (24), 3,000,000 decided none of those tried, so
# trying them would only take the tree search's time.  Larger boards come under it late, but
# then decide within a few thousand positions.
HADRON_LIVE_CELLS = 23


def hadron_live_cells(state) -> set[int]:
    """The empty cells that may still take a tile.  An empty cell whose neighbours hold d
    more tiles of one side than of the other needs at least d more neighbours filled to be
    legal, so one with fewer empty neighbours than that, not counting those that are dead
    themselves, never takes a tile."""
    red, blue = state.near
    neighbours = state.board.neighbours
    live = {cell for cell, side in enumerate(state.owner) if side is None}
    dead = True
    while dead:
        dead = [cell for cell in live if abs(red[cell] - blue[cell])
                > sum(n in live for n in neighbours[cell])]
        live.difference_update(dead)
    return live


def hadron_tiles(state) -> tuple[int, int]:
    """The side to move's tiles and the other side's, as bitboards."""
    bits = [0, 0]
    for cell, side in enumerate(state.owner):
        if side is not None:
            bits[side] |= 1 << cell
    return bits[state.mover], bits[1 - state.mover]


def _hadron(state, nodes: int, deadline: float | None, clock) -> Decision:
    if len(hadron_live_cells(state)) > HADRON_LIVE_CELLS:
        return Decision(None, None, 0)
    mine, theirs = hadron_tiles(state)
    search = HadronEndgame(state.board.n, nodes, deadline, clock)
    name = state.board.names
    try:
        placements = search.placements(mine, theirs)
        for cell in placements:
            if not search.wins(theirs, mine | cell):
                return Decision(True, name[cell.bit_length() - 1], search.nodes)
    except OutOfBudget:
        return Decision(None, None, search.nodes)
    return Decision(False, None, search.nodes)


# The games with an exact endgame search.
SEARCHES = {"hadron": _hadron}


def decide(state, nodes: int, deadline: float | None = None, clock=process_time) -> Decision:
    """Whether the side to move in `state` (not over) wins, searched to the end within
    `nodes` positions (and, if given, until `deadline` on `clock`), with a winning action if
    it does; undecided for a game without an exact search."""
    exact = SEARCHES.get(state.game.name)
    if exact is None or nodes <= 0:
        return Decision(None, None, 0)
    return exact(state, nodes, deadline, clock)
