"""Real-time seeks need their owner in the lobby: each open lobby socket of a logged-in player
is a LobbyConnection row, shared by every server process, and an owner's real-time seeks
close once none is left (after a short grace, so a page reload is not a departure)."""
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from live import process
from lobby.models import LobbyConnection, Seek
from lobby.services import LOBBY_GROUP, announce


def grace() -> timedelta:
    """How long an owner may be without a lobby socket (a page reload) before their
    real-time seeks close."""
    return timedelta(seconds=getattr(settings, "LOBBY_PRESENCE_GRACE", 5))


def stale_after() -> timedelta:
    """After this long without a heartbeat of its process a connection counts as gone (its
    server process may have died without saying so)."""
    seconds = getattr(settings, "LOBBY_PRESENCE_STALE", None)
    return timedelta(seconds=seconds) if seconds is not None else process.stale_after()


def connection_opened(user, channel_name: str) -> None:
    # Channel names are unique per socket: a reconnect is a new row, so a plain INSERT.
    LobbyConnection.objects.create(user=user, channel_name=channel_name)


def connections_seen(channel_names: list[str]) -> None:
    """The heartbeat of a server process's open lobby sockets (live.process)."""
    LobbyConnection.objects.filter(channel_name__in=channel_names, closed_at__isnull=True).update(
        last_seen=timezone.now()
    )


def connections_closed(channel_names: list[str]) -> None:
    # Kept for the grace period, so that a reload does not look like leaving.
    LobbyConnection.objects.filter(channel_name__in=channel_names).update(closed_at=timezone.now())


def sweep(now) -> None:
    """The lobby's periodic work (live.process): seeks whose owner left, in any process."""
    close_abandoned_seeks()


def present_user_ids(now):
    return LobbyConnection.objects.filter(
        Q(closed_at__isnull=True, last_seen__gte=now - stale_after())
        | Q(closed_at__gte=now - grace())
    ).values("user_id")


def close_abandoned_seeks() -> list[int]:
    """Close the open real-time seeks whose owner has no lobby socket (and forget dead
    connections). Safe to run from any process at any time; returns the closed seeks' ids."""
    now = timezone.now()
    LobbyConnection.objects.filter(
        Q(closed_at__lt=now - grace())
        | Q(closed_at__isnull=True, last_seen__lt=now - stale_after())
    ).delete()
    abandoned = Seek.objects.filter(
        status=Seek.Status.OPEN, tc_kind="realtime", created_at__lt=now - grace()
    ).exclude(owner__in=present_user_ids(now))
    closed = []
    for seek_id in abandoned.values_list("id", flat=True):
        with transaction.atomic():
            # Checked again in the UPDATE itself: the owner may have come back meanwhile.
            if (Seek.objects.filter(pk=seek_id, status=Seek.Status.OPEN)
                    .exclude(owner__in=present_user_ids(now))
                    .close(Seek.Status.EXPIRED, now)):
                announce(LOBBY_GROUP, {"type": "seek_removed", "id": seek_id,
                                       "reason": "expired"})
                closed.append(seek_id)
    return closed
