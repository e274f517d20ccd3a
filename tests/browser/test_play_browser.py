"""The live game page in Chromium: two players and a spectator, each in their own browser
context, play Copolymer, Hadron and Colorful Connection to the end by clicking the SVG board.

The engine runs in the test process too (it is plain Python): it replays the game to know
whose turn it is, picks a legal action, and tells the reason the server should give for an
illegal click. Every action must reach the spectator without a reload: a marker set on the
window at page load has to survive the whole game.
"""
import json
import random
import re
from dataclasses import dataclass, field

import pytest
from playwright.sync_api import expect

import games
from tests.browser.helpers import (
    DESKTOP, PHONE, assert_not_reloaded, click_cell, expect_banner, expect_notice,
    expect_stone, log_in, new_players, open_game, shoot, start_game, wait_ply,
)

pytestmark = pytest.mark.browser


@dataclass
class Table:
    """Two players' pages (index = player index = side, no swaps in these games) and a
    spectator's, all on one game."""
    path: str
    names: tuple
    players: list
    spectator: object
    markers: dict = field(default_factory=dict)

    @property
    def pages(self):
        return [*self.players, self.spectator]

    def assert_not_reloaded(self):
        for page in self.pages:
            assert_not_reloaded(page, self.markers[id(page)])


def seat(server, new_page, game, options, *, player_view=None, spectator_view=None, time=None,
         days=None, prepare_spectator=None):
    """Users, a game, both players logged in on the game page, an anonymous spectator
    (`prepare_spectator(page)` runs before the spectator opens the game)."""
    names = tuple(new_players(server, f"{game[:4]}a", f"{game[:4]}b"))
    path = start_game(server, game, *names, options=options, time=time, days=days)
    views = player_view or [{}, {}]
    players = [new_page(**view) for view in views]
    for page, name in zip(players, names):
        log_in(page, server, name)
    spectator = new_page(**(spectator_view or {}))
    if prepare_spectator:
        prepare_spectator(spectator)
    table = Table(path, names, players, spectator)
    for page in table.pages:
        # Shown with a failure's captured output: the page's own errors.
        page.on("console", lambda m: m.type in ("error", "warning") and print("CONSOLE", m.type, m.text))
        page.on("pageerror", lambda e: print("PAGEERROR", e))
        table.markers[id(page)] = open_game(page, server, path)
    return table


def place(page, game, action):
    """Click the board for `action`; Colorful first picks the colour in the chooser."""
    if game == "colorful":
        colour, cell = action.split("@")
        button = page.locator(f'#chooser [data-colour="{colour}"]')
        button.click()
        expect(button).to_have_attribute("aria-pressed", "true")
    else:
        cell = action
    click_cell(page, cell)
    return cell


def play_out(table, game, options, seed, each=None):
    """Play random legal actions by clicking until the game ends. After each action the
    spectator's board (and the next mover's) must show it. `each(state, cell)` runs after
    every action, for extra checks and screenshots."""
    rng = random.Random(seed)
    state = games.get(game).new(**options)
    while not state.is_over:
        mover = table.players[state.to_move]
        action = rng.choice(state.legal_actions())
        cell = place(mover, game, action)
        state = state.play(action)
        watchers = [table.spectator, mover]
        if not state.is_over:
            watchers.append(table.players[state.to_move])
        for page in watchers:
            wait_ply(page, state.ply)
        expect_stone(table.spectator, cell)
        if each:
            each(state, cell)
    for page in table.pages:
        wait_ply(page, state.ply)
    return state


def expect_hints(table, state, legal_count):
    """Legal cells are marked for the player to move only: hints come from state.legal."""
    mover = table.players[state.to_move]
    expect(mover.locator("#board .cell.legal")).to_have_count(legal_count)
    # The waiting player's board takes a premove on a realtime clock, but shows no dots.
    waiting = table.players[1 - state.to_move]
    expect(waiting.locator("#board.hints")).to_have_count(0)
    expect(table.spectator.locator("#board .cell.legal")).to_have_count(0)
    expect(table.spectator.locator("#board.interactive")).to_have_count(0)


def expect_refusal(page, state, action):
    """Click an illegal action: the server answers with the engine's reason, nothing moves."""
    with pytest.raises(games.IllegalAction) as refused:
        state.play(action)
    click_cell(page, action.split("@")[-1])
    expect_notice(page, str(refused.value))
    wait_ply(page, state.ply)


