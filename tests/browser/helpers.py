"""Helpers for browser tests of the live game page (shared by the per-game test files).

Playwright's sync API runs an event loop in the test thread, so nothing here touches the ORM:
users and games are made through the server's management commands (daphne_server.manage).
"""
import itertools
import re

from playwright.sync_api import expect

PASSWORD = "board-game-pass-31"
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 860}

_serial = itertools.count(1)


def unique_name(prefix):
    """A username no other test in the session uses (the server's database is shared)."""
    return f"{prefix}{next(_serial)}"


def start_game(server, game, user0, user1, options=None, time=None, days=None):
    """Start a game with the play app's `startgame` command; returns its URL path.
    `time` "5+3" is a realtime clock, `days` a correspondence deadline per move."""
    args = ["startgame", game, user0, user1]
    for name, value in (options or {}).items():
        args += ["--option", f"{name}={value}"]
    if time:
        args += ["--time", time]
    if days:
        args += ["--days", days]
    path = server.manage(*args).stdout.strip().splitlines()[-1]
    assert re.fullmatch(r"/game/\d+/", path), path
    return path


def new_players(server, *prefixes):
    """Accounts with unique names (one per prefix) on the shared test server."""
    return server.create_users([unique_name(prefix) for prefix in prefixes], PASSWORD)


def log_in(page, server, username, password=PASSWORD):
    page.goto(server.url + "/accounts/login/")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", password)
    page.click("form.stacked button[type=submit]")
    expect(page.locator(".account-nav .who")).to_have_text(username)


def sign_up(page, server, name, email="", password=PASSWORD):
    """Create an account through the sign-up form (the e-mail address is optional); the new
    player is logged in at once."""
    page.goto(server.url + "/accounts/signup/")
    page.fill("#id_username", name)
    page.fill("#id_email", email)
    page.fill("#id_password1", password)
    page.fill("#id_password2", password)
    page.get_by_role("button", name="Sign up").click()
    expect(page.locator(".account-nav .who")).to_have_text(name)


def mailed_link(server, name):
    """The reset link of the mail addressed to `name`: the console backend (the default)
    prints it into the server's log while the request is answered, so it is there once the
    page says it is sent."""
    pattern = re.compile(rf"Hello {re.escape(name)},.*?(http://\S+/accounts/password/reset/\S+/\S+/)",
                         re.S)
    with open(server.log_path, errors="replace") as log:
        found = pattern.search(log.read())
    assert found, f"no reset mail for {name} in the server log"
    return found[1]


def plant_marker(page):
    """Mark the window with a value that a reload would wipe out; see assert_not_reloaded."""
    return page.evaluate("window.__loadedAt = Date.now()")


def assert_not_reloaded(page, marker):
    assert page.evaluate("window.__loadedAt") == marker, "the page was reloaded"


def open_game(page, server, path):
    """Load the game page and wait until its socket is live; returns a reload marker."""
    page.goto(server.url + path)
    expect(page.locator("#connection")).to_have_class(re.compile(r"\bopen\b"))
    expect(page.locator("#board [data-cell]").first).to_be_visible()
    return plant_marker(page)


def open_lobby(page, server):
    """Load the Play page and wait until its lobby socket is live; returns a reload marker."""
    page.goto(server.url + "/play/")
    expect(page.locator("#lobby-status")).to_have_attribute("data-state", "live")
    return plant_marker(page)


def open_page(page, server, path):
    """Load a page other than the Play page and wait until its notification socket is open;
    returns a reload marker."""
    page.goto(server.url + path)
    expect(page.locator("body")).to_have_attribute("data-notify", "open")
    return plant_marker(page)


def account_choice_saved(page):
    """`with account_choice_saved(page) as saved: page.click(...)`: waits for the POST that keeps
    a logged-in player's board choice on the account (static/js/prefs.js sends it in the
    background); `saved.value` is its response. A reload before that answer may show the old
    choice: the request aborted, or the page read before the choice was written (seen under
    two test workers)."""
    return page.expect_response(
        lambda response: response.request.method == "POST"
        and response.url.endswith("/accounts/settings/board/"))


