"""Issue 10, "every screen tells the truth", in Chromium: one test per numbered item (the
item's number is in the test's name), at phone size (390x844, touch) and desktop size where
it matters, with screenshots of each changed state in light and dark
(tests/browser/screenshots/issue10-*.png).

Games are played in the server's own process (helpers.play_on_server) when a test only needs
a position; live play goes through the players' pages like everyone else's.
"""
import re

import pytest
from playwright.sync_api import expect

import games
from tests.browser import helpers
from tests.browser.helpers import (
    DESKTOP, PASSWORD, PHONE, account_choice_saved, click_cell, expect_banner, expect_notice,
    log_in, new_players, open_game, open_lobby, play_on_server, shoot, start_game, wait_ply,
)

pytestmark = pytest.mark.browser

TOUCH_PHONE = {"viewport": PHONE, "has_touch": True, "is_mobile": True}


def expect_replay_at(page, ply):
    bar = page.locator(".replay-bar")
    expect(bar).to_have_attribute("data-ply", str(ply))
    expect(bar).to_have_attribute("data-shown", str(ply))


def shoot_both(page, screenshot_dir, name, full_page=False):
    helpers.shoot_both(page, screenshot_dir, f"issue10-{name}", full_page=full_page)


def seat_two(server, new_page, game, options=None, views=(None, None), **start):
    """Two logged-in players on a new game's page; returns (path, names, pages)."""
    names = new_players(server, f"{game[:3]}p", f"{game[:3]}q")
    path = start_game(server, game, *names, options=options or {}, **start)
    pages = []
    for name, view in zip(names, views):
        page = new_page(**(view or {}))
        log_in(page, server, name)
        open_game(page, server, path)
        pages.append(page)
    return path, names, pages


# -- 1. replay panels show the position on the board -------------------------------------------

def test_item01_panels_and_clocks_follow_the_replayed_ply(daphne_server, new_page, screenshot_dir):
    server = daphne_server
    # Hadron 5+0, each action ten seconds after the one before.
    pk, plies, names = play_on_server(server, "hadron", {"size": 5}, seed=4, time="5+0", step=10)
    page = new_page(viewport=DESKTOP)
    page.goto(server.url + f"/game/{pk}/?ply=3")
    expect_replay_at(page, 3)
    cards = page.locator("#players .player")
    # After three actions: Red placed two tiles (twenty seconds spent), Blue one (ten).
    expect(cards.nth(0).locator(".extra")).to_have_text("2 tiles")
    expect(cards.nth(1).locator(".extra")).to_have_text("1 tile")
    expect(cards.nth(0).locator(".clock")).to_have_text("4:40")
    expect(cards.nth(1).locator(".clock")).to_have_text("4:50")
    shoot_both(page, screenshot_dir, "01-hadron-ply3")
    page.keyboard.press("ArrowRight")
    expect_replay_at(page, 4)
    expect(cards.nth(1).locator(".extra")).to_have_text("2 tiles")
    expect(cards.nth(1).locator(".clock")).to_have_text("4:40")
    # The last position: the game's own final counts.
    page.keyboard.press("End")
    expect_replay_at(page, plies)
    actions = page.eval_on_selector_all("#moves .act", "nodes => nodes.map(n => n.textContent)")
    final = games.get("hadron").replay({"size": 5}, actions)
    expect(cards.nth(0).locator(".extra")).to_have_text(final.tallies()[0])
    expect(cards.nth(1).locator(".extra")).to_have_text(final.tallies()[1])

    # Colorful: the groups panel and the scores are those of the ply shown.
    cpk, cplies, _ = play_on_server(server, "colorful", {"board": "hexhex", "size": 3}, seed=2)
    colorful = new_page(viewport=DESKTOP)
    colorful.goto(server.url + f"/game/{cpk}/?ply=5")
    expect_replay_at(colorful, 5)
    actions = colorful.eval_on_selector_all("#moves .act", "nodes => nodes.map(n => n.textContent)")
    at5 = games.get("colorful").replay({"board": "hexhex", "size": 3}, actions[:5])
    scoring = [g for g in at5.to_dict()["board"]["groups"] if g["score"] is not None]
    expect(colorful.locator("#groups .group[data-cells]")).to_have_count(len(scoring))
    expect(colorful.locator("#players .player").nth(0).locator(".extra")).to_have_text(at5.tallies()[0])
    shoot_both(colorful, screenshot_dir, "01-colorful-ply5")


# -- 2. "Offline" clears when the network comes back -------------------------------------------

def test_item02_offline_label_clears_when_the_network_returns(daphne_server, new_page,
                                                              screenshot_dir):
    path, names, (alice, bob) = seat_two(daphne_server, new_page, "hadron", {"size": 5})
    alice.context.set_offline(True)
    expect(alice.locator("#connection")).to_have_text(re.compile("Offline"))
    expect(alice.locator("#game-page")).to_have_class(re.compile(r"\bdisconnected\b"))
    shoot(alice, screenshot_dir, "issue10-02-offline")
    alice.context.set_offline(False)
    # Back within seconds (the issue saw it stay for over 50 s), while the game goes on.
    expect(alice.locator("#connection")).to_have_class(re.compile(r"\bopen\b"), timeout=10_000)
    expect(alice.locator("#connection")).to_have_text("Live")
    expect(alice.locator("#game-page")).not_to_have_class(re.compile(r"\bdisconnected\b"))
    click_cell(alice, "c3")
    wait_ply(bob, 1)
    click_cell(bob, "a1")
    wait_ply(alice, 2)
    shoot_both(alice, screenshot_dir, "02-back-online")


