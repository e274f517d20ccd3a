"""Tripen's geometry as real polygons: cells, pentagon tokens, borders, and the two tests the
rules rest on (do two tokens overlap? do two outlines share a segment?).

Everything follows RULES.md: hexagon circumradius 1, y pointing down, cell (q, r) centred at
(sqrt(3) * (q + r/2), 1.5 * r), vertex V_k = centre + (sin 60k, -cos 60k) (V0 on top, then
clockwise), edge k from V_k to V_(k+1) facing neighbour NEIGHBOUR_OFFSETS[k], cut point C_k a
third of the way along edge k, and the token of pose k the pentagon
C_k, V_(k+1), V_(k+2), V_(k+3), C_(k+3).

Pure functions over plain tuples: no board state, no game rules.
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import NamedTuple

SQRT3 = math.sqrt(3)

# Points are (x, y) tuples; a polygon is a sequence of points in order around it.
Point = tuple[float, float]
Polygon = tuple[Point, ...]

# Coordinates stay below ~50 units, so float noise in them is ~1e-14, while the thinnest real
# overlap or shared piece between two tokens is a sizeable fraction of a unit (the tests
# measure it). Anything within EPS of zero is therefore contact, not overlap.
EPS = 1e-6

# (sin 60k, -cos 60k) written out exactly, so V3 is (0, 1) and not (1.2e-16, 1).
VERTEX_OFFSETS: tuple[Point, ...] = (
    (0.0, -1.0), (SQRT3 / 2, -0.5), (SQRT3 / 2, 0.5),
    (0.0, 1.0), (-SQRT3 / 2, 0.5), (-SQRT3 / 2, -0.5),
)

# The neighbour across edge k, as (dq, dr).
NEIGHBOUR_OFFSETS: tuple[tuple[int, int], ...] = (
    (1, -1), (1, 0), (0, 1), (-1, 1), (-1, 0), (0, -1),
)

POSES = range(6)

# Border names, and the colour (side index: 0 Red, 1 Blue) each belongs to.
BORDERS = ("top", "bottom", "left", "right")
BORDER_SIDE = {"top": 0, "bottom": 0, "left": 1, "right": 1}


def cell_centre(q: int, r: int) -> Point:
    """The centre of cell (q, r): (sqrt(3) * (q + r/2), 1.5 * r)."""
    return (SQRT3 * (q + r / 2), 1.5 * r)


@lru_cache(maxsize=None)
def hexagon(q: int, r: int) -> Polygon:
    """The cell's vertices V0..V5 (kept: a board's tokens, cut points and border edges ask
    for each cell's many times over)."""
    cx, cy = cell_centre(q, r)
    return tuple((cx + dx, cy + dy) for dx, dy in VERTEX_OFFSETS)


def cut_point(q: int, r: int, k: int) -> Point:
    """C_k: a third of the way along edge k, from V_k towards V_(k+1)."""
    v = hexagon(q, r)
    (ax, ay), (bx, by) = v[k % 6], v[(k + 1) % 6]
    return (ax + (bx - ax) / 3, ay + (by - ay) / 3)


def pentagon(q: int, r: int, pose: int) -> Polygon:
    """The token of `pose` in cell (q, r): C_k, V_(k+1), V_(k+2), V_(k+3), C_(k+3)."""
    if pose not in POSES:
        raise ValueError(f"pose {pose} does not exist: poses are 0 to 5")
    v = hexagon(q, r)
    k = pose
    return (cut_point(q, r, k), v[(k + 1) % 6], v[(k + 2) % 6], v[(k + 3) % 6],
            cut_point(q, r, k + 3))


# -- collision: separating axes ------------------------------------------------------------------

def _edges(polygon: Polygon):
    return zip(polygon, polygon[1:] + polygon[:1])


def _axes(polygon: Polygon):
    """Unit normals of the polygon's edges (unit, so projected overlaps are lengths)."""
    for (ax, ay), (bx, by) in _edges(polygon):
        ex, ey = bx - ax, by - ay
        length = math.hypot(ex, ey)
        yield (-ey / length, ex / length)


def _project(polygon: Polygon, axis: Point) -> tuple[float, float]:
    nx, ny = axis
    dots = [x * nx + y * ny for x, y in polygon]
    return min(dots), max(dots)


def penetration(poly_a: Polygon, poly_b: Polygon) -> float:
    """How deep two convex polygons overlap: the smallest overlap of their projections over
    every edge normal of either. By the separating axis theorem it is <= 0 exactly when a line
    separates them (0: they touch along an edge or at a point)."""
    depth = math.inf
    for axis in (*_axes(poly_a), *_axes(poly_b)):
        amin, amax = _project(poly_a, axis)
        bmin, bmax = _project(poly_b, axis)
        depth = min(depth, min(amax, bmax) - max(amin, bmin))
        if depth <= 0:
            return depth
    return depth


