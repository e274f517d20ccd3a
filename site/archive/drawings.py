"""Single flight for expensive exports: one request draws, every concurrent one (in any server
process) waits for its result, and the result is kept in the database (archive.models.Drawing),
not in Django's cache, where a few hundred cheap requests pushed a GIF out and the next visitor
paid its 3-4 s of CPU again.

The claim is a row inserted in a short transaction (its unique key decides who draws); the
drawing happens outside any transaction, so no lock is held for seconds (on SQLite a held
write transaction would stop every move of the site). A claim older than STALE belongs to a
drawer that died: the next request takes it over.
"""
import time
from datetime import timedelta

from django.db import IntegrityError, transaction
from django.utils import timezone

from archive.models import Drawing

# Longer than any drawing takes (the largest GIF, 400 plies, about 25 s on a loaded core).
STALE = timedelta(seconds=60)
# How long a request waits for another's drawing before it says so (a 503 with Retry-After).
WAIT = 30.0
POLL = 0.1


class StillDrawing(Exception):
    """Another request is drawing this image and did not finish within WAIT."""


def kept(game, kind, key, draw, wait=WAIT):
    """The image `key` of `game`: the kept one, or drawn by `draw()` once for all requests
    that ask meanwhile. An image of the same game and kind under another key (older history,
    fewer plies) is dropped when the new one is kept."""
    deadline = time.monotonic() + wait
    while True:
        data = Drawing.objects.filter(key=key).values_list("data", flat=True).first()
        if data is not None:
            return bytes(data)
        if _claim(game, kind, key):
            return _draw(game, kind, key, draw)
        if time.monotonic() >= deadline:
            raise StillDrawing(key)
        time.sleep(POLL)


def _claim(game, kind, key):
    now = timezone.now()
    try:
        with transaction.atomic():
            Drawing.objects.create(game=game, kind=kind, key=key, drawing_since=now)
        return True
    except IntegrityError:
        # Someone drew it or draws it; a claim gone stale is taken over by exactly one request.
        return bool(Drawing.objects.filter(key=key, data__isnull=True,
                                           drawing_since__lt=now - STALE)
                    .update(drawing_since=now))


def _draw(game, kind, key, draw):
    try:
        data = draw()
    except BaseException:
        Drawing.objects.filter(key=key, data__isnull=True).delete()
        raise
    Drawing.objects.filter(key=key).update(data=data, drawing_since=None)
    Drawing.objects.filter(game=game, kind=kind).exclude(key=key).delete()
    return data
