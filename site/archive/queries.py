"""The Archive's query: finished games matching the filters, newest first, a page at a time.

The indexes that keep it fast are on play's Game (Meta.indexes): the game, a player, the board
size or variant and the dates are equalities or ranges on indexed columns, and the order
(finished_at, id) follows the indexes, so a page is read off an index instead of sorting every
finished game; result and ending narrow those rows down. bench/archive_query.py shows the
plans and timings on 100,000 games.

The count of a search (the paginator's "N games · page X of Y") has no such shortcut: it reads
every matching entry, 50-140 ms on 100,000 games in SQLite. So it is kept in Django's cache,
keyed by the search and by the archive's stamp (the finished game saved last: a game that
ends is saved, and so is one written or changed by hand), and counted again only when a game
has finished since, or after COUNT_TIMEOUT (a deleted game, whose account went, changes no
stamp).
"""
import hashlib

from datetime import datetime, time, timedelta
from functools import lru_cache

from django.core.cache import cache
from django.core.paginator import Paginator
from django.db import connection
from django.db.models import Q
from django.utils import timezone

from archive.forms import VARIANT_GAME
from bots.accounts import bot_ids as exhibition_ids
from bots.services import archive_filter as exhibition_condition
from live.sql import columns, instances, read, written
from play.models import Game
from ratings.display import keep, prefetch
from ratings.models import RatingChange

PER_PAGE = 25
NEWEST_FIRST = ("-finished_at", "-id")
# A kept count is recounted after this long even if no game finished (see the module's note).
COUNT_TIMEOUT = 600


def day_start(date):
    return timezone.make_aware(datetime.combine(date, time.min))


def finished_games(computers=None):
    """Finished games, but not the computers' exhibition games (bots.services): nobody
    played them. `computers`: their ids if read already."""
    return Game.objects.filter(status=Game.FINISHED).exclude(exhibition_condition(computers))


def matching(filters, computers=None):
    """Finished games matching `filters` (ArchiveFilter.filters()), newest first."""
    found = finished_games(computers)
    # option_size / option_board are the database's copies of options["size"] / ["board"]:
    # a lookup inside the JSON could not use an index.
    if filters.get("variant"):
        found = found.filter(game=VARIANT_GAME, option_board=filters["variant"])
    if filters.get("game"):
        found = found.filter(game=filters["game"])
    if filters.get("size") is not None:
        found = found.filter(option_size=filters["size"])
    player = filters.get("player")
    if player is not None:
        found = found.of_player(player)
    found = found.filter(result_condition(filters.get("result"), player))
    if filters.get("reason"):
        found = found.filter(reason=filters["reason"])
    if filters.get("event") is not None:
        found = found.filter(pairing__tournament=filters["event"])
    if filters.get("date_from"):
        found = found.filter(finished_at__gte=day_start(filters["date_from"]))
    if filters.get("date_to"):
        found = found.filter(finished_at__lt=day_start(filters["date_to"] + timedelta(days=1)))
    return found.order_by(*NEWEST_FIRST)


def result_condition(result, player):
    """The result filter as a condition; `winner` is a player index (player0 moved first)."""
    if result == "first":
        return Q(winner=0)
    if result == "second":
        return Q(winner=1)
    if result == "draw":
        return Q(winner__isnull=True)
    if result == "won" and player is not None:
        return Q(player0=player, winner=0) | Q(player1=player, winner=1)
    if result == "lost" and player is not None:
        return Q(player0=player, winner=1) | Q(player1=player, winner=0)
    return Q()


def stamp():
    """The finished game saved last (id and time), read off the (status, updated_at) index:
    any change to the finished games but a deletion changes it."""
    for pk, updated_at in read(_stamp_statement(connection.vendor)):
        return pk, updated_at.isoformat()
    return None


@lru_cache(maxsize=None)
def _stamp_statement(vendor):
    """stamp()'s query, written once per process (live.sql): every view of the Archive asks
    it for its count's key."""
    return written(Game.objects.filter(status=Game.FINISHED).order_by("-updated_at")
                   .values_list("pk", "updated_at")[:1])


