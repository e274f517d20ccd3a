"""Tripen in Chromium: the ghost token, its rotation, the pie-rule swap and the touch picker.

The whole game is played the way a person plays it: the mouse goes to a half of a cell, the
ghost shows the nearest pose, the wheel or the R key turns it, a click places it. Two players
and an anonymous spectator each have their own browser context; every action must reach the
spectator without a reload.

The engine runs in the test process too: it plans the game (Blue's row of tokens across the
board while Red plays along the top edge), supplies the pose polygons the pointer aims at, and
says what the server must answer to a refused placement.
"""
import re

import pytest
from playwright.sync_api import expect

import games
from tests.browser.helpers import (
    DESKTOP, PHONE, assert_not_reloaded, expect_banner, expect_notice, log_in, new_players,
    open_game, shoot, start_game, wait_ply,
)

pytestmark = pytest.mark.browser

OPTIONS = {"size": 5}
# Player 0 opens with a red token, player 1 swaps and so plays Red from then on, player 0
# plays Blue and joins left to right along row 3.
FIRST = "e1/0"
BLUE_ROW = ["a3/1", "b3/1", "c3/1", "d3/1", "e3/1"]
RED_EDGE = ["a1/0", "b1/0", "c1/0", "d1/0"]
# How each pointer placement reaches its pose, in turn: (way of turning, number of turns).
# The mouse first aims at the pose that many turns away, so every way is exercised.
TURNS = [("key", 2), ("wheel", 1), ("key-back", 1), ("wheel-back", 3), ("none", 0),
         ("wheel", 4), ("key", 5), ("key-back", 2), ("wheel", 2), ("key", 1)]


def planned_game():
    actions = [FIRST, "swap"]
    for blue, red in zip(BLUE_ROW, RED_EDGE + [None]):
        actions.append(blue)
        if red:
            actions.append(red)
    return actions


def engine():
    return games.get("tripen")


def centroid(polygon):
    return (sum(x for x, _ in polygon) / len(polygon), sum(y for _, y in polygon) / len(polygon))


def screen_point(page, x, y):
    """Board units -> the page's CSS pixels, through the board SVG's own transform."""
    return page.evaluate(
        """([x, y]) => {
            const point = new DOMPoint(x, y).matrixTransform(
                document.getElementById("board").getScreenCTM());
            return [point.x, point.y];
        }""",
        [x, y],
    )


def aim(page, state, action):
    """Put the mouse on the centre of the pose's pentagon (from the engine's to_dict)."""
    polygon = state.to_dict()["board"]["poses"][action]
    page.mouse.move(*screen_point(page, *centroid(polygon)))


def ghost(page):
    return page.locator("#board polygon.ghost")


def turn_ghost(page, way):
    if way == "key":
        page.keyboard.press("r")
    elif way == "key-back":
        page.keyboard.press("Shift+R")
    elif way == "wheel":
        page.mouse.wheel(0, 100)
    elif way == "wheel-back":
        page.mouse.wheel(0, -100)


def place_by_pointer(page, state, action, way, turns):
    """Aim at another pose of the cell, turn the ghost to `action`, click."""
    cell, pose = action.split("/")
    step = -1 if way.endswith("back") else 1
    start = (int(pose) - step * turns) % 6
    aim(page, state, f"{cell}/{start}")
    expect(ghost(page)).to_have_attribute("data-action", f"{cell}/{start}")
    expect(ghost(page)).to_be_visible()
    for done in range(1, turns + 1):
        turn_ghost(page, way)
        expect(ghost(page)).to_have_attribute("data-action", f"{cell}/{(start + step * done) % 6}")
    expect(ghost(page)).to_have_class(re.compile(rf"\bside-{state.to_move}\b"))
    expect(ghost(page)).not_to_have_class(re.compile(r"\brefused\b"))
    page.mouse.down()
    page.mouse.up()


def mover_index(state, swapped):
    """Player index of the side to move (the swap exchanged the players' colours)."""
    return 1 - state.to_move if swapped else state.to_move


def expect_token(page, action, side, last=True):
    token = page.locator(f'#board polygon.token[data-action="{action}"]')
    expect(token).to_have_class(re.compile(rf"\bside-{side}\b"))
    if last:
        expect(token).to_have_class(re.compile(r"\blast\b"))


def seat(server, new_page, views):
    names = tuple(new_players(server, "tripa", "tripb"))
    path = start_game(server, "tripen", *names, options=OPTIONS)
    pages = [new_page(**view) for view in views]
    for page, name in zip(pages, names):
        log_in(page, server, name)
    markers = {id(page): open_game(page, server, path) for page in pages}
    return names, pages, markers


