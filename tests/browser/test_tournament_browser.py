"""An arena in Chromium: four new players join a running Hadron arena from the home page's
Join button, the event page takes each to their game when the tick pairs them, they play by
clicking the board, and a visitor watching the event page sees the standings move without a
reload, then the podium. On a game's page: the event's link, no takeback or players'
chat, and berserk seen by both players (half the clock, no increment). A phone-size look at the event page at the end."""
import random
import re

import pytest
from playwright.sync_api import expect

import games
from tests.browser.helpers import PHONE, log_in, new_players, shoot
from tests.browser.test_play_browser import place
from tests.ws.live_client import snapshot_json

pytestmark = pytest.mark.browser

CREATE = """
from datetime import timedelta
from django.contrib.auth import get_user_model
from django.utils import timezone
from play.clock import TimeControl
from tournaments import services
owner = get_user_model().objects.create_user("arena-owner")
event = services.create(owner, name="Browser arena", kind="arena", game="hadron",
                        options={"size": 5}, time_control=TimeControl("realtime", 5, 3),
                        rated=True, starts_at=timezone.now(), minutes=20)
print(event.pk)
"""


@pytest.fixture(scope="module")
def arena_server(module_site_servers):
    return module_site_servers(TOURNAMENT_TICK="0.5")


def test_four_players_join_from_the_home_page_play_and_the_standings_move(
        arena_server, new_page, screenshot_dir):
    server = arena_server
    event_id = int(server.shell(CREATE).strip())
    event_path = f"/tournaments/{event_id}/"
    watcher = new_page()
    watcher.goto(server.url + event_path)
    expect(watcher.locator("#tournament-status")).to_contain_text("Running")
    watcher.evaluate("window.__loadedAt = 1")

    names = new_players(server, "arena-a", "arena-b", "arena-c", "arena-d")
    pages = {}
    creator = new_page()
    log_in(creator, server, new_players(server, "arena-creator")[0])
    creator.goto(server.url + "/tournaments/")
    expect(creator.locator(".tournament-list")).to_contain_text("Browser arena")
    form = creator.locator("#new-tournament")
    # Only the chosen game's board and the chosen format's fields show.
    form.locator("[name=game]").select_option("tripen")
    expect(form.locator('fieldset[data-game="tripen"]')).to_be_visible()
    expect(form.locator('fieldset[data-game="hadron"]')).to_be_hidden()
    form.locator("[name=kind]").select_option("swiss")
    expect(form.locator("[name=rounds]")).to_be_visible()
    expect(form.locator("[name=duration]")).to_be_hidden()
    shoot(creator, screenshot_dir, "tournaments-list", full_page=True)
    for name in names:
        page = new_page()
        log_in(page, server, name)
        page.goto(server.url + "/")
        now = page.locator("#tournaments-now")
        expect(now).to_contain_text("Browser arena")
        now.get_by_role("button", name="Join").click()
        # The event page, or already the game it follows the player to once paired.
        expect(page).to_have_url(re.compile(rf"({re.escape(event_path)}|/game/\d+/)$"))
        pages[name] = page
    # The event page follows each player to the game the tick starts for them.
    for page in pages.values():
        expect(page).to_have_url(re.compile(r"/game/\d+/$"), timeout=30_000)
        expect(page.locator("#board [data-cell]").first).to_be_visible()
    shoot(pages[names[0]], screenshot_dir, "tournament-taken-to-the-game")
    # No new games from here: the two in play finish and count.
    server.shell("from django.utils import timezone\nfrom tournaments.models import Tournament\n"
                 f"Tournament.objects.filter(pk={event_id}).update(ends_at=timezone.now())")
    paths = {name: page.url.removeprefix(server.url) for name, page in pages.items()}
    assert len(set(paths.values())) == 2

    # A tournament game's page: the event named and linked, no Takeback, no players' chat.
    # One player goes berserk before their first action: both pages say so, the button goes.
    first_path = sorted(set(paths.values()))[0]
    opening = snapshot_json(server, first_path)
    berserker, opponent = (pages[opening["players"][index]["username"]] for index in (1, 0))
    for page in (berserker, opponent):
        expect(page.locator("#game-event")).to_contain_text("Played in Browser arena")
        expect(page.locator("#game-event a")).to_have_attribute("href", event_path)
        expect(page.locator("#takeback")).to_be_hidden()
        expect(page.locator("#chat-off")).to_be_visible()
        expect(page.locator("#chat-text")).to_have_count(0)
    berserker.get_by_role("button", name="Berserk").click()
    for page in (berserker, opponent):
        expect(page.locator("#berserk-note")).to_contain_text(
            f"Berserk: {opening['players'][1]['username']}")
    expect(berserker.get_by_role("button", name="Berserk")).to_be_hidden()
    expect(opponent.get_by_role("button", name="Berserk")).to_be_visible()
    # Berserk drops the increment too (lichess's rule): the clocks say so beside each.
    for page in (berserker, opponent):
        expect(page.locator('#players .player[data-player="1"] .clock-increment')).to_have_text(
            "⚔ +0")
        expect(page.locator('#players .player[data-player="0"] .clock-increment')).to_have_text(
            "+3")
    clocks = snapshot_json(server, first_path)["clocks"]["remaining_ms"]
    assert clocks[1] <= 5 * 60_000 // 2 < clocks[0]
    shoot(opponent, screenshot_dir, "tournament-game-berserk")

    engine, rng = games.get("hadron"), random.Random(23)
    for path in sorted(set(paths.values())):
        while True:
            snapshot = snapshot_json(server, path)
            state = engine.replay(snapshot["options"], snapshot["actions"])
            if state.is_over:
                break
            mover = snapshot["players"][state.person_to_move]["username"]
            page = pages[mover]
            place(page, "hadron", rng.choice(state.legal_actions()))
            page.wait_for_function(
                "n => Number(document.getElementById('game-page').dataset.ply) >= n",
                arg=state.ply + 1)
        for name, page in pages.items():
            if paths[name] == path:
                expect(page.locator("#game-page")).to_have_attribute("data-status", "finished")

    # The visitor's page polled the standings: two winners with 2 points, then the podium
    # (the page reloads once when the event ends).
    # (3: a berserk win of 7 actions or more.)
    expect(watcher.locator("#standings tbody tr td:nth-child(3)",
                           has_text=re.compile(r"^\s*[23]\s*$"))).to_have_count(2, timeout=30_000)
    expect(watcher.locator(".podium")).to_be_visible(timeout=30_000)
    expect(watcher.locator("#tournament-status")).to_contain_text("Finished")
    # The score sheet: one mark per counted game, four players with one game each.
    expect(watcher.locator("#standings .sheet span")).to_have_count(4)
    shoot(watcher, screenshot_dir, "tournament-finished", full_page=True)

    phone = new_page(viewport=PHONE)
    phone.goto(server.url + event_path)
    expect(phone.locator("#standings")).to_be_visible()
    overflow = phone.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, f"the event page is {overflow}px wider than a phone"
    shoot(phone, screenshot_dir, "tournament-phone", full_page=True)
