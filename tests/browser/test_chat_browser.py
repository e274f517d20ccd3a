"""The game page's chat in Chromium: two players and two spectators in separate browser
contexts. The rooms stay apart during the game, markup is shown as typed, the "Hide the chat"
setting and the per-game mute are honoured, and the finished game's page shows both rooms.
Screenshots in light and dark: tests/browser/screenshots/chat-*.png."""
import pytest
from playwright.sync_api import expect

from tests.browser import helpers
from tests.browser.helpers import (
    DESKTOP, PHONE, log_in, new_players, open_game, start_game, wait_ply,
)

pytestmark = pytest.mark.browser

HIDE_CHAT = """
from accounts.models import Profile
from django.contrib.auth import get_user_model
user = get_user_model().objects.get(username={name!r})
Profile.objects.update_or_create(user=user, defaults={{"hide_chat": True}})
"""


def say(page, text):
    page.fill("#chat-text", text)
    page.press("#chat-text", "Enter")
    expect(page.locator("#chat-text")).to_have_value("")


def lines(page, room):
    return page.locator(f"#chat-{room} .chat-line")


def expect_lines(page, room, *said):
    """The room shows exactly these (author, text) lines, in order."""
    expect(lines(page, room).locator(".chat-author")).to_have_text([a for a, _ in said])
    expect(lines(page, room).locator(".chat-text")).to_have_text([t for _, t in said])


def shoot_both(page, screenshot_dir, name):
    helpers.shoot_both(page, screenshot_dir, f"chat-{name}", full_page=True)


def test_chat_rooms_apart_during_the_game_and_together_in_the_replay(
        daphne_server, new_page, screenshot_dir):
    server = daphne_server
    alice, bob, carol, dave = new_players(server, "chata", "chatb", "chatc", "chatd")
    server.shell(HIDE_CHAT.format(name=dave))
    path = start_game(server, "hadron", alice, bob, options={"size": 5})
    pages = {}
    for name, view in ((alice, DESKTOP), (bob, DESKTOP), (carol, PHONE), (dave, DESKTOP)):
        page = new_page(viewport=view)
        log_in(page, server, name)
        open_game(page, server, path)
        pages[name] = page
    a, b, c, d = (pages[name] for name in (alice, bob, carol, dave))

    # The players' room: markup is text, shown as typed on both players' pages.
    say(a, "<b>x</b>")
    say(b, "good luck & have fun")
    for page in (a, b):
        expect_lines(page, "players", (alice, "<b>x</b>"), (bob, "good luck & have fun"))
        expect(page.locator("#chat-players b")).to_have_count(0)
        expect(page.locator("#chat-text")).to_have_attribute("placeholder", "Message your opponent")
    # The spectators' room: carol's line reaches the spectators only.
    say(c, "alice is lost")
    expect_lines(c, "spectators", (carol, "alice is lost"))
    expect(c.locator("#chat-room-players")).to_be_hidden()
    expect(c.locator("#chat-players .chat-line")).to_have_count(0)
    # A move after the lines: had a spectator's line reached the players' pages, it would be
    # there by now (news of one game arrives in order).
    a.locator('#board [data-cell="c3"]').click()
    for page in (a, b):
        wait_ply(page, 1)
        expect(page.locator("#chat-room-spectators")).to_be_hidden()
        expect(page.locator("#chat-spectators .chat-line")).to_have_count(0)
    # dave asked for no chat in his settings: no panel, only where it went.
    expect(d.locator("#chat")).to_be_hidden()
    expect(d.locator("#chat-hidden")).to_be_visible()
    shoot_both(b, screenshot_dir, "players-room")
    shoot_both(c, screenshot_dir, "spectators-room-phone")
    shoot_both(d, screenshot_dir, "hidden")

    # alice mutes her opponent in this game: his lines go, hers stay, and a reload keeps it.
    a.check("#chat-mute")
    expect_lines(a, "players", (alice, "<b>x</b>"))
    a.reload()
    open_game(a, server, path)
    expect(a.locator("#chat-mute")).to_be_checked()
    expect_lines(a, "players", (alice, "<b>x</b>"))
    a.uncheck("#chat-mute")
    expect_lines(a, "players", (alice, "<b>x</b>"), (bob, "good luck & have fun"))

    # The end opens both rooms to everyone on the page.
    b.click("#resign")
    b.click("#resign-yes")
    for page in (a, b, c):
        expect(page.locator("#banner")).to_be_visible()
        expect_lines(page, "players", (alice, "<b>x</b>"), (bob, "good luck & have fun"))
        expect_lines(page, "spectators", (carol, "alice is lost"))
    say(c, "well played")
    expect_lines(a, "spectators", (carol, "alice is lost"), (carol, "well played"))

    # The replay keeps both rooms with the game, for anyone, logged in or not.
    visitor = new_page(viewport=DESKTOP)
    visitor.goto(server.url + path)
    expect(visitor.locator("#game-page")).to_have_attribute("data-status", "finished")
    expect_lines(visitor, "players", (alice, "<b>x</b>"), (bob, "good luck & have fun"))
    expect_lines(visitor, "spectators", (carol, "alice is lost"), (carol, "well played"))
    expect(visitor.locator("#chat-form")).to_have_count(0)
    expect(visitor.locator("#chat-players b")).to_have_count(0)
    shoot_both(visitor, screenshot_dir, "replay")
