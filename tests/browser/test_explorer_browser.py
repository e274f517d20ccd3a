"""The analysis board's address is its position: a visitor plays a line (a typed move and a
listed legal move), and the address, opened in a fresh page, shows the same position; the
opening explorer links to it (Chromium against a real Daphne server).
Screenshots: tests/browser/screenshots/analysis-board-*.png."""
import pytest
from playwright.sync_api import expect

from tests.browser.helpers import shoot

pytestmark = pytest.mark.browser


def test_the_analysis_board_share_url_reopens_the_same_position(daphne_server, new_page,
                                                                screenshot_dir):
    page = new_page(viewport={"width": 1280, "height": 900})
    page.goto(daphne_server.url + "/explorer/tripen/?size=5")
    page.get_by_role("link", name="Open in the analysis board").click()
    expect(page.locator("h1")).to_have_text("Tripen analysis board")
    page.fill("#id_next", "c3/0")
    with page.expect_navigation():
        page.locator("form.explorer-play button[type=submit]").click()
    page.locator("summary", has_text="legal moves").click()  # 140: folded away
    page.get_by_role("link", name="swap", exact=True).click()
    expect(page.get_by_role("list", name="The line").locator("li")).to_have_text(
        ["Start", "c3/0", "swap"])
    expect(page.locator("#board-picture")).to_have_count(0)     # the live board is drawn
    shared, drawing = page.url, page.locator("svg#board").inner_html()
    shoot(page, screenshot_dir, "analysis-board-shared", full_page=True)

    reopened = new_page(viewport={"width": 390, "height": 844})
    reopened.goto(shared)
    expect(reopened.get_by_role("list", name="The line").locator("li")).to_have_text(
        ["Start", "c3/0", "swap"])
    expect(reopened.locator("#board-picture")).to_have_count(0)
    assert reopened.locator("svg#board").inner_html() == drawing
    prompt = page.locator(".explorer p[role=status]").inner_text()
    expect(reopened.locator(".explorer p[role=status]")).to_have_text(prompt)
    shoot(reopened, screenshot_dir, "analysis-board-reopened-phone", full_page=True)


@pytest.mark.parametrize("touch", [False, True])
def test_the_analysis_board_is_played_on_the_board(daphne_server, new_page, screenshot_dir,
                                                   touch):
    """A click (a tap) on a cell plays it, with the legal cells dotted; a refused one is
    answered with the engine's reason."""
    view = ({"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}
            if touch else {"viewport": {"width": 1280, "height": 900}})
    page = new_page(**view)
    page.goto(daphne_server.url + "/analysis-board/hadron/?size=5")
    expect(page.locator("svg#board.live-board.interactive.hints")).to_be_visible()

    def pick(cell):
        """Judged without a page load (static/js/board-form.js): a mark left on the window
        survives, and the address becomes the longer line's."""
        page.evaluate("window.samePage = true")
        target = page.locator(f'svg#board [data-cell="{cell}"]')
        target.tap() if touch else target.click()
        page.wait_for_function("() => !document.querySelector('form.sending')")
        assert page.evaluate("window.samePage === true"), "the pick loaded a page"

    pick("c3")
    pick("a1")
    expect(page.get_by_role("list", name="The line").locator("li")).to_have_text(
        ["Start", "c3", "a1"])
    assert page.url.endswith("?size=5&moves=c3%2Ca1")
    reopened = new_page(**view)
    reopened.goto(page.url)
    expect(reopened.get_by_role("list", name="The line").locator("li")).to_have_text(
        ["Start", "c3", "a1"])
    expect(reopened.locator("svg#board.live-board.interactive")).to_be_visible()
    tiles = """() => [...document.querySelectorAll("svg#board .cell")].map(
        (cell) => [cell.dataset.cell, cell.querySelector(".stone")?.getAttribute("class") || ""])"""
    assert reopened.evaluate(tiles) == page.evaluate(tiles)
    assert reopened.locator("#board-prompt").inner_text() == page.locator("#board-prompt").inner_text()
    shoot(page, screenshot_dir, f"analysis-board-clicked-{'phone' if touch else 'desktop'}",
          full_page=True)
    pick("c2")      # beside the red tile on c3 and no blue one
    expect(page.get_by_role("alert")).to_contain_text(
        "c2 has 1 red neighbour and no blue neighbours")


def test_a_set_up_position_is_built_on_the_page_and_its_address_reopens_it(daphne_server,
                                                                           new_page):
    """Pieces placed with the set-up form, the side to move following the counts; the page
    passes axe; the address, opened in a fresh page, draws the same position."""
    from tests.browser.test_accessibility_browser import audit_both

    page = new_page(viewport={"width": 1280, "height": 900})
    page.goto(daphne_server.url + "/analysis-board/hadron/?size=5")
    for cell, side in [("c3", "Red"), ("b2", "Blue")]:
        page.fill("#id_place", cell)
        page.select_option("#id_piece", label=side)
        with page.expect_navigation():
            page.get_by_role("button", name="Place").click()
    expect(page.get_by_role("list", name="Pieces set up").locator("li")).to_have_count(2)
    expect(page.locator("svg#board.live-board.interactive")).to_be_visible()
    assert "setup=b2%3A1%2Cc3%3A0&turn=0" in page.url
    assert audit_both(page, "/analysis-board/hadron/ (set up)") == []
    reopened = new_page(viewport={"width": 390, "height": 844})
    reopened.goto(page.url)
    tiles = """() => [...document.querySelectorAll("svg#board .cell")].map(
        (cell) => [cell.dataset.cell, cell.querySelector(".stone")?.getAttribute("class") || ""])"""
    expect(reopened.locator("svg#board.live-board.interactive")).to_be_visible()
    assert reopened.evaluate(tiles) == page.evaluate(tiles)
    # By the board: a click on an empty cell places the chosen piece, on a piece removes it.
    page.get_by_label("Place and remove pieces by clicking the board").check()
    with page.expect_navigation():
        page.locator('svg#board [data-cell="d4"]').click()
    expect(page.get_by_role("list", name="Pieces set up")).to_contain_text("d4: Red")
    assert "turn=1" in page.url
    page.get_by_label("Place and remove pieces by clicking the board").check()
    with page.expect_navigation():
        page.locator('svg#board [data-cell="d4"]').click()
    expect(page.get_by_role("list", name="Pieces set up").locator("li")).to_have_count(2)
    # A count the rules refuse: the reason, and the board as it was.
    page.select_option("#id_set_turn", label="Blue")
    with page.expect_navigation():
        page.get_by_role("button", name="Set", exact=True).click()
    expect(page.get_by_role("alert")).to_contain_text("Red has 1 and Blue 1")
    assert page.evaluate(tiles) == reopened.evaluate(tiles)
