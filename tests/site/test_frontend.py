"""How the game page loads (issue 10, item 18): every module of its import graph is preloaded
from the page's head, and static files and pages go out compressed. The time it takes on a
slow connection is bench/game_page_load.py's business (a benchmark, not a test)."""
import re
from pathlib import Path

import pytest

from frontend.modules import graph, imports_of
from tests.site.played import start

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.django_db


def test_the_graph_follows_every_static_import():
    modules = graph("js/game.js", "js/game/panels.js")
    assert modules[0] == "js/game.js"
    assert {"js/replay.js", "js/replay/bar.js", "js/game/status.js", "js/clock.js",
            "js/prefs.js", "js/sounds.js"} <= set(modules)
    assert len(modules) == len(set(modules))
    # Closed under imports: whatever a listed module imports is listed too.
    for module in modules:
        assert (ROOT / "static" / module).is_file()
        assert set(imports_of(module)) <= set(modules)
    # A relative path that climbs up ("../dom.js") resolves from the importing module.
    assert "js/dom.js" in imports_of("js/game/controls.js")


def test_the_game_page_preloads_its_modules_and_its_board(client, users):
    alice, bob = users("alice", "bob")
    game = start(alice, bob, game="tripen")
    html = client.get(f"/game/{game.pk}/").content.decode()
    preloaded = re.findall(r'<link rel="modulepreload" href="/static/([^"]+)">', html)
    assert preloaded[0] == "js/game.js"
    assert set(preloaded) == set(graph("js/game.js", "js/boards/tripen.js", "js/game/panels.js"))
    # What draws and plays the board first: the browser fetches in this order, six at a time.
    board_first = graph("js/game.js", "js/boards/tripen.js")
    assert preloaded[:len(board_first)] == board_first
    assert "js/game/colorful.js" not in preloaded


def test_the_board_needs_few_modules_before_it_is_live():
    """On a slow phone each module is a request, six at a time over HTTP/1.1 (issue 21, item
    24): the panels come with import() after the board, not with the board."""
    first = graph("js/game.js", "js/boards/hex.js")
    assert len(first) <= 11, first
    assert not {"js/replay.js", "js/analysis.js", "js/game/chat.js", "js/sounds.js"} & set(first)


def test_a_colorful_page_preloads_its_chooser_with_the_board(client, users):
    alice, bob = users("alice", "bob")
    game = start(alice, bob, game="colorful")
    html = client.get(f"/game/{game.pk}/").content.decode()
    preloaded = re.findall(r'<link rel="modulepreload" href="/static/([^"]+)">', html)
    board_first = graph("js/game.js", "js/boards/hex.js", "js/game/colorful.js")
    assert preloaded[:len(board_first)] == board_first
    assert "js/replay.js" in preloaded[len(board_first):]


def test_static_files_and_pages_are_compressed(client, users):
    alice, bob = users("alice", "bob")
    game = start(alice, bob)
    script = client.get("/static/js/replay.js", HTTP_ACCEPT_ENCODING="gzip")
    assert script["Content-Encoding"] == "gzip"
    page = client.get(f"/game/{game.pk}/", HTTP_ACCEPT_ENCODING="gzip")
    assert page["Content-Encoding"] == "gzip"
    assert client.get("/static/js/replay.js").get("Content-Encoding") is None
