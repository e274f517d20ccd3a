"""The Watch page in Chromium: a spectator opens it, sees a game appear and its thumbnail
change as two players move, opens the game and sees the watcher count; the game ends and
leaves the list.

The two players are real clients of the running server without a browser: they log in over
HTTP, start the game through the lobby (a seek and its acceptance, so the game starts inside
the server and its news reach the Watch socket), and play over the game's websocket with the
`websockets` library's synchronous client (Playwright's sync API owns this thread's event
loop). The engine, plain Python, picks their legal actions.
"""
import contextlib
import json
import random
import re

import pytest
from playwright.sync_api import expect
from websockets.sync.client import connect

import games
from tests.browser.helpers import (
    PASSWORD, PHONE, assert_not_reloaded, new_players, plant_marker, set_scheme, shoot,
)
from tests.ws.live_client import WebSession
from tests.ws.messages import WAIT

pytestmark = pytest.mark.browser



class Player(WebSession):
    """A player's HTTP session (cookies, CSRF) and game socket."""

    def __init__(self, server, name):
        super().__init__(server)
        self.name = name
        self.log_in(name, PASSWORD)
        assert self.cookie("sessionid"), f"{name} could not log in"
        self.socket = None

    def sit_down(self, path, stack):
        cookie = {"Cookie": f"sessionid={self.cookie('sessionid')}"}
        self.socket = stack.enter_context(connect(
            self.server.ws_url + "/ws" + path, origin=self.server.url,
            additional_headers=cookie, open_timeout=WAIT, proxy=None))
        return self.expect("snapshot")["game"]

    def expect(self, kind):
        while True:
            message = json.loads(self.socket.recv(timeout=WAIT))
            if message["type"] == kind:
                return message
            assert message["type"] in ("presence", "sync", "action"), message

    def play(self, ply, action):
        self.socket.send(json.dumps({"type": "play", "ply": ply, "action": action}))
        while True:
            message = self.expect("action")
            if message["ply"] == ply:
                return message

    def resign(self, ply):
        self.socket.send(json.dumps({"type": "resign", "ply": ply}))
        self.expect("end")


def quiet_kind(server, kind):
    """Make `kind` a game with nothing in progress on the shared test server, so the games
    this test starts are the only ones its filtered Watch page lists and features. Games that
    earlier tests left in progress are aborted (those tests are over, whatever their order);
    aborted games stay out of the Archive too."""
    server.shell(
        "from django.utils import timezone; from play.models import Game; "
        f"Game.objects.filter(status='active', game={kind!r}).update("
        "status='aborted', reason='abort', result_text='Aborted', finished_at=timezone.now())")
    return kind


def start_game(server, kind, first, second):
    """`first` seeks, `second` accepts: the game starts in the server. Returns its path."""
    options = {f"{kind}_{option}": value for option, value in games.get(kind).defaults.items()}
    seek = first.post_json("/play/seeks/", game=kind, time_kind="untimed", side="first", **options)
    return second.post_json(f"/play/seeks/{seek['seek']['id']}/accept/")["redirect"]


