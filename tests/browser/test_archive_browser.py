"""The Archive, the replay viewer and the exports in Chromium, as a visitor who never signed up.

A game is played to its end in the server's own database (manage.py shell + play's services),
then an anonymous visitor finds it in the Archive by player and by game, opens it, steps to a
middle ply with the keyboard, reopens the URL (which holds the ply) and sees the same position,
explores a move and comes back, and downloads the record, which the engine in the test
process replays to the same final position.
"""
import json
import re
from urllib.parse import parse_qs, urlparse

import pytest
from playwright.sync_api import expect

import games
from games import records
from tests.browser.helpers import (
    assert_not_reloaded, click_cell, log_in, new_players, open_game, shoot, start_game, wait_ply,
)

pytestmark = pytest.mark.browser

PLAY_OUT = """
import random
from django.contrib.auth import get_user_model
from play import services
from play.clock import TimeControl
User = get_user_model()
players = tuple(User.objects.get(username=name) for name in {names!r})
game = services.start_game(game={game!r}, options={options!r}, players=players,
                           time_control=TimeControl.untimed())
rng = random.Random({seed})
while True:
    game = services.load(game.pk)
    state = game.state()
    if state.is_over:
        break
    mover = game.players()[game.player_of(state.to_move)]
    services.play(game.pk, mover, state.ply, rng.choice(state.legal_actions()))
print(game.pk, game.ply_count)
"""


def finished_game(server, game, options, seed=5):
    names = tuple(new_players(server, "archx", "archy"))
    out = server.shell(PLAY_OUT.format(names=names, game=game, options=options, seed=seed))
    pk, plies = map(int, out.split()[-2:])
    return pk, plies, names


def occupied(page):
    """The cells of the board on screen that hold a tile or stone."""
    return set(page.eval_on_selector_all(
        "#board [data-cell]:not(.empty)", "nodes => nodes.map(n => n.dataset.cell)"))


def owned_cells(state):
    return {cell["name"] for cell in state.to_dict()["board"]["cells"] if cell["owner"] is not None}


def expect_ply(page, ply):
    """The replay bar is at `ply` and the board shows it (data-shown: drawn, not loading)."""
    bar = page.locator(".replay-bar")
    expect(bar).to_have_attribute("data-ply", str(ply))
    expect(bar).to_have_attribute("data-shown", str(ply))


