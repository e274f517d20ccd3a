"""The installable site (frontend.views): manifest, service worker at the root, offline page,
and a Content-Security-Policy that lets the browser use them."""
import json

import pytest
from django.contrib.staticfiles import finders
from django.templatetags.static import static
from django.urls import reverse

pytestmark = pytest.mark.django_db


def test_every_page_links_the_manifest_and_registers_the_worker(client):
    page = client.get("/").content.decode()
    assert f'<link rel="manifest" href="{reverse("frontend:manifest")}">' in page
    assert static("js/install.js") in page
    assert finders.find("js/install.js")


def test_manifest(client):
    response = client.get("/manifest.webmanifest")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/manifest+json"
    manifest = json.loads(response.content)
    assert manifest["start_url"] == "/" and manifest["display"] == "standalone"
    icon = manifest["icons"][0]
    assert client.get(icon["src"]).status_code == 200


def test_service_worker_keeps_every_static_file_and_the_offline_page(client):
    response = client.get("/sw.js")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/javascript")
    assert "no-cache" in response["Cache-Control"]
    text = response.content.decode()
    kept = json.loads(text.split("const STATIC = ", 1)[1].split(";\n", 1)[0])
    for path in ("css/site.css", "css/game.css", "js/game.js", "js/game/premove.js",
                 "img/logo.svg"):
        assert static(path) in kept
    assert not any("/admin/" in url for url in kept)
    assert 'const OFFLINE = "/offline/"' in text
    assert "tessera-static-" in text


def test_offline_page(client):
    response = client.get("/offline/")
    assert response.status_code == 200 and b"You are offline" in response.content


def test_policy_allows_the_worker_and_the_manifest(client):
    """No worker-src or manifest-src of their own: default-src 'self' covers both."""
    policy = client.get("/")["Content-Security-Policy"]
    directives = dict(part.strip().split(" ", 1) for part in policy.split(";") if part.strip())
    assert directives["default-src"] == "'self'"
    for name in ("worker-src", "manifest-src", "script-src"):
        assert directives.get(name, "'self'") == "'self'"
