"""Vacations in Chromium: a correspondence player starts a vacation from /vacation/; the
opponent's open game page hears it at once and says the deadline stands still; coming back
puts the deadline on the page again."""
import re

import pytest
from playwright.sync_api import expect

from tests.browser.helpers import (
    DESKTOP, click_cell, log_in, new_players, open_game, start_game, wait_ply,
)

pytestmark = pytest.mark.browser


def test_vacation_pauses_the_deadline_on_the_opponents_page(daphne_server, new_page):
    server = daphne_server
    names = new_players(server, "vka", "vkb")
    path = start_game(server, "hadron", *names, options={"size": 5}, days="3")
    alice, bob = new_page(viewport=DESKTOP), new_page(viewport=DESKTOP)
    errors = []
    for page, name in ((alice, names[0]), (bob, names[1])):
        page.on("pageerror", lambda e: errors.append(str(e)))
        log_in(page, server, name)
    open_game(alice, server, path)
    click_cell(alice, "c3")
    wait_ply(alice, 1)
    expect(alice.locator("#deadline")).to_have_text(re.compile(rf"^{names[1]} to move by "))

    bob.goto(server.url + "/vacation/")
    expect(bob.locator("#vacation-left")).to_have_text("Left this year: 30.0 days.")
    bob.get_by_role("button", name="Start a vacation").click()
    expect(bob.locator("#vacation-now")).to_contain_text("On vacation since")
    expect(alice.locator("#deadline")).to_have_text(
        f"{names[1]} is on vacation: the deadline stands still")
    expect(alice.locator('.player[data-player="1"] .clock')).to_have_text("on vacation")
    bob.goto(server.url + "/vacation/")
    bob.get_by_role("button", name="I am back").click()
    expect(alice.locator("#deadline")).to_have_text(re.compile(rf"^{names[1]} to move by "))
    expect(alice.locator('.player[data-player="1"] .clock')).not_to_have_text("on vacation")
    assert errors == []
