"""Tournaments: an event, its entries (players), its pairings (each a game of play's) and byes.

An entry's `points` are the standings' first key, changed in the transaction that ends one of
its games (tournaments.results, through play's one ending path), so a game counts exactly
once; the tie-breaks are worked out from the pairings when the standings are read.
"""
from datetime import timedelta

from django.conf import settings
from django.db import models
from django.urls import reverse

import games
from play.clock import TimeControl


class Tournament(models.Model):
    ARENA, SWISS, ROUND_ROBIN = "arena", "swiss", "roundrobin"
    KINDS = [(ARENA, "Arena"), (SWISS, "Swiss"), (ROUND_ROBIN, "Round robin")]
    UPCOMING, RUNNING, FINISHED, CANCELLED = "upcoming", "running", "finished", "cancelled"
    STATUSES = [(UPCOMING, "upcoming"), (RUNNING, "running"), (FINISHED, "finished"),
                (CANCELLED, "cancelled")]

    name = models.CharField(max_length=80)
    kind = models.CharField(max_length=12, choices=KINDS)
    game = models.CharField(max_length=20, choices=[(n, n) for n in games.names()])
    options = models.JSONField(default=dict)
    time_kind = models.CharField(max_length=16, default="realtime")
    minutes = models.PositiveSmallIntegerField(null=True, blank=True)
    increment = models.PositiveSmallIntegerField(null=True, blank=True)
    days = models.PositiveSmallIntegerField(null=True, blank=True)
    rated = models.BooleanField(default=True)
    starts_at = models.DateTimeField()
    # Arena: no game starts after this; games in play still count if they end by ends_at +
    # tournaments.services.GRACE.
    ends_at = models.DateTimeField(null=True, blank=True)
    rounds = models.PositiveSmallIntegerField(null=True, blank=True)  # Swiss
    # Correspondence Swiss: a new round starts this many days after the last one started,
    # even while games of it are in play (the correspondence habit); None: when the last
    # game of the round before ends.
    round_days = models.PositiveSmallIntegerField(null=True, blank=True)
    round_started_at = models.DateTimeField(null=True, blank=True)
    double = models.BooleanField(default=False)  # round robin: both sides
    max_players = models.PositiveIntegerField(default=1000)
    official = models.BooleanField(default=False)
    # None: made by the schedule (tournaments.schedule), whose slot is `schedule_key`.
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT,
                                   related_name="tournaments_created", null=True, blank=True)
    schedule_key = models.CharField(max_length=120, blank=True, default="")
    status = models.CharField(max_length=10, choices=STATUSES, default=UPCOMING)
    # Why a cancelled event was cancelled, in words for its page and the notice to its players.
    cancelled_because = models.CharField(max_length=200, blank=True, default="")
    round = models.PositiveSmallIntegerField(default=0)  # Swiss: the round in play
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["status", "starts_at"])]
        constraints = [models.UniqueConstraint(
            fields=["schedule_key"], condition=~models.Q(schedule_key=""),
            name="one_event_per_schedule_slot")]

    def __str__(self):
        return self.name

    def next_round_due(self, now):
        """Whether a correspondence Swiss's interval has passed since its round started."""
        return (self.round_days is not None and self.round_started_at is not None
                and now >= self.round_started_at + timedelta(days=self.round_days))

    def get_absolute_url(self):
        return reverse("tournaments:event", args=[self.pk])

    @property
    def time_control(self):
        return TimeControl(kind=self.time_kind, minutes=self.minutes, increment=self.increment,
                           days=self.days)


class Entry(models.Model):
    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="entries")
    player = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT,
                               related_name="tournament_entries")
    points = models.FloatField(default=0)
    # Arena: paused players get no new game until they come back.
    paused = models.BooleanField(default=False)
    # No further pairing; games in play go on and count.
    withdrawn = models.BooleanField(default=False)
    # The final place in the standings, set when the event finishes (profiles list it).
    place = models.PositiveIntegerField(null=True, blank=True)
    joined_at = models.DateTimeField(auto_now_add=True)
    # Arena: the opponent of its last pairing and its games as first less its games as second,
    # changed with each pairing (services._start), so a wave reads the entries and the games
    # in play instead of every pairing the event has had.
    last_opponent = models.ForeignKey("self", on_delete=models.SET_NULL, null=True, blank=True,
                                      related_name="+")
    side_balance = models.IntegerField(default=0)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["tournament", "player"],
                                               name="one_entry_per_player")]


class Pairing(models.Model):
    """One tournament game: `first` is the game's player0. `result` is first's score (1, 0.5,
    0), set once when the game ends; `void`: it ended without a result (aborted) and counts
    for nobody."""
    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="pairings")
    round = models.PositiveSmallIntegerField(default=0)
    game = models.OneToOneField("play.Game", on_delete=models.CASCADE, related_name="pairing")
    first = models.ForeignKey(Entry, on_delete=models.CASCADE, related_name="+")
    second = models.ForeignKey(Entry, on_delete=models.CASCADE, related_name="+")
    result = models.FloatField(null=True, blank=True)
    void = models.BooleanField(default=False)
    # Arena: who went berserk (halved their own clock, play.berserk) and, once the game is
    # over, how many actions each made (a berserk win counts its extra point after
    # formats.arena.BERSERK_MIN_ACTIONS of one's own).
    first_berserk = models.BooleanField(default=False)
    second_berserk = models.BooleanField(default=False)
    first_actions = models.PositiveIntegerField(default=0)
    second_actions = models.PositiveIntegerField(default=0)
    ended_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        indexes = [models.Index(fields=["tournament", "ended_at"])]

    @property
    def in_play(self):
        return self.ended_at is None

    def berserk_of(self, side):
        """Whether the game's player `side` (0: first) went berserk."""
        return (self.first_berserk, self.second_berserk)[side]


class Bye(models.Model):
    """A Swiss round's odd player out: one point, at most once per player. `played`: with
    TOURNAMENT_COMPUTERS the player meets a computer instead (an ordinary pairing whose result
    counts, no free point); still their one bye."""
    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="byes")
    round = models.PositiveSmallIntegerField()
    entry = models.ForeignKey(Entry, on_delete=models.CASCADE, related_name="byes")
    played = models.BooleanField(default=False)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["tournament", "entry"],
                                               name="one_bye_per_player")]
