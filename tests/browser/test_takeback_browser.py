"""Takebacks on the live game page in Chromium: two players and a spectator, each in their own
browser context. A proposal is declined, a second one accepted, and the board, the move list
and the clocks step back for all three without a reload; then the ply is played otherwise.
Screenshots in light and dark (tests/browser/screenshots/takeback-*.png)."""
import re

import pytest
from playwright.sync_api import expect

from tests.browser import helpers
from tests.browser.helpers import (
    moves_of,
    DESKTOP, assert_not_reloaded, click_cell, expect_notice, expect_stone, log_in,
    new_players, open_game, set_scheme, start_game, wait_ply,
)

pytestmark = pytest.mark.browser


def shoot_both(page, screenshot_dir, name):
    helpers.shoot_both(page, screenshot_dir, f"takeback-{name}")
    set_scheme(page, "light")


def expect_empty(page, cell):
    expect(page.locator(f'#board [data-cell="{cell}"]')).to_have_class(re.compile(r"\bempty\b"))


def test_propose_decline_propose_accept(daphne_server, new_page, screenshot_dir):
    server = daphne_server
    names = new_players(server, "tba", "tbb")
    path = start_game(server, "hadron", *names, options={"size": 5}, time="5+0")
    alice, bob = new_page(viewport=DESKTOP), new_page(viewport=DESKTOP)
    for page, name in ((alice, names[0]), (bob, names[1])):
        log_in(page, server, name)
    spectator = new_page(viewport=DESKTOP)
    everyone = (alice, bob, spectator)
    markers = {}
    for page in everyone:
        page.on("pageerror", lambda e: print("PAGEERROR", e))
        markers[id(page)] = open_game(page, server, path)

    # Nobody has a turn to take back yet; spectators have no button at all.
    expect(alice.locator("#takeback")).to_be_disabled()
    expect(spectator.locator("#takeback-box")).to_be_hidden()
    for ply, (page, cell) in enumerate([(alice, "c3"), (bob, "a1"), (alice, "e5")], start=1):
        click_cell(page, cell)
        for each in everyone:
            wait_ply(each, ply)
    expect(bob.locator("#takeback")).to_be_enabled()

    # Bob's turn: alice proposes (her last turn, e5), bob declines.
    alice.click("#takeback")
    expect(bob.locator("#takeback-note")).to_have_text(f"{names[0]} proposes a takeback.")
    expect(bob.locator("#takeback-accept")).to_be_visible()
    expect(bob.locator("#takeback-decline")).to_be_visible()
    expect(alice.locator("#takeback-note")).to_have_text("Takeback proposed: waiting for an answer.")
    expect(alice.locator("#takeback-withdraw")).to_be_visible()
    expect(alice.locator("#takeback")).to_be_hidden()
    expect(spectator.locator("#takeback-note")).to_have_text(f"{names[0]} proposes a takeback.")
    expect(spectator.locator("#takeback-accept")).to_be_hidden()
    shoot_both(bob, screenshot_dir, "opponent-asked")
    shoot_both(spectator, screenshot_dir, "spectator-notice")
    bob.click("#takeback-decline")
    expect_notice(alice, "Your takeback proposal was declined.")
    for page in everyone:
        expect(page.locator("#takeback-note")).to_have_text("")
        expect(page.locator("#game-page")).to_have_attribute("data-ply", "3")
    expect(spectator.locator("#takeback-box")).to_be_hidden()

    # Again, and bob accepts: e5 goes, for everyone, and alice's clock is hers again.
    alice.click("#takeback")
    expect(bob.locator("#takeback-accept")).to_be_visible()
    shoot_both(alice, screenshot_dir, "proposer-waits")
    bob.click("#takeback-accept")
    for page in everyone:
        wait_ply(page, 2)
        expect_empty(page, "e5")
        expect(page.locator("#moves .act")).to_have_count(2)
        assert moves_of(page) == ["c3", "a1"]
        expect(page.locator('#players .player[data-player="0"] .clock')).to_have_class(re.compile(r"\brunning\b"))
    expect_notice(alice, "Takeback accepted.")
    expect_notice(spectator, f"{names[0]}'s takeback was accepted.")
    expect(alice.locator("#game-page")).to_have_class(re.compile(r"\bmy-turn\b"))
    shoot_both(spectator, screenshot_dir, "taken-back-spectator")

    # The same ply played otherwise: everyone shows the new move, not the taken-back one.
    click_cell(alice, "a5")
    for page in everyone:
        wait_ply(page, 3)
        expect_stone(page, "a5")
        expect_empty(page, "e5")
        assert moves_of(page) == ["c3", "a1", "a5"]
    # Stepping back through the moves shows the positions of the history that stands.
    spectator.locator('#moves .act[data-ply="3"]').click()
    expect(spectator.locator(".replay-bar")).to_have_attribute("data-shown", "3")
    expect_stone(spectator, "a5")
    expect_empty(spectator, "e5")
    shoot_both(bob, screenshot_dir, "played-otherwise")
    for page in everyone:
        assert_not_reloaded(page, markers[id(page)])
