"""What one row of the Archive shows about a finished game, and its HTML, rendered once for
what it shows.

A finished game's row hardly changes: only a rating beside a name (an unrated game shows the
player's rating as it stands now), a tournament's name, or a renamed player. So a row's HTML is
kept in Django's cache under a key made of everything the row is drawn from (facts(): the
game's columns it shows, its players' names, its tournament's, the ratings beside the names),
read for a page of 25 rows in three narrow queries, and the rows are read in one get_many:
the games are read whole and the template runs only for the rows whose key is not kept
(something in them changed, or the key went out of the cache), never on a repeated view.
"""
import hashlib
from dataclasses import dataclass
from functools import lru_cache

from django.core.cache import cache
from django.core.exceptions import ObjectDoesNotExist
from django.db import connection
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.safestring import mark_safe

from archive import queries
from live.sql import read, written
from play.models import Game
from play.labels import reason_text
from ratings import display
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


# Part of every row's key (facts()): change it when templates/archive/_row.html changes what it
# shows.
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


# What a row is drawn from, of the game and what it joins, read for a page at once (items()):
# updated_at moves with every save of the game; the other columns are those the row shows.
FACTS = ("pk", "updated_at", "game", "options", "swapped", "rated", "time_kind", "minutes",
         "increment", "days", "winner", "reason", "result_text", "ply_count", "finished_at",
         "player0_id", "player1_id", "player0__username", "player1__username",
         "pairing__tournament_id", "pairing__tournament__name")
PLAYER_IDS = (FACTS.index("player0_id"), FACTS.index("player1_id"))


def facts(wanted):
    """{game id: key} for games of ids `wanted`: each key made of everything its row is
    drawn from (the columns of FACTS, each seat's rating: what the game did to it if it was
    rated, else the rating as it stands now), in three queries for the page."""
    wanted = list(wanted)
    found = []
    if wanted:
        found = [tuple(row) for row in read(_facts_statement(connection.vendor, len(wanted)),
                                            wanted)]
    changes = queries.changes_of(wanted)
    ratings = display.read(row[k] for row in found for k in PLAYER_IDS)
    keys = {}
    for row in found:
        pk, game = row[0], row[2]
        by_index = {change.player_index: change for change in changes[pk]}
        seats = [(change.after, change.provisional, change.change) if change
                 else display.badge_by_id(row[k], game, ratings)
                 for change, k in ((by_index.get(i), k) for i, k in enumerate(PLAYER_IDS))]
        shown = repr((ROW_VERSION, row, seats))
        keys[pk] = f"archive:item:{pk}:{hashlib.sha1(shown.encode()).hexdigest()}"
    return keys, changes, ratings


@lru_cache(maxsize=None)
def _facts_statement(vendor, count):
    """facts()' query for `count` games, written once per process (live.sql): the Archive asks
    it on every view for its rows' keys, and the ORM compiled its joins each time."""
    return written(Game.objects.filter(pk__in=range(count)).values_list(*FACTS), range(count))


@dataclass
class Keyed:
    """The games of ids `wanted` with their rows' keys (facts()), in that order: a game
    deleted since its id was read (its player's account went) is left out."""
    wanted: list
    keys: dict  # {game id: its row's key}
    changes: dict
    ratings: dict

    def shown(self):
        return [self.keys[pk] for pk in self.wanted if pk in self.keys]


def keyed(wanted):
    """The rows' keys of the games of ids `wanted` (facts()): what a page kept whole is kept
    for (frontend.kept), read without the rows themselves (items())."""
    return Keyed(list(wanted), *facts(wanted))


def items(wanted):
    """The list items of the games of ids `wanted`, in that order, and their keys (facts()):
    kept ones from the cache (one read for the page), the others' games read whole, rendered
    and kept. `wanted`: the ids, or what keyed() read of them already."""
    found = wanted if isinstance(wanted, Keyed) else keyed(wanted)
    wanted, keys, changes, ratings = found.wanted, found.keys, found.changes, found.ratings
    kept = cache.get_many(list(keys.values()))
    missing = [pk for pk, key in keys.items() if key not in kept]
    drawn = {}
    if missing:
        for game in queries.games_of(missing, changes, ratings):
            drawn[keys[game.pk]] = render_to_string("archive/_row.html", {"row": row(game)})
        cache.set_many(drawn, ROW_TIMEOUT)
    found = {**kept, **drawn}
    # A game deleted since its key was read (its player's account went) is left out.
    shown = [keys[pk] for pk in wanted if keys.get(pk) in found]
    return [mark_safe(found[key]) for key in shown], shown
