"""A Hadron premove in Chromium: while the opponent is to move, a click queues the player's next
stone (shown faintly, seen again after a reload); a click on it cancels it; queued again, it is
played by the server the moment the opponent moves, and the player sees it on the board. Then
a private note, seen by its author only.
Colorful (two stones picked one after the other) and Tripen (the ghost's pose) premove too.
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


def test_colorful_premove_of_two_stones(daphne_server, new_page):
    """Colorful: the turn is two stones, one of each of the player's colours, picked one after
    the other; the first shows at once, the pair is queued with the second, and both are
    played by the server on the opponent's move."""
    server = daphne_server
    names = new_players(server, "pca", "pcb")
    path = start_game(server, "colorful", *names, options={"size": 4}, time="5+0")
    alice, bob = new_page(viewport=DESKTOP), new_page(viewport=DESKTOP)
    errors = []
    for page, name in ((alice, names[0]), (bob, names[1])):
        page.on("pageerror", lambda e: errors.append(str(e)))
        log_in(page, server, name)
        open_game(page, server, path)

    click_cell(bob, "A2")
    expect(premove_cell(bob, "A2")).to_have_class(re.compile(r"\bpremove\b"))
    helpers.expect_notice(bob, "Premove: B@A2 first; now pick the cell of your G stone.")
    click_cell(bob, "A3")
    helpers.expect_notice(bob, "Premove B@A2, G@A3 queued: it is played as soon as your turn "
                               "comes. Click it again to cancel.")
    expect(premove_cell(bob, "A3")).to_have_class(re.compile(r"\bpremove\b"))
    expect(premove_cell(alice, "A2")).not_to_have_class(re.compile(r"\bpremove\b"))

    click_cell(alice, "A1")  # her red stone
    for page in (alice, bob):
        wait_ply(page, 3)
        for cell in ("A1", "A2", "A3"):
            expect_stone(page, cell)
    expect(premove_cell(bob, "A2")).not_to_have_class(re.compile(r"\bpremove\b"))
    expect(alice.locator("#game-page")).to_have_class(re.compile(r"\bmy-turn\b"))
    assert errors == []


def test_tripen_premove_of_a_pose(daphne_server, new_page):
    """Tripen: the pose the ghost shows is queued, drawn faintly as a token, and played by the
    server on the opponent's move."""
    from tests.browser.test_tripen_browser import aim, engine, expect_token

    server = daphne_server
    names = new_players(server, "pta", "ptb")
    path = start_game(server, "tripen", *names, options={"size": 5}, time="5+0")
    alice, bob = new_page(viewport=DESKTOP), new_page(viewport=DESKTOP)
    errors = []
    for page, name in ((alice, names[0]), (bob, names[1])):
        page.on("pageerror", lambda e: errors.append(str(e)))
        log_in(page, server, name)
        open_game(page, server, path)
    state = engine().new(**engine().normalize_options(size=5))

    aim(bob, state, "e1/0")
    bob.mouse.down()
    bob.mouse.up()
    expect(bob.locator('#board .premove-token[data-action="e1/0"]')).to_have_count(1)
    expect(alice.locator("#board .premove-token")).to_have_count(0)
    # Kept by the server: a reload draws it again.
    open_game(bob, server, path)
    expect(bob.locator('#board .premove-token[data-action="e1/0"]')).to_have_count(1)

    aim(alice, state, "c3/4")
    alice.mouse.down()
    alice.mouse.up()
    for page in (alice, bob):
        wait_ply(page, 2)
        expect_token(page, "e1/0", 1)
    expect(bob.locator("#board .premove-token")).to_have_count(0)
    assert errors == []
