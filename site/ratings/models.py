"""Ratings: one Glicko-2 rating per player and game (as lichess keeps one per variant), and one
history row per player and rated game, written in the transaction that ends the game."""
from django.conf import settings
from django.db import models

from ratings import glicko2, policy


class Rating(models.Model):
    """A player's current rating at one game. A player without a row has the starting rating
    (policy.START); the row is made by their first rated game."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                             related_name="ratings")
    game = models.CharField(max_length=20, help_text="engine name, e.g. hadron")
    rating = models.FloatField(default=policy.START.rating)
    deviation = models.FloatField(default=policy.START.deviation)
    volatility = models.FloatField(default=policy.START.volatility)
    games = models.PositiveIntegerField(default=0, help_text="rated games played")
    wins = models.PositiveIntegerField(default=0)
    losses = models.PositiveIntegerField(default=0)
    draws = models.PositiveIntegerField(default=0)
    # The end of the player's last rated game: the deviation grows from then on.
    last_rated_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "game"], name="ratings_one_per_game"),
        ]
        indexes = [models.Index(fields=["game", "-rating"], name="ratings_board")]

    def __str__(self):
        return f"{self.user} {self.game} {self.rating:.0f}/{self.deviation:.0f}"

    @property
    def glicko(self) -> glicko2.Rating:
        return glicko2.Rating(self.rating, self.deviation, self.volatility)

    def glicko_at(self, now) -> glicko2.Rating:
        """The rating as it stands at `now`: the deviation grown by the time since the last
        rated game (lichess's "live" deviation)."""
        periods = policy.periods_between(self.last_rated_at, now)
        return policy.bounded(glicko2.idle(self.glicko, periods))

    def deviation_at(self, now) -> float:
        return self.glicko_at(now).deviation


class RatingChange(models.Model):
    """What one rated game did to one player's rating (a profile's graph, the end message)."""

    played = models.ForeignKey("play.Game", on_delete=models.CASCADE,
                               related_name="rating_changes")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                             related_name="rating_changes")
    game = models.CharField(max_length=20, help_text="engine name, e.g. hadron")
    player_index = models.SmallIntegerField(help_text="0 moved first in the game")
    opponent = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                                 related_name="+")
    score = models.FloatField(help_text="1 win, 0.5 draw, 0 loss")
    # Before: as it stood when the game ended (deviation grown by idleness), the input of the
    # update; after: the result.
    rating_before = models.FloatField()
    deviation_before = models.FloatField()
    rating_after = models.FloatField()
    deviation_after = models.FloatField()
    volatility_after = models.FloatField()
    opponent_rating = models.FloatField()
    opponent_deviation = models.FloatField()
    created_at = models.DateTimeField(help_text="when the game ended")

    class Meta:
        constraints = [
            # Exactly once: a second update of the same game for the same player fails here.
            models.UniqueConstraint(fields=["played", "user"], name="ratings_once_per_game"),
        ]
        indexes = [models.Index(fields=["user", "game", "created_at"], name="ratings_history")]
        ordering = ["created_at", "pk"]

    def __str__(self):
        return f"{self.user} {self.game} game {self.played_id}: {self.change:+d}"

    @property
    def before(self) -> int:
        return round(self.rating_before)

    @property
    def after(self) -> int:
        return round(self.rating_after)

    @property
    def change(self) -> int:
        """The change as shown: the difference of the shown ratings, so the numbers add up."""
        return self.after - self.before

    @property
    def result(self) -> str:
        return {1.0: "win", 0.0: "loss"}.get(self.score, "draw")

    @property
    def provisional(self) -> bool:
        return policy.is_provisional(self.deviation_after)
