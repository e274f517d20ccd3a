"""Conditional moves in Chromium: in a correspondence Hadron game the waiting player types
lines (in notation, or clicked on the board); an illegal one is refused with the engine's
reason, the good ones are listed; the
player closes the page, the opponent plays into a line, and on coming back the player sees
the reply played for them and what is left of the line; both move lists mark the reply as
played by a condition. The opponent never sees the lines.
Screenshot: tests/browser/screenshots/conditions-saved.png."""
import re

import pytest
from playwright.sync_api import expect

from tests.browser import helpers
from tests.browser.helpers import (
    DESKTOP, click_cell, log_in, moves_of, new_players, open_game, start_game, wait_ply,
)

pytestmark = pytest.mark.browser


def add_line(page, text):
    page.fill("#condition-line", text)
    page.click("#condition-add")


def test_conditional_line_plays_while_the_page_is_closed(daphne_server, new_page,
                                                         screenshot_dir):
    server = daphne_server
    names = new_players(server, "cma", "cmb")
    path = start_game(server, "hadron", *names, options={"size": 5}, days="3")
    alice, bob = new_page(viewport=DESKTOP), new_page(viewport=DESKTOP)
    errors = []
    for page, name in ((alice, names[0]), (bob, names[1])):
        page.on("pageerror", lambda e: errors.append(str(e)))
        log_in(page, server, name)
        open_game(page, server, path)

    # alice is to move: her own entry waits; bob's is open.
    expect(alice.locator("#condition-add")).to_be_disabled()
    expect(bob.locator("#condition-add")).to_be_enabled()
    # An illegal reply (the cell she would have taken) is refused with the reason.
    add_line(bob, "c3 c3")
    expect(bob.locator("#condition-status")).to_contain_text(
        "Not saved: line 1, turn 2 (your): c3")
    expect(bob.locator("#condition-lines li")).to_have_count(0)
    add_line(bob, "c3 a1 e1 a5")
    expect(bob.locator("#condition-lines li")).to_have_count(1)
    # The second line clicked on the board: their b2, then the reply d4.
    bob.click("#condition-draft")
    click_cell(bob, "b2")
    expect(bob.locator('#board [data-cell="b2"]')).not_to_have_class(re.compile(r"\bempty\b"))
    click_cell(bob, "d4")
    expect(bob.locator('#board [data-cell="d4"]')).not_to_have_class(re.compile(r"\bempty\b"))
    bob.click("#condition-draft-save")
    expect(bob.locator("#condition-lines li")).to_have_count(2)
    # Back to the game: nothing was played.
    expect(bob.locator('#board [data-cell="b2"]')).to_have_class(re.compile(r"\bempty\b"))
    assert moves_of(bob) == []
    expect(bob.locator("#condition-lines")).to_contain_text("if c3 → a1, then if e1 → a5")
    helpers.shoot(bob, screenshot_dir, "conditions-saved")
    # Removing one keeps the other.
    bob.get_by_role("button", name="Remove the line if b2 → d4").click()
    expect(bob.locator("#condition-lines li")).to_have_count(1)
    # Never on the opponent's page.
    open_game(alice, server, path)
    expect(alice.locator("#condition-lines li")).to_have_count(0)
    assert "→" not in alice.locator("#condition-lines").inner_text()

    # bob closes his page; alice plays c3 and sees bob's a1 come at once.
    bob.close()
    click_cell(alice, "c3")
    wait_ply(alice, 2)
    assert moves_of(alice) == ["c3", "a1"]
    # Her move list marks the reply the server played, and says why.
    marked = alice.locator("#moves .act.by-condition")
    expect(marked).to_have_count(1)
    expect(marked).to_have_text("a1")
    expect(marked).to_have_attribute("title", re.compile(r"^Played by a conditional move"))

    # bob comes back: the reply was played for him, the rest of the line waits.
    bob = new_page(viewport=DESKTOP)
    bob.on("pageerror", lambda e: errors.append(str(e)))
    log_in(bob, server, names[1])
    open_game(bob, server, path)
    wait_ply(bob, 2)
    assert moves_of(bob) == ["c3", "a1"]
    expect(bob.locator("#condition-lines li")).to_have_count(1)
    expect(bob.locator("#condition-lines")).to_contain_text("if e1 → a5")
    expect(bob.locator("#moves .act.by-condition")).to_have_text(["a1"])

    # alice plays off the line: bob's page hears the lines discarded.
    click_cell(alice, "b4")
    wait_ply(bob, 3)
    expect(bob.locator("#condition-status")).to_contain_text(
        "Your conditional moves were discarded: b4 is on none of your lines")
    expect(bob.locator("#condition-lines li")).to_have_count(0)
    # alice's own move is not marked; the reply still is.
    expect(bob.locator("#moves .act.by-condition")).to_have_text(["a1"])
    assert errors == []
