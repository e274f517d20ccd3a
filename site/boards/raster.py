"""PNG and GIF pictures of boards, drawn with Pillow from the same geometry as boards.svg (the
engine's to_dict(): cell centres, hexagons, pentagon tokens, borders, labels, viewbox) and the
same light colours as the SVG export, so a position looks alike in every format.

Pillow draws without anti-aliasing, so each picture is drawn at SUPERSAMPLE times its size and
scaled down: edges come out smooth without any system library.
"""
from __future__ import annotations

import io
from functools import lru_cache

from PIL import Image, ImageDraw, ImageFont

from boards.svg import HEX_CORNERS, caption_layout, marks

SUPERSAMPLE = 3
STONE_LINE = 0.05   # outline widths, in board units (as boards/svg.py's styles)
TILE_INSET = 0.12


def rgb(colour: str) -> tuple[int, int, int]:
    colour = colour.lstrip("#")
    return tuple(int(colour[i:i + 2], 16) for i in (0, 2, 4))


def faded(colour, background, amount):
    """`colour` mixed with `background`: what fill-opacity does on a page."""
    return tuple(round(c * amount + b * (1 - amount)) for c, b in zip(colour, background))


@lru_cache(maxsize=16)
def font(pixels: int):
    # Pillow's own font (it needs no system font), at any size.
    return ImageFont.load_default(size=max(6, pixels))


class Canvas:
    """Board units to pixels: `scale` pixels per unit, from the viewbox's corner."""

    def __init__(self, board, width_px, palette, caption, supersample):
        minx, miny, width, height = board["viewbox"]
        self.caption = caption
        self.board_height = height
        height += caption.height
        self.scale = width_px * supersample / width
        self.origin = (minx, miny)
        self.palette = {name: rgb(value) for name, value in palette.items()}
        size = (round(width * self.scale), round(height * self.scale))
        self.image = Image.new("RGB", size, self.palette["background"])
        self.draw = ImageDraw.Draw(self.image)
        self.width, self.height = width, height

    def xy(self, x, y):
        return ((x - self.origin[0]) * self.scale, (y - self.origin[1]) * self.scale)

    def px(self, units):
        return max(1, round(units * self.scale))

    def polygon(self, pairs, fill, outline=None, line=STONE_LINE):
        self.draw.polygon([self.xy(x, y) for x, y in pairs], fill=fill,
                          outline=outline, width=self.px(line) if outline else 0)

    def text(self, x, y, words, size, fill):
        self.draw.text(self.xy(x, y), words, fill=fill, font=font(self.px(size)), anchor="mm")

    def colour(self, name):
        return self.palette[name]


def side_colour(canvas, side):
    return canvas.colour("red" if side == 0 else "blue")


def content_colour(canvas, cell):
    if cell.get("owner") is not None:
        return side_colour(canvas, cell["owner"])
    if cell.get("colour"):
        return canvas.colour(f"colour-{cell['colour']}")
    return None


def draw_cross(canvas, x, y, half):
    width = canvas.px(0.09)
    for (ax, ay), (bx, by) in (((x - half, y - half), (x + half, y + half)),
                               ((x + half, y - half), (x - half, y + half))):
        canvas.draw.line([canvas.xy(ax, ay), canvas.xy(bx, by)], fill=canvas.colour("refused"),
                         width=width)


def hex_cells(canvas, board, ending):
    decisive, blocked = marks(ending)
    dim = bool(decisive)
    for cell in board["cells"]:
        x, y = cell["x"], cell["y"]
        fill = content_colour(canvas, cell) or canvas.colour("cell")
        if dim and content_colour(canvas, cell) and cell["name"] not in decisive:
            fill = faded(fill, canvas.colour("background"), 0.5)
        corners = [(x + dx, y + dy) for dx, dy in HEX_CORNERS]
        canvas.polygon(corners, fill, canvas.colour("cell-line"))
    # Outlines of the decisive cells over their neighbours' plain ones.
    for cell in board["cells"]:
        x, y = cell["x"], cell["y"]
        if cell["name"] in decisive:
            corners = [(x + dx, y + dy) for dx, dy in HEX_CORNERS]
            canvas.draw.line([canvas.xy(*p) for p in corners + corners[:1]],
                             fill=canvas.colour("text"), width=canvas.px(0.1), joint="curve")
        if cell.get("colour"):
            ink = (74, 16, 48) if cell["colour"] == "P" else (255, 255, 255)
            canvas.text(x, y, cell["colour"], 0.6, ink)
        if cell["name"] in blocked:
            draw_cross(canvas, x, y, 0.32)


