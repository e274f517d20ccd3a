"""Server-side SVG drawing of a board from the engine's `state.to_dict()["board"]`.

The engine owns the geometry (cell centres, hexagons, pentagon tokens, borders, label
positions, viewbox, all in abstract units); this module only turns it into SVG elements.
Colours are CSS classes (`side-0`, `colour-R`, ...) styled by static/css/site.css, so the same
drawing follows the light or dark scheme. Used for rules diagrams, thumbnails, the game page
without JavaScript and the image exports; boards.raster draws PNG and GIF images from the same
geometry.

A final position may come with the engine's `ending` (state.to_dict()["ending"]): the cells or
tokens it names are marked (`decisive`, `chain`, a cross on Hadron's `blocked` cells) and, in a
picture of a known size (an export), its caption is written under the board.
"""
import textwrap
import math
from html import escape
from typing import NamedTuple

# Pointy-topped hexagon of circumradius 1: vertex k at angle 60k degrees clockwise from the top.
HEX_CORNERS = [(math.sin(math.radians(60 * k)), -math.cos(math.radians(60 * k))) for k in range(6)]

SVG_NS = "http://www.w3.org/2000/svg"


def num(value):
    """Short decimal text: the geometry is rounded already, SVG needs no more digits."""
    text = f"{value:.4f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def points(pairs):
    return " ".join(f"{num(x)},{num(y)}" for x, y in pairs)


def hexagon_around(x, y):
    return [(x + dx, y + dy) for dx, dy in HEX_CORNERS]


def classes(*names):
    return " ".join(name for name in names if name)


def content_class(cell):
    """A cell's contents as a CSS class: a player's claim or tile, or a Colorful stone."""
    if cell.get("owner") is not None:
        return f"side-{cell['owner']}"
    if cell.get("colour"):
        return f"colour-{cell['colour']}"
    return ""


def marks(ending):
    """(cells marked decisive, cells crossed out) of an ending."""
    if not ending:
        return set(), set()
    cells = set(ending.get("cells") or ())
    return (set(), cells) if ending.get("kind") == "blocked" else (cells, set())


def cross(x, y, half):
    return (f'<path class="cross" d="M{num(x - half)} {num(y - half)}L{num(x + half)} {num(y + half)}'
            f'M{num(x + half)} {num(y - half)}L{num(x - half)} {num(y + half)}"/>')


def hex_cells(board, ending=None):
    decisive, blocked = marks(ending)
    for cell in board["cells"]:
        name = cell["name"]
        yield (
            f'<polygon class="{classes("cell", content_class(cell), "decisive" if name in decisive else "")}" '
            f'data-cell="{escape(name)}" points="{points(hexagon_around(cell["x"], cell["y"]))}"/>'
        )
        if cell.get("colour"):
            # Colorful's stones carry their letter: colour is not the only cue.
            on = " on-P" if cell["colour"] == "P" else ""
            yield (f'<text class="letter{on}" x="{num(cell["x"])}" y="{num(cell["y"])}">'
                   f'{escape(cell["colour"])}</text>')
        if name in blocked:
            yield cross(cell["x"], cell["y"], 0.32)


def square_cells(board, ending=None):
    n = board["size"]
    decisive, blocked = marks(ending)
    for cell in board["cells"]:
        x, y = cell["x"], cell["y"]
        # Checkered like a game board; (n - 1 - y) is the row counted from the bottom.
        alt = "alt" if (x + (n - 1 - y)) % 2 else ""
        yield (
            f'<rect class="{classes("cell", alt)}" data-cell="{escape(cell["name"])}" '
            f'x="{num(x)}" y="{num(y)}" width="1" height="1"/>'
        )
        owner = cell.get("owner")
        if owner is not None:
            mark = " decisive" if cell["name"] in decisive else ""
            yield (
                f'<rect class="tile side-{owner}{mark}" x="{num(x + 0.12)}" y="{num(y + 0.12)}" '
                f'width="0.76" height="0.76" rx="0.12"/>'
            )
        if cell["name"] in blocked:
            yield cross(x + 0.5, y + 0.5, 0.22)


def tripen_parts(board, ending=None):
    chain = set((ending or {}).get("chain") or ())
    for cell in board["cells"]:
        yield (
            f'<polygon class="cell" data-cell="{escape(cell["name"])}" '
            f'points="{points(cell["hexagon"])}"/>'
        )
    for border in board["borders"]:
        yield (
            f'<polyline class="border side-{border["side"]}" '
            f'points="{points(border["points"])}"/>'
        )
    # The winning chain last, so its outline is drawn over its neighbours'.
    for token in sorted(board["tokens"], key=lambda t: t["action"] in chain):
        mark = " chain" if token["action"] in chain else ""
        yield (
            f'<polygon class="token side-{token["side"]}{mark}" data-action="{escape(token["action"])}" '
            f'points="{points(token["polygon"])}"/>'
        )


DRAWERS = {"hex": hex_cells, "square": square_cells, "tripen": tripen_parts}