# -- 3. a spectator looking back is told what the board shows ----------------------------------

def test_item03_spectator_looking_back_sees_what_is_shown_and_a_way_back(
        daphne_server, new_page, screenshot_dir):
    server = daphne_server
    path, names, (alice, bob) = seat_two(server, new_page, "hadron", {"size": 5})
    spectator = new_page(**TOUCH_PHONE)
    open_game(spectator, server, path)
    state = games.get("hadron").new(size=5)
    for action in ("c3", "a1", "e5", "a5"):
        click_cell((alice, bob)[state.to_move], action)
        state = state.play(action)
        wait_ply(spectator, state.ply)
    spectator.keyboard.press("ArrowLeft")
    spectator.keyboard.press("ArrowLeft")
    expect_replay_at(spectator, 2)
    # Not "LIVE · Red to place a tile" over an old position.
    expect(spectator.locator("#prompt-who")).to_have_text("Replay")
    expect(spectator.locator("#prompt")).to_contain_text("After action 2 of 4")
    shoot_both(spectator, screenshot_dir, "03-looking-back")
    # The game ends meanwhile: the banner says what the board shows and the way back stays.
    bob.click("#resign")
    bob.click("#resign-yes")
    expect_banner(spectator, f"{names[1]} resigned")
    expect(spectator.locator("#banner-shown")).to_contain_text("After action 2 of 4")
    back = spectator.locator(".replay-live")
    expect(back).to_be_visible()
    shoot_both(spectator, screenshot_dir, "03-ended-while-looking-back")
    back.click()
    expect_replay_at(spectator, 4)
    expect(spectator.locator("#banner-shown")).to_be_empty()
    expect(back).to_be_hidden()


# -- 4. "Play" links open the game they name ---------------------------------------------------

def test_item04_play_links_choose_their_game(daphne_server, new_page, screenshot_dir):
    server = daphne_server
    (name,) = new_players(server, "linker")
    page = new_page(viewport=DESKTOP)
    log_in(page, server, name)
    page.goto(server.url + "/rules/tripen/")
    page.get_by_role("link", name="Play Tripen").click()
    page.wait_for_url("**/play/?game=tripen")
    expect(page.locator("#id_game")).to_have_value("tripen")
    for form in ("#new-game", "#play-the-computer"):
        expect(page.locator(f'{form} fieldset.game-options[data-game="tripen"]')).to_be_visible()
        expect(page.locator(f'{form} fieldset.game-options[data-game="hadron"]')).to_be_hidden()
    expect(page.locator("#play-the-computer [name=computer-game]")).to_have_value("tripen")
    shoot_both(page, screenshot_dir, "04-play-tripen")
    page.goto(server.url + "/")
    page.locator(".game-card", has_text="Colorful Connection").get_by_role("link", name="Play").click()
    expect(page.locator("#id_game")).to_have_value("colorful")


# -- 5. one wording for boards, and "1 tile" ---------------------------------------------------

def test_item05_one_wording_for_boards_and_counts(daphne_server, new_page, screenshot_dir):
    server = daphne_server
    cpath, _, _ = seat_two(server, new_page, "colorful", {"board": "long", "size": 4})
    path, names, (alice, bob) = seat_two(server, new_page, "hadron", {"size": 5})
    viewer = new_page(viewport=DESKTOP)
    viewer.goto(server.url + cpath)
    expect(viewer.locator("#options-text")).to_have_text("long board side 4")
    viewer.goto(server.url + "/watch/?game=colorful")
    row = viewer.locator(f'#watch-game-{cpath.strip("/").split("/")[-1]}')
    expect(row).to_contain_text("long board side 4")
    click_cell(alice, "c3")
    wait_ply(bob, 1)
    expect(bob.locator('#players .player[data-player="0"] .extra')).to_have_text("1 tile")
    expect(bob.locator('#players .player[data-player="1"] .extra')).to_have_text("0 tiles")
    expect(bob.locator("#options-text")).to_have_text("5×5")
    shoot_both(bob, screenshot_dir, "05-one-tile")
    lobby = new_page(viewport=DESKTOP)
    log_in(lobby, server, names[0])
    open_lobby(lobby, server)
    lobby.select_option("#id_game", "colorful")
    expect(lobby.locator("#id_colorful_board option[value=long]")).to_have_text("long board")
    expect(lobby.locator("#id_colorful_size option[value='4']")).to_have_text("side 4")


# -- 6. the log-in error is true ---------------------------------------------------------------

