"""Exports of a stored game: its record (the engine's text and JSON formats), an SVG or PNG image
of any position and an animated GIF of the whole game, drawn by boards.svg and boards.raster
from the engine's geometry like the browser's boards.

The SVG file has to stand alone (downloaded, opened in an image viewer, put in an <img>), so it
carries its own style: the board rules of site.css with the colours written out, light by
default and dark when the viewer prefers dark.
"""
import base64
import hashlib
import re

from django.core.cache import cache

from archive import drawings, positions
from boards import raster, svg
from games import records

# The colours of static/css/site.css, light and dark (boards.raster draws PNG and GIF images
# with the light ones).
LIGHT = {"cell": "#efe6d2", "cell-alt": "#e6dbc3", "cell-line": "#8f8570", "label": "#6b6455",
         "red": "#d64545", "blue": "#3b6fd6", "token-line": "#2a2a2a", "text": "#1f2328",
         "refused": "#c81e1e", "background": "#f6f4ef",
         "colour-R": "#b8322a", "colour-P": "#f9c0d8", "colour-B": "#2a5cc8", "colour-G": "#1f9e89"}
DARK = {"cell": "#3a3d45", "cell-alt": "#33363e", "cell-line": "#6d727d", "label": "#a3a9b4",
        "red": "#ef6b6b", "blue": "#6f98f2", "token-line": "#0c0c0c", "text": "#e6e3dc",
        "refused": "#ff6161", "background": "#14171d",
        "colour-R": "#d8453a", "colour-P": "#ffc7de", "colour-B": "#4f86ee", "colour-G": "#22a88f"}
# The board rules of static/css/site.css (svg.boardsvg ...), with var(--x) for each colour.
BOARD_RULES = """
.cell{fill:var(--cell);stroke:var(--cell-line);stroke-width:.05}
.cell.alt{fill:var(--cell-alt)}
.label{fill:var(--label);font-family:system-ui,sans-serif;font-size:.6px}
.label{text-anchor:middle;dominant-baseline:central}
.boardsvg-square .label{font-size:.36px}
.cell.side-0,.tile.side-0,.token.side-0{fill:var(--red)}
.cell.side-1,.tile.side-1,.token.side-1{fill:var(--blue)}
.colour-R{fill:var(--colour-R)}
.colour-P{fill:var(--colour-P)}
.colour-B{fill:var(--colour-B)}
.colour-G{fill:var(--colour-G)}
.letter{fill:#fff;font-family:system-ui,sans-serif;font-size:.6px;font-weight:800}
.letter{text-anchor:middle;dominant-baseline:central}
.letter.on-P{fill:#4a1030}
.cross{fill:none;stroke:var(--refused);stroke-width:.09;stroke-linecap:round}
.caption{fill:var(--label);font-family:system-ui,sans-serif;font-weight:600}
.caption{text-anchor:middle;dominant-baseline:central}
.ending-counts .cell:not(.decisive),.ending-groups .cell:not(.decisive){fill-opacity:.5}
.cell.decisive,.tile.decisive{stroke:var(--text);stroke-width:.1}
.ending-chain .token:not(.chain){fill-opacity:.4}
.token.chain{stroke:var(--text);stroke-width:.12}
.tile{stroke:var(--token-line);stroke-width:.03}
.border{fill:none;stroke-width:.22;stroke-linecap:round;stroke-linejoin:round}
.border.side-0{stroke:var(--red)}
.border.side-1{stroke:var(--blue)}
.token{stroke:var(--token-line);stroke-width:.05;stroke-linejoin:round}
""".strip()
IMAGE_WIDTH = 640


def coloured(rules, palette):
    """The rules with each var(--x) replaced by its colour: image viewers that know no CSS
    variables still draw the right colours."""
    return re.sub(r"var\(--([A-Za-z-]+)\)", lambda m: palette[m.group(1)], rules)


