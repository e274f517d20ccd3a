"""Issue 21 item 25: an accessibility engine (axe-core, through axe-playwright-python) audits
every kind of page, signed out and signed in, at desktop and phone width, in both colour
schemes; and every board action can be made from the keyboard, with a visible focus and a
result that is announced.

axe's script is injected with page.evaluate, which the site's Content-Security-Policy would
refuse (no eval): the audit's contexts bypass the policy, the site's own pages do not need to.
"""
import re

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import expect

from tests.browser.helpers import (
    DESKTOP, PHONE, log_in, new_players, open_game, play_on_server, set_scheme, settle, shoot,
    start_game, wait_ply,
)

pytestmark = pytest.mark.browser

AXE = Axe()
RULE_PAGES = ["/rules/", "/rules/copolymer/", "/rules/hadron/", "/rules/tripen/",
              "/rules/colorful/"]


def audit(page, where):
    """axe's violations on the page as shown, one line each (rule, impact, first targets)."""
    settle(page)
    results = AXE.run(page)
    return [f"{where}: {v['id']} ({v['impact']}) {v['help']}: "
            + ", ".join(str(node["target"]) for node in v["nodes"][:4])
            for v in results.response["violations"]]


def audit_both(page, where):
    found = []
    for scheme in ("light", "dark"):
        set_scheme(page, scheme)
        found += audit(page, f"{where} [{scheme}]")
    return found


def test_every_page_type_passes_axe(daphne_server, new_page):
    server = daphne_server
    names = new_players(server, "axa", "axb")
    playing = start_game(server, "hadron", *names, options={"size": 5}, time="5+3")
    finished, plies, _ = play_on_server(server, "copolymer", {"size": 5}, seed=3, names=names)
    tripen, _, _ = play_on_server(server, "tripen", {"size": 5}, seed=2, names=names, stop_at=6)
    colorful, _, _ = play_on_server(server, "colorful", {"board": "hexhex", "size": 3}, seed=2,
                                    names=names, stop_at=6)
    # Correspondence: the players' page has the conditional moves panel.
    letters = start_game(server, "hadron", *names, options={"size": 5}, days="3")
    boards = (playing, letters, f"/game/{finished}/", f"/game/{tripen}/", f"/game/{colorful}/")
    pages = {
        "signed out": ["/", "/play/", "/watch/", "/archive/", *boards,
                       f"/game/{finished}/?ply=2", *RULE_PAGES, f"/u/{names[0]}/",
                       "/leaderboard/", "/leaderboard/hadron/", "/accounts/login/",
                       "/accounts/signup/"],
        "signed in": ["/", "/play/", *boards, f"/u/{names[0]}/", "/accounts/settings/",
                      "/accounts/password/", "/play/challenges/", "/vacation/"],
    }
    found = []
    for viewport in (DESKTOP, PHONE):
        for who, paths in pages.items():
            page = new_page(viewport=viewport, bypass_csp=True)
            if who == "signed in":
                log_in(page, server, names[0])
            for path in paths:
                page.goto(server.url + path)
                if path in boards:
                    expect(page.locator("#board [data-cell]").first).to_be_visible()
                found += audit_both(page, f"{who} {viewport['width']}px {path}")
    assert not found, "\n".join(found)
