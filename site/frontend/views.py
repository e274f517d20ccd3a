"""An installable site: the web app manifest, the service worker and the page it shows offline.

The worker is served from the site's root (/sw.js), so that its scope is the whole site, and
rendered with the list of static files to keep and a version made of their contents: a deploy
that changes any of them installs a new cache and drops the old one. No push service (none is
reachable from where the site runs): the game socket and mail remain the notices.
"""
import hashlib
import json
from functools import lru_cache

from django.conf import settings
from django.contrib.staticfiles import finders
from django.http import JsonResponse
from django.shortcuts import render
from django.templatetags.static import static
from django.urls import reverse
from django.views.decorators.cache import cache_control
from django.views.decorators.http import require_GET

# What the worker keeps: the site's own styles, scripts and pictures.
KEPT = (".css", ".js", ".svg", ".png", ".woff2")


@lru_cache(maxsize=1)
def static_files():
    """(version, [URL, ...]) of every static file worth keeping offline."""
    digest = hashlib.sha256()
    urls = []
    for finder in finders.get_finders():
        for path, storage in finder.list(["admin/*", "*.map"]):
            if not path.endswith(KEPT):
                continue
            with storage.open(path) as handle:
                digest.update(path.encode() + b"\0" + handle.read())
            urls.append(static(path))
    return digest.hexdigest()[:16], sorted(set(urls))


@require_GET
def manifest(request):
    return JsonResponse({
        "name": "Tessera",
        "short_name": "Tessera",
        "description": "Copolymer, Hadron, Tripen and Colorful Connection, live.",
        "start_url": "/",
        "scope": "/",
        "display": "standalone",
        "background_color": "#f5f1e8",
        "theme_color": "#1d2433",
        "icons": [{"src": static("img/logo.svg"), "sizes": "any", "type": "image/svg+xml"}],
    }, content_type="application/manifest+json")


@require_GET
@cache_control(no_cache=True)
def service_worker(request):
    version, urls = static_files()
    if settings.DEBUG:
        static_files.cache_clear()
    return render(request, "frontend/sw.js", {"version": version,
                                              "static_urls": json.dumps(urls),
                                              "offline_url": reverse("frontend:offline")},
                  content_type="text/javascript")


@require_GET
def offline(request):
    return render(request, "frontend/offline.html")
