"""Who has the game page open, in every server process: each open socket is a Connection row,
so the numbers are counted in the database rather than held by one process."""
from datetime import timedelta

from django.db.models import Count, Q
from django.utils import timezone

from play import broadcast
from play.models import Connection, Game

# A connection row counts while its socket refreshes it (consumers do every HEARTBEAT
# seconds); rows of a server process that died stop counting after STALE_AFTER.
HEARTBEAT = timedelta(seconds=30)
STALE_AFTER = timedelta(seconds=90)


def presence_of(game, now=None):
    """Which players have the page open, and how many others watch."""
    now = now or timezone.now()
    counts = Connection.objects.filter(game=game, seen_at__gte=now - STALE_AFTER).aggregate(
        sockets=Count("pk"),
        first=Count("pk", filter=Q(user_id=game.player0_id)),
        second=Count("pk", filter=Q(user_id=game.player1_id)),
    )
    return {
        "players_online": [counts["first"] > 0, counts["second"] > 0],
        "watchers": counts["sockets"] - counts["first"] - counts["second"],
    }


def arrive(game, channel_name, user):
    """A socket opened on the game page: count it, tell the page, and return the presence."""
    user = user if getattr(user, "is_authenticated", False) else None
    Connection.objects.update_or_create(
        channel_name=channel_name, defaults={"game": game, "user": user, "seen_at": timezone.now()})
    return _tell(game)


def leave(game_id, channel_name):
    Connection.objects.filter(channel_name=channel_name).delete()
    game = Game.objects.filter(pk=game_id).first()
    if game is not None:
        _tell(game)


def still_here(channel_name):
    """Heartbeat of an open socket; also clears rows that no process refreshes any more."""
    now = timezone.now()
    Connection.objects.filter(channel_name=channel_name).update(seen_at=now)
    Connection.objects.filter(seen_at__lt=now - 10 * STALE_AFTER).delete()


def _tell(game):
    # Not a change to any game: sent at once, not after a commit.
    presence = presence_of(game)
    broadcast.send(broadcast.group_name(game.pk),
                   {"type": "game.event", "message": {"type": "presence", **presence}})
    return presence