def test_item06_login_error_says_usernames_ignore_case(daphne_server, new_page, screenshot_dir):
    server = daphne_server
    (name,) = new_players(server, "Casey")
    page = new_page(**TOUCH_PHONE)
    page.goto(server.url + "/accounts/login/")
    page.fill("input[name=username]", name.upper())
    page.fill("input[name=password]", PASSWORD + "x")
    page.click("form.stacked button[type=submit]")
    error = page.locator(".errorlist.nonfield")
    expect(error).to_contain_text("Usernames ignore case; passwords do not.")
    expect(error).not_to_contain_text("both fields may be case-sensitive")
    shoot_both(page, screenshot_dir, "06-login-error")
    # And it is so: the same name in capitals with the right password logs in.
    page.fill("input[name=username]", name.upper())
    page.fill("input[name=password]", PASSWORD)
    page.click("form.stacked button[type=submit]")
    expect(page.locator(".account-nav .who")).to_have_text(name)


# -- 7. watcher counts match what players see --------------------------------------------------

def test_item07_watcher_count_matches_the_players_and_ends_with_the_game(
        daphne_server, new_page, screenshot_dir):
    server = daphne_server
    path, names, (alice, bob) = seat_two(server, new_page, "hadron", {"size": 5})
    spectator = new_page(viewport=DESKTOP)
    open_game(spectator, server, path)
    for page in (alice, bob):
        expect(page.locator("#watchers")).to_have_text("1 watching")
    expect(spectator.locator("#watchers")).to_have_text("1 watching (you included)")
    shoot(spectator, screenshot_dir, "issue10-07-spectator-counted")
    alice.click("#abort")
    for page in (alice, bob, spectator):
        expect_banner(page, f"Aborted by {names[0]}")
        expect(page.locator("#watchers")).to_be_hidden()
    # A finished game's page, opened later, does not count its reader as watching.
    reader = new_page(**TOUCH_PHONE)
    reader.goto(server.url + path)
    expect(reader.locator("#board [data-cell]").first).to_be_visible()
    expect(reader.locator("#watchers")).to_be_hidden()
    shoot_both(reader, screenshot_dir, "07-finished-no-count", full_page=True)


# -- 8. 404 and 500 pages in the site's layout -------------------------------------------------

def test_item08_error_pages_have_the_layout_and_a_way_on(daphne_server, new_page, screenshot_dir):
    server = daphne_server
    page = new_page(**TOUCH_PHONE)
    response = page.goto(server.url + "/no-such-page/")
    assert response.status == 404
    expect(page.locator("h1")).to_have_text("Page not found")
    expect(page.locator(".site-header .main-nav")).to_be_visible()
    expect(page.locator(".ways-on").get_by_role("link", name="Home")).to_be_visible()
    shoot_both(page, screenshot_dir, "08-404-phone")
    assert page.request.get(server.url + "/game/999999/").status == 404
    # The 500 page as Django renders it (no request, no context processors), in the browser.
    from django.template.loader import render_to_string
    html = render_to_string("500.html")
    desktop = new_page(viewport=DESKTOP)
    desktop.goto(server.url + "/no-such-page/")
    desktop.set_content(html)
    expect(desktop.locator("h1")).to_have_text("Something went wrong on our side")
    expect(desktop.locator(".ways-on").get_by_role("link", name="Play")).to_be_visible()
    shoot_both(desktop, screenshot_dir, "08-500-desktop")
    desktop.get_by_role("link", name="Archive").first.click()
    desktop.wait_for_url("**/archive/")


# -- 9. legal-move hints without hover ---------------------------------------------------------

def test_item09_hints_show_on_a_touch_screen_and_can_be_hidden(daphne_server, new_page,
                                                               screenshot_dir):
    path, names, (alice, bob) = seat_two(daphne_server, new_page, "hadron", {"size": 5},
                                         views=(TOUCH_PHONE, None))
    click_cell(alice, "c3")
    wait_ply(bob, 1)
    click_cell(bob, "a1")
    wait_ply(alice, 2)
    legal = games.get("hadron").new(size=5).play("c3").play("a1").legal_actions()
    dots = alice.locator("#board .cell.legal .dot")
    expect(dots).to_have_count(len(legal))
    # No pointer over the board: the dots show all the same.
    expect(dots.first).to_have_css("opacity", "0.5")
    expect(alice.locator('#board [data-cell="b3"] .dot')).to_have_css("opacity", "0")
    shoot_both(alice, screenshot_dir, "09-hints-phone")
    with account_choice_saved(alice) as saved:
        alice.locator("#pref-hints").uncheck()
    assert saved.value.ok
    expect(dots.first).to_have_css("opacity", "0")
    alice.reload()
    expect(alice.locator("#connection")).to_have_class(re.compile(r"\bopen\b"))
    expect(alice.locator("#pref-hints")).not_to_be_checked()
    expect(alice.locator("#board .cell.legal .dot").first).to_have_css("opacity", "0")
    shoot(alice, screenshot_dir, "issue10-09-hints-off-light")
    alice.locator("#pref-hints").check()


# -- 10. notices hide nothing ------------------------------------------------------------------