def expect_end(table, state, winner_name, engine_text):
    for page in table.pages:
        expect_banner(page, winner_name, engine_text)
        expect(page.locator("#game-page")).to_have_attribute("data-status", "finished")
        expect(page.locator("#board.interactive")).to_have_count(0)
    for page, name in zip(table.players, table.names):
        expect(page.locator("#banner")).to_have_class(
            re.compile("won" if name == winner_name else "lost"))
    expect(table.spectator.locator("#rematch-box")).to_be_hidden()
    table.assert_not_reloaded()


def test_copolymer_full_game(daphne_server, new_page, screenshot_dir):
    options = {"size": 4}
    table = seat(daphne_server, new_page, "copolymer", options,
                 player_view=[{"viewport": DESKTOP, "color_scheme": "light"},
                              {"viewport": DESKTOP, "color_scheme": "dark"}],
                 spectator_view={"viewport": PHONE, "color_scheme": "dark"})
    start = games.get("copolymer").new(**options)
    expect_hints(table, start, 37)
    expect(table.players[0].locator("#prompt")).to_have_text("X to claim a cell")
    expect(table.players[0].locator("#prompt-who")).to_have_text("Your move")
    continuations = []

    def each(state, cell):
        side_again = state.actions and not state.is_over and state.to_move == state_before[0]
        if side_again:
            # A forced continuation: the mover is told why they claim again.
            mover = table.players[state.to_move]
            prompt = state.to_dict()["prompt"]
            assert "again" in prompt
            expect(mover.locator("#prompt")).to_have_text(prompt)
            expect(table.spectator.locator("#prompt")).to_have_text(prompt)
            continuations.append(prompt)
        if state.ply == 6:
            # A claimed cell, clicked again: the engine's reason comes back at once.
            taken = state.actions[0]
            expect_refusal(table.players[state.to_move], state, taken)
        if state.ply == 12:
            # Hovering a legal cell shows the stone it would get, in the mover's colour.
            mover = table.players[state.to_move]
            free = state.legal_actions()[0]
            mover.locator(f'#board [data-cell="{free}"]').hover()
            ghost = mover.locator(f'#board [data-cell="{free}"] .stone.ghost.side-{state.to_move}')
            expect(ghost).to_have_css("opacity", "0.55")
            shoot(mover, screenshot_dir, f"copolymer-desktop-{'light' if state.to_move == 0 else 'dark'}-hover")
            shoot(table.spectator, screenshot_dir, "copolymer-phone-dark-mid")
        state_before[0] = state.to_move

    state_before = [start.to_move]
    final = play_out(table, "copolymer", options, seed=7, each=each)
    assert continuations, "this seed's game should have a forced continuation"
    winner = table.names[final.winner]
    expect_end(table, final, winner, final.to_dict()["result"])
    counts = final.to_dict()["board"]["counts"]
    expect(table.spectator.locator(".player .extra").first).to_contain_text("cells")
    assert sum(counts) == 37
    expect(table.spectator.locator("#moves .act")).to_have_count(37)
    shoot(table.spectator, screenshot_dir, "copolymer-phone-dark-end", full_page=True)
    shoot(table.players[1], screenshot_dir, "copolymer-desktop-dark-end")


def test_hadron_full_game(daphne_server, new_page, screenshot_dir):
    options = {"size": 5}
    table = seat(daphne_server, new_page, "hadron", options, time="5+3",
                 player_view=[{"viewport": PHONE, "color_scheme": "light"},
                              {"viewport": DESKTOP, "color_scheme": "light"}],
                 spectator_view={"viewport": DESKTOP, "color_scheme": "dark"})
    start = games.get("hadron").new(**options)
    expect_hints(table, start, 25)
    # The clock of the player to move ticks between server updates.
    clock = table.spectator.locator('.player[data-player="0"] .clock')
    expect(clock).to_have_class(re.compile(r"\brunning\b"))
    expect(clock).not_to_have_text(clock.text_content())
    refused = []

    def each(state, cell):
        if state.is_over:
            return
        legal = set(state.legal_actions())
        empty = [c["name"] for c in state.to_dict()["board"]["cells"] if c["owner"] is None]
        illegal = [c for c in empty if c not in legal]
        if illegal and not refused:
            expect_refusal(table.players[state.to_move], state, illegal[0])
            refused.append(illegal[0])
        if state.ply == 4:
            expect_hints(table, state, len(legal))
            shoot(table.spectator, screenshot_dir, "hadron-desktop-dark-mid")
            shoot(table.players[0], screenshot_dir, "hadron-phone-light-mid", full_page=True)

    final = play_out(table, "hadron", options, seed=3, each=each)
    assert refused, "some empty cell should have been illegal during the game"
    winner = table.names[final.winner]
    expect_end(table, final, winner, final.to_dict()["result"])
    shoot(table.spectator, screenshot_dir, "hadron-desktop-dark-end")
    shoot(table.players[1], screenshot_dir, "hadron-desktop-light-end")


