"""A new visitor, with no account, finds the Hadron lesson on the home page, completes it and
then solves a puzzle by clicking (on a phone: tapping) the board, on a desktop and on a phone
(Chromium against a real Daphne server); the steps that take several actions (Colorful's two
stones, Copolymer's forced claims, Tripen's pie rule and its tokens) are played on the board
too, and the typed notation still works. The engine runs in the test process only to know
the puzzle's winning moves as it goes. Screenshots: tests/browser/screenshots/learn-*.png."""
from contextlib import contextmanager

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
    """The typed fallback: the action in notation, sent with the form's button."""
    page.fill("#id_action", action)
    button = page.locator("form.learn-action button[type=submit]")
    with page.expect_navigation():
        button.tap() if touch else button.click()


@contextmanager
def judged(page):
    """A pick answered in place (fetch and JSON, static/js/board-form.js): the page is not
    loaded again (a mark left on its window survives) and the form is no longer sending."""
    page.evaluate("window.samePage = true")
    yield
    page.wait_for_function("() => !document.querySelector('form.sending')")
    assert page.evaluate("window.samePage === true"), "the pick loaded a page"


def pick(page, cell, touch):
    """A click (a tap on the phone) on a cell of the live board; the page sends it."""
    target = page.locator(f'svg#board.live-board [data-cell="{cell}"]')
    with judged(page):
        target.tap() if touch else target.click()


def place_token(page, action, touch):
    """A Tripen token: on a desktop a click where the pose's half of the cell is (the board
    aims the ghost at the nearest pose); on a phone a tap on the cell, then on the pose in
    the picker."""
    x, y = page.evaluate("""(action) => {
        const state = JSON.parse(document.getElementById("board-position").textContent);
        const polygon = state.board.poses[action];
        const svg = document.getElementById("board");
        const point = svg.createSVGPoint();
        point.x = polygon.reduce((s, p) => s + p[0], 0) / polygon.length;
        point.y = polygon.reduce((s, p) => s + p[1], 0) / polygon.length;
        const screen = point.matrixTransform(svg.getScreenCTM());
        return [screen.x, screen.y];
    }""", action)
    if touch:
        page.touchscreen.tap(x, y)
        with judged(page):
            page.locator(f'.tripen-picker button[data-action="{action}"]').tap()
        return
    page.mouse.move(x, y)
    with judged(page):
        page.mouse.click(x, y)


def act(page, action, touch):
    """Any action on the board, as a learner makes it: Colorful's colour first, then the cell;
    Tripen's token or its swap; a cell otherwise."""
    if action == "swap":
        with judged(page):
            page.get_by_role("button", name="Swap colours").click()
    elif "/" in action:
        place_token(page, action, touch)
    elif "@" in action:
        colour, cell = action.split("@")
        page.locator(f'#chooser-buttons [data-colour="{colour}"]').click()
        pick(page, cell, touch)
    else:
        pick(page, action, touch)


@pytest.mark.parametrize("view", list(VIEWS))
def test_a_visitor_completes_the_hadron_lesson_then_a_puzzle(daphne_server, new_page,
                                                             screenshot_dir, view):
    page = new_page(**VIEWS[view])
    touch = VIEWS[view].get("has_touch", False)
    page.goto(daphne_server.url + "/")
    page.get_by_role("link", name="start").click()
    for number, action in enumerate(HADRON_DONE, start=1):
        expect(page.locator("h1")).to_be_visible()
        expect(page.locator("svg#board.live-board.interactive")).to_be_visible()
        if number == 2:     # a refused action first: the engine's own reason
            pick(page, "a2", touch)
            expect(page.locator(".verdict-illegal")).to_have_text(
                "Not allowed: a2 has 1 red neighbour and no blue neighbours.")
            shoot(page, screenshot_dir, f"learn-{view}-refused", full_page=True)
        pick(page, action, touch)
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
        pick(page, move, touch)
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


@pytest.mark.parametrize("game", ["copolymer", "tripen", "colorful"])
def test_a_puzzle_of_each_game_is_solved_on_the_board(daphne_server, new_page, game):
    """The shortest puzzles: Copolymer's and Colorful's take two actions of one turn."""
    page = new_page(**VIEWS["desktop"])
    puzzle = min(load(game), key=lambda p: p["depth"])
    page.goto(f"{daphne_server.url}/puzzles/{game}/{puzzle['id']}/")
    state = position_of(puzzle)
    while True:
        expect(page.locator("svg#board.live-board.interactive")).to_be_visible()
        move = solve(state, puzzle["depth"] - (state.ply - puzzle["ply"])).moves[0]
        act(page, move, False)
        if page.locator(".verdict-solved").count():
            break
        expect(page.locator(".verdict-again")).to_be_visible()
        state = position_of(puzzle)
        for action in page.locator("input[name=moves]").input_value().split():
            state = state.play(action)
    expect(page.locator(".verdict-solved")).to_contain_text("Solved")
    expect(page.locator("svg#board.interactive")).to_have_count(0)


