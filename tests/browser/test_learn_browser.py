"""A new visitor, with no account, finds the Hadron lesson on the home page, completes it and
then solves a puzzle, on a desktop and on a phone (Chromium against a real Daphne server).
The engine runs in the test process only to know the puzzle's winning moves as it goes.
Screenshots: tests/browser/screenshots/learn-*.png."""
import pytest
from playwright.sync_api import expect

from games.puzzles import load, position_of
from games.solver import solve
from tests.browser.helpers import shoot

pytestmark = pytest.mark.browser

HADRON_DONE = ["c3", "c2", "c3", "b5", "e1"]
VIEWS = {"desktop": {"viewport": {"width": 1280, "height": 900}},
         "phone": {"viewport": {"width": 390, "height": 844}, "device_scale_factor": 2,
                   "is_mobile": True, "has_touch": True}}


def play(page, action, touch):
    page.fill("#id_action", action)
    button = page.locator("form.learn-action button[type=submit]")
    with page.expect_navigation():
        button.tap() if touch else button.click()


@pytest.mark.parametrize("view", list(VIEWS))
def test_a_visitor_completes_the_hadron_lesson_then_a_puzzle(daphne_server, new_page,
                                                             screenshot_dir, view):
    page = new_page(**VIEWS[view])
    touch = VIEWS[view].get("has_touch", False)
    page.goto(daphne_server.url + "/")
    page.get_by_role("link", name="start").click()
    for number, action in enumerate(HADRON_DONE, start=1):
        expect(page.locator("h1")).to_be_visible()
        expect(page.locator(".learn-board svg")).to_be_visible()
        if number == 2:     # a refused action first: the engine's own reason
            play(page, "a2", touch)
            expect(page.locator(".verdict-illegal")).to_have_text(
                "Not allowed: a2 has 1 red neighbour and no blue neighbours.")
            shoot(page, screenshot_dir, f"learn-{view}-refused", full_page=True)
        play(page, action, touch)
        expect(page.locator(".verdict-done")).to_be_visible()
        if number < len(HADRON_DONE):
            page.get_by_role("link", name="Next step").click()
    expect(page.locator("form.computer-form")).to_be_visible()
    shoot(page, screenshot_dir, f"learn-{view}-lesson-done", full_page=True)

    puzzle = next(p for p in load("hadron") if p["depth"] == 3)
    page.goto(f"{daphne_server.url}/puzzles/hadron/{puzzle['id']}/")
    state = position_of(puzzle)
    while True:
        move = solve(state, puzzle["depth"] - (state.ply - puzzle["ply"])).moves[0]
        play(page, move, touch)
        if page.locator(".verdict-solved").count():
            break
        expect(page.locator(".verdict-again")).to_be_visible()
        moves = page.locator("input[name=moves]").input_value().split()
        state = position_of(puzzle)
        for action in moves:
            state = state.play(action)
    expect(page.locator(".verdict-solved")).to_contain_text("Solved")
    shoot(page, screenshot_dir, f"learn-{view}-puzzle-solved", full_page=True)
    page.goto(daphne_server.url + "/learn/")
    expect(page.locator("body")).to_contain_text("5 steps, 5 done")
    expect(page.locator("body")).to_contain_text("1 solved")
