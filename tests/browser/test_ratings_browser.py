"""Ratings, your games at a glance and a forgotten password, in Chromium against a real Daphne
server: two new players sign up, meet in the lobby, play a rated game and see their ratings
change on the game page (a spectator too), the leaderboard and the profile chart; the header
counts the games awaiting a player's move, live; and a player recovers a forgotten password
with the link the console mail backend printed."""
import re

import pytest
from playwright.sync_api import expect

from tests.browser.helpers import (
    click_cell, log_in, mailed_link, new_players, open_game, open_lobby, open_page, set_scheme,
    shoot, sign_up, start_game, unique_name, wait_ply,
)

pytestmark = pytest.mark.browser

GAME_URL = re.compile(r"/game/\d+/$")


def leaderboard_row(page, name):
    return page.locator("#leaderboard-hadron tr").filter(has_text=name)


def test_two_new_players_play_a_rated_game_and_see_their_ratings_change(
        daphne_server, new_page, screenshot_dir):
    server = daphne_server
    alice, bob = unique_name("Ria"), unique_name("Rob")
    page_a, page_b, spectator = new_page(), new_page(), new_page()
    sign_up(page_a, server, alice, f"{alice.lower()}@example.org")
    sign_up(page_b, server, bob, f"{bob.lower()}@example.org")
    # The leaderboards list established ratings only (5+ rated games, deviation under 110):
    # give both a past, as if they had played 20 rated games of Hadron already.
    server.shell(
        "from django.utils import timezone; from django.contrib.auth import get_user_model\n"
        "from ratings.models import Rating\n"
        f"for name, rating in (({alice!r}, 1712.0), ({bob!r}, 1688.0)):\n"
        "    Rating.objects.create(user=get_user_model().objects.get(username=name), game='hadron',"
        " rating=rating, deviation=60.0, games=20, wins=10, losses=10,"
        " last_rated_at=timezone.now())\n")
    page_a.goto(server.url + "/leaderboard/")
    expect(leaderboard_row(page_a, alice)).to_contain_text("1712")
    expect(leaderboard_row(page_a, bob)).to_contain_text("1688")

    # alice posts a seek (rated by default) in the lobby; bob accepts it.
    open_lobby(page_a, server)
    open_lobby(page_b, server)
    form = page_a.locator("#new-game")
    form.locator("select[name=game]").select_option("hadron")
    form.locator("select[name=hadron_size]").select_option("5")
    form.locator("input[name=time_kind][value=untimed]").check()
    form.locator("select[name=side]").select_option("first")
    expect(form.locator("input[name=rated][value=rated]")).to_be_checked()
    form.get_by_role("button", name="Post open seek").click()
    row = page_b.locator("#seek-list tr.seek").filter(has_text=alice)
    expect(row).to_contain_text("1712")
    expect(row).to_contain_text("rated")
    row.get_by_role("button", name="Accept").click()
    expect(page_b).to_have_url(GAME_URL)
    expect(page_a).to_have_url(page_b.url)
    path = re.search(r"/game/\d+/$", page_b.url)[0]
    for page in (page_a, page_b, spectator):
        open_game(page, server, path)
    cards = spectator.locator("#players .player")
    expect(cards.filter(has_text=alice).locator(".rating-slot")).to_have_text("1712")
    expect(cards.filter(has_text=bob).locator(".rating-slot")).to_have_text("1688")
    expect(spectator.locator("#game-mode")).to_have_text("rated")

    # A move, then bob resigns: everyone sees both changes at once, without a reload.
    click_cell(page_a, "c3")
    for page in (page_a, page_b, spectator):
        wait_ply(page, 1)
    page_b.click("#resign")
    page_b.click("#resign-yes")
    for page in (page_a, page_b, spectator):
        line = page.locator("#banner-ratings")
        expect(line).to_be_visible()
        expect(line).to_contain_text(re.compile(rf"{alice} 17\d\d \(\+\d+\)"))
        expect(line).to_contain_text(re.compile(rf"{bob} 1[67]\d\d \(−\d+\)"))
    won = page_a.locator("#players .player").filter(has_text=alice).locator(".rating-change")
    expect(won).to_have_class(re.compile(r"\bup\b"))
    after_alice = int(re.search(rf"{alice} (\d+)", page_a.locator("#banner-ratings").inner_text())[1])
    after_bob = int(re.search(rf"{bob} (\d+)", page_a.locator("#banner-ratings").inner_text())[1])
    assert after_alice > 1712 and after_bob < 1688
    shoot(spectator, screenshot_dir, "rated-end-banner-light")
    set_scheme(spectator, "dark")
    shoot(spectator, screenshot_dir, "rated-end-banner-dark")

    # The leaderboard has the new ratings; the profile shows the game on its chart.
    page_a.goto(server.url + "/leaderboard/")
    expect(leaderboard_row(page_a, alice)).to_contain_text(str(after_alice))
    expect(leaderboard_row(page_a, bob)).to_contain_text(str(after_bob))
    shoot(page_a, screenshot_dir, "leaderboard-light", full_page=True)
    page_a.goto(server.url + f"/u/{alice}/")
    card = page_a.locator('.rating-card[data-game="hadron"]')
    expect(card.locator(".rating-now .rating")).to_have_text(str(after_alice))
    expect(card.locator(".record")).to_contain_text("11 won")
    expect(card.locator("svg.rating-graph circle.dot.win")).to_have_count(1)
    expect(card.locator("svg.rating-graph")).to_have_attribute(
        "aria-label", f"Hadron rating from 1712 to {after_alice} over 1 rated game")
    shoot(page_a, screenshot_dir, "profile-ratings-light", full_page=True)
    set_scheme(page_a, "dark")
    shoot(page_a, screenshot_dir, "profile-ratings-dark", full_page=True)


