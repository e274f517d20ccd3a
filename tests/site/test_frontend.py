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
    modules = graph("js/game.js")
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
    assert set(preloaded) == set(graph("js/game.js", "js/boards/tripen.js"))


def test_static_files_and_pages_are_compressed(client, users):
    alice, bob = users("alice", "bob")
    game = start(alice, bob)
    script = client.get("/static/js/replay.js", HTTP_ACCEPT_ENCODING="gzip")
    assert script["Content-Encoding"] == "gzip"
    page = client.get(f"/game/{game.pk}/", HTTP_ACCEPT_ENCODING="gzip")
    assert page["Content-Encoding"] == "gzip"
    assert client.get("/static/js/replay.js").get("Content-Encoding") is None
