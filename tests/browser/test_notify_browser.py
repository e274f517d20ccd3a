"""Notifications away from the Play page: a challenged player reading the rules sees the
challenge arrive as a toast and accepts it there; a seeker browsing elsewhere is taken to the
game someone started from their seek; a live game page is never left without a click."""
import re

import pytest
from playwright.sync_api import expect

from tests.browser.helpers import (
    PHONE, assert_not_reloaded, log_in, new_players, open_lobby, open_page, plant_marker,
    set_scheme, shoot,
)

pytestmark = pytest.mark.browser

GAME_URL = re.compile(r"/game/\d+/$")


def fill_proposal(page, time_kind="realtime", minutes="5", increment="3"):
    form = page.locator("#new-game")
    form.locator("select[name=game]").select_option("hadron")
    form.locator("select[name=hadron_size]").select_option("7")
    form.locator(f"input[name=time_kind][value={time_kind}]").check()
    if time_kind == "realtime":
        form.locator("input[name=minutes]").fill(minutes)
        form.locator("input[name=increment]").fill(increment)
    form.locator("select[name=side]").select_option("first")
    return form


def challenge(page, opponent, **time):
    form = fill_proposal(page, **time)
    form.locator("input[name=opponent]").fill(opponent)
    form.get_by_role("button", name=f"Challenge {opponent}").click()
    expect(page.locator("#lobby-notice")).to_contain_text(f"Challenge sent to {opponent}")


def challenge_toast(page, challenger):
    return page.locator(".notify-toast.challenge").filter(has_text=f"{challenger} challenges you")


def settled(toast):
    """Wait for the toast's slide-in to end, so a screenshot shows it as it stays."""
    toast.evaluate("node => Promise.all(node.getAnimations().map((a) => a.finished))")
    return toast


def focus_outside_toasts(page):
    return page.evaluate("!document.activeElement.closest('.notify-shelf')")


def test_challenge_reaches_a_player_reading_the_rules(daphne_server, new_page, screenshot_dir):
    server = daphne_server
    alice, bob = new_players(server, "alice", "bob")
    page_a = new_page()
    page_b = new_page()
    phone_b = new_page(viewport=PHONE, color_scheme="dark")
    for page, name in ((page_a, alice), (page_b, bob), (phone_b, bob)):
        log_in(page, server, name)
    # The Play page has the lobby socket and no second one.
    open_lobby(page_a, server)
    expect(page_a.locator("body")).not_to_have_attribute("data-notify", re.compile("."))
    marker = open_page(page_b, server, "/rules/hadron/")
    open_page(phone_b, server, "/archive/")

    challenge(page_a, bob)
    toast = challenge_toast(page_b, alice)
    expect(toast).to_be_visible()
    expect(toast).to_contain_text(f"{alice} challenges you to Hadron 7×7, 5+3")
    expect(toast).to_contain_text(f"{alice} moves first")
    expect(toast).to_have_attribute("role", "alert")
    expect(toast.get_by_role("button", name="Accept")).to_be_visible()
    expect(toast.get_by_role("button", name="Decline")).to_be_visible()
    expect(page_b.locator(".notify-badge")).to_contain_text("1")
    expect(page_b.locator(".notify-badge")).to_have_attribute("href", "/play/challenges/")
    assert focus_outside_toasts(page_b)
    assert_not_reloaded(page_b, marker)
    expect(challenge_toast(phone_b, alice)).to_be_visible()

    # Keyboard: the buttons are reachable and named; Dismiss is a real button too.
    toast.get_by_role("button", name="Decline").focus()
    assert page_b.evaluate("document.activeElement.textContent") == "Decline"
    expect(toast.get_by_role("button", name="Dismiss")).to_be_enabled()

    settled(toast)
    settled(challenge_toast(phone_b, alice))
    shoot(page_b, screenshot_dir, "notify-challenge-light")
    set_scheme(page_b, "dark")
    shoot(page_b, screenshot_dir, "notify-challenge-dark")
    set_scheme(page_b, "light")
    shoot(phone_b, screenshot_dir, "notify-challenge-phone-dark")
    set_scheme(phone_b, "light")
    shoot(phone_b, screenshot_dir, "notify-challenge-phone-light")

    # bob accepts on the rules page: both land on the new game, alice pushed by her lobby.
    toast.get_by_role("button", name="Accept").click()
    expect(page_b).to_have_url(GAME_URL)
    expect(page_a).to_have_url(page_b.url)
    # His other tab drops the answered challenge, and stays where it is.
    expect(challenge_toast(phone_b, alice)).to_have_count(0)
    expect(phone_b.locator(".notify-badge")).to_be_hidden()
    assert phone_b.url.endswith("/archive/")