STYLE = (coloured(BOARD_RULES, LIGHT).replace("\n", "")
         + "@media (prefers-color-scheme:dark){" + coloured(BOARD_RULES, DARK).replace("\n", "")
         + "}")

# The Content-Security-Policy source that allows exactly this <style> in the SVG file, should a
# browser show the file itself (the site's policy allows no inline style).
STYLE_SOURCE = "'sha256-" + base64.b64encode(hashlib.sha256(STYLE.encode()).digest()).decode() + "'"


def filename(game, extension, ply=None):
    at = f"-ply{ply}" if ply is not None else ""
    return f"tessera-{game.pk}-{game.game}{at}.{extension}"


def position_svg(game, ply, labels=True):
    """A standalone SVG image of the position after `ply` actions (cached: it never changes)."""
    positions.check_ply(game, ply)
    key = f"archive:svg:{positions.stamp(game)}:{ply}:{int(labels)}"
    text = cache.get(key)
    if text is None:
        position = positions.state_at(game, ply).to_dict()
        title = f"{game.title} ({game.options_text}) game {game.pk}, position after {ply} actions"
        text = svg.render(position["board"], size_px=IMAGE_WIDTH, labels=labels, title=title,
                          style=STYLE, ending=position["ending"])
        cache.set(key, text, positions.TIMEOUT)
    return text


def position_png(game, ply, labels=True):
    """A PNG image of the position after `ply` actions, in the light colours."""
    positions.check_ply(game, ply)
    key = f"archive:png:{positions.stamp(game)}:{ply}:{int(labels)}"
    data = cache.get(key)
    if data is None:
        position = positions.state_at(game, ply).to_dict()
        data = raster.png(position["board"], LIGHT, width_px=IMAGE_WIDTH, labels=labels,
                          ending=position["ending"])
        cache.set(key, data, positions.TIMEOUT)
    return data


# A GIF frame per position: past this many actions the image would be too large to be of use.
MAX_GIF_PLIES = 400


def game_gif(game):
    """An animated GIF of the game from the start to the position it has reached, one frame
    per action, the last showing why it ended. Seconds of CPU for a long game: drawn once for
    all concurrent requests and kept in the database (archive.drawings)."""
    if game.ply_count > MAX_GIF_PLIES:
        raise ValueError(f"a game of more than {MAX_GIF_PLIES} actions is not made into a GIF")
    key = f"gif:{positions.stamp(game)}:{game.ply_count}"
    return drawings.kept(game, "gif", key, lambda: draw_gif(game))


def draw_gif(game):
    frames = []
    for ply in range(game.ply_count + 1):
        position = positions.state_at(game, ply).to_dict()
        frames.append((position["board"], position["ending"]))
    return raster.gif(frames, LIGHT)


# -- records ---------------------------------------------------------------------------------

def players_by_side(game):
    """The usernames by side as the game stands (Tripen's swap exchanges the sides)."""
    return tuple(game.username(game.player_of(side)) for side in (0, 1))


def record_tags(game, url):
    tags = {"Site": "Tessera", "Date": game.created_at.date().isoformat(), "Url": url,
            "Board": game.options_text, "TimeControl": game.time_control.text}
    if not game.is_active:
        # Resignation and time are the site's business, not the engine's: the Result tag stays
        # the engine's ("*" for a game stopped early), this tag says how it really ended.
        tags["Termination"] = game.result_text
    # The actions the server played from a player's conditional moves (play.conditionals),
    # numbered from 1 as in the record.
    marked = game.action_rows.filter(by_condition=True).order_by("ply").values_list("ply",
                                                                                  flat=True)
    if marked:
        tags["ConditionalMoves"] = " ".join(str(ply + 1) for ply in marked)
    return tags


def final_state(game):
    return positions.state_at(game, game.ply_count)


def record_text(game, url):
    return records.to_text(final_state(game), players_by_side(game), **record_tags(game, url))


def record_json(game, url):
    return records.to_json(final_state(game), players_by_side(game), indent=2,
                           **record_tags(game, url))