def test_spectator_watches_a_game_appear_change_and_end(daphne_server, new_page, screenshot_dir):
    server = daphne_server
    names = new_players(server, "watcha", "watchb")
    kind = quiet_kind(server, "hadron")
    engine = games.get(kind)

    spectator = new_page()
    spectator.goto(f"{server.url}/watch/?game={kind}")
    expect(spectator.locator("#connection")).to_have_class(re.compile(r"\bopen\b"))
    expect(spectator.locator("#empty")).to_be_visible()
    expect(spectator.locator("#featured-none")).to_be_visible()
    marker = plant_marker(spectator)

    alice, bob = (Player(server, name) for name in names)
    path = start_game(server, kind, alice, bob)
    game_id = int(re.fullmatch(r"/game/(\d+)/", path)[1])

    # The game appears, without a reload, and is featured on a live board.
    row = spectator.locator(f"#watch-game-{game_id}")
    expect(row).to_be_visible()
    expect(row).to_have_attribute("data-ply", "0")
    # Each name with its rating for the game (newcomers: 1500, provisional).
    expect(row).to_contain_text(f"{names[0]} 1500? v {names[1]} 1500?")
    expect(spectator.locator("#empty")).to_be_hidden()
    expect(spectator.locator("#live-count")).to_have_text("1")
    expect(spectator.locator("#featured-link")).to_have_attribute("href", path)
    board = spectator.locator("#featured-board")
    expect(board).to_have_attribute("data-ply", "0")
    expect(spectator.locator("#featured-watchers")).to_have_text("1 watching")

    seats = [alice, bob]
    with contextlib.ExitStack() as sockets:
        for player in seats:
            player.sit_down(path, sockets)
        state, rng = engine.new(), random.Random(11)
        thumbnails = [row.locator(".thumb svg").inner_html()]
        for ply in range(4):
            action = rng.choice(state.legal_actions())
            # Tripen's swap exchanges the players' sides.
            seats[state.to_move ^ int(getattr(state, "swapped", False))].play(ply, action)
            state = state.play(action)
            # The row's move count and thumbnail change as the players move.
            expect(row).to_have_attribute("data-ply", str(ply + 1))
            expect(row.locator(".row-count")).to_have_text(f"{ply + 1} move{'s' if ply else ''}")
            thumbnails.append(row.locator(".thumb svg").inner_html())
            assert thumbnails[-1] != thumbnails[-2], f"the thumbnail did not change at ply {ply}"
            expect(board).to_have_attribute("data-ply", str(ply + 1))
        expect(spectator.locator("#featured-moves")).to_have_text("4 moves")
        assert_not_reloaded(spectator, marker)
        shoot(spectator, screenshot_dir, "watch-live")
        set_scheme(spectator, "dark")
        shoot(spectator, screenshot_dir, "watch-live-dark")
        set_scheme(spectator, "light")

        # A phone-sized second spectator sees the same game featured.
        phone = new_page(viewport=PHONE)
        phone.goto(f"{server.url}/watch/?game={kind}")
        expect(phone.locator("#featured-board")).to_have_attribute("data-ply", "4")
        shoot(phone, screenshot_dir, "watch-phone", full_page=True)

        # The spectator opens the game: the game page counts both spectators.
        row.locator(".row-title a").click()
        expect(spectator).to_have_url(server.url + path)
        expect(spectator.locator("#watchers")).to_have_text("2 watching (you included)")
        shoot(spectator, screenshot_dir, "watch-opened-game")

        # The game ends: it leaves the Watch list and the featured board gives way.
        alice.resign(4)
        expect(phone.locator(f"#watch-game-{game_id}")).to_have_count(0)
        expect(phone.locator("#featured-none")).to_be_visible()
        note = phone.locator("#featured-note")
        expect(note).to_contain_text(f"{names[0]} v {names[1]} has ended")
        expect(phone.locator("#live-count")).to_have_text("0")
        expect(phone.locator("#empty")).to_be_visible()
        shoot(phone, screenshot_dir, "watch-phone-ended", full_page=True)

    # The loser's profile lists the game with its result, rendered by the server alone.
    plain = new_page(java_script_enabled=False)
    plain.goto(f"{server.url}/u/{names[0]}/")
    finished = plain.locator("#finished-games")
    expect(finished).to_contain_text(names[1])
    expect(finished.locator("tr.result-lost")).to_contain_text("resignation")
    shoot(plain, screenshot_dir, "watch-profile", full_page=True)


def test_the_featured_game_gives_way_to_the_next_when_it_ends(daphne_server, new_page,
                                                             screenshot_dir):
    server = daphne_server
    names = new_players(server, *(f"feat{who}" for who in "abcd"))
    kind = quiet_kind(server, "tripen")
    engine = games.get(kind)
    spectator = new_page()
    spectator.goto(f"{server.url}/watch/?game={kind}")
    expect(spectator.locator("#connection")).to_have_class(re.compile(r"\bopen\b"))

    players = [Player(server, name) for name in names]
    first = start_game(server, kind, players[0], players[1])
    expect(spectator.locator("#featured-link")).to_have_attribute("href", first)
    second = start_game(server, kind, players[2], players[3])
    expect(spectator.locator(".watch-row")).to_have_count(2)
    with contextlib.ExitStack() as sockets:
        for player in players:
            player.sit_down(first if player in players[:2] else second, sockets)
        # Moves in the other game change its row, not the featured board.
        state, rng = engine.new(), random.Random(5)
        for ply in range(3):
            action = rng.choice(state.legal_actions())
            players[2 + (state.to_move ^ int(getattr(state, "swapped", False)))].play(ply, action)
            state = state.play(action)
        second_id = re.fullmatch(r"/game/(\d+)/", second)[1]
        expect(spectator.locator(f"#watch-game-{second_id}")).to_have_attribute("data-ply", "3")
        expect(spectator.locator("#featured-link")).to_have_attribute("href", first)
        expect(spectator.locator("#featured-board")).to_have_attribute("data-ply", "0")

        players[0].resign(0)
        expect(spectator.locator("#featured-link")).to_have_attribute("href", second)
        expect(spectator.locator("#featured-board")).to_have_attribute("data-ply", "3")
        expect(spectator.locator("#featured-note")).to_contain_text(
            f"{names[0]} v {names[1]} has ended")
        expect(spectator.locator(".watch-row")).to_have_count(1)
        expect(spectator.locator("#featured-players")).to_contain_text(names[2])
        shoot(spectator, screenshot_dir, f"watch-featured-switched-{kind}")
        players[3].resign(3)
        expect(spectator.locator("#featured-none")).to_be_visible()
