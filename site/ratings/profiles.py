"""A player's ratings on their profile page: per game, the rating as it stands, the rated
games won, lost and drawn, and the history chart."""
from dataclasses import dataclass

from django.utils.safestring import mark_safe

import games
from ratings.display import Standing, standing
from ratings.graph import history_svg
from ratings.models import RatingChange

# The chart shows this many of the latest rated games at most.
HISTORY = 500


@dataclass
class GameRating:
    game: str
    title: str
    standing: Standing
    wins: int
    losses: int
    draws: int
    graph: str


def ratings_of(player) -> list[GameRating]:
    """The games the player has played rated, in the registry's order."""
    rows = {row.game: row for row in player.ratings.all()}
    found = []
    for name in games.names():
        row = rows.get(name)
        if row is None or not row.games:
            continue
        history = list(RatingChange.objects.filter(user=player, game=name)
                       .select_related("opponent").order_by("-created_at", "-pk")[:HISTORY])
        history.reverse()
        title = games.get(name).title
        found.append(GameRating(name, title, standing(player, name), row.wins, row.losses,
                                row.draws, mark_safe(history_svg(title, history))))
    return found