def boxes_overlap(a, b):
    return not (a["x"] + a["width"] <= b["x"] or b["x"] + b["width"] <= a["x"]
                or a["y"] + a["height"] <= b["y"] or b["y"] + b["height"] <= a["y"])


def test_item10_notices_never_cover_the_board(daphne_server, new_page, screenshot_dir):
    path, names, (alice, bob) = seat_two(daphne_server, new_page, "hadron", {"size": 5},
                                         views=(None, TOUCH_PHONE))
    click_cell(alice, "c3")
    wait_ply(bob, 1)
    refused = games.get("hadron").new(size=5).play("c3")
    with pytest.raises(games.IllegalAction) as reason:
        refused.play("b3")
    bob.locator('#board [data-cell="b3"]').tap()
    expect_notice(bob, str(reason.value))
    notice = bob.locator("#notice").bounding_box()
    board = bob.locator("#board").bounding_box()
    assert not boxes_overlap(notice, board), (notice, board)
    assert notice["y"] + notice["height"] <= 844, "the notice is on the first screen"
    shoot_both(bob, screenshot_dir, "10-notice-phone")
    # On a desktop too, and the cells under the old place of the notice stay clickable.
    click_cell(bob, "a1")
    wait_ply(alice, 2)
    click_cell(alice, "b3")
    expect(alice.locator("#notice")).to_be_visible()
    assert not boxes_overlap(alice.locator("#notice").bounding_box(),
                             alice.locator("#board").bounding_box())
    shoot_both(alice, screenshot_dir, "10-notice-desktop")


# -- 12. Colorful Connection under colour blindness --------------------------------------------

def emulate_vision(page, kind):
    cdp = page.context.new_cdp_session(page)
    cdp.send("Emulation.setEmulatedVisionDeficiency", {"type": kind})
    return cdp


def lab(rgb):
    """CIELAB of an sRGB pixel (0..255), for colour differences as people see them."""
    def linear(c):
        c /= 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4
    r, g, b = map(linear, rgb[:3])
    x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047
    y = 0.2126 * r + 0.7152 * g + 0.0722 * b
    z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883

    def f(t):
        return t ** (1 / 3) if t > 0.008856 else 7.787 * t + 16 / 116
    return (116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z)))


def stone_colours(page, path, cells):
    """The colour of each cell's stone as the screen shows it (a point beside the letter)."""
    from PIL import Image
    page.screenshot(path=str(path))
    image = Image.open(path).convert("RGB")
    scale = image.width / page.viewport_size["width"]
    colours = {}
    for cell in cells:
        box = page.locator(f'#board [data-cell="{cell}"] .stone').bounding_box()
        x = box["x"] + box["width"] * 0.5
        y = box["y"] + box["height"] * 0.8
        colours[cell] = image.getpixel((round(x * scale), round(y * scale)))
    return colours


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_item12_colorful_stones_read_under_colour_blindness(daphne_server, new_page,
                                                           screenshot_dir, scheme):
    import math
    server = daphne_server
    # R and P from Player 1, B and G from Player 2, on a side-3 board.
    names = new_players(server, "cvda", "cvdb")
    path = start_game(server, "colorful", *names, options={"board": "hexhex", "size": 3})
    server.shell(
        "from django.contrib.auth import get_user_model\nfrom play import services\n"
        f"game = services.load({int(path.strip('/').split('/')[-1])})\n"
        "for ply, action in enumerate(['R@A1', 'B@C1', 'G@E3', 'P@C5', 'R@A3']):\n"
        "    game = services.load(game.pk)\n"
        "    player = game.players()[game.player_of(game.state().to_move)]\n"
        "    services.play(game.pk, player, ply, action)\n")
    page = new_page(viewport=DESKTOP, color_scheme=scheme)
    page.goto(server.url + path)
    cells = {"R": "A1", "B": "C1", "G": "E3", "P": "C5"}
    for colour, cell in cells.items():
        expect(page.locator(f'#board [data-cell="{cell}"] .letter')).to_have_text(colour)
    for kind in ("deuteranopia", "protanopia"):
        cdp = emulate_vision(page, kind)
        seen = stone_colours(page, screenshot_dir / f"issue10-12-{kind}-{scheme}.png", cells.values())
        seen = {colour: lab(seen[cell]) for colour, cell in cells.items()}
        for a, b in (("R", "G"), ("P", "G"), ("R", "P"), ("B", "G"), ("R", "B"), ("P", "B")):
            difference = math.dist(seen[a], seen[b])
            assert difference > 20, f"{kind}, {scheme}: {a} and {b} differ by only {difference:.1f}"
        cdp.send("Emulation.setEmulatedVisionDeficiency", {"type": "none"})
        cdp.detach()
    shoot(page, screenshot_dir, f"issue10-12-normal-{scheme}")


# -- 13. why the game ended, on the board ------------------------------------------------------

