"""A takeback of a Copolymer turn with forced claims, on the live game page in Chromium: two
players and a spectator, each in their own browser context. X makes a placement that touches
two enemy cells, a forced claim that touches two more, and a last claim that ends the turn;
X proposes a takeback, O accepts, and all three claims go back for everyone, without a reload
(docs/protocol.md, "Takebacks": a turn goes back whole). Then X plays the ply otherwise.
Screenshots in light and dark (tests/browser/screenshots/takeback-copolymer-*.png)."""
import re

import pytest
from playwright.sync_api import expect

import games
from tests.browser import helpers
from tests.browser.helpers import (
    moves_of,
    DESKTOP, assert_not_reloaded, click_cell, expect_notice, expect_stone, log_in,
    new_players, open_game, set_scheme, start_game, wait_ply,
)

pytestmark = pytest.mark.browser

OPTIONS = {"size": 4}
# X's G-row claims are far from O's; O claims A1, A3 and C1 around the top-left corner.
OPENING = ["G7", "A1", "G6", "A3", "G5", "C1"]
# X's turn: A2 touches A1 and A3 (claim again), B1 touches A1 and C1 (claim again), D7
# touches no O cell (the turn ends).
TURN = ["A2", "B1", "D7"]
# The same ply played otherwise: B2 touches A1 only, a turn of one claim.
OTHERWISE = "B2"


def shoot_both(page, screenshot_dir, name):
    helpers.shoot_both(page, screenshot_dir, f"takeback-copolymer-{name}")
    set_scheme(page, "light")


def turns_of(page):
    """The move list's turns, each the list of its actions."""
    return page.eval_on_selector_all(
        "#moves .turn",
        "nodes => nodes.map(n => [...n.querySelectorAll('.act')].map(a => a.textContent))")


def expect_empty(page, cell):
    expect(page.locator(f'#board [data-cell="{cell}"]')).to_have_class(re.compile(r"\bempty\b"))


def expect_owner(page, cell, side):
    expect(page.locator(f'#board [data-cell="{cell}"] .stone.side-{side}')).to_have_count(1)


def test_a_turn_with_forced_claims_is_taken_back_whole(daphne_server, new_page, screenshot_dir):
    server = daphne_server
    # The sequence does what the comments say (the engine is the judge).
    state = games.get("copolymer").new(**OPTIONS)
    for action in OPENING:
        state = state.play(action)
    before_turn = state
    prompts = []
    for action in TURN:
        state = state.play(action)
        prompts.append(state.to_dict()["prompt"])
    assert before_turn.to_move == 0
    assert "again" in prompts[0] and "again" in prompts[1] and "again" not in prompts[2]
    assert state.to_move == 1

    names = new_players(server, "cpta", "cptb")
    path = start_game(server, "copolymer", *names, options=OPTIONS, time="5+0")
    x, o = new_page(viewport=DESKTOP), new_page(viewport=DESKTOP)
    for page, name in ((x, names[0]), (o, names[1])):
        log_in(page, server, name)
    spectator = new_page(viewport=DESKTOP)
    everyone = (x, o, spectator)
    markers = {}
    for page in everyone:
        page.on("console", lambda m: m.type in ("error", "warning") and print("CONSOLE", m.type, m.text))
        page.on("pageerror", lambda e: print("PAGEERROR", e))
        markers[id(page)] = open_game(page, server, path)

    # The opening, one claim a turn.
    players = (x, o)
    for ply, cell in enumerate(OPENING, start=1):
        click_cell(players[(ply - 1) % 2], cell)
        for page in everyone:
            wait_ply(page, ply)
    start = len(OPENING)
    expect(x.locator("#prompt")).to_have_text("X to claim a cell")

    # X's turn: a placement and two forced claims; each page tells X to claim again.
    for i, cell in enumerate(TURN):
        click_cell(x, cell)
        for page in everyone:
            wait_ply(page, start + i + 1)
            expect(page.locator("#prompt")).to_have_text(prompts[i])
    for page in everyone:
        for cell in TURN:
            expect_owner(page, cell, 0)
        assert turns_of(page)[-1] == TURN  # one turn of three claims
    expect(o.locator("#game-page")).to_have_class(re.compile(r"\bmy-turn\b"))

    # O's turn: X proposes to take back the turn, O is asked.
    expect(x.locator("#takeback")).to_be_enabled()
    x.click("#takeback")
    expect(o.locator("#takeback-note")).to_have_text(f"{names[0]} proposes a takeback.")
    expect(o.locator("#takeback-accept")).to_be_visible()
    expect(o.locator("#takeback-decline")).to_be_visible()
    expect(x.locator("#takeback-note")).to_have_text("Takeback proposed: waiting for an answer.")
    expect(spectator.locator("#takeback-note")).to_have_text(f"{names[0]} proposes a takeback.")
    expect(spectator.locator("#takeback-accept")).to_be_hidden()
    shoot_both(o, screenshot_dir, "opponent-asked")
    o.click("#takeback-accept")

    # The whole turn is gone for all three: the ply is the turn's first, X is to move again.
    for page in everyone:
        wait_ply(page, start)
        for cell in TURN:
            expect_empty(page, cell)
        for cell in OPENING:
            expect_stone(page, cell)
        expect(page.locator("#moves .act")).to_have_count(start)
        assert moves_of(page) == OPENING
        assert [len(turn) for turn in turns_of(page)] == [1] * start
        expect(page.locator("#prompt")).to_have_text("X to claim a cell")
        expect(page.locator('#players .player[data-player="0"] .clock')).to_have_class(re.compile(r"\brunning\b"))
        expect(page.locator("#takeback-note")).to_have_text("")
    expect(x.locator("#game-page")).to_have_class(re.compile(r"\bmy-turn\b"))
    expect(x.locator("#prompt-who")).to_have_text("Your move")
    expect(o.locator("#game-page")).not_to_have_class(re.compile(r"\bmy-turn\b"))
    expect(o.locator("#prompt-who")).to_have_text("Waiting")
    expect(x.locator("#board .cell.legal")).to_have_count(37 - start)
    expect_notice(x, "Takeback accepted.")
    expect_notice(spectator, f"{names[0]}'s takeback was accepted.")
    shoot_both(x, screenshot_dir, "taken-back")
    shoot_both(spectator, screenshot_dir, "taken-back-spectator")

    # The same ply played otherwise: one claim, O's turn, and nobody sees the old turn.
    click_cell(x, OTHERWISE)
    for page in everyone:
        wait_ply(page, start + 1)
        expect_owner(page, OTHERWISE, 0)
        for cell in TURN:
            expect_empty(page, cell)
        assert moves_of(page) == OPENING + [OTHERWISE]
        expect(page.locator("#prompt")).to_have_text("O to claim a cell")
    expect(o.locator("#game-page")).to_have_class(re.compile(r"\bmy-turn\b"))
    # Stepping to the new ply shows the history that stands.
    spectator.locator(f'#moves .act[data-ply="{start + 1}"]').click()
    expect(spectator.locator(".replay-bar")).to_have_attribute("data-shown", str(start + 1))
    expect_owner(spectator, OTHERWISE, 0)
    for cell in TURN:
        expect_empty(spectator, cell)
    shoot_both(o, screenshot_dir, "played-otherwise")
    for page in everyone:
        assert_not_reloaded(page, markers[id(page)])