def test_find_replay_reopen_explore_and_export(daphne_server, new_page, screenshot_dir):
    server = daphne_server
    pk, plies, (first, second) = finished_game(server, "hadron", {"size": 5})
    assert plies >= 6
    page = new_page()

    # Found in the Archive by player, with the search form...
    page.goto(server.url + "/archive/")
    page.fill("#id_player", first.upper())
    page.click("#archive-filter button[type=submit]")
    row = page.locator(f'.archive-row[data-game="{pk}"]')
    expect(row).to_be_visible()
    expect(row).to_contain_text(first)
    expect(row).to_contain_text(second)
    expect(row).to_contain_text("played out")
    # ...and by game (the player stays in the search).
    page.select_option("#id_game", "hadron")
    page.click("#archive-filter button[type=submit]")
    assert parse_qs(urlparse(page.url).query)["game"] == ["hadron"]
    expect(row).to_be_visible()
    thumbnail = row.locator(".thumb img")
    expect(thumbnail).to_have_attribute("src", f"/game/{pk}/position/{plies}.svg?labels=0")
    page.wait_for_function("img => img.complete && img.naturalWidth > 0",
                           arg=thumbnail.element_handle())
    shoot(page, screenshot_dir, "archive-list")

    # Other searches leave it out.
    page.select_option("#id_game", "tripen")
    page.click("#archive-filter button[type=submit]")
    expect(page.locator("#archive-count")).to_contain_text("No finished game matches")

    # Opening it (the finished game's page is the replay viewer) shows the final position,
    # then the keyboard steps to a middle ply.
    page.select_option("#id_game", "hadron")
    page.click("#archive-filter button[type=submit]")
    row.locator(".game-link").click()
    page.wait_for_url(f"**/game/{pk}/")
    expect(page.locator("#board [data-cell]").first).to_be_visible()
    expect_ply(page, plies)
    record = records.parse(page.request.get(server.url + f"/game/{pk}/record.txt").text())
    assert occupied(page) == owned_cells(record.state)
    middle = plies // 2
    page.locator("body").press("Home")
    expect_ply(page, 0)
    expect(page.locator("#board [data-cell]:not(.empty)")).to_have_count(0)
    for _ in range(middle):
        page.keyboard.press("ArrowRight")
    expect_ply(page, middle)
    at_middle = record.game.replay(record.options, record.actions[:middle])
    expect(page.locator("#board [data-cell]:not(.empty)")).to_have_count(middle)
    assert occupied(page) == owned_cells(at_middle)
    assert parse_qs(urlparse(page.url).query)["ply"] == [str(middle)]
    current = page.locator(f'#moves .act[data-ply="{middle}"]')
    expect(current).to_have_class(re.compile(r"\bcurrent\b"))
    page.keyboard.press("ArrowLeft")
    expect_ply(page, middle - 1)
    page.keyboard.press("ArrowRight")
    expect_ply(page, middle)
    shoot(page, screenshot_dir, "replay-middle")

    # The URL holds the ply: another visitor opening it sees the same position.
    shared = page.url
    other = new_page()
    other.goto(shared)
    expect_ply(other, middle)
    expect(other.locator("#board [data-cell]:not(.empty)")).to_have_count(middle)
    assert occupied(other) == occupied(page)

    # A click on a move in the list, the slider and the buttons go to other plies.
    page.locator('#moves .act[data-ply="2"]').click()
    expect_ply(page, 2)
    page.locator(".replay-slider").fill(str(middle))
    expect_ply(page, middle)
    page.locator('[data-go="last"]').click()
    expect_ply(page, plies)
    page.locator('[data-go="first"]').click()
    expect_ply(page, 0)

    # Explore from the middle: the server's engine checks the move, nothing is stored.
    page.goto(shared)
    expect_ply(page, middle)
    empty = sorted(set(at_middle.legal_actions()))[0]
    page.locator(f'#board [data-cell="{empty}"]').click()
    explore = page.locator(".replay-explore")
    expect(explore).to_be_visible()
    expect(explore).to_contain_text(empty)
    tried = page.locator(f'#board [data-cell="{empty}"]')
    expect(tried).not_to_have_class(re.compile(r"\bempty\b"))
    assert "explore=" in page.url
    shoot(page, screenshot_dir, "replay-explore")
    # The explored line is in the URL too: reopened, it shows the same scratch position.
    other.goto(page.url)
    expect(other.locator(".replay-explore")).to_contain_text(empty)
    expect(other.locator(f'#board [data-cell="{empty}"]')).not_to_have_class(re.compile(r"\bempty\b"))
    assert occupied(other) == owned_cells(at_middle.play(empty))
    # A move the engine refuses: its reason is shown and the line stays as it was.
    refused = sorted(owned_cells(at_middle))[0]
    with pytest.raises(games.IllegalAction) as reason:
        at_middle.play(empty).play(refused)
    page.locator(f'#board [data-cell="{refused}"]').click()
    expect(page.locator(".replay-notice")).to_have_text(str(reason.value))
    expect(explore).to_contain_text(empty)
    expect(explore).not_to_contain_text(f"{empty}, {refused}")
    page.get_by_role("button", name="Back to the game").click()
    expect(explore).to_be_hidden()
    expect_ply(page, middle)
    assert occupied(page) == owned_cells(at_middle)
    assert "explore=" not in page.url

    # Autoplay walks forward on its own.
    page.select_option(".replay-speed", "200")
    page.locator('[data-go="play"]').click()
    expect_ply(page, plies)
    expect(page.locator('[data-go="play"]')).to_have_attribute("aria-pressed", "false")

    # Export: the downloaded record replays to the same final position in the engine.
    with page.expect_download() as download_info:
        page.get_by_role("link", name="record (.txt)").click()
    download = download_info.value
    assert download.suggested_filename == f"tessera-{pk}-hadron.txt"
    downloaded = records.parse(open(download.path(), encoding="utf-8").read())
    final = json.loads(page.request.get(server.url + f"/game/{pk}/position/{plies}.json").text())
    assert downloaded.state.to_dict() == final
    assert downloaded.players == (first, second)
    with page.expect_download() as svg_info:
        page.get_by_role("link", name="this position (.svg)").click()
    assert svg_info.value.suggested_filename == f"tessera-{pk}-hadron-ply{plies}.svg"
    # Nothing the visitor did changed the stored game.
    check = server.shell("from play.models import Game; "
                         f"print(Game.objects.get(pk={pk}).ply_count)")
    assert int(check.split()[-1]) == plies