def test_colorful_full_game(daphne_server, new_page, screenshot_dir):
    options = {"board": "hexhex", "size": 3}
    table = seat(daphne_server, new_page, "colorful", options,
                 player_view=[{"viewport": DESKTOP, "color_scheme": "dark"},
                              {"viewport": PHONE, "color_scheme": "dark"}],
                 spectator_view={"viewport": PHONE, "color_scheme": "light"})
    start = games.get("colorful").new(**options)
    first = table.players[0]
    # Player 1 may open with red or pink; Player 2 is not offered a chooser yet.
    expect(first.locator("#chooser [data-colour]")).to_have_count(2)
    expect(table.players[1].locator("#chooser")).to_be_hidden()
    expect(table.spectator.locator("#chooser")).to_be_hidden()
    expect_hints(table, start, 19)

    def each(state, cell):
        if state.is_over:
            return
        mover = table.players[state.to_move]
        owed = state.to_dict()["board"]["owed"]
        # Only the colours still owed this turn are offered.
        expect(mover.locator("#chooser [data-colour]")).to_have_count(len(owed))
        for colour in owed:
            expect(mover.locator(f'#chooser [data-colour="{colour}"]')).to_be_visible()
        if state.ply == 3:
            taken = state.actions[0].split("@")[1]
            expect_refusal(mover, state, f"{owed[0]}@{taken}")
        if state.ply == 9:
            check_group_panel(table, state)
            shoot(table.players[0], screenshot_dir, "colorful-desktop-dark-mid")
            shoot(table.spectator, screenshot_dir, "colorful-phone-light-mid", full_page=True)
            shoot(table.players[1], screenshot_dir, "colorful-phone-dark-mid")

    final = play_out(table, "colorful", options, seed=5, each=each)
    result = final.to_dict()["result"]
    if final.winner is None:
        for page in table.pages:
            expect_banner(page, result)
    else:
        expect_end(table, final, table.names[final.winner], result)
    shoot(table.players[0], screenshot_dir, "colorful-desktop-dark-end")
    shoot(table.spectator, screenshot_dir, "colorful-phone-light-end", full_page=True)


def check_group_panel(table, state):
    """Every scoring group is listed with its score; hovering one highlights its stones."""
    groups = [g for g in state.to_dict()["board"]["groups"] if g["score"] is not None]
    page = table.players[0]
    expect(page.locator("#groups .group[data-cells]")).to_have_count(len(groups))
    best = max(groups, key=lambda g: (g["score"], len(g["cells"])))
    row = page.locator(f'#groups .group[data-cells="{" ".join(best["cells"])}"]')
    expect(row.locator(".score")).to_have_text(str(best["score"]))
    row.hover()
    expect(page.locator("#board .cell.highlight")).to_have_count(len(best["cells"]))
    for cell in best["cells"]:
        expect(page.locator(f'#board [data-cell="{cell}"]')).to_have_class(re.compile(r"\bhighlight\b"))


def test_resign_then_rematch(daphne_server, new_page):
    options = {"size": 5}
    table = seat(daphne_server, new_page, "hadron", options)
    alice, bob = table.players
    # Abort is offered only until both players have acted.
    expect(alice.locator("#abort")).to_be_visible()
    click_cell(alice, "c3")
    wait_ply(bob, 1)
    click_cell(bob, "a1")
    wait_ply(alice, 2)
    expect(alice.locator("#abort")).to_be_hidden()
    expect(table.spectator.locator("#resign")).to_be_hidden()
    bob.click("#resign")
    expect(bob.locator("#resign-confirm")).to_be_visible()
    bob.click("#resign-no")
    expect(bob.locator("#resign")).to_be_visible()
    bob.click("#resign")
    bob.click("#resign-yes")
    for page in table.pages:
        expect_banner(page, f"{table.names[1]} resigned", "by resignation")
    table.assert_not_reloaded()
    alice.click("#rematch")
    expect(bob.locator("#rematch-note")).to_contain_text(f"{table.names[0]} offers a rematch")
    expect(alice.locator("#rematch-withdraw")).to_be_visible()
    bob.click("#rematch-accept")
    old = daphne_server.url + table.path
    for page in (alice, bob):
        page.wait_for_url(lambda url: url != old and re.search(r"/game/\d+/$", url))
        expect(page.locator("#connection")).to_have_class(re.compile(r"\bopen\b"))
    # The rematch swaps who moves first.
    expect(bob.locator("#prompt-who")).to_have_text("Your move")
    expect(alice.locator("#prompt-who")).to_have_text("Waiting")


