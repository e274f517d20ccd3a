"""A Hadron premove in Chromium: while the opponent is to move, a click queues the player's next
stone (shown faintly, seen again after a reload); a click on it cancels it; queued again, it is
played by the server the moment the opponent moves, and the player sees it on the board. Then
a private note, seen by its author only.
Screenshot: tests/browser/screenshots/premove-queued*.png."""
import re

import pytest
from playwright.sync_api import expect

from tests.browser import helpers
from tests.browser.helpers import (
    DESKTOP, click_cell, expect_stone, log_in, moves_of, new_players, open_game, start_game,
    wait_ply,
)

pytestmark = pytest.mark.browser


def premove_cell(page, cell):
    return page.locator(f'#board [data-cell="{cell}"]')


def test_hadron_premove_queued_cancelled_and_played(daphne_server, new_page, screenshot_dir):
    server = daphne_server
    names = new_players(server, "pma", "pmb")
    path = start_game(server, "hadron", *names, options={"size": 5}, time="5+0")
    alice, bob = new_page(viewport=DESKTOP), new_page(viewport=DESKTOP)
    errors = []
    for page, name in ((alice, names[0]), (bob, names[1])):
        page.on("pageerror", lambda e: errors.append(str(e)))
        log_in(page, server, name)
        open_game(page, server, path)

    # alice to move: bob picks a1 ahead; it shows faintly on his board only.
    click_cell(bob, "a1")
    expect(premove_cell(bob, "a1")).to_have_class(re.compile(r"\bpremove\b"))
    expect(premove_cell(alice, "a1")).not_to_have_class(re.compile(r"\bpremove\b"))
    helpers.expect_notice(bob, "Premove a1 queued: it is played as soon as your turn comes. "
                                "Click it again to cancel.")
    helpers.shoot(bob, screenshot_dir, "premove-queued")
    # Kept by the server: a reload shows it again.
    open_game(bob, server, path)
    expect(premove_cell(bob, "a1")).to_have_class(re.compile(r"\bpremove\b"))
    # A click on it cancels it; a click elsewhere queues that one instead.
    click_cell(bob, "a1")
    expect(premove_cell(bob, "a1")).not_to_have_class(re.compile(r"\bpremove\b"))
    click_cell(bob, "e1")
    expect(premove_cell(bob, "e1")).to_have_class(re.compile(r"\bpremove\b"))

    # alice moves; the server plays bob's e1 at once, and both boards show it.
    click_cell(alice, "c3")
    for page in (alice, bob):
        wait_ply(page, 2)
        expect_stone(page, "e1")
        assert moves_of(page) == ["c3", "e1"]
    expect(premove_cell(bob, "e1")).not_to_have_class(re.compile(r"\bpremove\b"))
    expect(alice.locator("#game-page")).to_have_class(re.compile(r"\bmy-turn\b"))

    # A private note, saved in place (the game goes on), read again after a reload by its
    # author only.
    bob.locator("#notes summary").click()
    bob.fill("#note-text", "premoved e1: watch her c-file")
    bob.click("#note-form button[type=submit]")
    expect(bob.locator("#note-status")).to_have_text("Saved.")
    open_game(bob, server, path)
    expect(bob.locator("#note-text")).to_have_value("premoved e1: watch her c-file")
    open_game(alice, server, path)
    expect(alice.locator("#note-text")).to_have_value("")
    assert "watch her c-file" not in alice.content()
    assert errors == []