def test_replay_on_a_phone_in_dark_mode(daphne_server, new_page, screenshot_dir):
    pk, plies, _ = finished_game(daphne_server, "tripen", {"size": 5}, seed=8)
    page = new_page(viewport={"width": 390, "height": 844}, color_scheme="dark")
    middle = plies // 2
    page.goto(daphne_server.url + f"/game/{pk}/?ply={middle}")
    expect_ply(page, middle)
    expect(page.locator("#board .token, #board [data-action]").first).to_be_visible()
    page.wait_for_load_state("networkidle")  # tripen.css, added by the board module
    shoot(page, screenshot_dir, "replay-phone-dark", full_page=True)
    page.goto(daphne_server.url + "/archive/?game=tripen")
    expect(page.locator(f'.archive-row[data-game="{pk}"]')).to_be_visible()
    shoot(page, screenshot_dir, "archive-phone-dark", full_page=True)


def test_spectator_steps_back_in_a_live_game_and_returns_to_live(daphne_server, new_page,
                                                                  screenshot_dir):
    server = daphne_server
    names = new_players(server, "livex", "livey")
    path = start_game(server, "hadron", *names, options={"size": 5})
    players = [new_page(), new_page()]
    for page, name in zip(players, names):
        log_in(page, server, name)
        open_game(page, server, path)
    spectator = new_page()
    marker = open_game(spectator, server, path)
    state = games.get("hadron").new(size=5)
    history = [state]

    def move():
        nonlocal state
        action = sorted(state.legal_actions())[len(history) % 3]
        click_cell(players[state.to_move], action)
        state = state.play(action)
        history.append(state)
        for page in (*players, spectator):
            wait_ply(page, state.ply)

    for _ in range(4):
        move()
    expect(spectator.locator(".replay-where")).to_have_text("Live · 4 actions")
    expect(spectator.locator(".replay-live")).to_be_hidden()

    # Two steps back: the board shows ply 2, the way back to live is one button.
    spectator.keyboard.press("ArrowLeft")
    spectator.keyboard.press("ArrowLeft")
    expect_ply(spectator, 2)
    assert occupied(spectator) == owned_cells(history[2])
    live = spectator.locator(".replay-live")
    expect(live).to_be_visible()

    # The game goes on meanwhile: the new action arrives, the spectator stays where they are.
    move()
    move()
    expect(spectator.locator("#game-page")).to_have_attribute("data-ply", "6")
    expect(spectator.locator("#moves .act")).to_have_count(6)
    expect(spectator.locator(".replay-slider")).to_have_attribute("max", "6")
    expect_ply(spectator, 2)
    assert occupied(spectator) == owned_cells(history[2])
    shoot(spectator, screenshot_dir, "live-history")

    # One click returns to the live position, which follows the game again.
    live.click()
    expect_ply(spectator, 6)
    expect(live).to_be_hidden()
    expect(spectator.locator("#board [data-cell]:not(.empty)")).to_have_count(6)
    assert occupied(spectator) == owned_cells(history[6])
    assert "ply=" not in spectator.url
    move()
    expect_ply(spectator, 7)
    assert occupied(spectator) == owned_cells(history[7])
    assert_not_reloaded(spectator, marker)

    # A player may look back too, but a click on a past position is never a move.
    mover = players[state.to_move]
    mover.keyboard.press("Home")
    expect_ply(mover, 0)
    expect(mover.locator("#board.interactive")).to_have_count(0)
    click_cell(mover, sorted(state.legal_actions())[0])
    mover.locator(".replay-live").click()
    expect_ply(mover, 7)
    expect(mover.locator("#board.interactive")).to_have_count(1)
    game_id = path.strip("/").split("/")[-1]
    stored = server.shell(f"from play.models import Game; print(Game.objects.get(pk={game_id}).ply_count)")
    assert int(stored.split()[-1]) == 7
