"""Puzzle ratings (Glicko-2, ratings.glicko2 and ratings.policy): each rated attempt is a game
between a signed-in player and the puzzle, won by the player who solves it without a wrong
move. A visitor solves without a rating."""
from django.conf import settings
from django.db import models

from ratings.glicko2 import Rating
from ratings.policy import START


class GlickoFields(models.Model):
    rating = models.FloatField(default=START.rating)
    deviation = models.FloatField(default=START.deviation)
    volatility = models.FloatField(default=START.volatility)

    class Meta:
        abstract = True

    @property
    def glicko(self) -> Rating:
        return Rating(self.rating, self.deviation, self.volatility)

    def set_glicko(self, rating: Rating) -> None:
        self.rating, self.deviation, self.volatility = (
            rating.rating, rating.deviation, rating.volatility)


class PuzzleRating(GlickoFields):
    """A shipped puzzle's rating, made when it is first attempted by a signed-in player."""
    puzzle_id = models.CharField(max_length=64, unique=True)
    game = models.CharField(max_length=16, db_index=True)
    attempts = models.PositiveIntegerField(default=0)


class PuzzlePlayer(GlickoFields):
    """A player's puzzle rating in one game."""
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                             related_name="puzzle_ratings")
    game = models.CharField(max_length=16)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "game"],
                                               name="one_puzzle_rating_per_game")]


class PuzzleAttempt(models.Model):
    """A player's rated attempt at a puzzle: the first answer that finished it (solved, or a
    move that does not win). Later tries of the same puzzle are not rated."""
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                             related_name="puzzle_attempts")
    puzzle_id = models.CharField(max_length=64)
    game = models.CharField(max_length=16)
    solved = models.BooleanField()
    rating_before = models.FloatField()
    rating_after = models.FloatField()
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "puzzle_id"],
                                               name="one_rated_attempt_per_puzzle")]


class LessonStepDone(models.Model):
    """A lesson step a signed-in player has done (a visitor's are kept in the session)."""
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                             related_name="lesson_steps")
    game = models.CharField(max_length=16)
    step = models.CharField(max_length=32)       # the step's key, stable when steps move
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "game", "step"],
                                               name="one_mark_per_lesson_step")]


class MinedPuzzle(models.Model):
    """A puzzle made by `manage.py make_puzzles` from this site's finished games (or from the
    computer games it plays when the archive is thin), served beside the shipped set. `data`
    is the puzzle as games.puzzles writes it; it was proven and its certificate re-checked
    before it was stored."""
    puzzle_id = models.CharField(max_length=64, unique=True)
    game = models.CharField(max_length=16, db_index=True)
    data = models.JSONField()
    source_game = models.ForeignKey("play.Game", null=True, blank=True,
                                    on_delete=models.SET_NULL, related_name="+")
    created = models.DateTimeField(auto_now_add=True)


class MinedGame(models.Model):
    """A finished game `make_puzzles` has mined, with or without a puzzle, so that the next
    run reads only the games that ended since."""
    source_game = models.OneToOneField("play.Game", on_delete=models.CASCADE, related_name="+")
    puzzles = models.PositiveSmallIntegerField(default=0)
    created = models.DateTimeField(auto_now_add=True)
