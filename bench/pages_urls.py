"""The site's URLs and the bench's plain view beside them (bench/pages_settings.py): a Django
view that returns a page of the asked size through the same middleware, with no query and no
template, the floor a page of the site is compared with."""
from django.http import HttpResponse
from django.urls import path

from tessera.urls import urlpatterns as site_urls

FILLER = b"<p>" + b"Tessera " * 8 + b"</p>\n"


def plain(request):
    size = min(int(request.GET.get("bytes", "30000")), 1_000_000)
    body = b"<!doctype html><title>plain</title>\n" + FILLER * (size // len(FILLER) + 1)
    return HttpResponse(body[:size], content_type="text/html; charset=utf-8")


urlpatterns = [path("bench-plain/", plain), *site_urls]
