"""The computer analysis and a hint in Chromium, as a signed-in viewer uses them.

A game with a thrown-away win (tests/blundered.py) is stored in the server's database; a
visitor opening its replay sees no analysis and is asked to log in; a signed-in viewer asks
for it, watches it come in, sees the graph with the blunder marked ("??"), clicks the mark
(the replay goes to that position), steps back, explores a move and asks for a hint, which
the board marks and names; playing the hinted move on the board explores it. The jobs run in
the server's own workers (the embedded default), one position per slice in the first test.
"""
import random
import re

import pytest
from playwright.sync_api import expect

import games
import games.setup
from games.mcts import immediate_wins
from tests.blundered import STORE_GAME, blundered_game
from tests.browser.helpers import PHONE, click_cell, log_in, new_players, shoot, shoot_both

# Waits for the server's jobs (pyproject.toml, marker "thinks"): run one at a time.
pytestmark = [pytest.mark.browser, pytest.mark.thinks]


def expect_ply(page, ply):
    bar = page.locator(".replay-bar")
    expect(bar).to_have_attribute("data-ply", str(ply))
    expect(bar).to_have_attribute("data-shown", str(ply))


@pytest.fixture(scope="module")
def sliced_server(module_site_servers):
    """A server of its own whose pool analyses one position per slice: every slice a job
    that the one before queued (analysis.jobs), as on a long game. The pool is named: with
    REDIS_URL set (the scale run) the default would be a Redis queue, which only
    `manage.py jobs_worker` processes serve (tests/scale has those)."""
    return module_site_servers(ANALYSIS_SLICE="0", JOBS_MODE="pool")


def test_request_analysis_follow_a_mark_and_take_a_hint(sliced_server, new_page,
                                                         screenshot_dir):
    server = sliced_server
    name, options = "hadron", {"size": 5}
    actions, blunder = blundered_game(name, options)
    first, second, viewer = new_players(server, "anx", "any", "anv")
    pk = int(server.shell(STORE_GAME.format(names=(first, second), game=name, options=options,
                                            actions=actions)).split()[-1])
    plies = len(actions)

    # A visitor: nothing analysed yet, and a way to log in to ask.
    visitor = new_page()
    visitor.goto(f"{server.url}/game/{pk}/")
    panel = visitor.locator("#analysis")
    expect(panel).to_be_visible()
    expect(panel).to_have_attribute("data-status", "none")
    expect(visitor.locator("#analysis-login")).to_be_visible()
    expect(visitor.locator("#analysis-request")).to_be_hidden()

    page = new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    log_in(page, server, viewer)
    page.goto(f"{server.url}/game/{pk}/")
    expect_ply(page, plies)
    request = page.locator("#analysis-request")
    expect(request).to_be_visible()
    request.click()
    # The worker's progress comes in, then the whole graph.
    expect(page.locator("#analysis-status")).to_contain_text(re.compile(r"Waiting|Analysing|Analysed"))
    expect(page.locator("#analysis")).to_have_attribute("data-status", "done")
    expect(page.locator("#analysis")).to_have_attribute("data-analysed", str(plies + 1))
    expect(page.locator("#analysis-request")).to_be_hidden()
    mark = page.locator(f'#analysis-chart .chart-mark.blunder[data-ply="{blunder}"]')
    expect(mark).to_be_visible()
    expect(mark.locator("text")).to_have_text("??")
    listed = page.locator(f'#analysis-marks .mark-button[data-ply="{blunder}"]')
    expect(listed).to_contain_text(f"{blunder}. {actions[blunder - 1]}??")
    expect(page.locator("#analysis-status")).to_contain_text(re.compile(r"\b[1-9]\d* blunders?\b"))
    page.locator("#analysis").scroll_into_view_if_needed()
    shoot(page, screenshot_dir, "analysis-graph", full_page=True)

    # The mark goes to the position after the blunder; the cursor follows.
    mark.click()
    expect_ply(page, blunder)
    expect(page.locator("#analysis-chart .chart-cursor")).to_have_attribute("data-ply", str(blunder))
    expect(listed).to_have_attribute("aria-current", "true")

    # One position back the mover could have won at once: the hint says how.
    page.keyboard.press("ArrowLeft")
    expect_ply(page, blunder - 1)
    engine = games.get(name)
    before = engine.replay(options, actions[: blunder - 1])
    page.locator("#hint-request").click()
    hint_text = page.locator("#hint-text")
    expect(hint_text).to_contain_text("The engine would play")
    hinted = hint_text.text_content().removeprefix("The engine would play ").rstrip(".")
    assert hinted in immediate_wins(before)
    expect(page.locator(f'#board [data-cell="{hinted}"]')).to_have_class(re.compile(r"\bhinted\b"))

    # Exploring: another move on the board, then a hint for that position.
    other = next(action for action in sorted(before.legal_actions()) if action != hinted)
    click_cell(page, other)
    expect(page.locator(".replay-bar")).to_have_class(re.compile(r"\bexploring\b"))
    expect(page.locator("#board .hinted")).to_have_count(0)
    expect(hint_text).to_have_text("")
    page.locator("#hint-request").click()
    expect(hint_text).to_contain_text("The engine would play")
    suggestion = hint_text.text_content().removeprefix("The engine would play ").rstrip(".")
    explored = before.play(other)
    assert suggestion in explored.legal_actions()
    cell = page.locator(f'#board [data-cell="{suggestion}"]')
    expect(cell).to_have_class(re.compile(r"\bhinted\b"))
    page.locator("#analysis").scroll_into_view_if_needed()
    shoot(page, screenshot_dir, "analysis-hint", full_page=True)
    # Playing the hint on the board goes on exploring with it.
    click_cell(page, suggestion)
    expect(page.locator(".replay-line")).to_contain_text(f"{other}, {suggestion}")

    # Anyone opening the replay afterwards sees the stored analysis at once.
    visitor.reload()
    expect(visitor.locator("#analysis")).to_have_attribute("data-status", "done")
    expect(visitor.locator(f'#analysis-chart .chart-mark[data-ply="{blunder}"]')).to_be_visible()
    shoot(visitor, screenshot_dir, "analysis-visitor", full_page=True)
    visitor.set_viewport_size(PHONE)
    expect(visitor.locator("#analysis-chart")).to_be_visible()
    shoot_both(visitor, screenshot_dir, "analysis-phone", full_page=True)
    assert errors == []



