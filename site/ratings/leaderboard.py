"""The best players of each game: people with enough rated games whose rating is no longer
provisional (lichess's rule), highest first. Computer players (accounts.Profile.is_bot, set
by the bots' app) are rated like anyone but are not listed: the leaderboards are for people."""
from dataclasses import dataclass
from functools import lru_cache

from django.contrib.auth import get_user_model
from django.db import connection
from django.db.models import F, Window
from django.db.models.functions import RowNumber
from django.utils import timezone

from live.sql import read, written
from ratings import policy
from ratings.models import Rating

# Rated games a player needs before being listed.
MIN_GAMES = 5


@dataclass
class Place:
    rank: int
    user: object
    rating: int
    deviation: float
    games: int
    wins: int
    losses: int
    draws: int


def candidates(game):
    return listable(Rating.objects.filter(game=game)).order_by("-rating", "pk")


def listable(ratings):
    return (ratings.filter(games__gte=MIN_GAMES, user__is_active=True,
                           deviation__lte=policy.PROVISIONAL_DEVIATION)
            .exclude(user__profile__is_bot=True)
            # Bot accounts (api.models.BotAccount) are programs too.
            .exclude(user__bot_account__isnull=False)
            .select_related("user"))


def top(game, limit=10, now=None) -> list[Place]:
    """The `limit` best listed players of `game`. A stored deviation only grows with time, so
    those provisional by now are filtered here from a few more candidates than needed."""
    return placed(candidates(game)[: limit * 3], limit, now)


def tops(names, limit=10, now=None) -> dict[str, list[Place]]:
    """top() of each of several games, in one query: each game's first candidates by a
    window over its rows (the page of every game's table built four querysets, and building
    them cost more than running them)."""
    found = {name: [] for name in names}
    for row in _ranked(tuple(names), limit):
        found[row.game].append(row)
    return {name: placed(sorted(rows, key=lambda row: (-row.rating, row.pk)), limit, now)
            for name, rows in found.items()}


def _ranked(names, limit):
    """The candidates of tops() as ratings with their users (id and name: what the page
    shows), by the statement written once for these games (live.sql: the ORM compiled the
    window's query on every view, some 3 ms, against a fraction of that to run it)."""
    statement = _tops_statement(connection.vendor, names, limit, MIN_GAMES,
                                policy.PROVISIONAL_DEVIATION)
    user_field = Rating._meta.get_field("user")
    users = get_user_model()
    rows = []
    for values in read(statement):
        row = Rating.from_db(connection.alias, RATING_COLUMNS, values[:-1])
        user = users.from_db(connection.alias, ["id", "username"], (row.user_id, values[-1]))
        user_field.set_cached_value(row, user)
        rows.append(row)
    return rows


RATING_COLUMNS = [field.attname for field in Rating._meta.concrete_fields]


@lru_cache(maxsize=None)
def _tops_statement(vendor, names, limit, min_games, provisional):
    """tops()' query as written(), its values those the rules read now (min_games,
    provisional: in the key, so a changed rule writes a new statement)."""
    ranked = (listable(Rating.objects.filter(game__in=names))
              .annotate(place=Window(RowNumber(), partition_by=F("game"),
                                     order_by=(F("rating").desc(), F("pk").asc())))
              .filter(place__lte=limit * 3)
              .values_list(*RATING_COLUMNS, "user__username"))
    return written(ranked)


def placed(rows, limit, now=None) -> list[Place]:
    now = now or timezone.now()
    places = []
    for row in rows:
        live = row.glicko_at(now)
        if policy.is_provisional(live.deviation):
            continue
        places.append(Place(len(places) + 1, row.user, round(row.rating), live.deviation,
                            row.games, row.wins, row.losses, row.draws))
        if len(places) == limit:
            break
    return places