def overlaps(poly_a: Polygon, poly_b: Polygon, eps: float = EPS) -> bool:
    """True only when two convex polygons share positive area; touching is not overlapping."""
    return penetration(poly_a, poly_b) > eps


# -- contact: shared boundary segments ----------------------------------------------------------

def _collinear_overlap(a1: Point, a2: Point, b1: Point, b2: Point, eps: float) -> float:
    """Length of the common part of segments a1-a2 and b1-b2 if they lie on one line, else 0."""
    ex, ey = a2[0] - a1[0], a2[1] - a1[1]
    length = math.hypot(ex, ey)
    ux, uy = ex / length, ey / length
    # Distance of b's endpoints from a's line; both must be on it.
    for px, py in (b1, b2):
        if abs((px - a1[0]) * uy - (py - a1[1]) * ux) > eps:
            return 0.0
    t1 = (b1[0] - a1[0]) * ux + (b1[1] - a1[1]) * uy
    t2 = (b2[0] - a1[0]) * ux + (b2[1] - a1[1]) * uy
    common = min(length, max(t1, t2)) - max(0.0, min(t1, t2))
    return common if common > eps else 0.0


def shared_segment_length(poly_a: Polygon, poly_b: Polygon, eps: float = EPS) -> float:
    """Length of boundary the two outlines share (0 for a point contact or none).

    For convex polygons with disjoint interiors the shared boundary is one segment lying on
    one edge of each (no two edges of a strictly convex polygon are collinear), so the
    longest collinear overlap of an edge pair is all of it.
    """
    return max(
        (_collinear_overlap(a1, a2, b1, b2, eps)
         for a1, a2 in _edges(poly_a) for b1, b2 in _edges(poly_b)),
        default=0.0,
    )


# -- borders --------------------------------------------------------------------------------------

class BorderSegment(NamedTuple):
    border: str   # top, bottom, left or right
    a: Point
    b: Point

    @property
    def side(self) -> int:
        """The side (0 Red, 1 Blue) whose border this is."""
        return BORDER_SIDE[self.border]


def edge_border(n: int, q: int, r: int, k: int) -> str | None:
    """Which border edge k of cell (q, r) lies on, if any.

    An outline edge whose outside neighbour has its row outside 1..n is red (top or bottom);
    otherwise, with its column outside a.., it is blue (left or right).
    """
    dq, dr = NEIGHBOUR_OFFSETS[k]
    nq, nr = q + dq, r + dr
    if not 0 <= nr < n:
        return "top" if nr < 0 else "bottom"
    if not 0 <= nq < n:
        return "left" if nq < 0 else "right"
    return None


def cell_border_segments(n: int, q: int, r: int) -> list[BorderSegment]:
    """The outline edges of one cell, with the border each belongs to."""
    v = hexagon(q, r)
    out = []
    for k in range(6):
        border = edge_border(n, q, r, k)
        if border is not None:
            out.append(BorderSegment(border, v[k], v[(k + 1) % 6]))
    return out


def border_segments(n: int) -> list[BorderSegment]:
    """Every edge of the outline of the n x n board, each with its border."""
    return [seg for r in range(n) for q in range(n) for seg in cell_border_segments(n, q, r)]


def border_polyline(n: int, border: str) -> list[Point]:
    """One border's edges chained end to end into a path (for drawing)."""
    segments = [(s.a, s.b) for s in border_segments(n) if s.border == border]
    def key(p):   # endpoints of consecutive edges meet up to float noise
        return (round(p[0], 6), round(p[1], 6))
    starting = {key(a): (a, b) for a, b in segments}
    ends = {key(b) for _, b in segments}
    (first,) = [seg for k, seg in starting.items() if k not in ends]
    path = list(first)
    while key(path[-1]) in starting:
        path.append(starting[key(path[-1])][1])
    if len(path) != len(segments) + 1:
        raise RuntimeError(f"the {border} border of size {n} is not one path")
    return path


def touches_border(polygon: Polygon, segments, eps: float = EPS) -> bool:
    """True when a positive-length piece of one of the polygon's sides lies on one of the
    segments (BorderSegments, or anything with endpoints .a and .b)."""
    return any(
        _collinear_overlap(s.a, s.b, p1, p2, eps) > 0
        for s in segments for p1, p2 in _edges(polygon)
    )
