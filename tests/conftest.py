"""Shared fixtures for the whole test suite.

* Django's own test client and ORM fixtures come from pytest-django (`client`, `db`, ...).
* `daphne_server`: a real Daphne process serving the site from its own fresh SQLite file, for
  websocket clients and browser tests.
* `browser` / `new_page`: Playwright (sync API) driving Debian's Chromium.

Browser tests talk to the server process only, never to the ORM: Playwright's sync API runs an
asyncio event loop in the test thread, and Django refuses ORM calls from a thread with a running
loop (SynchronousOnlyOperation). Create users and inspect data through `daphne_server.manage()`
/ `.create_user()` / `.shell()` instead, which run in another process. That keeps
DJANGO_ALLOW_ASYNC_UNSAFE unset everywhere.
"""
import contextlib
import itertools
import os
import shutil
import tempfile
from pathlib import Path

import pytest

# Test modules import these from siteservers, never from `conftest`: tests/ws and tests/scale
# have conftest.py files too, and they all share that module name.
from siteservers import ROOT, SiteServer, free_port, migrate, server_env

# SECRET_KEY for tests is set in pyproject.toml ([tool.pytest.ini_options] env, pytest-env):
# it has to be in the environment before pytest-django imports the settings, which happens
# before this file is loaded. DEBUG stays off in tests, as in production.

SCREENSHOTS = ROOT / "tests" / "browser" / "screenshots"
# How long a browser test waits for a page, an element or an expected state. Waiting for a
# condition costs nothing when it holds at once; on a small, busy CI machine it may take a while
# (Playwright's own default for expect() is only 5 s).
BROWSER_WAIT_MS = 20_000
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture(autouse=True)
def fresh_player_cache():
    """Each test starts with no user rows cached by the move path (play.statements, and the
    computer players of bots.accounts): tests roll their users back, so the next test's users
    may reuse their ids, which a real database never does."""
    from api import tokens
    from bots import accounts
    from play import statements

    statements.forget_players()
    tokens.forget_marks()
    # No computer players either (the database was rolled back): none looked up on a move.
    accounts.forget(known={})
    yield


@pytest.fixture(autouse=True)
def live_threads_stopped():
    """The in-process site's database threads (live.lanes, started by the socket tests) end
    with the test that started them, closing their connections: kept from test to test, they
    held the PostgreSQL pass's test database open at its end, which then could not be dropped
    ("4 other sessions"). The next test starts new ones, with its own settings."""
    yield
    from live import lanes
    from tests.ws.messages import WAIT

    lanes.shutdown(wait=WAIT)


def pytest_collection_modifyitems(items):
    """Every test that drives Chromium is a browser test, marked or not, so that
    `-m "not browser"` leaves out all of them."""
    for item in items:
        if "browser" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.browser)


# Every server the tests start gets files of its own (SQLite, log) in one directory.
SERVER_FILES = Path(tempfile.mkdtemp(prefix="tessera-daphne-"))
_server_numbers = itertools.count()
_servers_ending = []


@contextlib.contextmanager
def _servers():
    """A factory of Daphne processes that stop when the block ends: told to (SIGTERM) without
    waiting for them, so that a test does not wait for its servers' goodbyes; the session's
    end reaps them all. An idle server still does its periodic work (heartbeats, sweeps,
    keep-alives): kept until the session's end, a worker's dozens of them took CPU from the
    tests that ran after."""
    started = []

    def start(database_url=None, migrate_first=True, **extra):
        index = next(_server_numbers)
        url = database_url or f"sqlite:///{SERVER_FILES / f'db{index}.sqlite3'}"
        env = server_env(url, **extra)
        if migrate_first:
            migrate(env)
        server = SiteServer(env, free_port(), SERVER_FILES / f"daphne{index}.log")
        started.append(server)
        _servers_ending.append(server)
        return server.start()

    try:
        yield start
    finally:
        for server in started:
            if server.process and server.process.poll() is None:
                server.process.terminate()


def pytest_sessionfinish(session):
    for server in _servers_ending:
        server.stop()
    shutil.rmtree(SERVER_FILES, ignore_errors=True)


@pytest.fixture
def site_servers():
    """Factory: `site_servers(database_url=None, migrate_first=True, **env)` starts a Daphne
    process and returns its SiteServer. Without a database_url it gets a fresh SQLite file of
    its own. Several servers may share one database_url (pass migrate_first=False to all but
    one). `env`: more environment variables (settings) for the process. They stop at the
    test's end; `module_site_servers` and `shared_site_servers` are the same factory for
    module- and session-scoped fixtures."""
    with _servers() as start:
        yield start


@pytest.fixture(scope="module")
def module_site_servers():
    with _servers() as start:
        yield start


@pytest.fixture(scope="session")
def shared_site_servers():
    with _servers() as start:
        yield start


@pytest.fixture(scope="session")
def daphne_server(shared_site_servers):
    """A Daphne process with a fresh, migrated SQLite database in a temporary directory.

    Always SQLite, even in the scale CI run where DATABASE_URL points at PostgreSQL: that URL
    belongs to pytest-django's own test database, and sharing it with a server process would
    mix the two. PostgreSQL-backed servers are tests/scale's business (fixtures there).
    REDIS_URL, when set, is passed through, so in the scale run this server's channel layer
    is Redis."""
    return shared_site_servers()


@pytest.fixture
def unused_port():
    return free_port()


@pytest.fixture
def users(django_user_model):
    """Factory: `alice, bob = users("alice", "bob")` makes players (no password: tests log
    them in with force_login, and password hashing is slow on purpose)."""
    def make(*names):
        return [django_user_model.objects.create_user(name) for name in names]
    return make


@pytest.fixture(scope="module")
def browser():
    """Headless Chromium from Debian (Playwright cannot download browsers here).

    Module-scoped on purpose: while Playwright's sync API is open, its asyncio loop counts as
    running in the main thread, which breaks every later test that uses asyncio.run() or the
    ORM. Closing it at the end of each browser module keeps that to the browser tests."""
    if not os.path.exists(CHROMIUM):
        message = f"{CHROMIUM} is missing: apt-get install chromium"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=BROWSER_WAIT_MS)
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS
        )
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture
def new_page(browser):
    """Factory for pages in separate browser contexts (separate cookies: two players and a
    spectator are three contexts). `new_page(viewport=..., color_scheme="dark")` takes
    Playwright's new_context keyword arguments. Contexts close at the end of the test."""
    contexts = []

    def make(**context_options):
        context_options.setdefault("viewport", {"width": 1280, "height": 860})
        context = browser.new_context(**context_options)
        context.set_default_timeout(BROWSER_WAIT_MS)
        contexts.append(context)
        return context.new_page()

    yield make
    for context in contexts:
        context.close()


@pytest.fixture(scope="session")
def screenshot_dir():
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    return SCREENSHOTS
