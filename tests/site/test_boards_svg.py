import re
import xml.etree.ElementTree as ET

import pytest

import games
from boards import svg
from boards.diagrams import board_options, diagrams, sample

NS = {"s": "http://www.w3.org/2000/svg"}


def parse(markup):
    return ET.fromstring(markup)


def hexagon_points(element):
    return [tuple(map(float, pair.split(","))) for pair in element.get("points").split()]


def test_hexagon_has_circumradius_one_and_pointy_top():
    corners = svg.hexagon_around(2.0, 3.0)
    assert corners[0] == pytest.approx((2.0, 2.0))          # top vertex straight above
    for x, y in corners:
        assert ((x - 2) ** 2 + (y - 3) ** 2) ** 0.5 == pytest.approx(1)


@pytest.mark.parametrize("name", ["copolymer", "colorful"])
def test_hex_board_draws_every_cell_and_label(name):
    board = games.get(name).new().to_dict()["board"]
    root = parse(svg.render(board))
    cells = root.findall("s:polygon[@class='cell']", NS)
    assert [c.get("data-cell") for c in cells] == [c["name"] for c in board["cells"]]
    assert len(cells) == 61
    assert len(root.findall("s:text", NS)) == len(board["labels"])
    assert root.get("viewBox") == " ".join(svg.num(v) for v in board["viewbox"])
    first = board["cells"][0]
    assert hexagon_points(cells[0])[0] == pytest.approx((first["x"], first["y"] - 1), abs=1e-3)


def test_square_board_with_tiles():
    state = games.get("hadron").new(size=5).play("c3").play("a1")
    root = parse(svg.render(state.to_dict()["board"]))
    cells = root.findall("s:rect[@data-cell]", NS)
    assert len(cells) == 25
    tiles = root.findall("s:rect", NS)
    assert sorted(t.get("class") for t in tiles if "tile" in t.get("class")) == ["tile side-0", "tile side-1"]


def test_claimed_and_coloured_cells_get_css_classes():
    copolymer = games.get("copolymer").new().play("A1")
    root = parse(svg.render(copolymer.to_dict()["board"]))
    assert root.find("s:polygon[@data-cell='A1']", NS).get("class") == "cell side-0"
    colorful = games.get("colorful").new().play("P@C4")
    root = parse(svg.render(colorful.to_dict()["board"]))
    assert root.find("s:polygon[@data-cell='C4']", NS).get("class") == "cell colour-P"


def test_tripen_draws_cells_borders_and_tokens():
    state = games.get("tripen").new(size=5).play("c3/4")
    board = state.to_dict()["board"]
    root = parse(svg.render(board, size_px=300))
    assert len(root.findall("s:polygon[@class='cell']", NS)) == 25
    borders = root.findall("s:polyline", NS)
    assert sorted(b.get("class") for b in borders) == ["border side-0"] * 2 + ["border side-1"] * 2
    (token,) = root.findall("s:polygon[@data-action]", NS)
    assert token.get("data-action") == "c3/4" and token.get("class") == "token side-0"
    assert len(hexagon_points(token)) == 5
    assert root.get("width") == "300"
    assert float(root.get("height")) == pytest.approx(300 * board["viewbox"][3] / board["viewbox"][2], abs=1e-3)


def test_labels_can_be_left_out_and_title_is_escaped():
    board = games.get("hadron").new().to_dict()["board"]
    markup = svg.render(board, labels=False, title='A <b>"title"</b>')
    assert "<text" not in markup
    assert 'aria-label="A &lt;b&gt;&quot;title&quot;&lt;/b&gt;"' in markup


def test_unknown_board_kind_is_refused():
    with pytest.raises(ValueError, match="cannot draw"):
        svg.render({"kind": "triangle", "viewbox": [0, 0, 1, 1]})


EXPECTED_BOARDS = {
    "copolymer": ["size-4", "size-5", "size-6", "size-7", "size-8"],
    "hadron": ["size-5", "size-7", "size-9", "size-11"],
    "colorful": ["hexhex-3", "hexhex-4", "hexhex-5", "hexhex-6", "hexhex-7", "long-4", "long-5", "long-6"],
    "tripen": [f"size-{n}" for n in range(5, 14)],
}


@pytest.mark.parametrize("name", sorted(EXPECTED_BOARDS))
def test_one_diagram_per_board_with_the_default_marked(name):
    drawn = diagrams(name)
    assert [d.key for d in drawn] == EXPECTED_BOARDS[name]
    defaults = [d for d in drawn if d.is_default]
    assert len(defaults) == 1
    assert defaults[0].key.endswith(str(games.get(name).defaults["size"]))
    for diagram in drawn:
        root = parse(diagram.svg)
        assert len(root.findall(".//s:*[@data-cell]", NS)) == int(re.search(r"(\d+) cells", diagram.caption)[1])


def test_long_colorful_board_has_an_even_cell_count():
    for options in board_options(games.get("colorful")):
        cells = len(games.get("colorful").new(**options).to_dict()["board"]["cells"])
        assert cells % 2 == (0 if options["board"] == "long" else 1)


@pytest.mark.parametrize("name", games.names())
def test_sample_position_shows_a_game_in_progress(name):
    root = parse(sample(name))
    assert root.findall(".//s:*[@class]", NS)
    taken = [e for e in root.iter() if re.search(r"side-\d|colour-", e.get("class") or "")
             and "border" not in e.get("class")]
    assert len(taken) >= 5
