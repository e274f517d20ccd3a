"""The Play page in two browsers: seeks and challenges appear and vanish live, and accepting
a seek takes both players to the game."""
import re

import pytest
from playwright.sync_api import expect

from tests.browser.helpers import (
    PHONE, assert_not_reloaded, log_in, new_players, open_lobby,
)

pytestmark = pytest.mark.browser

GAME_URL = re.compile(r"/game/\d+/$")


def seek_rows(page, owner):
    return page.locator("#seek-list tr.seek").filter(has_text=owner)


def post_seek(page, game, time_kind="realtime", side="random", **options):
    form = page.locator("#new-game")
    form.locator("select[name=game]").select_option(game)
    for name, value in options.items():
        form.locator(f"select[name={game}_{name}]").select_option(str(value))
    form.locator(f"input[name=time_kind][value={time_kind}]").check()
    form.locator("select[name=side]").select_option(side)
    form.get_by_role("button", name="Post open seek").click()
    expect(page.locator("#lobby-notice")).to_contain_text("Your seek is open")


def test_two_players_meet_in_the_lobby(daphne_server, new_page, screenshot_dir):
    server = daphne_server
    alice, bob = new_players(server, "alice", "bob")
    page_a, page_b = new_page(), new_page()
    log_in(page_a, server, alice)
    log_in(page_b, server, bob)
    open_lobby(page_a, server)
    marker_b = open_lobby(page_b, server)

    # alice posts a seek: it shows up on bob's open page without a reload.
    form = page_a.locator("#new-game")
    form.locator("select[name=game]").select_option("hadron")
    expect(form.locator('fieldset[data-game="hadron"]')).to_be_visible()
    expect(form.locator('fieldset[data-game="tripen"]')).to_be_hidden()
    form.locator("select[name=hadron_size]").select_option("7")
    form.locator("input[name=minutes]").fill("5")
    form.locator("input[name=increment]").fill("3")
    form.locator("select[name=side]").select_option("first")
    form.get_by_role("button", name="Post open seek").click()
    row = seek_rows(page_b, alice)
    expect(row).to_have_count(1)
    expect(row).to_contain_text("Hadron")
    expect(row).to_contain_text("7×7")
    expect(row).to_contain_text("5+3")
    expect(row).to_contain_text(f"{alice} moves first")
    assert_not_reloaded(page_b, marker_b)
    expect(seek_rows(page_a, alice).get_by_role("button", name="Cancel")).to_be_visible()
    page_b.screenshot(path=str(screenshot_dir / "lobby-seek-arrived.png"), full_page=True)

    # bob accepts: both land on the same game page, alice pushed there by her lobby socket.
    row.get_by_role("button", name="Accept").click()
    expect(page_b).to_have_url(GAME_URL)
    expect(page_a).to_have_url(page_b.url)

    # Back in the lobby, alice posts and then cancels a seek; it leaves bob's page too.
    open_lobby(page_a, server)
    marker_b = open_lobby(page_b, server)
    expect(seek_rows(page_b, alice)).to_have_count(0)
    post_seek(page_a, "copolymer", time_kind="correspondence", size=6)
    row = seek_rows(page_b, alice)
    expect(row).to_contain_text("hexhex side 6")
    expect(row).to_contain_text("3 days per move")
    seek_rows(page_a, alice).get_by_role("button", name="Cancel").click()
    expect(seek_rows(page_a, alice)).to_have_count(0)
    expect(seek_rows(page_b, alice)).to_have_count(0)
    expect(page_b.locator("#seek-empty")).to_be_visible()
    assert_not_reloaded(page_b, marker_b)

    # alice challenges bob: the challenge appears on bob's page live; he declines.
    form.locator("select[name=game]").select_option("colorful")
    form.locator("select[name=colorful_board]").select_option("long")
    form.locator("input[name=time_kind][value=untimed]").check()
    form.locator("input[name=opponent]").fill(bob)
    form.get_by_role("button", name=f"Challenge {bob}").click()
    expect(page_a.locator("#lobby-notice")).to_contain_text(f"Challenge sent to {bob}")
    incoming = page_b.locator("#challenge-list li.incoming").filter(has_text=alice)
    expect(incoming).to_contain_text("Colorful Connection")
    expect(incoming).to_contain_text("long board side 5")
    expect(page_b.locator("#lobby-notice")).to_contain_text(f"{alice} challenges you")
    expect(page_a.locator("#challenge-list li.outgoing")).to_contain_text(f"You challenged {bob}")
    assert_not_reloaded(page_b, marker_b)
    page_b.screenshot(path=str(screenshot_dir / "lobby-challenge-arrived.png"), full_page=True)
    incoming.get_by_role("button", name="Decline").click()
    expect(incoming).to_have_count(0)
    expect(page_a.locator("#challenge-list li")).to_have_count(0)
    expect(page_a.locator("#lobby-notice")).to_contain_text(f"{bob} declined your challenge")
    page_a.screenshot(path=str(screenshot_dir / "lobby-seeker.png"), full_page=True)


