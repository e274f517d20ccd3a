"""Tripen's polygons and the two geometric tests the rules rest on, checked against RULES.md."""

import math

import pytest

from games import tripen_geometry as geo

HEX_AREA = 3 * math.sqrt(3) / 2
CUT_LENGTH = 2 * math.sqrt(7) / 3   # |C_k - centre| = sqrt(7)/3; the cut passes the centre


def area(polygon):
    return abs(sum(x1 * y2 - x2 * y1 for (x1, y1), (x2, y2)
                   in zip(polygon, polygon[1:] + polygon[:1]))) / 2


def close(p, q, tol=1e-12):
    return math.dist(p, q) < tol


def same_shape(a, b, tol=1e-9):
    """The same point set, whatever vertex the listing starts at."""
    return len(a) == len(b) and all(any(close(p, q, tol) for q in b) for p in a)


def square(x, y, side=1.0):
    return ((x, y), (x + side, y), (x + side, y + side), (x, y + side))


# -- the layout of RULES.md -----------------------------------------------------------------------

@pytest.mark.parametrize("q, r", [(0, 0), (2, 2), (4, 1), (12, 12)])
def test_centre_and_vertices_follow_the_rules_formulas(q, r):
    cx, cy = geo.cell_centre(q, r)
    assert close((cx, cy), (math.sqrt(3) * (q + r / 2), 1.5 * r))
    for k, v in enumerate(geo.hexagon(q, r)):
        t = math.radians(60 * k)
        assert close(v, (cx + math.sin(t), cy - math.cos(t)))
    assert area(geo.hexagon(q, r)) == pytest.approx(HEX_AREA)


def test_v0_is_on_top_and_the_vertices_go_clockwise_on_screen():
    v = geo.hexagon(0, 0)
    assert min(v, key=lambda p: p[1]) == v[0]
    assert v[1][0] > 0 and v[5][0] < 0      # y points down, so clockwise runs right first


@pytest.mark.parametrize("k", range(6))
def test_edge_k_faces_the_neighbour_of_the_rules(k):
    dq, dr = geo.NEIGHBOUR_OFFSETS[k]
    (ax, ay), (bx, by) = geo.hexagon(3, 3)[k], geo.hexagon(3, 3)[(k + 1) % 6]
    mid = ((ax + bx) / 2, (ay + by) / 2)
    (cx, cy), (nx, ny) = geo.cell_centre(3, 3), geo.cell_centre(3 + dq, 3 + dr)
    assert close(mid, ((cx + nx) / 2, (cy + ny) / 2))
    # The neighbour lists the same edge as its edge k+3, the other way round.
    other = geo.hexagon(3 + dq, 3 + dr)
    assert close(other[(k + 3) % 6], (bx, by)) and close(other[(k + 4) % 6], (ax, ay))


@pytest.mark.parametrize("k", range(6))
def test_cut_points_are_a_third_along_and_opposite_cuts_meet_through_the_centre(k):
    v = geo.hexagon(1, 2)
    c = geo.cut_point(1, 2, k)
    assert math.dist(v[k], c) == pytest.approx(1 / 3)
    assert math.dist(c, v[(k + 1) % 6]) == pytest.approx(2 / 3)
    cx, cy = geo.cell_centre(1, 2)
    opposite = geo.cut_point(1, 2, k + 3)
    assert close(opposite, (2 * cx - c[0], 2 * cy - c[1]))


@pytest.mark.parametrize("pose", range(6))
def test_a_token_is_the_pentagon_of_the_rules_and_half_a_cell(pose):
    v = geo.hexagon(2, 1)
    token = geo.pentagon(2, 1, pose)
    expected = (geo.cut_point(2, 1, pose), v[(pose + 1) % 6], v[(pose + 2) % 6],
                v[(pose + 3) % 6], geo.cut_point(2, 1, pose + 3))
    assert all(close(p, e) for p, e in zip(token, expected)) and len(token) == 5
    assert area(token) == pytest.approx(HEX_AREA / 2)
    assert geo.penetration(token, token) > 0


def test_pose_outside_0_to_5_is_refused():
    with pytest.raises(ValueError, match="pose 6 does not exist: poses are 0 to 5"):
        geo.pentagon(0, 0, 6)


def test_complementary_halves_fill_the_cell():
    for k in range(3):
        a, b = geo.pentagon(0, 0, k), geo.pentagon(0, 0, k + 3)
        assert area(a) + area(b) == pytest.approx(HEX_AREA)
        assert set(map(lambda p: (round(p[0], 9), round(p[1], 9)), a + b)) >= {
            (round(x, 9), round(y, 9)) for x, y in geo.hexagon(0, 0)}