def test_the_typed_notation_still_plays_a_step(daphne_server, new_page):
    page = new_page(**VIEWS["desktop"])
    page.goto(daphne_server.url + "/learn/hadron/2/")
    play(page, "a2", False)
    expect(page.locator(".verdict-illegal")).to_have_text(
        "Not allowed: a2 has 1 red neighbour and no blue neighbours.")
    play(page, "c2", False)
    expect(page.locator(".verdict-done")).to_be_visible()
    # Done: the board shows the position and takes no more actions.
    expect(page.locator("svg#board.live-board")).to_be_visible()
    expect(page.locator("svg#board.interactive")).to_have_count(0)


@pytest.mark.parametrize("view", list(VIEWS))
def test_steps_of_several_actions_are_played_on_the_board(daphne_server, new_page,
                                                          screenshot_dir, view):
    page = new_page(**VIEWS[view])
    touch = VIEWS[view].get("has_touch", False)
    tap = (lambda locator: locator.tap()) if touch else (lambda locator: locator.click())

    # Colorful: two stones, one blue and one green, each colour chosen, then a cell.
    page.goto(daphne_server.url + "/learn/colorful/2/")
    tap(page.locator('#chooser-buttons [data-colour="B"]'))
    expect(page.locator('#chooser-buttons [data-colour="B"]')).to_have_attribute(
        "aria-pressed", "true")
    pick(page, "B2", touch)
    expect(page.locator(".verdict-again")).to_contain_text("green")
    # Only green is owed now: the chooser offers it alone, already chosen.
    expect(page.locator("#chooser-buttons button")).to_have_count(1)
    shoot(page, screenshot_dir, f"learn-{view}-colorful-second-stone", full_page=True)
    pick(page, "C3", touch)     # taken: the engine says why
    expect(page.locator(".verdict-illegal")).to_contain_text("Not allowed:")
    pick(page, "D4", touch)
    expect(page.locator(".verdict-done")).to_contain_text("Both stones are down")
    shoot(page, screenshot_dir, f"learn-{view}-colorful-done", full_page=True)

    # Copolymer: a claim that obliges another, then the claim that ends the turn.
    page.goto(daphne_server.url + "/learn/copolymer/3/")
    pick(page, "A2", touch)
    expect(page.locator(".verdict-again")).to_contain_text("claim again")
    pick(page, "C4", touch)
    expect(page.locator(".verdict-done")).to_contain_text("your turn ends")

    # Tripen: the pie rule's swap is a button under the board.
    page.goto(daphne_server.url + "/learn/tripen/2/")
    with judged(page):
        tap(page.get_by_role("button", name="Swap colours"))
    expect(page.locator(".verdict-done")).to_contain_text("You swapped")

    # Tripen: a token in the free half of c3.
    page.goto(daphne_server.url + "/learn/tripen/3/")
    expect(page.locator("svg#board.live-board.interactive")).to_be_visible()
    shoot(page, screenshot_dir, f"learn-{view}-tripen-step", full_page=True)
    place_token(page, "c3/5", touch)
    expect(page.locator(".verdict-done")).to_contain_text("fills the other half of c3")
    shoot(page, screenshot_dir, f"learn-{view}-tripen-done", full_page=True)


def test_a_refused_token_gets_the_engines_reason(daphne_server, new_page):
    """On a desktop a click on a pose the engine refuses is sent, and refused in words."""
    page = new_page(**VIEWS["desktop"])
    page.goto(daphne_server.url + "/learn/tripen/3/")
    place_token(page, "c3/2", False)
    expect(page.locator(".verdict-illegal")).to_contain_text("Not allowed:")


def test_the_playable_boards_pass_axe(daphne_server, new_page):
    """The live board, Colorful's chooser and Tripen's swap button, as axe audits them."""
    from tests.browser.test_accessibility_browser import audit_both

    page = new_page(**VIEWS["desktop"])
    found = []
    for path in ["/learn/hadron/2/", "/learn/copolymer/3/", "/learn/colorful/2/",
                 "/learn/tripen/2/", "/puzzles/tripen/"]:
        page.goto(daphne_server.url + path)
        expect(page.locator("svg#board.live-board.interactive")).to_be_visible()
        found += audit_both(page, path)
    assert found == []


def test_a_lesson_step_is_played_from_the_keyboard(daphne_server, new_page):
    """The board's cells are buttons for the keyboard: Tab to one, Enter plays it."""
    page = new_page(**VIEWS["desktop"])
    page.goto(daphne_server.url + "/learn/hadron/2/")
    cell = page.locator('svg#board [data-cell="c2"]')
    expect(cell).to_have_attribute("role", "button")
    cell.focus()
    with judged(page):
        page.keyboard.press("Enter")
    expect(page.locator(".verdict-done")).to_contain_text("c2 has 1 red and 1 blue")
