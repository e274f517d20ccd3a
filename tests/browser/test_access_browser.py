"""Issue 21 items 21-23 and the keyboard of item 25 in Chromium, where only a browser shows them:
the profile's games table at 1280 px and on a 390 px phone, the theme button's first click,
touch and explore on the game page, and a move made and heard from the keyboard. Screenshots:
tests/browser/screenshots/access-*.png."""
import re

import pytest
from playwright.sync_api import expect

import games
from tests.browser.helpers import (
    DESKTOP, PHONE, log_in, new_players, open_game, play_on_server, shoot, start_game, wait_ply,
)
from tests.browser.test_tripen_browser import centroid, engine, screen_point, seat

pytestmark = pytest.mark.browser

TOUCH_PHONE = {"viewport": PHONE, "has_touch": True, "is_mobile": True}


# -- 21: the profile's games table fits, and leads with each game's link -------------------------

def test_item21_profile_games_fit_and_lead_with_their_link(daphne_server, new_page,
                                                           screenshot_dir):
    server = daphne_server
    # A long opponent's name and games that ended by play (the longest reasons).
    names = new_players(server, "tablewidth", "verylongopponentnm")
    start_game(server, "colorful", *names, options={"board": "long", "size": 4})
    for game, options, seed in (("colorful", {"board": "long", "size": 4}, 1),
                                ("copolymer", {"size": 5}, 2), ("hadron", {"size": 5}, 3)):
        play_on_server(server, game, options, seed=seed, names=names)
    for viewport, tag in ((DESKTOP, "desktop"), (PHONE, "phone")):
        page = new_page(viewport=viewport)
        page.goto(server.url + f"/u/{names[0]}/")
        for table in page.locator(".games-table").all():
            # Nothing to scroll sideways, nothing past the window's edge.
            fits = "t => t.parentElement.scrollWidth <= t.parentElement.clientWidth"
            assert table.evaluate(fits), tag
            for link in table.locator("tbody .game-link").all():
                box = link.bounding_box()
                assert box and box["x"] >= 0 and box["x"] + box["width"] <= viewport["width"], tag
                expect(link).to_be_visible()
        assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"], tag
        page.locator("#games-in-progress").scroll_into_view_if_needed()
        shoot(page, screenshot_dir, f"access-21-profile-{tag}", full_page=True)


# -- 22: the theme button's first click changes what is shown ----------------------------------

@pytest.mark.parametrize("device", ["light", "dark"])
def test_item22_first_theme_click_shows_the_other_scheme(daphne_server, new_page, device):
    page = new_page(color_scheme=device)
    page.goto(daphne_server.url + "/rules/")
    background = "getComputedStyle(document.body).backgroundColor"
    shown = page.evaluate(background)
    page.locator("#theme-toggle").click()
    other = "dark" if device == "light" else "light"
    expect(page.locator("html")).to_have_attribute("data-theme", other)
    page.wait_for_function(f"() => {background} !== {shown!r}")
    # Then the device's own scheme, chosen for good; then back to following the device.
    page.locator("#theme-toggle").click()
    expect(page.locator("html")).to_have_attribute("data-theme", device)
    page.locator("#theme-toggle").click()
    expect(page.locator("html")).not_to_have_attribute("data-theme", re.compile("."))
    expect(page.locator("#theme-toggle")).to_have_attribute("title",
                                                            re.compile("follows your device"))


# -- 23: touch and explore on the game page ------------------------------------------------------

def test_item23_a_tap_shows_a_colorful_group(daphne_server, new_page, screenshot_dir):
    server = daphne_server
    pk, plies, names = play_on_server(server, "colorful", {"board": "hexhex", "size": 3}, seed=2,
                                      stop_at=8)
    page = new_page(**TOUCH_PHONE)
    log_in(page, server, names[0])
    open_game(page, server, f"/game/{pk}/")
    row = page.locator("#groups .group[data-cells]").first
    cells = row.get_attribute("data-cells").split()
    row.tap()
    lit = page.locator("#board .cell.highlight")
    expect(lit).to_have_count(len(cells))
    page.wait_for_timeout(300)   # the finger has lifted: still lit
    expect(lit).to_have_count(len(cells))
    expect(row).to_have_class(re.compile(r"\bhot\b"))
    shoot(page, screenshot_dir, "access-23-colorful-group-tapped")
    # A tap on one of the group's stones on the board lights it too.
    page.locator(".game-info h1").tap()
    expect(lit).to_have_count(0)
    page.locator(f'#board [data-cell="{cells[0]}"]').tap()
    expect(lit).to_have_count(len(cells))


