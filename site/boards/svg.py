"""Server-side SVG drawing of a board from the engine's `state.to_dict()["board"]`.

The engine owns the geometry (cell centres, hexagons, pentagon tokens, borders, label
positions, viewbox, all in abstract units); this module only turns it into SVG elements.
Colours are CSS classes (`side-0`, `colour-R`, ...) styled by static/css/site.css, so the same
drawing follows the light or dark scheme. Used for rules diagrams and thumbnails.
"""
import math
from html import escape

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


def hex_cells(board):
    for cell in board["cells"]:
        yield (
            f'<polygon class="{classes("cell", content_class(cell))}" data-cell="{escape(cell["name"])}" '
            f'points="{points(hexagon_around(cell["x"], cell["y"]))}"/>'
        )


def square_cells(board):
    n = board["size"]
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
            yield (
                f'<rect class="tile side-{owner}" x="{num(x + 0.12)}" y="{num(y + 0.12)}" '
                f'width="0.76" height="0.76" rx="0.12"/>'
            )


def tripen_parts(board):
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
    for token in board["tokens"]:
        yield (
            f'<polygon class="token side-{token["side"]}" data-action="{escape(token["action"])}" '
            f'points="{points(token["polygon"])}"/>'
        )


DRAWERS = {"hex": hex_cells, "square": square_cells, "tripen": tripen_parts}


def label_parts(board):
    for label in board.get("labels", []):
        yield (
            f'<text class="label" x="{num(label["x"])}" y="{num(label["y"])}">'
            f'{escape(str(label["text"]))}</text>'
        )


def render(board, *, size_px=None, labels=True, title=None, style=None):
    """The board as an `<svg>` string. `size_px` fixes the width in pixels (height follows the
    board's proportions); without it the SVG scales to its container. `title` becomes the
    accessible name. `style` is CSS put inside the drawing, for an SVG file that stands alone
    (an image export) rather than inside a page styled by site.css."""
    kind = board["kind"]
    if kind not in DRAWERS:
        raise ValueError(f"cannot draw a board of kind {kind!r}")
    minx, miny, width, height = board["viewbox"]
    size = ""
    if size_px:
        size = f' width="{num(size_px)}" height="{num(size_px * height / width)}"'
    label = escape(title or f"{kind} board")
    parts = [
        f'<svg xmlns="{SVG_NS}" class="boardsvg boardsvg-{kind}" '
        f'viewBox="{num(minx)} {num(miny)} {num(width)} {num(height)}"{size} '
        f'role="img" aria-label="{label}">',
        *([f"<style>{style}</style>"] if style else []),
        *DRAWERS[kind](board),
        *(label_parts(board) if labels else ()),
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
