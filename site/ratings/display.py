"""Ratings beside names: the one way every page and socket payload shows a player's rating
for a game (`standing`, `badge`, and the template tag `{% rating player game %}` in
templatetags/rating_tags.py).

A rating is shown as it stands now: the deviation grown by the time since the player's last
rated game, so a player long away turns provisional ("1523?") again. A player who never
played a rated game of that kind shows the starting rating, provisional.

Reading a player's ratings costs one query per player (all their games at once), cached on
the user object; lists prefetch them for every player at once (`prefetch`).
"""
from dataclasses import dataclass
from functools import lru_cache

from django.db import connection
from django.utils import timezone

from live.sql import column, columns, converted, converters, fetch, instances, quote, table, written

from ratings import policy


@dataclass(frozen=True)
class Standing:
    rating: int
    deviation: float
    provisional: bool
    games: int

    @property
    def text(self) -> str:
        return f"{self.rating}{'?' if self.provisional else ''}"

    def badge(self) -> dict:
        return {"rating": self.rating, "provisional": self.provisional}


NEWCOMER = Standing(round(policy.START.rating), policy.START.deviation, True, 0)


# Where a user object keeps its rating rows by game once read (prefetch(), rows_of()).
KEPT = "_ratings_by_game"


def _kept(user):
    """The user's rows by game if read already: by prefetch(), or by a query's
    prefetch_related("...__ratings") (the lobby's lists); else None."""
    kept = user.__dict__.get(KEPT)
    if kept is None:
        rows = getattr(user, "_prefetched_objects_cache", {}).get("ratings")
        if rows is not None:
            kept = user.__dict__[KEPT] = {row.game: row for row in rows}
    return kept


def prefetch(users) -> None:
    """Read the ratings of all these players in one query (for a list of names), kept on each
    user object. One plain query grouped here, not prefetch_related_objects: that builds a
    related queryset per user, which cost a list of 25 games (50 names) more than its query."""
    todo = [user for user in users if user is not None and _kept(user) is None]
    if todo:
        keep(todo, read(user.pk for user in todo))


def read(user_ids) -> dict:
    """The rating rows of these players by id, then by game, in one query: for a list that
    knows its players by id only (the Archive's rows' keys, archive.listing)."""
    from ratings.models import Rating

    found = {}
    wanted = list(set(user_ids))
    if not wanted:
        return found
    for row in instances(Rating, _read_statement(connection.vendor, len(wanted)), wanted):
        found.setdefault(row.user_id, {})[row.game] = row
    return found


@lru_cache(maxsize=256)
def _read_statement(vendor, count):
    """read()'s query for `count` players, written once per process (live.sql): Watch and the
    Archive ask it on every view for their rows' keys, and the ORM compiled it each time."""
    from ratings.models import Rating

    return written(Rating.objects.filter(user_id__in=range(count))
                   .values_list(*columns(Rating)), range(count))


def keep(users, found) -> None:
    """Keep rows read() found on the user objects, as prefetch() does."""
    from ratings.models import Rating

    owner = Rating.user.field
    for user in users:
        rows = user.__dict__[KEPT] = found.get(user.pk, {})
        for row in rows.values():
            owner.set_cached_value(row, user)


def badge_by_id(user_id, game: str, found: dict, now=None) -> dict:
    """badge() of a player known by id, from rows read() found."""
    row = found.get(user_id, {}).get(game)
    return marked(user_id, _standing(row, now or timezone.now()).badge())


def rows_of(user) -> dict:
    """The player's rating rows by game (read once per user object)."""
    prefetch([user])
    return _kept(user)


def standing(user, game: str, now=None) -> Standing:
    return _standing(rows_of(user).get(game), now or timezone.now())


def _standing(row, now) -> Standing:
    if row is None:
        return NEWCOMER
    live = row.glicko_at(now)
    return Standing(round(live.rating), live.deviation, policy.is_provisional(live.deviation),
                    row.games)


class Computers:
    """What a rating shows of a computer player: its level (None for a person) and the level's
    name, and whether a user is a bot account (a program playing through the API). The bots
    and api apps tell them at their ready() (ratings sits below both, and imports neither)."""

    def __init__(self):
        self.level_of = lambda user_id: None
        self.level_name = lambda level: f"level {level}"
        self.is_bot_account = lambda user_id: False


computers = Computers()


def badge(user, game: str) -> dict:
    """The rating as JSON payloads carry it beside a username: {"rating", "provisional"},
    and for a computer player its level, "computer" (the BOT mark: marked())."""
    return marked(user.pk, standing(user, game).badge())


def marked(user_id, found: dict) -> dict:
    """The badge `found` of user `user_id`, with "computer": its level if the user is a
    computer player, or "bot": true if it is a bot account (a program playing through the
    API): every name with a rating beside it shows the BOT mark, on the server's pages
    (rating_tags) and in those the page scripts build (static/js/ratings.js)."""
    level = computers.level_of(user_id)
    if level is not None:
        return {**found, "computer": level}
    return {**found, "bot": True} if computers.is_bot_account(user_id) else found


def badges(users, game: str, now=None) -> list[dict]:
    """badge() of each of these players at one game, in one statement written once
    (live.sql): every snapshot of a game asks it for its two players."""
    from ratings.models import Rating

    fields = tuple(Rating._meta.concrete_fields)
    sql = _badges_sql(connection.vendor, len(users))
    names = [field.attname for field in fields]
    steps = converters(fields)
    rows = {}
    for row in fetch(sql, [game, *(user.pk for user in users)]):
        found = Rating.from_db(connection.alias, names, converted(row, steps))
        rows[found.user_id] = found
    now = now or timezone.now()
    return [marked(user.pk, _standing(rows.get(user.pk), now).badge()) for user in users]


@lru_cache(maxsize=None)
def _badges_sql(vendor, count):
    from ratings.models import Rating

    return "SELECT {} FROM {} WHERE {} = %s AND {} IN ({})".format(
        ", ".join(quote(field.column) for field in Rating._meta.concrete_fields),
        table(Rating), column(Rating, "game"), column(Rating, "user"),
        ", ".join(["%s"] * count))


def ratings_of(user) -> dict:
    """The player's rating at every game they have one for, {game: rating} (the others are
    the starting rating)."""
    if not getattr(user, "is_authenticated", False):
        return {}
    return {game: standing(user, game).rating for game in rows_of(user)}


def change_text(change: int) -> str:
    """A rating change as players read it: +12, −8, ±0."""
    if change > 0:
        return f"+{change}"
    if change < 0:
        return f"−{-change}"
    return "±0"
