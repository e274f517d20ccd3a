"""What one row of the Archive shows about a finished game, and its HTML, rendered once for
what it shows.

A finished game's row hardly changes: only a rating beside a name (an unrated game shows the
player's rating as it stands now), a tournament's name, or a renamed player. So a row's HTML is
kept in Django's cache under a key made of everything the row shows (shown()), and a page of 25
rows reads them in one get_many: the template runs for a row only when something in it changed
(or the key went out of the cache), never on a repeated view.
"""
import hashlib
from dataclasses import dataclass

from django.core.cache import cache
from django.core.exceptions import ObjectDoesNotExist
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.safestring import mark_safe

from play.labels import reason_text
from ratings.display import badge, marked


@dataclass
class Seat:
    name: str
    side: int
    side_name: str
    won: bool
    rating: dict  # a badge: after the game if it was rated, else as it stands now
    change: int | None = None  # what the game did to the rating (rated games)


@dataclass
class Row:
    game: object
    title: str
    board: str
    seats: list
    result: str
    reason: str
    thumbnail: str
    url: str
    event: object = None  # the tournament it was played in
    html: str = ""  # the list item (rendered())


# Part of every row's key: change it when templates/archive/_row.html changes what it shows.
ROW_VERSION = 1
# Rows kept this long since they were last drawn (a week): a finished game's row is the same
# for everyone, so the cache holds the pages visitors actually read.
ROW_TIMEOUT = 7 * 24 * 3600


def seats(game):
    """The players, with their ratings: a rated game's rows (read with the page as
    page_changes, queries.page_of) say what it did to them."""
    found = getattr(game, "page_changes", None)
    if found is None:
        found = game.rating_changes.all()
    changes = {change.player_index: change for change in found}
    shown = []
    for seat in game.seats():
        change = changes.get(seat.index)
        rating = (marked(seat.player.pk, {"rating": change.after,
                                           "provisional": change.provisional}) if change
                  else badge(seat.player, game.game))
        shown.append(Seat(seat.username, seat.side, seat.side_name, game.winner == seat.index,
                          rating, change.change if change else None))
    return shown


def row(game):
    return Row(
        game=game, title=game.title, board=game.options_text, seats=seats(game),
        result=game.result_text, reason=reason_text(game.reason),
        thumbnail=reverse("archive:position_svg", args=[game.pk, game.ply_count]) + "?labels=0",
        url=game.get_absolute_url(), event=event_of(game),
    )


def event_of(game):
    """The tournament the game was played in (queries.page_of reads it with the game), or
    None."""
    try:
        return game.pairing.tournament
    except ObjectDoesNotExist:
        return None


def shown(row):
    """Everything templates/archive/_row.html shows of `row`, as text: its cache key's body."""
    game = row.game
    event = row.event and (row.event.pk, row.event.name, row.event.get_absolute_url())
    return repr((ROW_VERSION, game.pk, row.title, row.board, row.seats, row.result, row.reason,
                 row.thumbnail, row.url, event, game.time_control.text, game.rated, game.reason,
                 game.finished_at and game.finished_at.isoformat(), game.ply_count))


def row_key(row):
    return f"archive:row:{row.game.pk}:{hashlib.sha1(shown(row).encode()).hexdigest()}"


def rendered(rows):
    """`rows` with their HTML: kept ones from the cache (one read for the page), the others
    rendered and kept."""
    keys = {row_key(row): row for row in rows}
    kept = cache.get_many(list(keys))
    drawn = {}
    for key, row in keys.items():
        row.html = mark_safe(kept[key]) if key in kept else None
        if row.html is None:
            row.html = drawn[key] = render_to_string("archive/_row.html", {"row": row})
    if drawn:
        cache.set_many(drawn, ROW_TIMEOUT)
    return rows
