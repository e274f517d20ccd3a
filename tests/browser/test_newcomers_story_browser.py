"""The acceptance story of "ratings, chat, takebacks, accounts", walked as newcomers would, in
Chromium against a real Daphne server, each person in a browser context of their own:

    Two people sign up, play rated games, chat, take a move back, see their ratings and
    graphs, and one of them recovers a forgotten password.

Everything goes through the pages (sign-up form, Play page, game page, profile, leaderboard,
"Forgot password?"); the only thing read outside the browser is the reset mail, which the
console mail backend prints into the server's log. The engine runs in the test process to
know which cells are legal while the game is played out by clicking.
Screenshots (light): tests/browser/screenshots/story-*.png."""
import random
import re

import pytest
from playwright.sync_api import expect

import games
from tests.browser.helpers import (
    moves_of, settle,
    PASSWORD, click_cell, expect_banner, expect_notice, expect_stone, log_in, mailed_link,
    open_game, open_lobby, shoot, sign_up, unique_name, wait_ply,
)

pytestmark = pytest.mark.browser

GAME_URL = re.compile(r"/game/\d+/$")
OPTIONS = {"size": 5}
NEW_PASSWORD = "quiet-harbour-2719"


def say(page, text):
    page.fill("#chat-text", text)
    page.press("#chat-text", "Enter")
    expect(page.locator("#chat-text")).to_have_value("")


def expect_lines(page, room, *said):
    """The room shows exactly these (author, text) lines, in order."""
    lines = page.locator(f"#chat-{room} .chat-line")
    expect(lines.locator(".chat-author")).to_have_text([a for a, _ in said])
    expect(lines.locator(".chat-text")).to_have_text([t for _, t in said])


def expect_empty(page, cell):
    expect(page.locator(f'#board [data-cell="{cell}"]')).to_have_class(re.compile(r"\bempty\b"))