def test_item13_the_final_position_shows_why_the_game_ended(daphne_server, new_page,
                                                           screenshot_dir):
    server = daphne_server
    page = new_page(viewport=DESKTOP)
    for game, options, seed in (("tripen", {"size": 5}, 3), ("hadron", {"size": 5}, 2),
                                ("copolymer", {"size": 4}, 1),
                                ("colorful", {"board": "hexhex", "size": 3}, 4)):
        pk, plies, _ = play_on_server(server, game, options, seed=seed)
        page.goto(server.url + f"/game/{pk}/")
        expect_replay_at(page, plies)
        actions = page.eval_on_selector_all("#moves .act", "nodes => nodes.map(n => n.textContent)")
        ending = games.get(game).replay(options, actions).ending()
        expect(page.locator("#ending-caption")).to_have_text(ending["caption"])
        if game == "tripen":
            expect(page.locator("#board .token.chain")).to_have_count(len(ending["chain"]))
            expect(page.locator("#board.ending-chain")).to_have_count(1)
        elif game == "hadron":
            expect(page.locator("#board .cell.blocked")).to_have_count(len(ending["cells"]))
            expect(page.locator("#board .cell.blocked .cross").first).to_have_css("opacity", "0.85")
        else:
            expect(page.locator("#board .cell.decisive")).to_have_count(len(ending["cells"]))
        shoot_both(page, screenshot_dir, f"13-{game}-ending")
        # An earlier position shows no ending; the last one shows it again.
        page.keyboard.press("ArrowLeft")
        expect_replay_at(page, plies - 1)
        expect(page.locator("#ending-caption")).to_be_hidden()
        expect(page.locator("#board.ending-chain, #board[class*=ending-]")).to_have_count(0)
        page.keyboard.press("End")
        expect(page.locator("#ending-caption")).to_have_text(ending["caption"])


def test_item13_live_players_see_the_ending_at_once(daphne_server, new_page, screenshot_dir):
    path, names, pages = seat_two(daphne_server, new_page, "hadron", {"size": 5},
                                  views=({"viewport": DESKTOP, "color_scheme": "dark"}, TOUCH_PHONE))
    state = games.get("hadron").new(size=5)
    while not state.is_over:
        action = sorted(state.legal_actions())[0]
        click_cell(pages[state.to_move], action)
        state = state.play(action)
        for page in pages:
            wait_ply(page, state.ply)
    ending = state.ending()
    for page in pages:
        expect(page.locator("#ending-caption")).to_have_text(ending["caption"])
        expect(page.locator("#board .cell.blocked")).to_have_count(len(ending["cells"]))
    shoot(pages[0], screenshot_dir, "issue10-13-live-hadron-dark")
    shoot(pages[1], screenshot_dir, "issue10-13-live-hadron-phone-light", full_page=True)


# -- 14. sounds, confirm move, flip ------------------------------------------------------------

RECORD_SOUNDS = """() => {
  window.__sounds = [];
  document.addEventListener("tessera:sound", (e) => window.__sounds.push(e.detail));
}"""


def test_item14_sounds_mute_confirm_and_flip(daphne_server, new_page, screenshot_dir):
    server = daphne_server
    path, names, (alice, bob) = seat_two(server, new_page, "hadron", {"size": 5}, days="3")
    for page in (alice, bob):
        page.evaluate(RECORD_SOUNDS)
    click_cell(alice, "c3")
    wait_ply(bob, 1)
    bob.wait_for_function("window.__sounds.includes('move')")
    # Muted: remembered across a reload; no sound is played.
    with account_choice_saved(bob) as saved:
        bob.click("#sound")
    assert saved.value.ok
    expect(bob.locator("#sound")).to_have_attribute("aria-pressed", "false")
    bob.reload()
    expect(bob.locator("#connection")).to_have_class(re.compile(r"\bopen\b"))
    bob.evaluate(RECORD_SOUNDS)
    expect(bob.locator("#sound")).to_have_text("♪ Sound off")
    # Confirm moves (a correspondence game): the pick waits for Confirm.
    bob.locator("#pref-confirm").check()
    click_cell(bob, "a1")
    expect(bob.locator("#confirm-move")).to_be_visible()
    expect(bob.locator("#confirm-text")).to_have_text("Play a1?")
    shoot_both(bob, screenshot_dir, "14-confirm-move")
    expect(alice.locator("#game-page")).to_have_attribute("data-ply", "1")
    bob.click("#confirm-no")
    expect(bob.locator("#confirm-move")).to_be_hidden()
    click_cell(bob, "a1")
    bob.click("#confirm-yes")
    wait_ply(alice, 2)
    alice.wait_for_function("window.__sounds.filter(s => s === 'move').length >= 1")
    click_cell(alice, "e5")
    wait_ply(bob, 3)
    assert bob.evaluate("window.__sounds") == []
    # Flip: a1 (bottom left) goes to the top right; the labels stay upright.
    before = bob.locator('#board [data-cell="a1"]').bounding_box()
    bob.click("#flip")
    expect(bob.locator("#board")).to_have_class(re.compile(r"\bflipped\b"))
    after = bob.locator('#board [data-cell="a1"]').bounding_box()
    assert after["y"] < before["y"] and after["x"] > before["x"]
    shoot_both(bob, screenshot_dir, "14-flipped")
    # A click on the flipped board still takes the cell under it.
    legal = games.get("hadron").new(size=5).play("c3").play("a1").play("e5").legal_actions()
    click_cell(bob, sorted(legal)[0])
    expect(bob.locator("#confirm-text")).to_have_text(f"Play {sorted(legal)[0]}?")
    bob.click("#confirm-yes")
    wait_ply(alice, 4)
    bob.click("#flip")
    bob.locator("#pref-confirm").uncheck()
    bob.click("#sound")