def test_abort_before_both_acted(daphne_server, new_page):
    table = seat(daphne_server, new_page, "copolymer", {"size": 4})
    alice, bob = table.players
    click_cell(alice, "A1")
    wait_ply(bob, 1)
    expect(bob.locator("#abort")).to_be_visible()
    bob.click("#abort")
    for page in table.pages:
        expect_banner(page, f"Aborted by {table.names[1]}")
        expect(page.locator("#game-page")).to_have_attribute("data-status", "aborted")
    table.assert_not_reloaded()


def test_anonymous_visitor_reads_only(daphne_server, new_page):
    table = seat(daphne_server, new_page, "hadron", {"size": 5}, days=3)
    visitor = table.spectator
    # Correspondence: the deadline of the player to move is shown, with the time left.
    expect(visitor.locator("#deadline")).to_contain_text(f"{table.names[0]} to move by")
    expect(visitor.locator('.player[data-player="0"] .clock')).to_have_text(re.compile(r"^(3 days|2 days \d+ h)$"))
    expect(visitor.locator('.player[data-player="1"] .clock')).to_be_hidden()
    expect(visitor.locator("#watching")).to_contain_text("Log in")
    expect(visitor.locator("#resign")).to_be_hidden()
    # A visitor's click does nothing: the board is not interactive for them.
    expect(visitor.locator("#board.interactive")).to_have_count(0)
    expect(table.players[0].locator("#board.interactive")).to_have_count(1)
    click_cell(visitor, "c3")
    visitor.wait_for_timeout(300)
    expect(visitor.locator("#game-page")).to_have_attribute("data-ply", "0")
    expect(visitor.locator("#notice")).to_be_hidden()
    # Presence: the spectator is counted, both players are online.
    for page in table.players:
        expect(page.locator("#watchers")).to_have_text("1 watching")
        expect(page.locator(".player.offline")).to_have_count(0)
    # A player leaves: the others see them disconnected.
    table.players[1].close()
    expect(visitor.locator('.player[data-player="1"] .gone')).to_be_visible()
    expect(table.players[0].locator('.player[data-player="1"]')).to_have_class(re.compile("offline"))


class SocketTap:
    """Routes a page's game websocket through the test: `drop("action")` swallows the next
    server message of that type, `cut()` closes the connection on both ends."""

    def __init__(self, page):
        self.routes = []
        self.drops = []
        page.route_web_socket(re.compile(r"/ws/game/\d+/$"), self.route)

    def route(self, ws):
        server = ws.connect_to_server()
        self.routes.append((ws, server))

        def from_server(message):
            kind = json.loads(message).get("type")
            if kind in self.drops:
                self.drops.remove(kind)
                return
            ws.send(message)

        server.on_message(from_server)
        ws.on_message(server.send)

    def drop(self, kind):
        self.drops.append(kind)

    def cut(self):
        ws, server = self.routes[-1]
        server.close()
        ws.close(code=4000, reason="cut by the test")

    @property
    def connections(self):
        return len(self.routes)


def test_reconnects_and_resynchronises(daphne_server, new_page):
    taps = []
    table = seat(daphne_server, new_page, "hadron", {"size": 5},
                 prepare_spectator=lambda page: taps.append(SocketTap(page)))
    tap, (alice, bob), spectator = taps[0], table.players, table.spectator
    assert tap.connections == 1
    # A lost action message: the next one shows a gap, and the page asks for a snapshot.
    tap.drop("action")
    click_cell(alice, "c3")
    wait_ply(bob, 1)
    click_cell(bob, "a1")
    wait_ply(spectator, 2)
    expect_stone(spectator, "c3")
    expect_stone(spectator, "a1")
    # A dropped connection: the page says so, comes back by itself and catches up.
    tap.cut()
    expect(spectator.locator("#connection")).not_to_have_class(re.compile(r"\bopen\b"))
    click_cell(alice, "e5")
    wait_ply(spectator, 3)
    expect_stone(spectator, "e5")
    expect(spectator.locator("#connection")).to_have_class(re.compile(r"\bopen\b"))
    assert tap.connections == 2
    table.assert_not_reloaded()
