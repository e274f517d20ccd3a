"""Playing the computer in Chromium: a new player signs up, starts a game against the computer
from the home page's form (level 1, the smallest board) and plays it to the end by clicking the
board, in every game; an anonymous spectator on the same game sees every move without a
reload; then the player asks for the computer's analysis of the finished game and reads its
graph. The server is the embedded default: Daphne, SQLite, the in-memory channel layer and
its own pool of worker processes (nothing else started)."""
import random
import re

import pytest
from playwright.sync_api import expect

import games
from tests.browser.helpers import (
    assert_not_reloaded, expect_banner, open_game, shoot, sign_up, unique_name, wait_ply,
)
from tests.browser.test_play_browser import place
from tests.browser.test_tripen_browser import aim, ghost
from tests.ws.bot_client import SMALLEST
from tests.ws.live_client import snapshot_json

# Waits for the server's jobs (pyproject.toml, marker "thinks"): run one at a time.
pytestmark = [pytest.mark.browser, pytest.mark.thinks]

WAIT_MS = 20_000  # as tests/conftest.py waits for any browser state


@pytest.fixture(scope="module")
def pool_server(module_site_servers):
    return module_site_servers(JOBS_MODE="pool", JOBS_SWEEP="1")


def choose_on_home_page(page, server, game, screenshot_dir=None):
    """Fill the home page's "Play the computer" form and send it; lands on the game page."""
    page.goto(server.url + "/")
    form = page.locator("#play-the-computer form")
    form.locator("[name=computer-game]").select_option(game)
    for option, value in SMALLEST[game].items():
        field = form.locator(f"[name=computer-{game}_{option}]")
        expect(field).to_be_visible()  # the chosen game's options only (computer.js)
        field.select_option(str(value))
    form.locator("[name=computer-level]").select_option("1")
    form.locator("[name=computer-side]").select_option("first")
    form.locator("[name=computer-time_kind][value=untimed]").check()
    if screenshot_dir:
        shoot(page, screenshot_dir, f"computer-form-{game}", full_page=True)
    form.get_by_role("button", name="Play the computer").click()
    expect(page).to_have_url(re.compile(r"/game/\d+/$"))
    return page.url.removeprefix(server.url)


def wait_past(page, ply):
    """Wait until the page shows at least `ply` actions (the computer's several actions of a
    turn may come too close together to see each ply on the page)."""
    page.wait_for_function(
        "n => Number(document.getElementById('game-page').dataset.ply) >= n", arg=ply,
        timeout=WAIT_MS)


def click_action(page, game, state, action):
    if action == "swap":
        page.click("#swap")
    elif game == "tripen":
        aim(page, state, action)
        expect(ghost(page)).to_have_attribute("data-action", action)
        page.mouse.down()
        page.mouse.up()
    else:
        place(page, game, action)


@pytest.mark.parametrize("game", sorted(SMALLEST))
def test_a_new_player_plays_the_computer_to_the_end(pool_server, new_page, screenshot_dir,
                                                     game):
    server = pool_server
    name = unique_name("human")
    player, spectator = new_page(), new_page()
    sign_up(player, server, name)
    path = choose_on_home_page(player, server, game,
                               screenshot_dir if game == "hadron" else None)
    markers = {id(page): open_game(page, server, path) for page in (player, spectator)}
    for page in (player, spectator):
        expect(page.locator("#players")).to_contain_text("computer-level-1")
        # The BOT mark with its level, drawn by the page's script from the snapshot's badge.
        expect(page.locator("#players .computer-mark")).to_have_text("BOT 1")
    engine, rng = games.get(game), random.Random(5)
    while True:
        snapshot = snapshot_json(server, path)
        state = engine.replay(snapshot["options"], snapshot["actions"])
        if state.is_over:
            break
        if state.person_to_move == 0:
            choices = [a for a in state.legal_actions() if a != "swap"] or state.legal_actions()
            click_action(player, game, state, rng.choice(choices))
        # Mine or the computer's: the next action reaches both pages.
        wait_past(player, state.ply + 1)
        wait_past(spectator, state.ply + 1)
    for page in (player, spectator):
        wait_ply(page, state.ply)
        expect(page.locator("#game-page")).to_have_attribute("data-status", "finished")
        expect_banner(page, state.to_dict()["result"])
        assert_not_reloaded(page, markers[id(page)])
    for page in (player, spectator):
        expect(page.locator("#players .computer-mark")).to_have_text("BOT 1")
    if game == "hadron":
        player.locator("#players").screenshot(path=screenshot_dir / "computer-bot-mark.png")
    expect(spectator.locator("#moves .act")).to_have_count(state.ply)
    shoot(spectator, screenshot_dir, f"computer-{game}-spectator-end")

    # The finished game's analysis, asked for on the page the game was played on: a graph
    # with a point for the start and one after every action, computed by the pool's workers.
    analysis = player.locator("#analysis")
    expect(analysis).to_be_visible()
    player.locator("#analysis-request").click()
    expect(analysis).to_have_attribute("data-status", "done", timeout=60_000)
    expect(analysis).to_have_attribute("data-analysed", str(state.ply + 1))
    expect(player.locator("#analysis-chart")).to_be_visible()
    expect(player.locator("#analysis-request")).to_be_hidden()
    analysis.scroll_into_view_if_needed()
    shoot(player, screenshot_dir, f"computer-{game}-analysis", full_page=True)
