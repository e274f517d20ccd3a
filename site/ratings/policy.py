"""The site's choices for Glicko-2 (lichess's where they fit): what a newcomer starts from,
the system constant, how fast an idle player's deviation grows, and when a rating is
provisional. Changing these changes future rating updates only."""
from datetime import datetime

from ratings.glicko2 import Rating

START = Rating(rating=1500.0, deviation=350.0, volatility=0.06)
# The system constant: how much an upset may move the volatility (lichess: 0.75).
TAU = 0.75
# lichess: "chosen so a typical player's deviation goes from 60 to 110 in one year".
RATING_PERIODS_PER_DAY = 0.21436
# The deviation never leaves these bounds (a long absence cannot make a rating less known
# than a newcomer's; a busy player's still moves).
MIN_DEVIATION = 45.0
MAX_DEVIATION = START.deviation
# Above this deviation a rating is provisional, shown with a "?" (lichess: 110).
PROVISIONAL_DEVIATION = 110.0


def periods_between(before: datetime | None, after: datetime) -> float:
    """Rating periods from a player's previous rated game to `after` (0 for a first game)."""
    if before is None or after <= before:
        return 0.0
    return (after - before).total_seconds() / 86400 * RATING_PERIODS_PER_DAY


def bounded(rating: Rating) -> Rating:
    deviation = min(MAX_DEVIATION, max(MIN_DEVIATION, rating.deviation))
    return Rating(rating.rating, deviation, rating.volatility)


def is_provisional(deviation: float) -> bool:
    return deviation > PROVISIONAL_DEVIATION
