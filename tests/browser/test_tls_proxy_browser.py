"""The site as the README runs it in production, behind a TLS proxy (tests/tlsproxy.py):
HTTPS pages with HSTS and secure cookies, plain HTTP redirected, and the game's websocket over
wss:// both from the `websockets` library and from the page in Chromium, where a move made by
the other player appears on the board."""
import contextlib
import http.cookiejar
import json
import re
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from types import SimpleNamespace

import pytest
from playwright.sync_api import expect
from websockets.sync.client import connect

import games
from siteservers import SiteServer, free_port, migrate, server_env
from tests.browser.helpers import PASSWORD, expect_stone, log_in, start_game, wait_ply
from tests.site.test_deploy import readme_production_env
from tests.ws.messages import WAIT
from tlsproxy import TLSProxy

pytestmark = pytest.mark.browser


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


class ProxiedSite(SiteServer):
    """A Daphne process that is up when its pages answer through the proxy (plain HTTP is
    redirected to HTTPS, which SiteServer's own check would follow to a port without TLS)."""

    def __init__(self, env, port, log_path, proxy):
        super().__init__(env, port, log_path)
        self.proxy = proxy

    def wait_until_up(self, timeout):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"daphne exited with {self.process.returncode}:\n{self.log()}")
            try:
                urllib.request.urlopen(self.proxy.url + "/", timeout=2,
                                       context=self.proxy.ssl_context()).close()
                return
            except (urllib.error.URLError, ConnectionError, OSError):
                time.sleep(0.2)
        self.stop()
        raise RuntimeError(f"no answer through the proxy within {timeout}s:\n{self.log()}")


@pytest.fixture(scope="module")
def site():
    """The README's production environment on a fresh SQLite database (its PostgreSQL URL is
    an example), behind the proxy."""
    tmp = Path(tempfile.mkdtemp(prefix="tessera-prod-"))
    production = readme_production_env()
    production.update(ALLOWED_HOSTS="localhost,127.0.0.1")
    del production["DATABASE_URL"], production["REDIS_URL"]
    env = server_env(f"sqlite:///{tmp / 'db.sqlite3'}", **production)
    migrate(env)
    port = free_port()
    proxy = TLSProxy(port).start()
    server = ProxiedSite(env, port, tmp / "daphne.log", proxy)
    try:
        yield server.start()
    finally:
        server.stop()
        proxy.stop()


class HttpsSession:
    """A browser's HTTP side through the proxy: cookies, CSRF token, the proxy's certificate."""

    def __init__(self, proxy):
        self.proxy = proxy
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(
            urllib.request.HTTPSHandler(context=proxy.ssl_context()),
            urllib.request.HTTPCookieProcessor(self.jar))

    def cookie(self, name):
        return next((c for c in self.jar if c.name == name), None)

    def get(self, path):
        return self.opener.open(self.proxy.url + path, timeout=WAIT)

    def log_in(self, username):
        url = self.proxy.url + "/accounts/login/"
        form = self.get("/accounts/login/").read().decode()
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', form)[1]
        data = urllib.parse.urlencode(
            {"csrfmiddlewaretoken": token, "username": username, "password": PASSWORD}).encode()
        # Django checks the Referer of HTTPS posts: a browser sends it.
        request = urllib.request.Request(url, data, headers={"Referer": url})
        self.opener.open(request, timeout=WAIT).close()
        session = self.cookie("sessionid")
        assert session is not None, f"{username} could not log in"
        return session

    def socket(self, path, stack):
        cookie = {"Cookie": f"sessionid={self.cookie('sessionid').value}"}
        ws = stack.enter_context(connect(
            self.proxy.ws_url + "/ws" + path, origin=self.proxy.url, additional_headers=cookie,
            ssl=self.proxy.ssl_context(), open_timeout=WAIT, proxy=None))
        return ws


def expect_message(ws, kind):
    while True:
        message = json.loads(ws.recv(timeout=WAIT))
        if message["type"] == kind:
            return message


def test_https_pages_redirects_hsts_and_secure_cookies(site):
    proxy = site.proxy
    # Plain HTTP, straight to Daphne: redirected to HTTPS.
    opener = urllib.request.build_opener(NoRedirect)
    with pytest.raises(urllib.error.HTTPError) as redirected:
        opener.open(site.url + "/accounts/login/", timeout=WAIT)
    assert redirected.value.code == 301
    assert redirected.value.headers["Location"].startswith("https://")
    # Through the proxy: HSTS as configured, the page's websocket origin is wss://.
    session = HttpsSession(proxy)
    with session.get("/") as response:
        assert response.status == 200
        assert response.headers["Strict-Transport-Security"] == \
            "max-age=31536000; includeSubDomains; preload"
        assert f"wss://localhost:{proxy.port}" in response.headers["Content-Security-Policy"]
    name = site.create_user("tlsuser", PASSWORD)
    session.log_in(name)
    assert session.cookie("sessionid").secure and session.cookie("csrftoken").secure


def test_moves_travel_over_wss_to_the_page_in_chromium(site, new_page):
    first, second = site.create_users(["wssa", "wssb"], PASSWORD)
    path = start_game(site, "hadron", first, second, options={"size": 5})
    page = new_page(ignore_https_errors=True)
    # log_in and the page's own socket, over https:// and wss://.
    log_in(page, SimpleNamespace(url=site.proxy.url), second)
    page.goto(site.proxy.url + path)
    expect(page.locator("#connection")).to_have_class(re.compile(r"\bopen\b"))
    state = games.get("hadron").new(size=5)
    action = state.legal_actions()[0]
    mover = HttpsSession(site.proxy)
    mover.log_in(first)
    with contextlib.ExitStack() as stack:
        ws = mover.socket(path, stack)
        expect_message(ws, "snapshot")
        ws.send(json.dumps({"type": "play", "ply": 0, "action": action}))
        assert expect_message(ws, "action")["ply"] == 0
        wait_ply(page, 1)
        expect_stone(page, action)