def test_tripen_game_by_pointer_with_swap(daphne_server, new_page, screenshot_dir):
    plan = planned_game()
    final = engine().replay(OPTIONS, plan)
    assert final.winner == 1, "the plan must end with Blue's row joining left and right"

    names, pages, markers = seat(daphne_server, new_page, [
        {"viewport": DESKTOP, "color_scheme": "light"},
        {"viewport": DESKTOP, "color_scheme": "dark"},
        {"viewport": PHONE, "color_scheme": "dark"},   # anonymous spectator
    ])
    players, spectator = pages[:2], pages[2]
    state = engine().new(**OPTIONS)

    # Only the player to move gets a live board: hints on every cell, a ghost on hover.
    expect(players[0].locator("#board.interactive .cell.legal")).to_have_count(25)
    for page in (players[1], spectator):
        expect(page.locator("#board.interactive")).to_have_count(0)
        aim(page, state, "c3/0")
        expect(ghost(page)).to_be_hidden()

    swapped = False
    turns = iter(TURNS)
    for action in plan:
        mover = players[mover_index(state, swapped)]
        if action == "swap":
            check_swap_offer(players, spectator)
            mover.click("#swap")
            swapped = True
        else:
            if state.ply == 2:
                check_refusal(mover, state, FIRST, screenshot_dir)
            if state.ply == 5:
                check_turn_holds(mover, state)
            place_by_pointer(mover, state, action, *next(turns))
        side = state.to_move
        state = state.play(action)
        for page in pages:
            wait_ply(page, state.ply)
        if action == "swap":
            check_after_swap(players, spectator, names)
        else:
            expect_token(spectator, action, side)
        if state.ply == 6:
            aim(players[mover_index(state, swapped)], state, "c2/3")
            shoot(players[0], screenshot_dir, "tripen-desktop-light-mid")
            shoot(players[1], screenshot_dir, "tripen-desktop-dark-mid")
            shoot(spectator, screenshot_dir, "tripen-phone-dark-mid", full_page=True)

    assert state.is_over and state.winner == 1
    result = state.to_dict()["result"]
    expect(spectator.locator("#board polygon.token")).to_have_count(len(plan) - 1)
    for page in pages:
        expect_banner(page, names[0], result)
        expect(page.locator("#game-page")).to_have_attribute("data-status", "finished")
        expect(page.locator("#board.interactive")).to_have_count(0)
        assert_not_reloaded(page, markers[id(page)])
    expect(players[0].locator("#banner")).to_have_class(re.compile(r"\bwon\b"))
    expect(players[1].locator("#banner")).to_have_class(re.compile(r"\blost\b"))
    # After the end nobody gets a ghost.
    aim(players[0], state, "b4/0")
    expect(ghost(players[0])).to_be_hidden()
    shoot(spectator, screenshot_dir, "tripen-phone-dark-end", full_page=True)
    shoot(players[0], screenshot_dir, "tripen-desktop-light-end")


def check_swap_offer(players, spectator):
    """Swap is Blue's alone, and only now."""
    expect(players[1].locator("#swap")).to_be_visible()
    expect(players[0].locator("#swap")).to_be_hidden()
    expect(spectator.locator("#swap")).to_be_hidden()


def check_after_swap(players, spectator, names):
    """The first token stays red; its owner now plays Blue and moves next."""
    expect_token(spectator, FIRST, 0, last=False)
    for page in (*players, spectator):
        for player, side in ((0, 1), (1, 0)):
            chip = page.locator(f'.player[data-player="{player}"] .chip')
            expect(chip).to_have_class(re.compile(rf"\bside-{side}\b"))
        expect(page.locator("#swap")).to_be_hidden()
    expect(players[0].locator("#board.interactive")).to_have_count(1)
    expect(players[1].locator("#board.interactive")).to_have_count(0)


def check_refusal(page, state, taken, screenshot_dir):
    """Over a taken pose the ghost is refused; clicking still asks, and the server answers
    with the engine's reason. Nothing is placed."""
    with pytest.raises(games.IllegalAction) as refused:
        state.play(taken)
    aim(page, state, taken)
    expect(ghost(page)).to_have_attribute("data-action", taken)
    expect(ghost(page)).to_have_class(re.compile(r"\brefused\b"))
    expect(page.locator("#board.refusing")).to_have_count(1)
    shoot(page, screenshot_dir, "tripen-desktop-light-refused")
    page.mouse.down()
    page.mouse.up()
    expect_notice(page, str(refused.value))
    wait_ply(page, state.ply)
    # Turning to the complementary half (three turns) makes it a legal ghost again.
    for _ in range(3):
        page.keyboard.press("r")
    cell, pose = taken.split("/")
    expect(ghost(page)).to_have_attribute("data-action", f"{cell}/{(int(pose) + 3) % 6}")
    expect(ghost(page)).not_to_have_class(re.compile(r"\brefused\b"))


