"""Tripen, by Mark Steere (2013).

Red and Blue take turns putting pentagonal tokens, each half a hexagonal cell, on a rhombus
board; a token may not overlap one already down.  Red wins by joining the top border to the
bottom one with a chain of red tokens whose outlines share segments, Blue by joining left to
right.  Blue may `swap` instead of placing as the second action (pie rule).

Legality and joins come from the polygons of games.tripen_geometry: the collision test and
the shared-segment test are run once per relative placement of two tokens (they only depend
on the offset between the cells and the two poses) and cached, and each board size turns that
cache into per-token lists of the tokens it blocks and the tokens it can join.  A placement
then looks only at its own cell and the six around it; what remains of the board size in the
cost of an action is copying a state's flat arrays, which is memory copying, not Python work.
"""

from __future__ import annotations

import re
import sys
from array import array
from bisect import bisect_left
from functools import lru_cache
from itertools import cycle

from . import tripen_geometry as geo
from .base import Game, IllegalAction, State, random_keys

SWAP = "swap"
RED, BLUE = 0, 1
COLUMN_LETTERS = "abcdefghijklmnopqrstuvwxyz"
# ASCII: with Unicode case folding, [a-z] would also match letters such as the long s.
PLACEMENT_PATTERN = re.compile(r"\s*([a-z])\s*(\d+)\s*(?:/\s*(\S*))?\s*", re.IGNORECASE | re.ASCII)
GOALS = {RED: ("top", "bottom"), BLUE: ("left", "right")}
# The playout's numbers per token (TripenState.playout): a token not free has this added,
# above any key and index, by mapping its byte of TripenState.free (0) to the top byte.
_TAKEN = 0x7F << 56
_TAKEN_BYTE = bytes([0x7F]) + bytes(255)
_BIG_ENDIAN = sys.byteorder == "big"
WIN_TEXT = {RED: "top and bottom joined", BLUE: "left and right joined"}


def _rounded(polygon) -> list[list[float]]:
    return [[round(x, 4), round(y, 4)] for x, y in polygon]


@lru_cache(maxsize=None)
def _pair(dq: int, dr: int, pose_a: int, pose_b: int) -> tuple[bool, bool]:
    """(overlap, join) for a token of pose_a in some cell and one of pose_b in the cell
    (dq, dr) away, decided on the polygons. Translation does not change either answer, so one
    polygon test per relative placement serves every board."""
    a = geo.pentagon(0, 0, pose_a)
    b = geo.pentagon(dq, dr, pose_b)
    overlap = geo.overlaps(a, b)
    return overlap, not overlap and geo.shared_segment_length(a, b) > 0


@lru_cache(maxsize=None)
def _contacts_at(dq: int, dr: int, pose: int) -> tuple[tuple[int, bool, bool], ...]:
    """(other pose, overlap, join) for each pose of a token in the cell (dq, dr) away from a
    token of `pose`: the six _pair answers of one neighbour, looked up once per board size."""
    return tuple((other, *_pair(dq, dr, pose, other)) for other in geo.POSES)