def test_tokens_are_chiral_no_pose_is_the_mirror_image_of_a_pose():
    """The third-way cut: mirroring a token in any axis of the hexagon gives no pose."""
    cx, cy = geo.cell_centre(0, 0)
    poses = [geo.pentagon(0, 0, k) for k in range(6)]
    for axis_deg in range(0, 180, 30):   # the six mirror axes of a hexagon
        t = math.radians(2 * axis_deg)
        cos, sin = math.cos(t), math.sin(t)

        def mirror(p):
            x, y = p[0] - cx, p[1] - cy
            return (cx + x * cos + y * sin, cy + x * sin - y * cos)
        for token in poses:
            image = tuple(map(mirror, token))
            assert not any(same_shape(image, other) for other in poses)


# -- collision test -------------------------------------------------------------------------------

@pytest.mark.parametrize("a", range(6))
@pytest.mark.parametrize("b", range(6))
def test_two_poses_of_one_cell_overlap_unless_complementary(a, b):
    """The cross-check table: k and k+3 never overlap, every other pair does."""
    complementary = (a - b) % 6 == 3
    assert geo.overlaps(geo.pentagon(4, 2, a), geo.pentagon(4, 2, b)) is (not complementary)


def test_tokens_in_neighbouring_cells_never_overlap():
    for dq, dr in geo.NEIGHBOUR_OFFSETS:
        for a in range(6):
            for b in range(6):
                first, second = geo.pentagon(5, 5, a), geo.pentagon(5 + dq, 5 + dr, b)
                assert not geo.overlaps(first, second)
                assert geo.penetration(first, second) <= 1e-12


def test_the_tolerance_is_far_from_both_float_noise_and_real_overlaps():
    """Contacts measure ~0 (noise far below EPS); real overlaps are deep (far above it), even
    at the far corner of the largest board where coordinates are biggest."""
    for q, r in [(0, 0), (12, 12)]:
        depths = [geo.penetration(geo.pentagon(q, r, a), geo.pentagon(q, r, b))
                  for a in range(6) for b in range(6)]
        touching = [d for d in depths if d < 0.5]
        assert len(touching) == 6 and all(abs(d) < 1e-12 for d in touching)
        assert min(d for d in depths if d >= 0.5) > 0.7


def test_overlaps_on_plain_shapes():
    unit = square(0, 0)
    assert geo.overlaps(unit, square(0.5, 0.5))                  # partial overlap
    assert geo.overlaps(unit, square(0.25, 0.25, 0.5))           # one inside the other
    assert not geo.overlaps(unit, square(1, 0))                  # sharing an edge
    assert not geo.overlaps(unit, square(1, 1))                  # sharing a corner
    assert not geo.overlaps(unit, square(2, 0))                  # apart
    assert not geo.overlaps(unit, square(1 - 1e-9, 0))           # float-noise contact
    assert geo.overlaps(unit, square(1 - 1e-3, 0))               # a thin but real overlap
    triangle = ((2, 0), (3, 0), (2.5, 2))
    assert not geo.overlaps(unit, triangle)


# -- shared segments ------------------------------------------------------------------------------

@pytest.mark.parametrize("k", range(6))
def test_the_two_halves_of_a_cell_share_the_cut(k):
    a, b = geo.pentagon(3, 1, k), geo.pentagon(3, 1, (k + 3) % 6)
    assert geo.shared_segment_length(a, b) == pytest.approx(CUT_LENGTH)


@pytest.mark.parametrize("k", range(6))
def test_tokens_along_a_common_edge_share_the_part_both_cover(k):
    """Across edge k the cell's own split is at 1/3 from V_k, the neighbour's at 2/3."""
    dq, dr = geo.NEIGHBOUR_OFFSETS[k]
    here = lambda pose: geo.pentagon(3, 3, pose % 6)                      # noqa: E731
    there = lambda pose: geo.pentagon(3 + dq, 3 + dr, pose % 6)           # noqa: E731
    shared = geo.shared_segment_length
    # Pose k-1 covers edge k whole, and so does the neighbour's pose k+2 (its edge k+3).
    assert shared(here(k - 1), there(k + 2)) == pytest.approx(1)
    # Pose k covers the last two thirds of edge k, the neighbour's pose k the last third.
    assert shared(here(k), there(k)) == pytest.approx(1 / 3)
    # The first third of edge k against the neighbour's first two thirds.
    assert shared(here(k + 3), there(k + 3)) == pytest.approx(1 / 3)
    assert shared(here(k + 3), there(k + 2)) == pytest.approx(1 / 3)
    # The first third against the last third: no contact at all.
    assert shared(here(k + 3), there(k)) == 0


def test_tokens_in_cells_that_are_not_neighbours_share_nothing():
    for dq, dr in [(2, 0), (1, 1), (-1, -1), (2, -1), (0, 2)]:
        for a in range(6):
            for b in range(6):
                assert geo.shared_segment_length(
                    geo.pentagon(4, 4, a), geo.pentagon(4 + dq, 4 + dr, b)) == 0


