"""Why a game ended, written under its final position in the exported images, in pixels of the
image: the same type on every game and board (issue 21, item 18: sized in board units, the
caption of a Hadron 5×5 PNG wrapped into six huge lines, 640×1135, and every GIF frame was
360×638)."""
import io
import random
import re

import pytest
from PIL import Image

import games
from archive.exports import IMAGE_WIDTH, LIGHT, STYLE
from boards import raster, svg
from tests.site.played import finished

BOARDS = [("hadron", {"size": 5}), ("hadron", {"size": 7}), ("hadron", {"size": 11}),
          ("copolymer", {"size": 5}), ("copolymer", {"size": 8}),
          ("colorful", {"board": "hexhex", "size": 5}), ("colorful", {"board": "hexhex", "size": 7}),
          ("colorful", {"board": "long", "size": 6}),
          ("tripen", {"size": 7}), ("tripen", {"size": 13})]


def final_position(name, options, seed=1):
    state, rng = games.get(name).new(**options), random.Random(seed)
    while not state.is_over:
        state = state.play(rng.choice(state.legal_actions()))
    return state.to_dict()


def caption_band(board, ending, width, **options):
    """The height in pixels the caption adds under the board."""
    with_caption = raster.picture(board, LIGHT, width_px=width, ending=ending, **options)
    without = raster.picture(board, LIGHT, width_px=width, ending=None, **options)
    assert with_caption.width == without.width == width
    return with_caption.height - without.height


@pytest.mark.parametrize("name,options", BOARDS, ids=lambda v: str(v))
def test_captions_are_a_few_lines_of_the_same_type_on_every_board(name, options):
    position = final_position(name, options)
    board, ending = position["board"], position["ending"]
    assert ending["caption"]
    # The PNG (640 px): 18 px type, lines 24 px apart, one to three lines with the gap above.
    assert 24 <= caption_band(board, ending, IMAGE_WIDTH) <= 3 * 24 + 10
    # A GIF frame (360 px): 11 px type, lines 15 px apart.
    assert 14 <= caption_band(board, ending, 360, supersample=2) <= 3 * 15 + 6
    # The SVG export: the same size in pixels whatever the board's units.
    text = svg.render(board, size_px=IMAGE_WIDTH, style=STYLE, ending=ending)
    sizes = {float(size) * IMAGE_WIDTH / board["viewbox"][2]
             for size in re.findall(r'<text class="caption"[^>]*font-size="([\d.]+)"', text)}
    assert sizes and all(abs(size - 640 / 36) < 0.05 for size in sizes)
    height = float(re.search(r'<svg[^>]* height="([\d.]+)"', text)[1])
    width_per_unit = IMAGE_WIDTH / board["viewbox"][2]
    assert height - board["viewbox"][3] * width_per_unit <= 3 * 24 + 10


@pytest.mark.django_db
def test_hadron_5x5_exports_are_the_size_of_the_board(client, alice, bob):
    game = finished("hadron", (alice, bob), {"size": 5}, seed=3)
    png = Image.open(io.BytesIO(client.get(f"/game/{game.pk}/position/{game.ply_count}.png")
                                .content))
    assert png.width == 640 and 640 < png.height <= 640 + 3 * 24 + 10
    gif = Image.open(io.BytesIO(client.get(f"/game/{game.pk}/game.gif").content))
    assert gif.width == 360 and 360 < gif.height <= 360 + 3 * 15 + 6


def test_the_game_page_writes_the_caption_as_text_not_into_its_drawing():
    position = final_position("hadron", {"size": 5})
    assert '<text class="caption"' not in svg.render(position["board"], ending=position["ending"])
