"""What players saw on a 390 px phone (issue 21, items 15, 16, 17 and 20), in Chromium against
a live Daphne: a rematch offered to the computer starts a new game at once; the "N to move"
badge sits in the header's bar, not in the folded menu; player cards and the Archive's rows
show whole names, scores and the winner's mark inside the card; a spectator stepping back sees
the card of the player to move at that ply highlighted."""
import re

import pytest
from playwright.sync_api import expect

from tests.browser.test_computer_browser import choose_on_home_page
from tests.browser.helpers import (
    PHONE, log_in, new_players, open_game, play_on_server, shoot, start_game, unique_name,
    wait_ply,
)

pytestmark = pytest.mark.browser

TOUCH_PHONE = {"viewport": PHONE, "has_touch": True, "is_mobile": True}

# The person resigns before a move: a finished game against the computer, to rematch.
RESIGN = """
from django.contrib.auth import get_user_model
from play import services
services.resign({pk}, get_user_model().objects.get(username={name!r}), 0)
"""


def inside(inner, outer, slack=0.5):
    """The box `inner` lies within `outer`'s left and right edges."""
    return (inner["x"] >= outer["x"] - slack
            and inner["x"] + inner["width"] <= outer["x"] + outer["width"] + slack)


def not_cut(locator):
    """The element shows all of its text: nothing hidden behind an ellipsis or overflow."""
    return locator.evaluate("n => n.scrollWidth <= n.clientWidth + 1")


def test_a_rematch_offered_to_the_computer_starts_a_new_game(daphne_server, new_page,
                                                            screenshot_dir):
    server = daphne_server
    (name,) = new_players(server, "rematcher")
    page = new_page(**TOUCH_PHONE)
    log_in(page, server, name)
    # Started from the home page's form, as a person does (the server makes the computer).
    path = choose_on_home_page(page, server, "hadron")
    pk = int(re.search(r"/game/(\d+)/", path)[1])
    server.shell(RESIGN.format(pk=pk, name=name))
    open_game(page, server, path)
    page.locator("#rematch").click()
    # Straight to the new game, the computer moving first: no "waiting for an answer".
    page.wait_for_url(lambda url: re.search(r"/game/\d+/$", url) and f"/game/{pk}/" not in url)
    expect(page.locator("#players .player").first.locator(".name")).to_contain_text(
        "computer-level-1")
    expect(page.locator("#connection")).to_have_class(re.compile(r"\bopen\b"))
    shoot(page, screenshot_dir, "issue21-15-rematch-computer-phone")


def test_the_turn_badge_is_in_the_phone_header(daphne_server, new_page, screenshot_dir):
    server = daphne_server
    mover, other = new_players(server, "badger", "waiter")
    start_game(server, "hadron", mover, other, {"size": 5})
    page = new_page(**TOUCH_PHONE)
    log_in(page, server, mover)
    page.goto(server.url + "/watch/")
    badge = page.locator(".turn-badge")
    expect(badge).to_have_text("1 to move")
    expect(badge).to_be_visible()          # the menu is closed: the badge is not in it
    expect(page.locator(".account-nav")).to_be_hidden()
    bar = page.locator(".site-header .bar").bounding_box()
    box = badge.bounding_box()
    assert inside(box, {"x": 0, "width": PHONE["width"]}) and box["y"] < bar["y"] + bar["height"]
    # The header stays one row, the menu button whole beside the badge.
    assert bar["height"] < 60
    menu = page.locator(".menu-button").bounding_box()
    assert inside(menu, {"x": 0, "width": PHONE["width"]}) and menu["x"] >= box["x"] + box["width"]
    shoot(page, screenshot_dir, "issue21-16-turn-badge-phone")
    page.set_viewport_size({"width": 1280, "height": 860})
    expect(badge).to_be_visible()
    shoot(page, screenshot_dir, "issue21-16-turn-badge-desktop")


def test_phone_player_cards_and_archive_rows_show_everything(daphne_server, new_page,
                                                            screenshot_dir):
    server = daphne_server
    names = new_players(server, unique_name("alexandrina")[:11] + "_vel",
                        unique_name("bartholomew")[:11] + "_kay")
    pk, plies, _ = play_on_server(server, "colorful", {"board": "long", "size": 6}, seed=7,
                                  names=names)
    page = new_page(**TOUCH_PHONE)
    page.goto(server.url + f"/game/{pk}/")
    wait_ply(page, plies)
    cards = page.locator("#players .player")
    expect(cards).to_have_count(2)
    for k in range(2):
        card = cards.nth(k)
        name, meta = card.locator(".name"), card.locator(".meta")
        expect(name).to_have_text(names[k])
        expect(meta).to_contain_text("scores")
        for part in (name, meta):
            assert not_cut(part), part.inner_text()
            assert inside(part.bounding_box(), card.bounding_box()), part.inner_text()
    shoot(page, screenshot_dir, "issue21-17-player-cards-phone")

    page.goto(server.url + f"/archive/?player={names[0]}")
    row = page.locator(".archive-row").first
    expect(row).to_be_visible()
    for seat in row.locator(".seat").all():
        assert inside(seat.bounding_box(), row.bounding_box()), seat.inner_text()
    mark = row.locator(".won-mark")
    if mark.count():
        assert inside(mark.bounding_box(), row.bounding_box())
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    shoot(page, screenshot_dir, "issue21-17-archive-row-phone")


def test_a_spectator_stepping_back_sees_the_mover_of_that_ply(daphne_server, new_page,
                                                            screenshot_dir):
    server = daphne_server
    pk, plies, names = play_on_server(server, "hadron", {"size": 5}, seed=5, stop_at=3)
    page = new_page(**TOUCH_PHONE)
    open_game(page, server, f"/game/{pk}/")
    wait_ply(page, plies)
    cards = page.locator("#players .player")
    # Hadron: one tile a turn, players[0] first; after 3 actions players[1] is to move.
    expect(page.locator('#players .player[data-player="1"]')).to_have_class(re.compile(r"\bto-move\b"))
    page.locator('#moves [data-ply="2"]').click()
    expect(page.locator(".replay-bar")).to_have_attribute("data-ply", "2")
    expect(page.locator('#players .player[data-player="0"]')).to_have_class(re.compile(r"\bto-move\b"))
    expect(page.locator('#players .player[data-player="1"]')).not_to_have_class(
        re.compile(r"\bto-move\b"))
    page.evaluate("window.scrollTo(0, 0)")
    shoot(page, screenshot_dir, "issue21-20-stepped-back-mover-phone")
    page.locator('#moves [data-ply="3"]').click()
    expect(page.locator('#players .player[data-player="1"]')).to_have_class(re.compile(r"\bto-move\b"))
    assert cards.count() == 2