def label_parts(board):
    for label in board.get("labels", []):
        yield (
            f'<text class="label" x="{num(label["x"])}" y="{num(label["y"])}">'
            f'{escape(str(label["text"]))}</text>'
        )


# The caption under a final position, sized in pixels of the picture it is drawn on: the same
# type on every game and board. (Sized in board units it grew as boards shrank: on Hadron 5×5
# six huge lines, a PNG of 640×1135.) The font is a 36th of the picture's width, between 11
# and 18 px; lines are 1.35 fonts apart, and hold as many characters as fit at 0.6 em each.
CAPTION_WIDTH_FONTS = 36
CAPTION_MIN_PX, CAPTION_MAX_PX = 11, 18
CAPTION_LINE_FONTS = 1.35
CAPTION_CHAR_EM = 0.6


class Caption(NamedTuple):
    """A caption laid out for a board drawn `width_px` wide: its lines, and its font size, line
    height and the gap above it, in board units."""
    lines: list
    size: float
    line: float
    gap: float

    @property
    def height(self):
        return len(self.lines) * self.line + (self.gap if self.lines else 0)


def caption_layout(board, ending, width_px):
    """The ending's caption (none without one) wrapped for a picture `width_px` wide."""
    if not ending or not ending.get("caption") or not width_px:
        return Caption([], 0, 0, 0)
    font_px = min(CAPTION_MAX_PX, max(CAPTION_MIN_PX, width_px / CAPTION_WIDTH_FONTS))
    chars = max(12, int(width_px / (font_px * CAPTION_CHAR_EM)))
    unit = board["viewbox"][2] / width_px   # board units per pixel
    return Caption(textwrap.wrap(ending["caption"], chars), font_px * unit,
                   font_px * CAPTION_LINE_FONTS * unit, font_px * 0.5 * unit)


def render(board, *, size_px=None, labels=True, title=None, style=None, ending=None):
    """The board as an `<svg>` string. `size_px` fixes the width in pixels (height follows the
    board's proportions); without it the SVG scales to its container. `title` becomes the
    accessible name. `style` is CSS put inside the drawing, for an SVG file that stands alone
    (an image export) rather than inside a page styled by site.css. `ending`: the engine's
    account of why the game ended, marked on the board and, with the labels and `size_px`,
    written under it (a thumbnail has neither labels nor caption)."""
    kind = board["kind"]
    if kind not in DRAWERS:
        raise ValueError(f"cannot draw a board of kind {kind!r}")
    minx, miny, width, height = board["viewbox"]
    # Only a picture of a known size carries its caption (an export); on a page the caption is
    # the page's text under the board.
    caption = caption_layout(board, ending, size_px if labels else None)
    board_height = height
    height += caption.height
    size = ""
    if size_px:
        size = f' width="{num(size_px)}" height="{num(size_px * height / width)}"'
    label = escape(title or f"{kind} board")
    ending_class = f" ending-{ending['kind']}" if ending else ""
    parts = [
        f'<svg xmlns="{SVG_NS}" class="boardsvg boardsvg-{kind}{ending_class}" '
        f'viewBox="{num(minx)} {num(miny)} {num(width)} {num(height)}"{size} '
        f'role="img" aria-label="{label}">',
        *([f"<style>{style}</style>"] if style else []),
        *DRAWERS[kind](board, ending),
        *(label_parts(board) if labels else ()),
        *(f'<text class="caption" x="{num(minx + width / 2)}" '
          f'y="{num(miny + board_height + caption.gap + (k + 0.5) * caption.line)}" '
          f'font-size="{num(caption.size)}">{escape(line)}</text>'
          for k, line in enumerate(caption.lines)),
        "</svg>",
    ]
    return "\n".join(parts)


def pose_chart(board, cell_name, *, spacing=2.3):
    """Tripen's six poses of one cell side by side, each numbered: the legend for the `/k` of
    the notation. Drawn from the engine's `poses` polygons, shifted so the cell sits at 0,0."""
    cell = next(c for c in board["cells"] if c["name"] == cell_name)
    parts = []
    for k in range(6):
        dx = k * spacing - cell["x"]
        shift = [(x + dx, y - cell["y"]) for x, y in cell["hexagon"]]
        token = [(x + dx, y - cell["y"]) for x, y in board["poses"][f"{cell_name}/{k}"]]
        parts += [
            f'<polygon class="cell" points="{points(shift)}"/>',
            f'<polygon class="token side-{k % 2}" data-action="{escape(cell_name)}/{k}" points="{points(token)}"/>',
            f'<text class="label" x="{num(k * spacing)}" y="1.55">/{k}</text>',
        ]
    width = 5 * spacing + 2.4
    return "\n".join([
        f'<svg xmlns="{SVG_NS}" class="boardsvg boardsvg-poses" viewBox="-1.2 -1.2 {num(width)} 3.1" '
        f'role="img" aria-label="The six poses of a Tripen token in a cell, numbered 0 to 5">',
        *parts,
        "</svg>",
    ])
