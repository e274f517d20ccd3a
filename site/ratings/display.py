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

from django.db.models import prefetch_related_objects
from django.utils import timezone

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


def prefetch(users) -> None:
    """Read the ratings of all these players in one query (for a list of names)."""
    todo = [user for user in users
            if user is not None and "ratings" not in getattr(user, "_prefetched_objects_cache", {})]
    if todo:
        prefetch_related_objects(todo, "ratings")


def rows_of(user) -> dict:
    """The player's rating rows by game (read once per user object)."""
    prefetch([user])
    return {row.game: row for row in user.ratings.all()}


def standing(user, game: str, now=None) -> Standing:
    row = rows_of(user).get(game)
    if row is None:
        return NEWCOMER
    now = now or timezone.now()
    live = row.glicko_at(now)
    return Standing(round(live.rating), live.deviation, policy.is_provisional(live.deviation),
                    row.games)


def badge(user, game: str) -> dict:
    """The rating as JSON payloads carry it beside a username: {"rating", "provisional"}."""
    return standing(user, game).badge()


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