class TripenBoard:
    """Everything static about one board size, built once and shared by every state.

    Cells are indexed r * n + q (row order); token (node) `6 * cell + pose`.
    """

    def __init__(self, n: int):
        self.n = n
        self.cells = [(q, r) for r in range(n) for q in range(n)]
        self.cell_names = [COLUMN_LETTERS[q] + str(r + 1) for q, r in self.cells]
        self.node_names = [f"{name}/{pose}" for name in self.cell_names for pose in geo.POSES]
        self.by_node_name = {name: node for node, name in enumerate(self.node_names)}
        self.polygons = [geo.pentagon(q, r, pose) for q, r in self.cells for pose in geo.POSES]
        self.node_count = len(self.polygons)
        self.border_node = {b: self.node_count + i for i, b in enumerate(geo.BORDERS)}
        self.neighbourhood = [self._neighbourhood(q, r) for q, r in self.cells]
        self.blocks, self.joins = self._contacts()
        self.partner = self._partners()
        # Each token's index in the low two bytes of a little-endian 64-bit number, eight
        # bytes a token: the playouts fill in the rest (TripenState.playout).
        assert self.node_count <= 0xFFFF and array("Q").itemsize == 8
        index = array("H", range(self.node_count))
        if _BIG_ENDIAN:
            index.byteswap()
        index = index.tobytes()
        packed = bytearray(8 * self.node_count)
        packed[0::8], packed[1::8] = index[0::2], index[1::2]
        self.packed_tokens = bytes(packed)
        self.borders_touched = self._borders_touched()
        # For the playouts' one look at a full board: Red's tokens on the top border, and
        # which tokens lie on the bottom one.
        self.on_top = [node for node, borders in enumerate(self.borders_touched)
                       if "top" in borders]
        self.on_bottom = bytes(int("bottom" in borders) for borders in self.borders_touched)
        self._drawing()

    def _neighbourhood(self, q, r) -> tuple[tuple[int, int, int], ...]:
        """The cell itself and its neighbours on the board, as (cell, dq, dr)."""
        n = self.n
        return tuple(
            ((r + dr) * n + q + dq, dq, dr)
            for dq, dr in ((0, 0), *geo.NEIGHBOUR_OFFSETS)
            if 0 <= q + dq < n and 0 <= r + dr < n
        )

    def _contacts(self):
        """Per token: the tokens near it that it overlaps (and so rules out), and the ones
        whose outline shares a segment with it (and so joins it when of one colour)."""
        blocks, joins = [], []
        for cell, hood in enumerate(self.neighbourhood):
            for pose in geo.POSES:
                overlap, join = [], []
                for other, dq, dr in hood:
                    base = 6 * other
                    for other_pose, o, j in _contacts_at(dq, dr, pose):
                        if o:
                            overlap.append(base + other_pose)
                        elif j:
                            join.append(base + other_pose)
                blocks.append(tuple(overlap))
                joins.append(tuple(join))
        return blocks, joins

    def _partners(self) -> list[int]:
        """Per token, the one other token of its cell that it does not overlap (the other
        half of the hexagon), for the playouts.  They rely on what RULES.md's geometry gives
        and this checks: a token overlaps only tokens of its own cell, and all of them but
        one, so a cell holds at most two tokens and its second is the first's partner."""
        partners = []
        for node, blocked in enumerate(self.blocks):
            cell = node // 6
            assert all(other // 6 == cell for other in blocked), node
            free = [other for other in range(6 * cell, 6 * cell + 6) if other not in blocked]
            assert len(free) == 1 and node in blocked, node
            partners.append(free[0])
        return partners

    def _borders_touched(self) -> list[tuple[str, ...]]:
        out = []
        for q, r in self.cells:
            segments = geo.cell_border_segments(self.n, q, r)
            if not segments:    # an inner cell: none of its tokens can reach a border
                out.extend(() for _ in geo.POSES)
                continue
            for pose in geo.POSES:
                polygon = self.polygons[6 * (r * self.n + q) + pose]
                out.append(tuple(b for b in geo.BORDERS if geo.touches_border(
                    polygon, [s for s in segments if s.border == b])))
        return out

    def node(self, text: str) -> int:
        """The token node named by `text` (case-insensitive), or IllegalAction saying why not."""
        match = PLACEMENT_PATTERN.fullmatch(text)
        if not match:
            raise IllegalAction(
                f"{text!r} is not a Tripen action: write a cell and a pose like c3/4, or swap")
        letter, row, pose = match.groups()
        # A row of more digits than any board has is simply off the board (and int() of a
        # very long digit string would fail on Python's conversion limit).
        q, r = COLUMN_LETTERS.index(letter.lower()), int(row) - 1 if len(row) <= 3 else -1
        if not (0 <= q < self.n and 0 <= r < self.n):
            raise IllegalAction(f"{text.strip()!r} is not a cell of this board")
        if not pose:
            raise IllegalAction(
                f"{text.strip()!r} has no pose: write the pose after a slash, like "
                f"{self.cell_names[r * self.n + q]}/0")
        # Compare text, not int(pose): str.isdigit() accepts digits such as '²' that int() refuses.
        if pose not in {str(k) for k in geo.POSES}:
            raise IllegalAction(f"pose {pose} does not exist: poses are 0 to 5")
        return 6 * (r * self.n + q) + int(pose)

    # -- drawing (static; shared by every state's to_dict) ------------------------------------

    def _drawing(self):
        self.poses = {name: _rounded(p) for name, p in zip(self.node_names, self.polygons)}
        self.cells_json = [
            {"name": name, "x": round(x, 4), "y": round(y, 4),
             "hexagon": _rounded(geo.hexagon(q, r))}
            for name, (q, r) in zip(self.cell_names, self.cells)
            for x, y in [geo.cell_centre(q, r)]
        ]
        self.borders_json = [
            {"side": geo.BORDER_SIDE[b], "border": b,
             "points": _rounded(geo.border_polyline(self.n, b))}
            for b in geo.BORDERS
        ]
        self.labels = self._labels()
        self.viewbox = self._viewbox(margin=0.8)

    def _labels(self) -> list[dict]:
        """Column letters over the top and under the bottom cell of each column, row numbers
        beside the first and last cell of each row."""
        n, centre = self.n, geo.cell_centre
        labels = []
        for q in range(n):
            (tx, ty), (bx, by) = centre(q, 0), centre(q, n - 1)
            labels += [(COLUMN_LETTERS[q], tx, ty - 1.65), (COLUMN_LETTERS[q], bx, by + 1.65)]
        for r in range(n):
            (lx, ly), (rx, ry) = centre(0, r), centre(n - 1, r)
            labels += [(str(r + 1), lx - 1.6, ly), (str(r + 1), rx + 1.6, ry)]
        return [{"text": text, "x": round(x, 4), "y": round(y, 4)} for text, x, y in labels]

    def _viewbox(self, margin: float) -> list[float]:
        """[x, y, width, height] around every cell and label, with a margin."""
        xs = [x for c in self.cells_json for x, _ in c["hexagon"]] + [lb["x"] for lb in self.labels]
        ys = [y for c in self.cells_json for _, y in c["hexagon"]] + [lb["y"] for lb in self.labels]
        return [round(min(xs) - margin, 4), round(min(ys) - margin, 4),
                round(max(xs) - min(xs) + 2 * margin, 4), round(max(ys) - min(ys) + 2 * margin, 4)]


@lru_cache(maxsize=None)
def board(n: int) -> TripenBoard:
    """Boards are static, so each size is built once and shared by every state."""
    return TripenBoard(n)


class TripenState(State):
    def __init__(self, game, options):
        super().__init__(game, options)
        self.board = b = board(options["size"])
        # colour[node]: 0 no token, 1 red, 2 blue; free[node]: 1 while that token could go
        # down, and `legal` the names of those tokens in board order. Flat arrays and lists,
        # so copying a state is a memory copy and listing the legal actions is one too.
        self.colour = bytearray(b.node_count)
        self.free = bytearray(b"\x01") * b.node_count
        self.legal = list(b.node_names)
        # Union-find over token nodes and one node per border (BORDERS order after tokens).
        self.parent = array("h", range(b.node_count + len(geo.BORDERS)))
        # Sides are colours and they alternate with each token; swap hands Red's token to the
        # other player but places nothing, so Blue moves again after it.
        self.mover = RED
        self._winner = None

    def copy(self):
        child = super().copy()
        child.colour = self.colour[:]
        child.free = self.free[:]
        child.legal = self.legal[:]
        child.parent = self.parent[:]
        return child

    # -- rules ---------------------------------------------------------------------------------

    @property
    def is_over(self):
        """The game ends when the mover completes a chain between their borders."""
        return self._winner is not None

    @property
    def winner(self):
        return self._winner

    def legal_actions(self):
        if self.is_over:
            return []
        if self._swap_allowed():
            return self.legal + [SWAP]
        return self.legal[:]

    def _swap_allowed(self):
        return len(self.actions) == 1

    def parse_action(self, text):
        if text in self.board.by_node_name:   # already canonical: the common case, kept cheap
            return text
        if text.strip().lower() == SWAP:
            return SWAP
        return self.board.node_names[self.board.node(text)]

    def check(self, action):
        if action == SWAP:
            if not self._swap_allowed():
                raise IllegalAction("swap is only allowed as Blue's first action")
            return
        node = self.board.by_node_name[action]
        if not self.free[node]:
            raise IllegalAction(self._overlap_reason(node))

    def _overlap_reason(self, node):
        # With RULES.md's geometry a token only ever overlaps tokens of its own cell.
        cell, pose = divmod(node, 6)
        name = self.board.cell_names[cell]
        if self.colour[6 * cell:6 * cell + 6].count(0) == 4:   # two of six poses: both halves
            there = [other for other in self.board.blocks[node] if self.colour[other]]
            what = "the tokens" if len(there) == 2 else "a token"
            return f"pose {pose} in {name} overlaps {what} already there: {name} is full"
        return f"pose {pose} in {name} overlaps the token already there"

    def apply(self, action):
        if action == SWAP:
            self.swapped = True
            return
        node, side = self.board.by_node_name[action], self.mover
        self._place(node, side)
        self._join(node, side)
        self.mover = 1 - side
        # A token can only complete its own colour's chain.
        start, end = GOALS[side]
        border_node = self.board.border_node
        if self._find(border_node[start]) == self._find(border_node[end]):
            self._winner = side
        elif not self.legal:
            raise RuntimeError(
                f"internal error: the Tripen board filled without a winner after {action}; "
                "the geometry guarantees a winner, so this is a bug")

    def _place(self, node, side):
        """Put the token down and rule out every token it overlaps."""
        b = self.board
        self.colour[node] = side + 1
        for other in b.blocks[node]:
            if self.free[other]:
                self.free[other] = 0
                del self.legal[bisect_left(self.legal, other, key=b.by_node_name.__getitem__)]

    def _join(self, node, side):
        """Join the token to the tokens of its colour it shares a segment with, and to the
        borders of its colour it touches."""
        b = self.board
        for other in b.joins[node]:
            if self.colour[other] == side + 1:
                self._union(node, other)
        for border in b.borders_touched[node]:
            if border in GOALS[side]:
                self._union(node, b.border_node[border])

    def _find(self, node):
        parent = self.parent
        while parent[node] != node:
            parent[node] = parent[parent[node]]
            node = parent[node]
        return node

    def _union(self, a, b):
        ra, rb = self._find(a), self._find(b)
        if ra != rb:
            self.parent[ra] = rb

    def playout(self, rng):
        """A random game to the end (see State.playout), as a random fill.  Uniformly random
        placements are the tokens in a random order, each put down if nothing overlaps it
        yet (the first free token of a random order is a uniformly random free one), the
        colours alternating.  Chains never break and a full board has exactly one winner,
        so the fill is played to the end and looked at once: whoever has joined their
        borders then joined them first in the game.  At the pie rule's moment, swap is one
        more action drawn uniformly.

        The random order is that of games.base.shuffled (one random key per token, ties in
        token order), but only the tokens put down are sorted: a token overlaps only the
        others of its cell but its partner (TripenBoard._partners), so in an empty cell the
        first of its six tokens in that order goes down, then its partner, and nothing else;
        a cell already holding one token takes its partner if free.  The tokens and the
        order are those of walking the whole shuffled list, a third of the sort (Tripen 13
        has 1,014 tokens: sorting them all was most of a playout)."""
        b = self.board
        colour = self.colour[:]
        names, partner = b.node_names, b.partner
        side, swapped = self.mover, self.swapped
        moves = []
        if self._swap_allowed() and int(rng.random() * (len(self.legal) + 1)) == len(self.legal):
            moves.append((side ^ swapped, SWAP))
            swapped = not swapped
        keys = random_keys(b.node_count, rng)      # the draw shuffled() makes
        # One 64-bit number per token, built from bytes in C: its key above its own index,
        # and far above every other if the token is not free, so that the least of a
        # cell's six is its first free token in the order (lowest key, then lowest token),
        # and sorting the numbers sorts the tokens as shuffled() would.
        if _BIG_ENDIAN:
            keys.byteswap()
        raw = keys.tobytes()
        packed = bytearray(b.packed_tokens)
        packed[2::8], packed[3::8], packed[4::8], packed[5::8] = (
            raw[0::4], raw[1::4], raw[2::4], raw[3::4])
        packed[7::8] = self.free.translate(_TAKEN_BYTE)
        tagged = array("Q", packed)
        if _BIG_ENDIAN:
            tagged.byteswap()
        placed = []
        append = placed.append
        for first in map(min, tagged[0::6], tagged[1::6], tagged[2::6], tagged[3::6],
                         tagged[4::6], tagged[5::6]):
            if first < _TAKEN:           # the cell has a free token: it goes down first
                append(first)
                second = tagged[partner[first & 0xFFFF]]
                if second < _TAKEN:      # and its partner after it, if free
                    append(second)
        placed.sort()
        order = [number & 0xFFFF for number in placed]
        for node in order[0::2]:       # the colours alternate from the mover's
            colour[node] = side + 1
        for node in order[1::2]:
            colour[node] = 2 - side
        moves += zip(cycle((side ^ swapped, 1 - side ^ swapped)), map(names.__getitem__, order))
        return _full_board_winner(b, colour) ^ swapped, moves

    # -- presentation --------------------------------------------------------------------------

    def turn_prompt(self):
        side = self.side_name(self.mover)
        if self._swap_allowed():
            return f"{side} to place a token or swap"
        return f"{side} to place a token"

    def outcome(self):
        return f"{self.side_name(self._winner)} wins: {WIN_TEXT[self._winner]}"

    def ending(self):
        """The winner's chain from border to border: the fewest tokens that join them."""
        side = self._winner
        chain = self.winning_chain()
        start, end = GOALS[side]
        return {"kind": "chain", "chain": [self.board.node_names[node] for node in chain],
                "borders": [start, end],
                "caption": f"{self.side_name(side)} joined {start} and {end} with a chain of "
                           f"{len(chain)} tokens"}

    def winning_chain(self) -> list[int]:
        """The shortest chain of the winner's tokens from one goal border to the other
        (breadth-first over the joins; the union-find only knows that one exists)."""
        b, side = self.board, self._winner
        start, end = GOALS[side]
        mine = side + 1
        came_from = {node: None for node, c in enumerate(self.colour)
                     if c == mine and start in b.borders_touched[node]}
        queue = list(came_from)
        for node in queue:
            if end in b.borders_touched[node]:
                chain = []
                while node is not None:
                    chain.append(node)
                    node = came_from[node]
                return chain[::-1]
            for other in b.joins[node]:
                if self.colour[other] == mine and other not in came_from:
                    came_from[other] = node
                    queue.append(other)
        raise RuntimeError("internal error: a Tripen winner without a chain")

    def tokens(self) -> list[tuple[int, int]]:
        """(node, side) of every token on the board."""
        return [(node, c - 1) for node, c in enumerate(self.colour) if c]

    static_board_keys = ("viewbox", "size", "cells", "borders", "poses", "labels")

    def board_dict(self):
        b = self.board
        return {
            "kind": "tripen",
            "viewbox": b.viewbox,
            "size": b.n,
            "cells": b.cells_json,
            "borders": b.borders_json,
            "tokens": [
                {"action": b.node_names[node], "side": side, "polygon": b.poses[b.node_names[node]]}
                for node, side in self.tokens()
            ],
            "poses": b.poses,
            "labels": b.labels,
        }

    def text(self):
        """The board as text: each cell shows its tokens as colour letter + pose (R2, B5),
        rows shifted right like the rhombus they form."""
        n = self.board.n
        width = 6  # a cell's field: up to two tokens, "R2B5", plus spacing
        letters = "".join(f"{COLUMN_LETTERS[q]:^{width}}" for q in range(n))
        lines = [" " * 5 + letters]
        for r in range(n):
            fields = "".join(f"{self._cell_marks(r * n + q) or '.':^{width}}" for q in range(n))
            lines.append(f"{' ' * (width // 2 * r)}{r + 1:>3}  {fields} {r + 1}")
        lines.append(" " * (5 + width // 2 * (n - 1)) + letters)
        lines.append("Rk/Bk: a red/blue token in pose k, the half of the cell clockwise from "
                     "the cut a third along edge k")
        lines.append("(edge 0 is the upper-right one). Red joins top and bottom, "
                     "Blue left and right.")
        lines.append(self.prompt() + (" (colours were swapped)" if self.swapped else ""))
        return "\n".join(line.rstrip() for line in lines)

    def _cell_marks(self, cell):
        """The tokens in a cell as colour letter + pose: 'R4', 'B1R4', or ''."""
        return "".join("RB"[self.colour[6 * cell + pose] - 1] + str(pose)
                       for pose in geo.POSES if self.colour[6 * cell + pose])


def _full_board_winner(b: TripenBoard, colour: bytearray) -> int:
    """The side that has joined its borders on a full board: Red if a chain of red tokens
    runs from the top border to the bottom one (a depth-first walk over the joins), else
    Blue, since a full board has exactly one winner."""
    red = RED + 1
    seen = bytearray(b.node_count)
    stack = [node for node in b.on_top if colour[node] == red]
    for node in stack:
        seen[node] = 1
    joins, on_bottom = b.joins, b.on_bottom
    while stack:
        node = stack.pop()
        if on_bottom[node]:
            return RED
        for other in joins[node]:
            if colour[other] == red and not seen[other]:
                seen[other] = 1
                stack.append(other)
    return BLUE


class Tripen(Game):
    name = "tripen"
    title = "Tripen"
    designer = "Mark Steere"
    year = 2013
    sides = ("Red", "Blue")
    defaults = {"size": 7}
    state_class = TripenState

    def option_choices(self):
        return {"size": list(range(5, 14))}

    def option_value_text(self, option, value):
        return f"{value}×{value}"


GAME = Tripen()