def test_form_errors_and_board_sizes(daphne_server, new_page, screenshot_dir):
    server = daphne_server
    (carol,) = new_players(server, "carol")
    page = new_page()
    log_in(page, server, carol)
    open_lobby(page, server)
    form = page.locator("#new-game")
    # The long Colorful board takes sizes 4..6 only: the page offers no other.
    form.locator("select[name=game]").select_option("colorful")
    size = form.locator("select[name=colorful_size]")
    form.locator("select[name=colorful_board]").select_option("long")
    expect(size.locator('option[value="3"]')).to_be_disabled()
    expect(size.locator('option[value="7"]')).to_be_disabled()
    expect(size.locator('option[value="5"]')).to_be_enabled()
    form.locator("select[name=colorful_board]").select_option("hexhex")
    expect(size.locator('option[value="3"]')).to_be_enabled()
    # Errors from the server appear beside their fields, without a reload.
    form.locator("input[name=minutes]").fill("500")
    form.get_by_role("button", name="Post open seek").click()
    expect(page.locator("#id_minutes_errors")).to_contain_text("less than or equal to 180")
    expect(page.locator("#lobby-notice")).to_contain_text("Your seek was not created")
    form.locator("input[name=minutes]").fill("10")
    form.locator("input[name=opponent]").fill(carol)
    form.get_by_role("button", name=f"Challenge {carol}").click()
    expect(page.locator("#id_opponent_errors")).to_have_text("You cannot challenge yourself.")
    expect(page.locator("#id_minutes_errors")).to_be_hidden()
    page.screenshot(path=str(screenshot_dir / "lobby-errors.png"), full_page=True)


def test_anonymous_visitor_and_phone(daphne_server, new_page, screenshot_dir):
    server = daphne_server
    (dave,) = new_players(server, "dave")
    owner = new_page()
    log_in(owner, server, dave)
    open_lobby(owner, server)
    post_seek(owner, "tripen", size=9)
    visitor = new_page(viewport=PHONE)
    open_lobby(visitor, server)
    row = seek_rows(visitor, dave)
    expect(row).to_contain_text("9×9")
    row.get_by_role("link", name="Log in to accept").click()
    expect(visitor).to_have_url(re.compile(r"/accounts/login/\?next=%2Fplay%2F$"))
    visitor.goto(server.url + "/play/")
    expect(visitor.get_by_role("link", name="Log in to play")).to_be_visible()
    visitor.screenshot(path=str(screenshot_dir / "lobby-anonymous-phone.png"), full_page=True)
    phone = new_page(viewport=PHONE, color_scheme="dark")
    log_in(phone, server, dave)
    open_lobby(phone, server)
    phone.screenshot(path=str(screenshot_dir / "lobby-phone-dark.png"), full_page=True)
    # Her real-time seek goes when she leaves the lobby (all her tabs), after the grace.
    expect(visitor.locator("#lobby-status")).to_have_attribute("data-state", "live")
    owner.goto(server.url + "/rules/")
    phone.goto(server.url + "/rules/")
    expect(seek_rows(visitor, dave)).to_have_count(0, timeout=30_000)