def test_two_newcomers_play_rated_chat_take_back_and_one_recovers_a_password(
        daphne_server, new_page, screenshot_dir):
    server = daphne_server
    # Unique and not prefixes of each other: the server's database is shared by the session.
    alice, bob, kib = unique_name("StoryAnn"), unique_name("StoryBen"), unique_name("StoryKit")
    alice_mail = f"{alice.lower()}@example.org"
    page_a, page_b, spectator = (new_page(color_scheme="light") for _ in range(3))
    for page in (page_a, page_b, spectator):
        page.on("pageerror", lambda e: print("PAGEERROR", e))

    # --- Two people sign up (alice gives an e-mail address, bob does not). A third signs up
    # to watch.
    sign_up(page_a, server, alice, alice_mail)
    sign_up(page_b, server, bob)
    sign_up(spectator, server, kib)

    # --- alice posts a rated seek on the Play page (Hadron 5x5, untimed, she moves first);
    # bob accepts it, and both land on the game.
    open_lobby(page_a, server)
    open_lobby(page_b, server)
    form = page_a.locator("#new-game")
    form.locator("select[name=game]").select_option("hadron")
    form.locator("select[name=hadron_size]").select_option("5")
    form.locator("input[name=time_kind][value=untimed]").check()
    form.locator("select[name=side]").select_option("first")
    expect(form.locator("input[name=rated][value=rated]")).to_be_checked()
    form.get_by_role("button", name="Post open seek").click()
    expect(page_a.locator("#lobby-notice")).to_contain_text("Your seek is open")
    seek = page_b.locator("#seek-list tr.seek").filter(has_text=alice)
    expect(seek).to_contain_text("rated")
    expect(seek).to_contain_text("1500?")  # a newcomer's rating: the start, provisional
    seek.get_by_role("button", name="Accept").click()
    expect(page_b).to_have_url(GAME_URL)
    expect(page_a).to_have_url(page_b.url)
    path = re.search(r"/game/\d+/$", page_b.url)[0]
    for page in (page_a, page_b, spectator):
        open_game(page, server, path)
        expect(page.locator("#game-mode")).to_have_text("rated")
    players = spectator.locator("#players .player")
    expect(players.filter(has_text=alice)).to_have_attribute("data-player", "0")
    expect(players.filter(has_text=bob).locator(".rating-slot")).to_have_text("1500?")
    mover = {0: page_a, 1: page_b}  # player index -> page; alice moves first

    # --- They chat in the players' room; the spectator writes in the spectators' room, and
    # neither side reads the other's while the game is played.
    say(page_a, "Hi! First rated game here, good luck")
    say(page_b, "Thanks, you too :)")
    say(spectator, "Two newcomers, nice")
    for page in (page_a, page_b):
        expect_lines(page, "players", (alice, "Hi! First rated game here, good luck"),
                     (bob, "Thanks, you too :)"))
        expect(page.locator("#chat-text")).to_have_attribute("placeholder", "Message your opponent")
    expect_lines(spectator, "spectators", (kib, "Two newcomers, nice"))
    expect(spectator.locator("#chat-room-players")).to_be_hidden()
    expect(spectator.locator("#chat-players .chat-line")).to_have_count(0)

    # --- Three moves; then alice takes her last one back, bob agrees, the board steps back.
    rng = random.Random(11)
    state = games.get("hadron").new(**OPTIONS)
    for _ in range(3):
        action = "c3" if state.ply == 0 else rng.choice(state.legal_actions())
        click_cell(mover[state.to_move], action)
        state = state.play(action)
        for page in (page_a, page_b, spectator):
            wait_ply(page, state.ply)
    # The players never got the spectator's line, sent before all those moves.
    for page in (page_a, page_b):
        expect(page.locator("#chat-spectators .chat-line")).to_have_count(0)
    *kept, taken_back = state.actions
    assert moves_of(page_a) == [*kept, taken_back]
    page_a.click("#takeback")
    expect(page_b.locator("#takeback-note")).to_have_text(f"{alice} proposes a takeback.")
    expect(page_a.locator("#takeback-note")).to_have_text(
        "Takeback proposed: waiting for an answer.")
    page_b.click("#takeback-accept")
    for page in (page_a, page_b, spectator):
        wait_ply(page, 2)
        expect_empty(page, taken_back)
        expect(page.locator("#moves .act")).to_have_count(2)
    assert moves_of(spectator) == kept
    expect_notice(page_a, "Takeback accepted.")
    state = games.get("hadron").new(**OPTIONS)
    for action in kept:
        state = state.play(action)

    # --- They play on to the end, by clicking legal cells.
    while not state.is_over:
        action = rng.choice(state.legal_actions())
        click_cell(mover[state.to_move], action)
        state = state.play(action)
        for page in (page_a, page_b, spectator):
            wait_ply(page, state.ply)
        expect_stone(spectator, action)
    winner, loser = (alice, bob) if state.winner == 0 else (bob, alice)

    # --- Both see the rating change on the game page: "name 1662? (+162)" and the loser's
    # fall; the spectator sees it too, and now everyone reads both chat rooms.
    for page in (page_a, page_b, spectator):
        expect_banner(page, winner)
        line = page.locator("#banner-ratings")
        expect(line).to_be_visible()
        expect(line).to_contain_text(re.compile(rf"{winner} 1[5-7]\d\d\?? \(\+\d+\)"))
        expect(line).to_contain_text(re.compile(rf"{loser} 1[3-4]\d\d\?? \(−\d+\)"))
        expect_lines(page, "spectators", (kib, "Two newcomers, nice"))
    expect_lines(spectator, "players", (alice, "Hi! First rated game here, good luck"),
                 (bob, "Thanks, you too :)"))
    ratings = page_a.locator("#banner-ratings").inner_text()
    after = {name: int(re.search(rf"{name} (\d+)", ratings)[1]) for name in (alice, bob)}
    assert after[winner] > 1500 > after[loser]
    say(page_b, "gg")
    expect_lines(page_a, "players", (alice, "Hi! First rated game here, good luck"),
                 (bob, "Thanks, you too :)"), (bob, "gg"))
    settle(page_a)
    shoot(page_a, screenshot_dir, "story-rated-result-light", full_page=True)

    # --- Their profiles show the new rating, the record and the game on the rating graph.
    for page, name in ((page_a, alice), (page_b, bob)):
        page.locator(".account-nav .who").click()
        expect(page.locator("h1")).to_have_text(name)
        card = page.locator('.rating-card[data-game="hadron"]')
        expect(card.locator(".rating-now .rating")).to_have_text(f"{after[name]}?")
        expect(card.locator(".rating-now")).to_contain_text("provisional")
        won = name == winner
        expect(card.locator(".record")).to_contain_text(f"{int(won)} won · {int(not won)} lost")
        graph = card.locator("svg.rating-graph")
        expect(graph).to_be_visible()
        expect(graph).to_have_attribute(
            "aria-label", f"Hadron rating from 1500 to {after[name]} over 1 rated game")
        expect(graph.locator(f"circle.dot.{'win' if won else 'loss'}")).to_have_count(1)
    settle(page_a)
    shoot(page_a, screenshot_dir, "story-profile-graph-light", full_page=True)

    # --- The leaderboard loads, but does not list them yet: one rated game, provisional.
    hadron_card = page_a.locator('.rating-card[data-game="hadron"]')
    hadron_card.get_by_role("link", name="Leaderboard").click()
    expect(page_a.locator("h1")).to_have_text("Hadron leaderboard")
    expect(page_a.locator(".leaderboard-page header")).to_contain_text(
        "at least 5 rated games whose rating is no longer provisional")
    board = page_a.locator("#leaderboard-hadron")
    expect(board).to_be_visible()
    expect(board).not_to_contain_text(alice)
    expect(board).not_to_contain_text(bob)
    if board.locator("table").count() == 0:  # nobody else in this session's database either
        expect(board.locator("h2")).to_have_text("Top players")  # it said "Top 0"
        expect(board.locator("p")).to_contain_text(
            "Nobody yet: a player is listed once their Hadron rating is no longer provisional")
    shoot(page_a, screenshot_dir, "story-leaderboard-light", full_page=True)

    # --- alice logs out, forgot her password: the mailed link lets her choose a new one.
    page_a.get_by_role("button", name="Log out").click()
    expect(page_a.locator(".message")).to_have_text("You are logged out.")
    page_a.get_by_role("link", name="Log in", exact=True).click()
    page_a.get_by_role("link", name="Forgot password?").click()
    page_a.fill("#id_email", alice_mail)
    page_a.get_by_role("button", name="Send the link").click()
    expect(page_a.locator("h1")).to_have_text("Check your mail")
    page_a.goto(mailed_link(server, alice))
    expect(page_a.locator("h1")).to_have_text("Choose a new password")
    page_a.fill("#id_new_password1", NEW_PASSWORD)
    page_a.fill("#id_new_password2", NEW_PASSWORD)
    page_a.get_by_role("button", name="Set the password").click()
    expect(page_a.locator("h1")).to_have_text("Your password is changed")
    settle(page_a)
    shoot(page_a, screenshot_dir, "story-password-reset-light")
    page_a.get_by_role("link", name="Log in").first.click()
    page_a.fill("#id_username", alice)
    page_a.fill("#id_password", PASSWORD)  # the forgotten one no longer works
    page_a.get_by_role("button", name="Log in").click()
    expect(page_a.locator(".errorlist.nonfield")).to_contain_text("Please enter a correct username")
    log_in(page_a, server, alice, NEW_PASSWORD)
    page_a.locator(".account-nav .who").click()
    expect(page_a.locator('.rating-card[data-game="hadron"] .rating-now .rating')).to_have_text(
        f"{after[alice]}?")
