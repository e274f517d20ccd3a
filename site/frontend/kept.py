"""Whole pages kept, compressed, for visitors who are not signed in.

Watch and the Archive read, for every view, everything their rows are drawn from (the rows'
keys: watch.services.keyed, archive.listing.facts); from there on a page is the same for every
visitor who is not signed in until one of those facts changes. So such a view hands the facts
it read and a function that draws the page: the page is drawn and gzipped once for those facts,
and a repeated view costs the reads that make the key, not the template and the compression
(Watch's 180 kB with its 25 inline thumbnails took 1.4 ms of gzip a view: more than its
template).

Kept only where nothing in the page is the visitor's own: no one signed in (the header names
them), no message waiting (shown once, then gone), no CSRF token drawn (masked for the
visitor's cookie; and a page without a secret in it has nothing for BREACH to find, so it
needs none of the random padding Django's gzip adds), no cookie set. Only the gzipped bytes are
kept (a tenth of the page); the rare client that does not take gzip gets them unpacked.
"""
import gzip
import hashlib
import re

from django.contrib.messages import get_messages
from django.core.cache import cache
from django.http import HttpResponse
from django.utils.cache import patch_vary_headers

# Kept this long at most since drawn: a page's facts change with its games, and a key no longer
# asked for goes out with the cache's oldest.
TIMEOUT = 600
# As Django's GZipMiddleware reads Accept-Encoding.
TAKES_GZIP = re.compile(r"\bgzip\b")


def for_everyone(request):
    """Whether this visitor's page would be any other's who is not signed in."""
    return not request.user.is_authenticated and not len(get_messages(request))


def page(request, facts, draw):
    """The page of `draw()` (a response), kept for `facts` (repr-able: everything the page
    shows beyond its address) when it is the same for everyone; facts None: drawn every time."""
    if facts is None or not for_everyone(request):
        return draw()
    shown = repr((request.get_full_path(), facts))
    key = f"page:{hashlib.sha1(shown.encode()).hexdigest()}"
    kept = cache.get(key)
    if kept is None:
        response = draw()
        if (response.status_code != 200 or response.cookies or response.streaming
                or request.META.get("CSRF_COOKIE_NEEDS_UPDATE")):
            return response
        kept = (response["Content-Type"], gzip.compress(response.content, 6, mtime=0))
        cache.set(key, kept, TIMEOUT)
    return answer(request, kept)


def answer(request, kept):
    content_type, packed = kept
    if TAKES_GZIP.search(request.META.get("HTTP_ACCEPT_ENCODING", "")):
        # Django's GZipMiddleware leaves a response that has an encoding as it is.
        response = HttpResponse(packed, content_type=content_type)
        response["Content-Encoding"] = "gzip"
    else:
        response = HttpResponse(gzip.decompress(packed), content_type=content_type)
    patch_vary_headers(response, ("Accept-Encoding",))
    return response