def wait_ply(page, ply):
    """Wait until the page shows the position after `ply` actions."""
    expect(page.locator("#game-page")).to_have_attribute("data-ply", str(ply))


def click_cell(page, cell):
    page.locator(f'#board [data-cell="{cell}"]').click()


def expect_stone(page, cell):
    """The cell shows a stone or tile (it is no longer empty)."""
    expect(page.locator(f'#board [data-cell="{cell}"]')).not_to_have_class(re.compile(r"\bempty\b"))


def expect_notice(page, text):
    notice = page.locator("#notice")
    expect(notice).to_be_visible()
    expect(notice).to_have_text(text)


def expect_banner(page, *parts):
    banner = page.locator("#banner")
    expect(banner).to_be_visible()
    for part in parts:
        expect(banner).to_contain_text(part)


def set_scheme(page, scheme):
    """Switch the page's colour scheme the way the header toggle does (light / dark)."""
    page.evaluate("s => document.documentElement.dataset.theme = s", scheme)


def shoot(page, directory, name, full_page=False):
    path = directory / f"{name}.png"
    page.screenshot(path=str(path), full_page=full_page)
    return path


def settle(page):
    """Wait for the page's finite animations (colour fades, pieces) before a screenshot."""
    page.evaluate("""Promise.all(document.getAnimations()
        .filter((a) => a.effect && a.effect.getTiming().iterations !== Infinity)
        .map((a) => a.finished)).then(() => 0)""")


def shoot_both(page, directory, name, full_page=False):
    """The same state in the light and then the dark scheme (`name`-light, `name`-dark); the
    page is left dark."""
    for scheme in ("light", "dark"):
        set_scheme(page, scheme)
        settle(page)  # the colours fade from one scheme to the other
        shoot(page, directory, f"{name}-{scheme}", full_page=full_page)


def moves_of(page):
    """The move list's actions as shown."""
    return page.eval_on_selector_all("#moves .act", "nodes => nodes.map(n => n.textContent)")


PLAY_ON_SERVER = """
import random
from datetime import timedelta
from django.contrib.auth import get_user_model
from play import services
from play.clock import TimeControl
from play.models import Action
User = get_user_model()
players = tuple(User.objects.get(username=name) for name in {names!r})
tc = TimeControl.parse({time!r}) if {time!r} else TimeControl.untimed()
game = services.start_game(game={game!r}, options={options!r}, players=players, time_control=tc)
rng = random.Random({seed})
while True:
    game = services.load(game.pk)
    state = game.state()
    if state.is_over or ({stop_at!r} is not None and state.ply >= {stop_at!r}):
        break
    mover = game.players()[game.player_of(state.to_move)]
    services.play(game.pk, mover, state.ply, rng.choice(state.legal_actions()))
if {step!r}:
    # As if each action came `step` seconds after the one before: the clock history reads
    # the times when the rows carry no clocks of their own (as rows stored before they did).
    for row in Action.objects.filter(game=game):
        Action.objects.filter(pk=row.pk).update(
            created_at=game.created_at + timedelta(seconds={step!r} * (row.ply + 1)),
            remaining0_ms=None, remaining1_ms=None)
print(game.pk, game.ply_count)
"""


def play_on_server(server, game, options, seed=5, names=None, time=None, stop_at=None,
                   step=None):
    """A game played with random legal actions inside the server (manage.py shell and play's
    services), to its end or to `stop_at` actions; returns (game id, plies, player names).
    `time` "5+0" gives it a realtime clock; `step` spaces the stored actions' times."""
    names = tuple(names or new_players(server, "srvx", "srvy"))
    out = server.shell(PLAY_ON_SERVER.format(names=names, game=game, options=options, seed=seed,
                                             time=time, stop_at=stop_at, step=step))
    pk, plies = map(int, out.split()[-2:])
    return pk, plies, names
