"""The server processes of the site, so that every process knows which others are alive and
the site knows when none was (time that is not charged to anyone's clock), and who is there:
the one presence ledger of every socket kind that counts presence (live.presence)."""
from django.conf import settings
from django.db import models


class ServerProcess(models.Model):
    """One Daphne process, from its start. `seen_at` is refreshed every LIVE_HEARTBEAT seconds
    while it runs; `stopped_at` is set when it stops cleanly. A process whose `seen_at` is
    older than live.process.stale_after() without a stop is taken for dead."""

    name = models.CharField(max_length=100, unique=True)  # host:pid:random
    started_at = models.DateTimeField()
    seen_at = models.DateTimeField(db_index=True)
    stopped_at = models.DateTimeField(null=True, blank=True)

    def __str__(self):
        return self.name

    @property
    def last_alive(self):
        return self.stopped_at or self.seen_at


class Outage(models.Model):
    """A stretch of time during which no server process was alive, or the database was out of
    the processes' reach (live.outages). Clocks that were running when it began were moved on
    by its length when the site (or the database) came back."""

    began_at = models.DateTimeField()
    ended_at = models.DateTimeField()
    games_shifted = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["-ended_at"]

    def __str__(self):
        return f"outage {self.began_at:%Y-%m-%d %H:%M:%S} – {self.ended_at:%H:%M:%S}"

    @property
    def length(self):
        return self.ended_at - self.began_at


class Presence(models.Model):
    """One open websocket of a kind that counts presence (a game page, the lobby), in any
    server process, so every process counts the same rows. `seen_at` is refreshed by its
    process's heartbeat (live.process) while the socket lives, so the rows of a process that
    died stop counting and the sweep deletes them. A closed socket's row goes at once, or
    counts on until `counts_until` (the lobby's grace: a page reload is not a departure)."""

    GAME, LOBBY = "game", "lobby"
    KINDS = [(GAME, "game page"), (LOBBY, "lobby")]

    kind = models.CharField(max_length=8, choices=KINDS)
    channel_name = models.CharField(max_length=255, unique=True)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True,
                             on_delete=models.CASCADE, related_name="+")
    # A game page's game (play.Game's id): no foreign key, live stands below every app.
    game_id = models.BigIntegerField(null=True, blank=True)
    opened_at = models.DateTimeField()
    seen_at = models.DateTimeField(db_index=True)
    counts_until = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["game_id", "seen_at"], name="live_presence_game_seen"),
                   models.Index(fields=["kind", "user"], name="live_presence_kind_user")]

    def __str__(self):
        return f"{self.kind} {self.channel_name}"