def check_turn_holds(page, state):
    """A turned ghost stays turned while the pointer drifts inside the cell; another cell
    starts again from the pose nearest the pointer."""
    aim(page, state, "c4/0")
    page.keyboard.press("r")
    expect(ghost(page)).to_have_attribute("data-action", "c4/1")
    x, y = screen_point(page, *centroid(state.to_dict()["board"]["poses"]["c4/0"]))
    page.mouse.move(x + 3, y + 2)
    expect(ghost(page)).to_have_attribute("data-action", "c4/1")
    aim(page, state, "d4/3")
    expect(ghost(page)).to_have_attribute("data-action", "d4/3")
    # Leaving the board hides the ghost.
    page.mouse.move(2, 2)
    expect(ghost(page)).to_be_hidden()


def tap_cell(page, state, cell):
    (info,) = [c for c in state.to_dict()["board"]["cells"] if c["name"] == cell]
    page.touchscreen.tap(*screen_point(page, info["x"], info["y"]))


def expect_picker(page, state, cell):
    """Six pose buttons for the cell, enabled exactly where the engine allows a token."""
    legal = set(state.legal_actions())
    picker = page.locator(".tripen-picker")
    expect(picker).to_be_visible()
    expect(picker).to_contain_text(cell)
    expect(picker.locator(".tripen-pose")).to_have_count(6)
    for pose in range(6):
        button = picker.locator(f'.tripen-pose[data-action="{cell}/{pose}"]')
        if f"{cell}/{pose}" in legal:
            expect(button).to_be_enabled()
        else:
            expect(button).to_be_disabled()


def test_tripen_touch_pose_picker(daphne_server, new_page, screenshot_dir):
    touch = {"viewport": PHONE, "has_touch": True, "is_mobile": True}
    names, pages, markers = seat(daphne_server, new_page, [
        {**touch, "color_scheme": "light"},
        {**touch, "color_scheme": "dark"},
    ])
    first, second = pages
    state = engine().new(**OPTIONS)

    # A tap shows no ghost but opens the picker; the close button and a tap outside dismiss it.
    tap_cell(first, state, "c3")
    expect_picker(first, state, "c3")
    expect(ghost(first)).to_be_hidden()
    expect(first.locator('#board .cell.picking[data-cell="c3"]')).to_have_count(1)
    shoot(first, screenshot_dir, "tripen-phone-light-picker")
    first.locator(".tripen-picker-close").tap()
    expect(first.locator(".tripen-picker")).to_have_count(0)
    tap_cell(first, state, "b2")
    expect_picker(first, state, "b2")
    first.locator(".game-info h1").tap()
    expect(first.locator(".tripen-picker")).to_have_count(0)

    # From the keyboard: Enter on a cell opens the picker with the focus on a pose, Escape
    # closes it and gives the focus back to the cell.
    first.locator('#board [data-cell="d4"]').focus()
    first.keyboard.press("Enter")
    expect_picker(first, state, "d4")
    expect(first.locator('.tripen-pose[data-action="d4/0"]')).to_be_focused()
    first.keyboard.press("Escape")
    expect(first.locator(".tripen-picker")).to_have_count(0)
    expect(first.locator('#board [data-cell="d4"]')).to_be_focused()

    tap_cell(first, state, "c3")
    first.locator('.tripen-pose[data-action="c3/4"]').tap()
    state = state.play("c3/4")
    for page in pages:
        wait_ply(page, 1)
    expect(first.locator(".tripen-picker")).to_have_count(0)
    expect_token(second, "c3/4", 0)

    # In a half-filled cell only the complementary half can be picked.
    tap_cell(second, state, "c3")
    expect_picker(second, state, "c3")
    expect(second.locator(".tripen-pose:enabled")).to_have_count(1)
    expect(second.locator("#swap")).to_be_visible()
    shoot(second, screenshot_dir, "tripen-phone-dark-picker")
    second.locator('.tripen-pose[data-action="c3/1"]').tap()
    state = state.play("c3/1")
    for page in pages:
        wait_ply(page, 2)
    expect_token(first, "c3/1", 1)
    expect_token(first, "c3/4", 0, last=False)
    for page in pages:
        assert_not_reloaded(page, markers[id(page)])
