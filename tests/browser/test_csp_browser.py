"""The site under its Content-Security-Policy, in Chromium: every page and feature works, and
nothing is blocked. Any `securitypolicyviolation` event, console error about the Content
Security Policy or uncaught script error on any page fails the test.

Two players and a spectator (separate browser contexts) go through the home page, the theme
switch, the rules, the lobby, a live Hadron game (moves reach the other player's and the
spectator's boards over the websocket), notifications, Watch, a Tripen game's ghost token, the
Archive, a replay and its exports, and the admin.
"""
import re

import pytest
from playwright.sync_api import expect

import games
from tests.browser.helpers import (
    PASSWORD, click_cell, expect_stone, log_in, new_players, open_game, open_lobby, open_page, shoot,
    start_game, wait_ply,
)
from tests.browser.test_archive_browser import expect_ply, finished_game
from tests.browser.test_tripen_browser import aim, ghost

pytestmark = pytest.mark.browser

# Reported on the page's console, so it survives navigations (a listener on `window` would not).
REPORT_VIOLATIONS = """
document.addEventListener("securitypolicyviolation", (e) => {
  console.error(`CSP violation: ${e.violatedDirective} blocked ${e.blockedURI || "inline"}`
                + ` at ${e.sourceFile}:${e.lineNumber} ${e.sample || ""}`);
});
"""


class Problems(list):
    """What went wrong on the watched pages: CSP violations and script errors."""

    def watch(self, page, who):
        page.add_init_script(REPORT_VIOLATIONS)
        page.on("console", lambda message: self.console(who, page, message))
        page.on("pageerror", lambda error: self.append(f"{who} {page.url}: script error {error}"))
        return page

    def console(self, who, page, message):
        text = message.text
        if "Content Security Policy" in text or "CSP violation" in text:
            self.append(f"{who} {page.url}: {text}")


@pytest.fixture
def problems():
    return Problems()


def test_the_policy_blocks_inline_code_and_the_test_sees_it(daphne_server, new_page, problems):
    """The watch above is live: an inline script added to a page is refused and reported."""
    page = problems.watch(new_page(), "visitor")
    page.goto(daphne_server.url + "/")
    with page.expect_console_message(lambda m: "CSP violation" in m.text):
        page.evaluate("""() => {
            const script = document.createElement("script");
            script.textContent = "window.inlineRan = true";
            document.body.append(script);
        }""")
    assert page.evaluate("window.inlineRan === undefined")
    assert any("CSP violation: script-src" in problem for problem in problems), problems


def theme(page):
    return page.evaluate("document.documentElement.dataset.theme || 'auto'")


def test_every_page_works_under_the_policy(daphne_server, new_page, problems, screenshot_dir):
    server = daphne_server
    first, second = new_players(server, "cspa", "cspb")
    players = [problems.watch(new_page(), name) for name in (first, second)]
    spectator = problems.watch(new_page(), "spectator")

    # Home and log-in; the theme switch cycles and its choice is applied on the next page
    # before the first paint (static/js/theme-early.js).
    for page, name in zip(players, (first, second)):
        log_in(page, server, name)
    home = players[0]
    home.goto(server.url + "/")
    assert theme(home) == "auto"
    # The device is light (headless Chromium): first the scheme it does not show.
    home.click("#theme-toggle")
    assert theme(home) == "dark"
    home.click("#theme-toggle")
    assert theme(home) == "light"
    home.goto(server.url + "/rules/")
    assert theme(home) == "light"
    home.click("#theme-toggle")
    assert theme(home) == "auto"

    # The rules, with their diagrams.
    for path in ("/rules/", "/rules/hadron/", "/rules/tripen/", "/rules/copolymer/",
                 "/rules/colorful/"):
        spectator.goto(server.url + path)
        expect(spectator.locator("main h1")).to_be_visible()

    # The lobby's socket, and the notifications' on another page.
    open_lobby(players[0], server)
    open_page(players[1], server, "/rules/")

    # A live game: each move appears on the other player's board and the spectator's.
    path = start_game(server, "hadron", first, second, options={"size": 5})
    for page in (*players, spectator):
        open_game(page, server, path)
    state = games.get("hadron").new(size=5)
    for _ in range(4):
        mover, other = players[state.to_move], players[1 - state.to_move]
        action = state.legal_actions()[len(state.legal_actions()) // 2]
        click_cell(mover, action)
        state = state.play(action)
        for page in (other, spectator):
            wait_ply(page, state.ply)
            expect_stone(page, action)
    shoot(spectator, screenshot_dir, "csp-live-game-spectator")

    # Watch lists it.
    game_id = re.fullmatch(r"/game/(\d+)/", path)[1]
    spectator.goto(server.url + "/watch/")
    expect(spectator.locator("#connection")).to_have_class(re.compile(r"\bopen\b"))
    expect(spectator.locator(f"#watch-game-{game_id}")).to_be_visible()

    # Tripen: the ghost token follows the pointer over the board.
    tripen_path = start_game(server, "tripen", first, second)
    open_game(players[0], server, tripen_path)
    aim(players[0], games.get("tripen").new(), "c3/0")
    expect(ghost(players[0])).to_be_visible()
    expect(ghost(players[0])).to_have_attribute("data-action", "c3/0")

    # The Archive, a replay and the exports.
    pk, plies, (winner, _) = finished_game(server, "hadron", {"size": 5})
    spectator.goto(f"{server.url}/archive/?player={winner}")
    row = spectator.locator(f'.archive-row[data-game="{pk}"]')
    expect(row).to_be_visible()
    spectator.wait_for_function("img => img.complete && img.naturalWidth > 0",
                                arg=row.locator(".thumb img").element_handle())
    row.locator(".game-link").click()
    expect_ply(spectator, plies)
    spectator.locator("body").press("Home")
    expect_ply(spectator, 0)
    spectator.keyboard.press("ArrowRight")
    expect_ply(spectator, 1)
    for link, suffix in ((".record-txt", ".txt"), (".record-json", ".json"),
                         (".position-svg", ".svg")):
        with spectator.expect_download() as download:
            spectator.locator(link).click()
        assert download.value.suggested_filename.endswith(suffix)
    shoot(spectator, screenshot_dir, "csp-replay")

    # The admin.
    boss = server.create_user(f"cspboss{pk}", PASSWORD, staff=True)
    admin = problems.watch(new_page(), boss)
    log_in(admin, server, boss)
    for page_path in ("/admin/", "/admin/auth/user/", "/admin/play/game/"):
        admin.goto(server.url + page_path)
        expect(admin.locator("#content")).to_be_visible()

    assert problems == []