def search_key(filters):
    """The filters as text: a player or an event by its id."""
    return repr(sorted((name, getattr(value, "pk", value)) for name, value in filters.items()
                       if value not in (None, "")))


def count_of(filters, ids):
    """How many games match `filters` (`ids()`: their query, built only to count them), kept
    until a game finishes."""
    shown = repr((search_key(filters), stamp()))
    key = f"archive:count:{hashlib.sha1(shown.encode()).hexdigest()}"
    count = cache.get(key)
    if count is None:
        count = ids().count()
        cache.set(key, count, COUNT_TIMEOUT)
    return count


class Counted(Paginator):
    """A paginator told its count (count_of) instead of counting."""

    def __init__(self, object_list, per_page, count):
        super().__init__(object_list, per_page)
        self.count = count  # Paginator.count is a cached_property: this is its value


def page_of(filters, number, per_page=PER_PAGE):
    """One page of matching games, with their players (games_of), for the API's list."""
    page = ids_page_of(filters, number, per_page)
    page.object_list = games_of(page.object_list)
    return page


def ids_page_of(filters, number, per_page=PER_PAGE):
    """One page of matching games' ids, newest first.

    The paginator slices the ids only, which the indexes answer without reading the game rows
    (this matters deep in the list, where OFFSET skips thousands of entries), and is told the
    count (count_of: kept). The list without filters, the Archive's own page, slices
    Unfiltered instead: its queries are written once per process."""
    ids = lambda: matching(filters).values_list("id", flat=True)  # noqa: E731
    page = Counted(ids() if filters else Unfiltered(), per_page,
                   count_of(filters, ids)).get_page(number)
    page.object_list = list(page.object_list)
    return page


class Unfiltered:
    """The ids of matching({}) as a paginator slices them (told the count, it asks for nothing
    else), each slice by its statement written once per process (live.sql): every view of
    the Archive's own page asks one, and the ORM built and compiled the search each time. The
    computers' ids are in the key: the exhibitions' exclusion names them."""

    def __getitem__(self, part):
        if part.stop <= part.start:
            return []
        statement = _unfiltered_statement(connection.vendor, tuple(exhibition_ids()),
                                          part.start, part.stop)
        return [pk for (pk,) in read(statement)]


@lru_cache(maxsize=128)
def _unfiltered_statement(vendor, computers, start, stop):
    return written(matching({}, list(computers)).values_list("id")[start:stop])


def games_of(wanted, changes=None, ratings=None):
    """The games of ids `wanted`, in that order, with their players, ratings and tournament,
    read by primary key for a list. `changes` (changes_of()) and `ratings` (the players'
    rows, ratings.display.read()) when the caller read them already."""
    # The event each game was played in (its name on the row) comes in the same query.
    rows = Game.objects.with_players().select_related("pairing__tournament").in_bulk(wanted)
    if changes is None:
        changes = changes_of(wanted)
    for pk, game in rows.items():
        game.page_changes = changes.get(pk, [])
    # Ratings beside the names: the players' ratings, one query for the whole page.
    players = [player for game in rows.values() for player in game.players()]
    if ratings is None:
        prefetch(players)
    else:
        keep(players, ratings)
    return [rows[pk] for pk in wanted if pk in rows]


def changes_of(wanted):
    """What the rated games of ids `wanted` did to their players' ratings, by game id, in one
    plain query (prefetch_related would build a queryset per game): archive.listing.seats
    reads them as page_changes."""
    found = {pk: [] for pk in wanted}
    if wanted:
        statement = _changes_statement(connection.vendor, len(wanted))
        for change in instances(RatingChange, statement, list(wanted)):
            found[change.played_id].append(change)
    return found


@lru_cache(maxsize=256)
def _changes_statement(vendor, count):
    """changes_of()'s query for `count` games, written once per process (live.sql): the
    Archive asks it on every view for its rows' keys."""
    return written(RatingChange.objects.filter(played_id__in=range(count))
                   .values_list(*columns(RatingChange)), range(count))