def test_seeker_is_sent_to_the_game_but_a_live_game_is_not_left(daphne_server, new_page,
                                                                screenshot_dir):
    server = daphne_server
    alice, bob = new_players(server, "alice", "bob")
    page_a, lobby_a, page_b = new_page(), new_page(), new_page()
    for page, name in ((page_a, alice), (lobby_a, alice), (page_b, bob)):
        log_in(page, server, name)

    # alice posts a correspondence seek and goes to read the rules; bob accepts it.
    open_lobby(page_a, server)
    form = fill_proposal(page_a, time_kind="correspondence")
    form.get_by_role("button", name="Post open seek").click()
    expect(page_a.locator("#lobby-notice")).to_contain_text("Your seek is open")
    open_page(page_a, server, "/rules/")
    open_lobby(page_b, server)
    page_b.locator("#seek-list tr.seek").filter(has_text=alice).get_by_role(
        "button", name="Accept").click()
    expect(page_b).to_have_url(GAME_URL)
    expect(page_a).to_have_url(page_b.url)
    game_url = page_a.url
    expect(page_a.locator("#game-page")).to_have_attribute("data-status", "active")
    expect(page_a.locator("body")).to_have_attribute("data-notify", "open")
    marker = plant_marker(page_a)

    # During the game bob challenges her: a quiet toast, no focus taken, no navigation.
    open_lobby(page_b, server)
    challenge(page_b, alice, minutes="10", increment="0")
    toast = challenge_toast(page_a, bob)
    expect(toast).to_contain_text("Hadron 7×7, 10+0")
    expect(toast).to_have_attribute("role", "status")
    assert focus_outside_toasts(page_a)
    settled(toast)
    shoot(page_a, screenshot_dir, "notify-on-game-page")
    # He withdraws it: her toast becomes a notice saying so.
    page_b.locator("#challenge-list li.outgoing").get_by_role("button", name="Withdraw").click()
    expect(toast).to_have_count(0)
    expect(page_a.locator(".notify-toast.info")).to_contain_text(f"{bob} withdrew their challenge")

    # From her other tab she challenges bob, who is reading the rules; he declines.
    open_page(page_b, server, "/rules/")
    open_lobby(lobby_a, server)
    challenge(lobby_a, bob)
    incoming = challenge_toast(page_b, alice)
    incoming.get_by_role("button", name="Decline").click()
    expect(page_b.locator(".notify-toast.info")).to_contain_text("You declined")
    expect(incoming).to_have_count(0)
    expect(page_a.locator(".notify-toast.info").filter(has_text="declined")).to_contain_text(
        f"{bob} declined your challenge (Hadron 7×7, 5+3)")

    # A second game starts from another seek of hers: the live game page offers a link.
    form = fill_proposal(lobby_a, time_kind="untimed")
    form.get_by_role("button", name="Post open seek").click()
    open_lobby(page_b, server)
    page_b.locator("#seek-list tr.seek").filter(has_text=alice).get_by_role(
        "button", name="Accept").click()
    expect(page_b).to_have_url(GAME_URL)
    link = page_a.locator(".notify-toast.success").get_by_role("link", name="Go to the game")
    expect(link).to_have_attribute("href", page_b.url.removeprefix(server.url))
    assert page_a.url == game_url
    assert_not_reloaded(page_a, marker)
    link.click()
    expect(page_a).to_have_url(page_b.url)
