"""A player whose opponent left a realtime game claims the win, in Chromium (the rule:
docs/protocol.md, "When nobody acts"). A server of its own, with the claim allowed after 3 s
instead of 30."""
import pytest
from playwright.sync_api import expect

from tests.browser.helpers import (
    click_cell, expect_banner, log_in, new_players, open_game, shoot, start_game, wait_ply,
)

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def quick_claims(module_site_servers):
    return module_site_servers(PLAY_CLAIM_AFTER_SECONDS="3")


def test_the_win_is_claimed_when_the_opponent_has_left(quick_claims, new_page, screenshot_dir):
    server = quick_claims
    stay, leave = new_players(server, "stay", "leave")
    path = start_game(server, "hadron", stay, leave, options={"size": 5}, time="5+0")
    pages = [new_page(), new_page()]
    for page, name in zip(pages, (stay, leave)):
        log_in(page, server, name)
        open_game(page, server, path)
    for ply, (page, cell) in enumerate([(pages[0], "c3"), (pages[1], "a1")]):
        click_cell(page, cell)
        for each in pages:
            wait_ply(each, ply + 1)
    # The opponent closes the game; the one who stays sees a countdown, then the button.
    pages[1].close()
    note = pages[0].locator("#claim-note")
    expect(note).to_contain_text(f"{leave} left the game: you can claim the win in")
    expect(pages[0].locator("#claim")).to_be_disabled()
    shoot(pages[0], screenshot_dir, "claim-countdown")
    expect(pages[0].locator("#claim")).to_be_enabled()
    expect(note).to_have_text(f"{leave} left the game.")
    shoot(pages[0], screenshot_dir, "claim-ready")
    pages[0].locator("#claim").click()
    expect_banner(pages[0], f"{leave} left the game — {stay} wins")
    expect(pages[0].locator("#claim-box")).to_be_hidden()
    shoot(pages[0], screenshot_dir, "claim-won")


def test_nothing_to_claim_while_the_opponent_is_there(quick_claims, new_page):
    server = quick_claims
    first, second = new_players(server, "here", "there")
    path = start_game(server, "hadron", first, second, options={"size": 5}, time="5+0")
    pages = [new_page(), new_page()]
    for page, name in zip(pages, (first, second)):
        log_in(page, server, name)
        open_game(page, server, path)
    click_cell(pages[0], "c3")
    wait_ply(pages[1], 1)
    click_cell(pages[1], "a1")
    wait_ply(pages[0], 2)
    pages[0].wait_for_timeout(4000)  # longer than the claim wait: still nothing to claim
    expect(pages[0].locator("#claim-box")).to_be_hidden()
