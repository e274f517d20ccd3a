"""Seeks (open offers anyone may accept) and challenges (offers to one named player). Whether a
seek's owner is still in the lobby is the presence ledger's (live.presence, lobby.presence).

A seek or challenge changes state exactly once, by a conditional UPDATE
(`filter(status=OPEN).close(...)`), so two people accepting the same seek at the same moment
cannot both start a game: the database lets one UPDATE match the row and the other match none.
"""
import secrets

from django.conf import settings
from django.db import models
from django.utils import timezone

import games
from play.clock import TimeControl
from play.labels import options_text


RATING_RANGES = [(200, "±200"), (500, "±500")]


class Side(models.TextChoices):
    """The side the proposer (seeker or challenger) takes."""

    RANDOM = "random", "Random"
    FIRST = "first", "Move first"
    SECOND = "second", "Move second"


class ProposalQuerySet(models.QuerySet):
    def close(self, status, now=None, **fields) -> int:
        """Move the rows still matched to `status` in one conditional UPDATE; returns how
        many it changed (0: another request closed them first, or none matched)."""
        return self.update(status=status, closed_at=now or timezone.now(), **fields)


class Proposal(models.Model):
    """What a seek and a challenge share: the game to play, its options, the time control and
    the side of the proposer (the seek's owner, the challenger)."""

    game = models.CharField(max_length=20, help_text="engine name, e.g. hadron")
    options = models.JSONField(default=dict, help_text="normalised engine options")
    tc_kind = models.CharField("time control", max_length=16, default="untimed")
    tc_minutes = models.PositiveSmallIntegerField(null=True, blank=True)
    tc_increment = models.PositiveSmallIntegerField(null=True, blank=True)
    tc_days = models.PositiveSmallIntegerField(null=True, blank=True)
    side = models.CharField(max_length=8, choices=Side.choices, default=Side.RANDOM)
    # Rated games change both players' ratings when they end; rated is the default between
    # people.
    rated = models.BooleanField(default=True)
    created_at = models.DateTimeField(default=timezone.now)
    closed_at = models.DateTimeField(null=True, blank=True)
    started_game = models.ForeignKey(
        "play.Game", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    objects = ProposalQuerySet.as_manager()

    class Meta:
        abstract = True
        ordering = ["created_at", "id"]

    @property
    def proposer(self):
        """Whose offer it is, and so whose `side`: the seek's owner, the challenger."""
        raise NotImplementedError

    @property
    def time_control(self) -> TimeControl:
        return TimeControl(
            kind=self.tc_kind, minutes=self.tc_minutes,
            increment=self.tc_increment, days=self.tc_days,
        )

    @time_control.setter
    def time_control(self, tc: TimeControl) -> None:
        self.tc_kind, self.tc_minutes = tc.kind, tc.minutes
        self.tc_increment, self.tc_days = tc.increment, tc.days

    @property
    def game_title(self) -> str:
        return games.get(self.game).title

    @property
    def options_text(self) -> str:
        return options_text(self.game, self.options)

    @property
    def mode_text(self) -> str:
        return "rated" if self.rated else "casual"

    def side_text(self) -> str:
        name = self.proposer.get_username()
        if self.side == Side.FIRST:
            return f"{name} moves first"
        if self.side == Side.SECOND:
            return f"{name} moves second"
        return "sides drawn at random"

    def players(self, accepter) -> tuple:
        """(first mover, second mover), drawing the sides now when the proposer left it to
        chance, so nobody can see in advance who will start."""
        first = self.side
        if first == Side.RANDOM:
            first = secrets.choice([Side.FIRST, Side.SECOND])
        pair = (self.proposer, accepter)
        return pair if first == Side.FIRST else pair[::-1]


class Seek(Proposal):
    class Status(models.TextChoices):
        OPEN = "open", "Open"
        TAKEN = "taken", "Taken"
        CANCELLED = "cancelled", "Cancelled"
        EXPIRED = "expired", "Expired (owner left)"

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="seeks"
    )
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.OPEN)
    # Who may accept: a rating within this many points of the owner's, for the seek's game
    # (both as they stand when someone accepts); null: anyone.
    rating_range = models.PositiveSmallIntegerField(null=True, blank=True,
                                                    choices=RATING_RANGES)
    accepted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
        related_name="accepted_seeks",
    )

    class Meta(Proposal.Meta):
        indexes = [models.Index(fields=["status", "created_at"])]

    def __str__(self):
        return f"seek {self.pk}: {self.owner} {self.game} {self.options_text} ({self.status})"

    @property
    def proposer(self):
        return self.owner


class Challenge(Proposal):
    class Status(models.TextChoices):
        PENDING = "pending", "Pending"
        ACCEPTED = "accepted", "Accepted"
        DECLINED = "declined", "Declined"
        WITHDRAWN = "withdrawn", "Withdrawn"

    challenger = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="challenges_sent"
    )
    challenged = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="challenges_received"
    )
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)

    class Meta(Proposal.Meta):
        indexes = [
            models.Index(fields=["challenged", "status"]),
            models.Index(fields=["challenger", "status"]),
        ]

    def __str__(self):
        return (f"challenge {self.pk}: {self.challenger} -> {self.challenged} "
                f"{self.game} {self.options_text} ({self.status})")

    @property
    def proposer(self):
        return self.challenger