def test_the_header_counts_the_games_awaiting_your_move_live(daphne_server, new_page,
                                                             screenshot_dir):
    server = daphne_server
    alice, bob = new_players(server, "dash_a", "dash_b")
    path = start_game(server, "hadron", alice, bob, options={"size": 5}, days="3")
    page_a, page_b = new_page(), new_page()
    log_in(page_a, server, alice)
    log_in(page_b, server, bob)

    # bob waits on the home page: nothing to move; alice has one, in her header too.
    open_page(page_b, server, "/")
    expect(page_b.locator("#your-games .glance-game")).to_contain_text(f"{alice} to move")
    expect(page_b.locator(".turn-badge")).to_be_hidden()
    open_page(page_a, server, "/")
    expect(page_a.locator(".turn-badge")).to_have_text("1 to move")
    expect(page_a.locator("#your-games .glance-game.your-turn")).to_contain_text("Your move")
    expect(page_a.locator("#your-games .glance-game time[title]")).to_contain_text("left")
    expect(page_a).to_have_title(re.compile(r"^\(1\) "))
    shoot(page_a, screenshot_dir, "home-your-games-light", full_page=True)
    set_scheme(page_a, "dark")
    shoot(page_a, screenshot_dir, "home-your-games-dark", full_page=True)

    # alice moves on the game page: bob's header, title and row follow without a reload.
    open_game(page_a, server, path)
    click_cell(page_a, "c3")
    wait_ply(page_a, 1)
    expect(page_b.locator(".turn-badge")).to_have_text("1 to move")
    expect(page_b).to_have_title(re.compile(r"^\(1\) "))
    expect(page_b.locator("#your-games .glance-game.your-turn")).to_contain_text("Your move")
    expect(page_b.locator("#glance-count")).to_contain_text("1 awaits your move")
    # ... and alice's count, on the game page, is gone.
    expect(page_a.locator(".turn-badge")).to_be_hidden()
    expect(page_a).not_to_have_title(re.compile(r"^\(\d+\) "))


def test_a_forgotten_password_is_recovered_with_the_mailed_link(daphne_server, new_page,
                                                                 screenshot_dir):
    server = daphne_server
    name = unique_name("Forgetful")
    page = new_page()
    sign_up(page, server, name, f"{name.lower()}@example.org")
    page.get_by_role("button", name="Log out").click()

    page.goto(server.url + "/accounts/login/")
    page.get_by_role("link", name="Forgot password?").click()
    page.fill("#id_email", f"{name.lower()}@example.org")
    page.get_by_role("button", name="Send the link").click()
    expect(page.locator("h1")).to_have_text("Check your mail")

    # The console backend (the default) printed the mail into the server's log.
    link = mailed_link(server, name)
    page.goto(link)
    expect(page.locator("h1")).to_have_text("Choose a new password")
    new = "copper-kettle-4471"
    page.fill("#id_new_password1", new)
    page.fill("#id_new_password2", new)
    page.get_by_role("button", name="Set the password").click()
    expect(page.locator("h1")).to_have_text("Your password is changed")
    log_in(page, server, name, new)

    # The settings page keeps the address and the board choices; pages hand them to scripts.
    page.get_by_role("link", name="Settings").click()
    expect(page.locator("#id_email")).to_have_value(f"{name.lower()}@example.org")
    page.check("#id_confirm_move")
    page.check("#id_mail_on_move")
    page.get_by_role("button", name="Save").click()
    expect(page.locator(".message.success")).to_have_text("Your settings are saved.")
    prefs = page.evaluate("JSON.parse(document.getElementById('account-prefs').textContent)")
    assert prefs["confirm_move"] is True and prefs["show_hints"] is True
    shoot(page, screenshot_dir, "settings-light", full_page=True)
    set_scheme(page, "dark")
    shoot(page, screenshot_dir, "settings-dark", full_page=True)
