"""Real-time seeks need their owner in the lobby: each open lobby socket of a logged-in player
is a row of the presence ledger (live.presence, kind "lobby"), shared by every server
process, and an owner's real-time seeks close once none is left (after LOBBY_PRESENCE_GRACE,
so a page reload is not a departure)."""
from datetime import timedelta
from functools import lru_cache

from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone

from live import groups, presence
from live.models import Presence
from live.sql import EPOCH, prepared, read, written
from lobby.models import Seek
from lobby.services import announce

KIND = Presence.LOBBY


def grace() -> timedelta:
    """How long an owner may be without a lobby socket (a page reload) before their
    real-time seeks close."""
    return timedelta(seconds=settings.LOBBY_PRESENCE_GRACE)


def arrive(user, channel_name: str) -> None:
    presence.arrive(KIND, channel_name, user.pk)


def leave(channel_names: list[str]) -> None:
    # Counted on for the grace, so that a reload does not look like leaving.
    presence.leave(channel_names, grace=grace())


def present_user_ids(now):
    return presence.counted(KIND, now).values("user_id")


def _abandoned(now):
    return Seek.objects.filter(
        status=Seek.Status.OPEN, tc_kind="realtime", created_at__lt=now - grace()
    ).exclude(owner__in=present_user_ids(now))


def any_abandoned_seek(now) -> bool:
    """(reader) Whether close_abandoned_seeks(now) has a seek to close: the writer is taken
    only then. What _abandoned(now).exists() asks, its statement written once (live.sql):
    every process asks it every LIVE_SWEEP seconds, and the ORM's compiling of it cost more
    than the query."""
    return bool(read(_abandoned_statement(connection.vendor), _abandoned_params(now)))


def _abandoned_params(now):
    return [prepared(Seek._meta.get_field("created_at"), now - grace()),
            prepared(Seek._meta.get_field("status"), Seek.Status.OPEN),
            prepared(Seek._meta.get_field("tc_kind"), "realtime"),
            *presence.counted_params(KIND, now)]


@lru_cache(maxsize=None)
def _abandoned_statement(vendor):
    return written(_abandoned(EPOCH).values_list("pk")[:1], _abandoned_params(EPOCH))


def close_abandoned_seeks(now=None) -> list[int]:
    """Close the open real-time seeks whose owner has no lobby socket. Safe to run from any
    process at any time; returns the closed seeks' ids."""
    now = now or timezone.now()
    abandoned = _abandoned(now)
    closed = []
    for seek_id in abandoned.values_list("id", flat=True):
        with transaction.atomic():
            # Checked again in the UPDATE itself: the owner may have come back meanwhile.
            if (Seek.objects.filter(pk=seek_id, status=Seek.Status.OPEN)
                    .exclude(owner__in=present_user_ids(now))
                    .close(Seek.Status.EXPIRED, now)):
                announce(groups.LOBBY, {"type": "seek_removed", "id": seek_id,
                                       "reason": "expired"})
                closed.append(seek_id)
    return closed