def test_touching_only_at_a_corner_shares_no_segment():
    unit = square(0, 0)
    assert geo.shared_segment_length(unit, square(1, 1)) == 0
    assert geo.shared_segment_length(unit, square(1, 0.5)) == pytest.approx(0.5)
    # A token and its mirror image through one of its own vertices meet at that point only.
    token = geo.pentagon(0, 0, 1)
    vx, vy = token[2]
    reflected = tuple((2 * vx - x, 2 * vy - y) for x, y in token)
    assert not geo.overlaps(token, reflected)
    assert geo.shared_segment_length(token, reflected) == 0


def test_shared_segment_ignores_parallel_edges_that_are_apart():
    assert geo.shared_segment_length(square(0, 0), square(0, 1.5)) == 0
    assert geo.shared_segment_length(square(0, 0), square(1, 1 - 1e-9)) == 0


# -- borders --------------------------------------------------------------------------------------

@pytest.mark.parametrize("n", [5, 7, 13])
def test_the_outline_has_8n_minus_2_edges_split_among_four_borders(n):
    segments = geo.border_segments(n)
    assert len(segments) == 8 * n - 2
    by_border = {b: [s for s in segments if s.border == b] for b in geo.BORDERS}
    assert {b: len(s) for b, s in by_border.items()} == {
        "top": 2 * n, "bottom": 2 * n, "left": 2 * n - 1, "right": 2 * n - 1}
    assert {s.side for s in by_border["top"] + by_border["bottom"]} == {0}
    assert {s.side for s in by_border["left"] + by_border["right"]} == {1}
    # The outline is exactly the cell edges that no other cell shares.
    edges = {}
    for r in range(n):
        for q in range(n):
            v = geo.hexagon(q, r)
            for k in range(6):
                key = frozenset((round(x, 6), round(y, 6)) for x, y in (v[k], v[(k + 1) % 6]))
                edges[key] = edges.get(key, 0) + 1
    outline = {e for e, count in edges.items() if count == 1}
    assert outline == {frozenset((round(x, 6), round(y, 6)) for x, y in (s.a, s.b))
                       for s in segments}


def test_red_borders_are_where_the_row_runs_out_blue_where_the_column_does():
    n = 5
    # Top-left corner: edges 5 and 0 face row 0, edges 3 and 4 face column -1.
    assert [geo.edge_border(n, 0, 0, k) for k in range(6)] == [
        "top", None, None, "left", "left", "top"]
    # Bottom-left corner: edge 3 faces (-1, n), a row outside 1..n first, so it is red.
    assert [geo.edge_border(n, 0, n - 1, k) for k in range(6)] == [
        None, None, "bottom", "bottom", "left", None]
    assert [geo.edge_border(n, n - 1, 0, k) for k in range(6)] == [
        "top", "right", None, None, None, "top"]
    assert geo.edge_border(n, 2, 2, 0) is None


@pytest.mark.parametrize("n", [5, 9])
def test_border_polylines_run_along_the_board_and_meet_at_the_corners(n):
    lines = {b: geo.border_polyline(n, b) for b in geo.BORDERS}
    assert len(lines["top"]) == 2 * n + 1 and len(lines["left"]) == 2 * n
    assert all(abs(y - (-1 if i % 2 else -0.5)) < 1e-9 for i, (_, y) in enumerate(lines["top"]))
    ends = {b: {tuple(round(c, 6) for c in line[0]), tuple(round(c, 6) for c in line[-1])}
            for b, line in lines.items()}
    corners = set().union(*ends.values())
    assert len(corners) == 4
    for corner in corners:   # each corner ends one red and one blue border
        assert sum(corner in ends[b] for b in ("top", "bottom")) == 1
        assert sum(corner in ends[b] for b in ("left", "right")) == 1


def test_touches_border_needs_a_piece_of_side_on_the_border():
    n = 5
    top = [s for s in geo.border_segments(n) if s.border == "top"]
    left = [s for s in geo.border_segments(n) if s.border == "left"]
    # In a1, pose 5 has edge 0 whole (top) and nothing of edges 3 and 4 (left); pose 1 has
    # edge 3 and a third of edge 4 (left) and nothing of edges 5 and 0 (top).
    assert geo.touches_border(geo.pentagon(0, 0, 5), top)
    assert not geo.touches_border(geo.pentagon(0, 0, 5), left)
    assert geo.touches_border(geo.pentagon(0, 0, 1), left)
    assert not geo.touches_border(geo.pentagon(0, 0, 1), top)
    # Pose 2 has a third of edge 5 (top) and all of edges 3 and 4 (left).
    assert geo.touches_border(geo.pentagon(0, 0, 2), top)
    assert geo.touches_border(geo.pentagon(0, 0, 2), left)
    # A cell inside the board touches no border in any pose.
    every = geo.border_segments(n)
    assert not any(geo.touches_border(geo.pentagon(2, 2, k), every) for k in range(6))