def test_item14_end_and_continuation_sounds(daphne_server, new_page):
    path, names, (alice, bob) = seat_two(daphne_server, new_page, "copolymer", {"size": 4})
    for page in (alice, bob):
        page.evaluate(RECORD_SOUNDS)
    state = games.get("copolymer").new(size=4)
    pages = (alice, bob)
    heard_continuation = False
    import random
    rng = random.Random(7)
    while not state.is_over:
        mover = state.to_move
        action = rng.choice(state.legal_actions())
        click_cell(pages[mover], action)
        state = state.play(action)
        wait_ply(bob, state.ply)
        if not state.is_over and state.to_move == mover:
            heard_continuation = True
            bob.wait_for_function("window.__sounds.includes('continuation')")
    assert heard_continuation
    bob.wait_for_function("window.__sounds.at(-1) === 'end'")


# -- 15. "New opponent" after a game -----------------------------------------------------------

def test_item15_new_opponent_posts_the_same_seek(daphne_server, new_page, screenshot_dir):
    server = daphne_server
    path, names, (alice, bob) = seat_two(server, new_page, "hadron", {"size": 7}, time="3+2",
                                         views=(TOUCH_PHONE, None))
    expect(alice.locator("#new-opponent")).to_be_hidden()
    bob.click("#resign")
    bob.click("#resign-yes")
    expect_banner(alice, f"{names[1]} resigned")
    button = alice.locator("#new-opponent")
    expect(button).to_be_visible()
    expect(alice.locator("#rematch")).to_be_visible()
    shoot_both(alice, screenshot_dir, "15-after-the-game", full_page=True)
    button.click()
    alice.wait_for_url("**/play/")
    row = alice.locator("#seek-list tr.seek.mine")
    expect(row).to_have_count(1)
    expect(row).to_contain_text("Hadron")
    expect(row).to_contain_text("7×7")
    expect(row).to_contain_text("3+2")
    shoot_both(alice, screenshot_dir, "15-seek-posted")
    row.get_by_role("button", name="Cancel").click()
    expect(alice.locator("#seek-list tr.seek.mine")).to_have_count(0)


# -- 17. a seek closed while its owner was away -------------------------------------------------

def test_item17_owner_is_told_their_seek_closed_while_away(daphne_server, new_page,
                                                          screenshot_dir):
    server = daphne_server
    (name,) = new_players(server, "leaver")
    page = new_page(viewport=DESKTOP)
    log_in(page, server, name)
    open_lobby(page, server)
    page.select_option("#id_game", "tripen")
    page.locator("#new-game button.primary").click()
    expect(page.locator("#seek-list tr.seek.mine")).to_have_count(1)
    page.goto(server.url + "/rules/")
    # The lobby closes it once the owner has been gone for its grace period.
    check = ("from lobby.models import Seek; "
             f"print(Seek.objects.filter(owner__username={name!r}, status='expired').count())")
    for _ in range(120):
        if server.shell(check).split()[-1] == "1":
            break
    else:
        pytest.fail("the seek did not close")
    open_lobby(page, server)
    card = page.locator("#expired-seeks")
    expect(card).to_be_visible()
    expect(card).to_contain_text("Tripen 7×7")
    expect(card).to_contain_text("you left it")
    shoot_both(page, screenshot_dir, "17-seek-closed-while-away")
    # Said once: the next visit does not repeat it. "Post it again" opens it again.
    card.get_by_role("button", name="Post it again").click()
    page.wait_for_url("**/play/")
    expect(page.locator("#expired-seeks")).to_have_count(0)
    expect(page.locator("#seek-list tr.seek.mine")).to_have_count(1)


# -- 16. clocks and watcher counts on the Watch page -------------------------------------------

