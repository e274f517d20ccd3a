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
    shared, drawing = page.url, page.locator(".explorer-board svg").inner_html()
    shoot(page, screenshot_dir, "analysis-board-shared", full_page=True)

    reopened = new_page(viewport={"width": 390, "height": 844})
    reopened.goto(shared)
    expect(reopened.get_by_role("list", name="The line").locator("li")).to_have_text(
        ["Start", "c3/0", "swap"])
    assert reopened.locator(".explorer-board svg").inner_html() == drawing
    prompt = page.locator(".explorer p[role=status]").inner_text()
    expect(reopened.locator(".explorer p[role=status]")).to_have_text(prompt)
    shoot(reopened, screenshot_dir, "analysis-board-reopened-phone", full_page=True)
