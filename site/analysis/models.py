"""The computer's analysis of a finished game, kept with the game, and its hints.

An `Analysis` is one per game (a second request finds the first); the worker stores one
`Estimate` per ply as it goes, so a page that asks while it runs shows the plies done so far.
A `Hint` is the engine's preferred action in one position of a game's replay: the game's
position after `ply` actions followed by an explored line (`moves`), kept so that asking again
answers at once. Both are computed by jobs in a worker (analysis.jobs), never in a request.
"""
import hashlib
import json

from django.conf import settings
from django.db import models
from django.utils import timezone

from play.models import Game


class Work(models.Model):
    """What every job asked for here has: who asked, when, and how far it got (`updated_at`
    moves with every step a worker stores)."""

    QUEUED, RUNNING, DONE, FAILED = "queued", "running", "done", "failed"
    STATUSES = [(QUEUED, "queued"), (RUNNING, "running"), (DONE, "done"), (FAILED, "failed")]

    requested_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL,
                                     null=True, related_name="+")
    status = models.CharField(max_length=8, choices=STATUSES, default=QUEUED)
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(default=timezone.now)
    # Why a job failed, for the person who asked (the engine's words).
    error = models.CharField(max_length=200, blank=True, default="")

    class Meta:
        abstract = True

    @property
    def is_pending(self):
        return self.status in (self.QUEUED, self.RUNNING)


class Job(Work):
    """A job for one of the site's games: its analysis, or a hint in its replay."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="+")

    class Meta:
        abstract = True


class Analysis(Job):
    game = models.OneToOneField(Game, on_delete=models.CASCADE, related_name="analysis")
    # The budget it ran with (analysis.estimates.BUDGETS), stored so the page can say it.
    playouts = models.PositiveIntegerField()
    # The first ply of the slice of the game queued or in work (analysis.jobs): the job's
    # name, so the workers' sweep asks again for that slice, never for a second one beside it.
    slice_from = models.PositiveIntegerField(default=0)

    class Meta:
        indexes = [
            # The rate limit: one person's latest requests.
            models.Index(fields=["requested_by", "-created_at"], name="analysis_requested"),
            # The workers' sweep (analysis.jobs.pending_analyses), every few seconds.
            models.Index(fields=["status"], name="analysis_pending",
                         condition=models.Q(status__in=["queued", "running"])),
        ]

    def __str__(self):
        return f"analysis of game {self.game_id} ({self.status})"


class Estimate(models.Model):
    """The engine's winning chances after `ply` actions of the analysed game, per player
    (`chance0` for players[0], who moved first; players[1]'s is 1 - chance0). `mover` is the
    player whose action led here (None at ply 0), `forced` whether it was their only legal
    action (no mistake is possible then)."""

    analysis = models.ForeignKey(Analysis, on_delete=models.CASCADE, related_name="estimates")
    ply = models.PositiveIntegerField()
    chance0 = models.FloatField()
    mover = models.PositiveSmallIntegerField(null=True)
    forced = models.BooleanField(default=False)

    class Meta:
        ordering = ["ply"]
        constraints = [
            models.UniqueConstraint(fields=["analysis", "ply"], name="analysis_estimate_ply"),
        ]

    def __str__(self):
        return f"game {self.analysis.game_id} ply {self.ply}: {self.chance0:.2f}"


def hint_key(ply, moves):
    """The position a hint is for, as a fixed-length key: a line may be long (400 actions),
    too long for a unique index on its text."""
    return hashlib.sha256(f"{ply}:{','.join(moves)}".encode()).hexdigest()


class Hint(Job):
    ply = models.PositiveIntegerField()
    moves = models.TextField(blank=True, default="")      # the explored line, comma-separated
    key = models.CharField(max_length=64)                   # hint_key(ply, moves)
    action = models.CharField(max_length=40, blank=True, default="")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["game", "key"], name="analysis_hint_position"),
        ]
        indexes = [
            models.Index(fields=["requested_by", "-created_at"], name="analysis_hint_requested"),
            models.Index(fields=["status"], name="analysis_hint_pending",
                         condition=models.Q(status__in=["queued", "running"])),
        ]

    def __str__(self):
        return f"hint for game {self.game_id} at {self.ply} +[{self.moves}]: {self.action}"

    @property
    def line(self):
        return [action for action in self.moves.split(",") if action]


def board_hint_key(game, options, setup, moves):
    """The analysis board's position a hint is for: the game, its board, the set-up and the
    line, canonical (explorer.tree writes them so), as a fixed-length key."""
    text = json.dumps([game, sorted(options.items()), setup, list(moves)])
    return hashlib.sha256(text.encode()).hexdigest()


class BoardHint(Work):
    """The engine's preferred action in a position of the analysis board: any game and board,
    set up by hand or not, with no game of the site behind it. Kept like a game's hints so
    that asking again answers at once."""
    game = models.CharField(max_length=16)             # the engine's name
    options = models.JSONField(default=dict)
    setup = models.JSONField(null=True, blank=True)    # explorer.tree.Setup.params(), or None
    moves = models.TextField(blank=True, default="")   # the line from there, comma-separated
    key = models.CharField(max_length=64, unique=True)  # board_hint_key(...)
    action = models.CharField(max_length=40, blank=True, default="")

    class Meta:
        indexes = [
            models.Index(fields=["requested_by", "-created_at"],
                         name="analysis_boardhint_requested"),
            models.Index(fields=["status"], name="analysis_boardhint_pending",
                         condition=models.Q(status__in=["queued", "running"])),
        ]

    def __str__(self):
        return f"hint for a {self.game} board +[{self.moves}]: {self.action}"

    @property
    def line(self):
        return [action for action in self.moves.split(",") if action]

    def params(self) -> dict:
        """The analysis board's address of the position (explorer.tree reads it)."""
        return {**self.options, **(self.setup or {}), "moves": self.moves}