def test_a_tripen_hint_shows_the_token_in_its_pose(sliced_server, new_page, screenshot_dir):
    server = sliced_server
    name, options = "tripen", {"size": 5}
    engine = games.get(name)
    state = engine.new(**options)
    rng = random.Random(3)
    while state.ply < 6:
        state = state.play(rng.choice([a for a in state.legal_actions() if a != "swap"]))
    first, second, viewer = new_players(server, "trx", "try", "trv")
    pk = int(server.shell(STORE_GAME.format(names=(first, second), game=name, options=options,
                                            actions=list(state.actions))).split()[-1])
    server.shell(f"from play import services\ngame = services.load({pk})\n"
                 f"mover = game.players()[game.player_of(game.state().to_move)]\n"
                 f"services.resign({pk}, mover, game.ply_count)")
    page = new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    log_in(page, server, viewer)
    page.goto(f"{server.url}/game/{pk}/?ply=4")
    expect_ply(page, 4)
    page.locator("#hint-request").click()
    hint_text = page.locator("#hint-text")
    expect(hint_text).to_contain_text("The engine would play")
    suggestion = hint_text.text_content().removeprefix("The engine would play ").rstrip(".")
    at_four = engine.replay(options, list(state.actions)[:4])
    assert suggestion in at_four.legal_actions()
    token = page.locator("#board .hint-token")
    expect(token).to_have_count(1)
    pose = at_four.to_dict()["board"]["poses"][suggestion]
    drawn = [tuple(map(float, pair.split(","))) for pair in token.get_attribute("points").split()]
    assert drawn == [pytest.approx(tuple(point), abs=1e-3) for point in pose]
    page.locator("#board").scroll_into_view_if_needed()
    shoot(page, screenshot_dir, "analysis-hint-tripen")
    # Another position: the mark goes.
    page.keyboard.press("ArrowLeft")
    expect_ply(page, 3)
    expect(token).to_have_count(0)
    assert errors == []


def test_the_engines_hint_on_a_set_up_analysis_board(sliced_server, new_page):
    """A position set up by hand, no game behind it: the Hint button asks, the server's own
    workers answer, and the board marks the action and names it; a pick on the board moves
    on without a page load and the hint is for the new position."""
    server = sliced_server
    (viewer,) = new_players(server, "abh")
    page = new_page()
    log_in(page, server, viewer)
    page.goto(f"{server.url}/analysis-board/hadron/?size=5&setup=c3:0,b2:1&turn=0")
    expect(page.locator("svg#board.live-board.interactive")).to_be_visible()
    page.get_by_role("button", name="Hint").click()
    words = page.locator("#board-hint-words")
    expect(words).to_contain_text("The engine would play", timeout=30_000)
    hinted = words.text_content().removeprefix("The engine would play ").rstrip(".")
    state = games.setup.arrange("hadron", {"size": 5}, {"c3": "0", "b2": "1"}, 0)
    assert hinted in state.legal_actions()
    expect(page.locator(f'#board [data-cell="{hinted}"]')).to_have_class(re.compile(r"\bhinted\b"))
    page.locator(f'#board [data-cell="{hinted}"]').click()
    expect(words).to_have_text("")
    expect(page.get_by_role("list", name="The line").locator("li")).to_have_text(["Start", hinted])
    assert page.url.endswith(f"moves={hinted}")