def test_item16_watch_rows_and_featured_game_show_clocks_and_watchers(
        daphne_server, new_page, screenshot_dir):
    server = daphne_server
    # Copolymer: no other test of this module leaves one in progress, so this game is the
    # liveliest of its kind and the one the page features.
    path, names, (alice, bob) = seat_two(server, new_page, "copolymer", {"size": 4}, time="5+0")
    game_id = path.strip("/").split("/")[-1]
    spectator = new_page(viewport=DESKTOP)
    open_game(spectator, server, path)
    click_cell(alice, "D4")
    wait_ply(bob, 1)
    watcher = new_page(viewport=DESKTOP)
    watcher.goto(server.url + "/watch/?game=copolymer")
    row = watcher.locator(f"#watch-game-{game_id}")
    expect(row.locator(".row-watchers")).to_have_text(re.compile(r"^[12] watching$"))
    clocks = row.locator(".row-clock")
    expect(clocks).to_have_count(2)
    running = row.locator(".row-clock.running")
    expect(running).to_have_attribute("data-player", "1")
    first = running.text_content()
    expect(running).not_to_have_text(first)  # it runs down
    expect(row.locator('.row-clock[data-player="0"]')).to_have_text(re.compile(r"^[45]:\d\d$"))
    featured = watcher.locator("#featured-players .featured-clock")
    expect(featured).to_have_count(2)
    expect(watcher.locator("#featured-players .featured-clock.running")).to_have_attribute("data-player", "1")
    # A move: the row comes again with the clocks turned and the watcher count.
    click_cell(bob, "A1")
    expect(row).to_have_attribute("data-ply", "2")
    expect(row.locator(".row-clock.running")).to_have_attribute("data-player", "0")
    expect(row.locator(".row-watchers")).to_have_text("2 watching")  # the spectator and this page
    shoot_both(watcher, screenshot_dir, "16-watch-clocks")
    phone = new_page(**TOUCH_PHONE)
    phone.goto(server.url + "/watch/?game=copolymer")
    expect(phone.locator(f"#watch-game-{game_id} .row-clock")).to_have_count(2)
    shoot_both(phone, screenshot_dir, "16-watch-clocks-phone", full_page=True)


# -- 11. a phone: the header, the buttons, the Archive's filter, big boards ----------------------

def test_item11_phone_layout_reaches_everything(daphne_server, new_page, screenshot_dir):
    server = daphne_server
    path, names, (alice, bob) = seat_two(server, new_page, "hadron", {"size": 5},
                                         views=(TOUCH_PHONE, None))
    header = alice.locator(".site-header").bounding_box()
    assert header["height"] <= 64, header
    # The account links are behind the menu button, one tap away.
    expect(alice.locator(".account-nav .who")).to_be_hidden()
    alice.locator(".menu-button").tap()
    expect(alice.locator(".account-nav .who")).to_be_visible()
    shoot_both(alice, screenshot_dir, "11-phone-menu")
    alice.locator(".menu-button").tap()
    # Resign and Abort sit under the board, above the replay bar, on the first screen.
    abort = alice.locator("#abort").bounding_box()
    board = alice.locator("#board").bounding_box()
    replay = alice.locator("#replay").bounding_box()
    assert board["y"] + board["height"] <= abort["y"] < replay["y"], (board, abort, replay)
    assert abort["y"] + abort["height"] <= 844
    board_width = alice.locator("#board").bounding_box()["width"]
    assert board_width >= 370, "the board takes the phone's width"
    shoot_both(alice, screenshot_dir, "11-phone-game")

    # The Archive: a game is on the first screen, the rarer filters folded away.
    play_on_server(server, "hadron", {"size": 5}, seed=1)
    alice.goto(server.url + "/archive/")
    first = alice.locator(".archive-row").first.bounding_box()
    assert first["y"] < 844, first
    expect(alice.locator(".more-filters")).not_to_have_attribute("open", "")
    expect(alice.locator("#id_reason")).to_be_hidden()
    shoot_both(alice, screenshot_dir, "11-phone-archive")
    alice.goto(server.url + "/archive/?reason=resign")
    expect(alice.locator(".more-filters")).to_have_attribute("open", "")
    expect(alice.locator("#id_reason")).to_be_visible()

    # Tripen 13: the zoom makes the board twice as wide and its labels readable.
    tpath, _, (red, _blue) = seat_two(server, new_page, "tripen", {"size": 13},
                                      views=(TOUCH_PHONE, None))
    label = red.locator("#board .labels text").first
    small = red.evaluate("t => t.getBoundingClientRect().height", label.element_handle())
    red.locator("#zoom").tap()
    expect(red.locator("#board-frame")).to_have_class(re.compile(r"\bzoomed\b"))
    big = red.evaluate("t => t.getBoundingClientRect().height", label.element_handle())
    assert big >= 1.9 * small and big >= 9, (small, big)
    frame = red.locator("#board-frame").bounding_box()
    assert red.locator("#board").bounding_box()["width"] >= 1.9 * frame["width"] - 4
    # The zoomed board scrolls, and a tap still opens the pose picker of the cell under it.
    red.locator("#board-frame").evaluate("f => { f.scrollLeft = f.scrollWidth / 3; }")
    red.locator('#board [data-cell="g7"]').tap()
    expect(red.locator(".tripen-picker")).to_be_visible()
    expect(red.locator(".tripen-picker")).to_contain_text("g7")
    shoot_both(red, screenshot_dir, "11-phone-tripen13-zoomed")


# -- 13 (exports) and 19. the ending in the SVG; PNG and animated GIF exports -------------------