def test_item23_explore_shows_legal_move_hints(daphne_server, new_page):
    server = daphne_server
    pk, plies, names = play_on_server(server, "hadron", {"size": 5}, seed=4)
    page = new_page(viewport=DESKTOP)   # a spectator of a finished game
    page.goto(server.url + f"/game/{pk}/?ply=2")
    expect(page.locator(".replay-bar")).to_have_attribute("data-shown", "2")
    expect(page.locator("#pref-hints")).to_be_visible()
    expect(page.locator("#pref-hints")).to_be_checked()
    actions = page.eval_on_selector_all("#moves .act", "n => n.map(x => x.textContent.trim())")
    state = games.get("hadron").replay({"size": 5}, actions[:2])
    board = page.locator("#board")
    expect(board).to_have_class(re.compile(r"\bhints\b"))
    expect(page.locator("#board .cell.legal")).to_have_count(len(state.legal_actions()))
    # An explored action: the dots follow the line.
    action = state.legal_actions()[0]
    page.locator(f'#board [data-cell="{action}"]').click()
    after = state.play(action)
    expect(page.locator("#board .cell.legal")).to_have_count(len(after.legal_actions()))
    expect(board).to_have_class(re.compile(r"\bhints\b"))
    page.locator("#pref-hints").uncheck()
    expect(board).not_to_have_class(re.compile(r"\bhints\b"))


def test_item23_tripen_tap_on_the_filled_half_opens_the_picker(daphne_server, new_page,
                                                               screenshot_dir):
    names, pages, _ = seat(daphne_server, new_page, [TOUCH_PHONE, TOUCH_PHONE])
    first, second = pages
    state = engine().new(size=5)
    first.locator('#board [data-cell="c3"]').focus()
    first.keyboard.press("Enter")
    first.locator('.tripen-pose[data-action="c3/4"]').click()
    state = state.play("c3/4")
    wait_ply(second, 1)
    # The tap lands on the red token, not on the empty half of the cell.
    token = state.to_dict()["board"]["poses"]["c3/4"]
    second.touchscreen.tap(*screen_point(second, *centroid(token)))
    picker = second.locator(".tripen-picker")
    expect(picker).to_be_visible()
    expect(picker).to_contain_text("c3")
    expect(picker.locator(".tripen-pose:enabled")).to_have_count(1)
    shoot(second, screenshot_dir, "access-23-tripen-filled-half-tapped")
    picker.locator(".tripen-pose:enabled").tap()
    wait_ply(first, 2)


# -- 25: a move from the keyboard, with a visible focus and an announced result -----------------

def test_item25_keyboard_move_is_focused_and_announced(daphne_server, new_page, screenshot_dir):
    server = daphne_server
    names = new_players(server, "keya", "keyb")
    path = start_game(server, "hadron", *names, options={"size": 5})
    first, second = new_page(viewport=DESKTOP), new_page(viewport=DESKTOP)
    for page, name in zip((first, second), names):
        log_in(page, server, name)
        open_game(page, server, path)
    # Tab from the top of the page reaches the board's cells.
    for _ in range(80):
        first.keyboard.press("Tab")
        if first.evaluate("document.activeElement.matches('#board [data-cell]')"):
            break
    else:
        pytest.fail("Tab never reached a cell of the board")
    cell = first.evaluate("document.activeElement.dataset.cell")
    # The focus shows: the focused cell is drawn otherwise than an unfocused legal one.
    outline = """(el) => { const s = getComputedStyle(el.querySelector('.hex, .square'));
                           return [s.stroke, s.strokeWidth, s.outlineStyle].join(' '); }"""
    focused = first.evaluate(f"({outline})(document.activeElement)")
    other = first.locator(f'#board .cell.legal:not([data-cell="{cell}"])').first
    assert focused != other.evaluate(outline)
    shoot(first, screenshot_dir, "access-25-keyboard-focus")
    first.keyboard.press("Enter")
    for page in (first, second):
        wait_ply(page, 1)
        announce = page.locator("#announce")
        expect(announce).to_have_attribute("aria-live", "polite")
        expect(announce).to_have_text(re.compile(rf"^{names[0]} played {cell}\."))
    # The opponent's answer is heard on the first page too.
    second.locator("#board .cell.legal").first.click()
    wait_ply(first, 2)
    expect(first.locator("#announce")).to_contain_text(f"{names[1]} played")