def square_cells(canvas, board, ending):
    decisive, blocked = marks(ending)
    n = board["size"]
    for cell in board["cells"]:
        x, y = cell["x"], cell["y"]
        shade = "cell-alt" if (x + (n - 1 - y)) % 2 else "cell"
        canvas.polygon([(x, y), (x + 1, y), (x + 1, y + 1), (x, y + 1)], canvas.colour(shade),
                       canvas.colour("cell-line"))
        if cell.get("owner") is not None:
            a, b = canvas.xy(x + TILE_INSET, y + TILE_INSET)
            c, d = canvas.xy(x + 1 - TILE_INSET, y + 1 - TILE_INSET)
            line = "text" if cell["name"] in decisive else "token-line"
            canvas.draw.rounded_rectangle((a, b, c, d), radius=canvas.px(0.12),
                                          fill=side_colour(canvas, cell["owner"]),
                                          outline=canvas.colour(line),
                                          width=canvas.px(0.1 if line == "text" else 0.03))
        if cell["name"] in blocked:
            draw_cross(canvas, x + 0.5, y + 0.5, 0.22)


def tripen_parts(canvas, board, ending):
    chain = set((ending or {}).get("chain") or ())
    for cell in board["cells"]:
        canvas.polygon(cell["hexagon"], canvas.colour("cell"), canvas.colour("cell-line"), 0.035)
    for border in board["borders"]:
        canvas.draw.line([canvas.xy(x, y) for x, y in border["points"]],
                         fill=side_colour(canvas, border["side"]), width=canvas.px(0.22),
                         joint="curve")
    for token in sorted(board["tokens"], key=lambda t: t["action"] in chain):
        fill = side_colour(canvas, token["side"])
        if chain and token["action"] not in chain:
            fill = faded(fill, canvas.colour("cell"), 0.4)
        line, width = (("text", 0.12) if token["action"] in chain else ("token-line", STONE_LINE))
        canvas.polygon(token["polygon"], fill, canvas.colour(line), width)


DRAWERS = {"hex": hex_cells, "square": square_cells, "tripen": tripen_parts}


def picture(board, palette, *, width_px=480, labels=True, ending=None,
            supersample=SUPERSAMPLE, resample=Image.Resampling.LANCZOS) -> Image.Image:
    """The board (and, for a final position, why it ended) as a Pillow image."""
    caption = caption_layout(board, ending, width_px if labels else None)
    canvas = Canvas(board, width_px, palette, caption, supersample)
    DRAWERS[board["kind"]](canvas, board, ending)
    if labels:
        size = 0.36 if board["kind"] == "square" else 0.6
        for label in board.get("labels", []):
            canvas.text(label["x"], label["y"], str(label["text"]), size, canvas.colour("label"))
    minx, miny = canvas.origin
    for k, line in enumerate(caption.lines):
        canvas.text(minx + canvas.width / 2,
                    miny + canvas.board_height + caption.gap + (k + 0.5) * caption.line,
                    line, caption.size, canvas.colour("label"))
    image = canvas.image
    return image.resize((round(image.width / supersample), round(image.height / supersample)),
                        resample)


def png(board, palette, **options) -> bytes:
    out = io.BytesIO()
    picture(board, palette, **options).save(out, format="PNG", optimize=True)
    return out.getvalue()


def gif(frames, palette, *, width_px=360, frame_ms=700, last_ms=3000) -> bytes:
    """An animated GIF of positions: `frames` is a list of (board, ending) pairs, the first
    and last shown longer, looping. Frames are drawn a little more coarsely than a PNG (twice
    the size, box-filtered: a long game has hundreds) and share one palette, taken from the
    last position (which has every piece), so each frame stores only what changed."""
    pictures = [picture(board, palette, width_px=width_px, ending=ending, supersample=2,
                        resample=Image.Resampling.BOX)
                for board, ending in frames]
    # One size for every frame (the last may carry a caption under the board).
    width = max(p.width for p in pictures)
    height = max(p.height for p in pictures)
    background = rgb(palette["background"])
    sized = []
    for p in pictures:
        frame = Image.new("RGB", (width, height), background)
        frame.paste(p, (0, 0))
        sized.append(frame)
    shared = sized[-1].quantize(colors=64)
    sized = [frame.quantize(palette=shared, dither=Image.Dither.NONE) for frame in sized]
    durations = [frame_ms] * len(sized)
    durations[0] = durations[-1] = last_ms
    out = io.BytesIO()
    sized[0].save(out, format="GIF", save_all=True, append_images=sized[1:], duration=durations,
                  loop=0, optimize=False, disposal=1)
    return out.getvalue()
