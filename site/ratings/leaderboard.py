"""The best players of each game: people with enough rated games whose rating is no longer
provisional (lichess's rule), highest first. Computer players (accounts.Profile.is_bot, set
by the bots' app) are rated like anyone but are not listed: the leaderboards are for people."""
from dataclasses import dataclass

from django.utils import timezone

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
    return (Rating.objects.filter(game=game, games__gte=MIN_GAMES, user__is_active=True,
                                  deviation__lte=policy.PROVISIONAL_DEVIATION)
            .exclude(user__profile__is_bot=True)
            # Bot accounts (api.models.BotAccount) are programs too.
            .exclude(user__bot_account__isnull=False)
            .select_related("user").order_by("-rating", "pk"))


def top(game, limit=10, now=None) -> list[Place]:
    """The `limit` best listed players of `game`. A stored deviation only grows with time, so
    those provisional by now are filtered here from a few more candidates than needed."""
    now = now or timezone.now()
    places = []
    for row in candidates(game)[: limit * 3]:
        live = row.glicko_at(now)
        if policy.is_provisional(live.deviation):
            continue
        places.append(Place(len(places) + 1, row.user, round(row.rating), live.deviation,
                            row.games, row.wins, row.losses, row.draws))
        if len(places) == limit:
            break
    return places