def test_item13_item19_exports_show_the_ending_and_come_as_png_and_gif(
        daphne_server, new_page, screenshot_dir):
    from PIL import Image
    server = daphne_server
    pk, plies, _ = play_on_server(server, "tripen", {"size": 5}, seed=3)
    page = new_page(**TOUCH_PHONE)
    page.goto(server.url + f"/game/{pk}/")
    expect_replay_at(page, plies)
    actions = page.eval_on_selector_all("#moves .act", "nodes => nodes.map(n => n.textContent)")
    ending = games.get("tripen").replay({"size": 5}, actions).ending()

    with page.expect_download() as svg_file:
        page.locator(".position-svg").click()
    drawing = open(svg_file.value.path(), encoding="utf-8").read()
    assert drawing.count(" chain\"") == len(ending["chain"])
    assert ending["caption"].split()[0] in drawing and 'class="caption"' in drawing

    with page.expect_download() as png_file:
        page.get_by_role("link", name="(.png)").click()
    assert png_file.value.suggested_filename == f"tessera-{pk}-tripen-ply{plies}.png"
    still = Image.open(png_file.value.path())
    assert still.format == "PNG" and still.width == 640
    still.save(screenshot_dir / "issue10-19-export-tripen-final.png")

    with page.expect_download() as gif_file:
        page.get_by_role("link", name="the whole game (.gif)").click()
    assert gif_file.value.suggested_filename == f"tessera-{pk}-tripen-ply{plies}.gif"
    film = Image.open(gif_file.value.path())
    assert film.format == "GIF" and film.n_frames == plies + 1 and film.is_animated
    for frame in (0, plies // 2, plies):
        film.seek(frame)
        film.convert("RGB").save(screenshot_dir / f"issue10-19-gif-frame-{frame}.png")
    # The first frame is the empty board, the last the final position with its chain.
    film.seek(0)
    empty = film.convert("RGB")
    film.seek(plies)
    assert film.convert("RGB").getcolors(1 << 16) != empty.getcolors(1 << 16)
    # An earlier ply exports that ply.
    page.keyboard.press("Home")
    expect_replay_at(page, 0)
    expect(page.locator(".position-png")).to_have_attribute("href", f"/game/{pk}/position/0.png")
    shoot_both(page, screenshot_dir, "19-export-links", full_page=True)


# -- 18. the game page without JavaScript ------------------------------------------------------

def test_item18_game_page_reads_without_javascript(daphne_server, new_page, screenshot_dir):
    server = daphne_server
    pk, plies, names = play_on_server(server, "copolymer", {"size": 4}, seed=6)
    page = new_page(viewport=PHONE, java_script_enabled=False)
    page.goto(server.url + f"/game/{pk}/")
    picture = page.locator("#board-picture svg")
    expect(picture).to_be_visible()
    # The final position, drawn by the server from the engine: every cell claimed.
    expect(picture.locator("[data-cell]")).to_have_count(37)
    expect(picture.locator(".cell.side-0, .cell.side-1")).to_have_count(37)
    expect(page.locator("#moves .act")).to_have_count(plies)
    expect(page.locator("#banner")).to_be_visible()
    expect(page.locator("#banner-title")).to_contain_text("wins")
    shoot_both(page, screenshot_dir, "18-no-javascript", full_page=True)
    # A move in the list shows the position after it.
    page.locator('#moves .act[data-ply="5"]').click()
    page.wait_for_url(f"**/game/{pk}/?ply=5")
    expect(page.locator("#board-picture svg .cell.side-0, #board-picture svg .cell.side-1")).to_have_count(
        len([c for c in games.get("copolymer").replay(
            {"size": 4}, page.eval_on_selector_all("#moves .act", "ns => ns.map(n => n.textContent)")[:5]
        ).to_dict()["board"]["cells"] if c["owner"] is not None]))
    expect(page.locator('#moves .act[data-ply="5"]')).to_have_class(re.compile(r"\bcurrent\b"))
    # With JavaScript, the live board takes the picture's place.
    live = new_page(viewport=PHONE)
    live.goto(server.url + f"/game/{pk}/")
    expect(live.locator("#board [data-cell]").first).to_be_visible()
    expect(live.locator("#board-picture")).to_have_count(0)


def test_item14_low_time_sound_for_the_player_whose_clock_runs_low(daphne_server, new_page):
    server = daphne_server
    names = new_players(server, "lowp", "lowq")
    path = start_game(server, "hadron", *names, options={"size": 5}, time="1+0")
    game_id = int(path.strip("/").split("/")[-1])
    # Red's clock: 21.5 seconds left, running from now; the warning comes under 20.
    server.shell("from django.utils import timezone\nfrom play.models import Game\n"
                 f"Game.objects.filter(pk={game_id}).update(remaining0_ms=21_500, "
                 "turn_started_at=timezone.now())\n")
    pages = []
    for name in names:
        page = new_page(viewport=DESKTOP)
        log_in(page, server, name)
        page.add_init_script(f"({RECORD_SOUNDS})()")
        open_game(page, server, path)
        pages.append(page)
    red, blue = pages
    red.wait_for_function("window.__sounds.includes('lowTime')")
    expect(red.locator('.player[data-player="0"] .clock')).to_have_class(re.compile(r"\blow\b"))
    # Only the player whose clock it is hears it.
    expect(blue.locator('.player[data-player="0"] .clock')).to_have_class(re.compile(r"\blow\b"))
    assert "lowTime" not in blue.evaluate("window.__sounds")
