"""Every page carries a strict Content-Security-Policy, and no page has what that policy would
block: inline scripts, inline event handlers, inline style attributes. (That the pages work
under it in a real browser is tests/browser/test_csp_browser.py's job.)"""
import base64
import hashlib
import re
from datetime import date

import pytest

from tests.site.played import finished, play_out, start

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fresh_cache")]


def policy(response):
    """The Content-Security-Policy header as {directive: [sources]}."""
    header = response["Content-Security-Policy"]
    return {name: sources for name, *sources in
            (part.split() for part in header.split(";") if part.strip())}


@pytest.fixture
def games_of_every_state(alice, bob):
    live = play_out(start(alice, bob), stop_at=3)
    done = finished("tripen", (alice, bob), {"size": 5}, seed=1, when=date(2025, 1, 10))
    return live, done


def pages(client, admin_client, live, done):
    """Every kind of page, as a visitor and as a logged-in (staff) player sees it."""
    visitor = ["/accounts/login/", "/accounts/signup/", "/", f"/game/{live.pk}/"]
    player = ["/", "/rules/", "/rules/hadron/", "/rules/tripen/", "/rules/copolymer/",
              "/rules/colorful/", "/play/", "/play/challenges/", "/watch/", "/archive/",
              "/archive/?date_to=9999-12-31", f"/game/{live.pk}/", f"/game/{done.pk}/",
              "/accounts/password/", "/u/alice/", "/admin/", "/admin/auth/user/"]
    for url in visitor:
        yield url, client.get(url)
    for url in player:
        yield url, admin_client.get(url)


INLINE_SCRIPT = re.compile(r"<script\b(?![^>]*\bsrc=)(?![^>]*type=\"application/json\")[^>]*>",
                           re.I)
EVENT_HANDLER = re.compile(r"<[a-z][^>]*\son[a-z]+\s*=", re.I)
STYLE_ATTRIBUTE = re.compile(r"<[a-z][^>]*\sstyle\s*=", re.I)
STYLE_ELEMENT = re.compile(r"<style\b", re.I)


def test_every_page_has_a_strict_policy_and_nothing_it_blocks(client, admin_client,
                                                             games_of_every_state):
    for url, response in pages(client, admin_client, *games_of_every_state):
        assert response.status_code == 200, url
        directives = policy(response)
        assert directives["default-src"] == ["'self'"], url
        assert directives["script-src"] == ["'self'"], url
        assert directives["style-src"] == ["'self'"], url
        assert directives["style-src-attr"] == ["'none'"], url
        assert directives["object-src"] == ["'none'"] and directives["base-uri"] == ["'none'"]
        assert directives["frame-ancestors"] == ["'none'"]
        assert directives["connect-src"] == ["'self'", "ws://testserver"], url
        html = response.content.decode()
        for name, pattern in [("inline script", INLINE_SCRIPT), ("event handler", EVENT_HANDLER),
                              ("style attribute", STYLE_ATTRIBUTE),
                              ("style element", STYLE_ELEMENT)]:
            found = pattern.search(html)
            assert found is None, f"{url}: {name} {found and found.group(0)!r}"


def test_websockets_of_an_https_page_are_wss(client):
    response = client.get("/", secure=True)
    assert policy(response)["connect-src"] == ["'self'", "wss://testserver"]


def test_a_bad_host_still_gets_a_policy(client):
    response = client.get("/", HTTP_HOST="evil.example")
    assert response.status_code == 400
    assert policy(response)["connect-src"] == ["'self'"]


def test_the_svg_export_allows_exactly_its_own_style(client, games_of_every_state):
    _, done = games_of_every_state
    response = client.get(f"/game/{done.pk}/position/3.svg")
    text = response.content.decode()
    style = re.search(r"<style>(.*?)</style>", text, re.S)[1]
    digest = base64.b64encode(hashlib.sha256(style.encode()).digest()).decode()
    assert policy(response)["style-src"] == [f"'sha256-{digest}'"]
    assert policy(response)["script-src"] == ["'self'"]
