"""The installable site in Chromium: the service worker installs from any page, keeps the
static files, and a page that cannot be reached shows the offline page, styled from the cache.
Screenshot: tests/browser/screenshots/offline.png."""
import pytest
from playwright.sync_api import expect

from tests.browser import helpers
from tests.browser.helpers import DESKTOP

pytestmark = pytest.mark.browser


def test_offline_page_from_the_service_worker(daphne_server, new_page, screenshot_dir):
    server = daphne_server
    page = new_page(viewport=DESKTOP)
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(server.url + "/")
    assert page.evaluate("navigator.serviceWorker.ready.then(() => true)")
    kept = page.evaluate("caches.keys().then((names) => Promise.all(names.map("
                         "(name) => caches.open(name).then((c) => c.keys()))))"
                         ".then((lists) => lists.flat().map((r) => new URL(r.url).pathname))")
    assert "/offline/" in kept and "/static/css/site.css" in kept

    page.context.set_offline(True)
    page.goto(server.url + "/watch/")
    expect(page.locator("#offline-page h1")).to_have_text("You are offline")
    # Styled: the site's stylesheet came from the worker's cache.
    assert page.evaluate("[...document.styleSheets].some((sheet) => "
                         "(sheet.href || '').endsWith('/css/site.css') && sheet.cssRules.length > 0)")
    helpers.shoot(page, screenshot_dir, "offline")

    page.context.set_offline(False)
    page.goto(server.url + "/watch/")
    expect(page.locator("#offline-page")).to_have_count(0)
    assert errors == []
