"""The server processes of the site, so that every process knows which others are alive and
the site knows when none was (time that is not charged to anyone's clock)."""
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
    """A stretch of time during which no server process was alive. Clocks that were running
    when it began were moved on by its length when the site came back."""

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
