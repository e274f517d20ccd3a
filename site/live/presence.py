"""Who is there: the one presence ledger (live.models.Presence) of every socket kind that
counts presence, a game page's and the lobby's, in one vocabulary: a socket `arrive`s, is
`still_here` at each heartbeat of its process (live.process), and `leave`s, at once or after
a grace during which it still counts (the lobby's LOBBY_PRESENCE_GRACE: a page reload is not
a departure). A row counts while its process refreshes it; rows nobody refreshes any more
(their process died) stop counting after stale_after(), and the one sweep deletes them and
tells the kind's hook (play.presence: the games' pages hear who is left).

What a row means is the app's: play.presence counts a game's players and watchers,
lobby.presence the owners of real-time seeks.
"""
from datetime import timedelta
from functools import lru_cache

from django.db import connection
from django.db.models import Q
from django.utils import timezone

from live import process
from live.models import Presence
from live.sql import EPOCH, column, fetch, insert_rows, prepared, read, table, written

# Presence rows are refreshed in batches of this many channel names per UPDATE.
BATCH = 500

_when_gone = {}


def stale_after() -> timedelta:
    """After this long without a heartbeat of its process a row counts as gone."""
    return process.stale_after()


def when_gone(kind: str, hook) -> None:
    """Have the sweep call `hook(game_ids, now)` with the games of the `kind` rows it
    deleted."""
    _when_gone[kind] = hook


def arrive(kind: str, channel_name: str, user_id, game_id=None, now=None) -> None:
    arrive_all(kind, [(channel_name, user_id, game_id)], now)


ARRIVING = ("kind", "channel_name", "user", "game_id", "opened_at", "seen_at")


def arrive_all(kind: str, sockets, now=None) -> None:
    """Count sockets that opened, (channel name, user id, game id) each. A channel name is new
    with each socket: plain INSERTs (update_or_create's SELECT and two savepoints were a third
    of a handshake's statements), written once (live.sql); a restart's crowd is counted in a
    few writer jobs, and each job's rows go in one statement."""
    now = now or timezone.now()
    insert_rows(Presence, ARRIVING, [(kind, channel_name, user_id, game_id, now, now)
                                     for channel_name, user_id, game_id in sockets])


def still_here(channel_names, now=None) -> None:
    """The heartbeat of a process's open sockets, of every kind."""
    now = now or timezone.now()
    if connection.vendor == "postgresql":
        # One statement for them all, the names as one array parameter: the statement's
        # text is the same whatever their number (a server-side prepared one after a few
        # runs), where IN (%s, ...) made one of its own per count, in batches.
        with connection.cursor() as cursor:
            cursor.execute(_still_here_sql(connection.vendor), [now, list(channel_names)])
        return
    for start in range(0, len(channel_names), BATCH):
        Presence.objects.filter(channel_name__in=channel_names[start:start + BATCH],
                                counts_until__isnull=True).update(seen_at=now)


def leave(channel_names, grace: timedelta | None = None) -> set:
    """Sockets that closed: their rows go (returns the ids of their games), or with a `grace`
    count on until it has passed (the sweep deletes them then)."""
    if grace:
        Presence.objects.filter(channel_name__in=channel_names).update(
            counts_until=timezone.now() + grace)
        return set()
    if len(channel_names) == 1:
        return {game_id for game_id, in fetch(_leave_sql(connection.vendor), channel_names)
                if game_id is not None}
    found = Presence.objects.filter(channel_name__in=channel_names)
    game_ids = set(found.exclude(game_id=None).values_list("game_id", flat=True))
    found.delete()
    return game_ids


@lru_cache(maxsize=None)
def _still_here_sql(vendor):
    return (f"UPDATE {table(Presence)} SET {column(Presence, 'seen_at')} = %s "
            f"WHERE {column(Presence, 'channel_name')} = ANY(%s) "
            f"AND {column(Presence, 'counts_until')} IS NULL")


@lru_cache(maxsize=None)
def _leave_sql(vendor):
    """One socket's leaving, every game socket pays it: one statement (PostgreSQL and SQLite
    3.35+ both have RETURNING)."""
    return (f"DELETE FROM {table(Presence)} WHERE {column(Presence, 'channel_name')} = %s "
            f"RETURNING {column(Presence, 'game_id')}")


def counted(kind: str, now=None):
    """The rows of `kind` that count at `now`."""
    now = now or timezone.now()
    return Presence.objects.filter(
        Q(counts_until__isnull=True, seen_at__gte=now - stale_after())
        | Q(counts_until__gte=now), kind=kind)


def _gone(now):
    """The rows no process refreshes any more and those whose grace has passed."""
    return Presence.objects.filter(
        Q(counts_until__isnull=True, seen_at__lt=now - stale_after()) | Q(counts_until__lt=now))


def anything_gone(now) -> bool:
    """(reader) Whether sweep(now) has rows to delete: the writer is taken only then. What
    _gone(now).exists() asks, its statement written once (live.sql): every process asks it
    every LIVE_SWEEP seconds, and the ORM's compiling of it cost more than the query."""
    return bool(read(_gone_statement(connection.vendor), _gone_params(now)))


def _gone_params(now):
    return [prepared(Presence._meta.get_field("seen_at"), now - stale_after()),
            prepared(Presence._meta.get_field("counts_until"), now)]


@lru_cache(maxsize=None)
def _gone_statement(vendor):
    return written(_gone(EPOCH).values_list("pk")[:1], _gone_params(EPOCH))


def counted_params(kind, now):
    """The parameters of counted(kind, now)'s conditions, in the statement's order: for a
    statement written once around it (lobby.presence.any_abandoned_seek)."""
    return [prepared(Presence._meta.get_field("seen_at"), now - stale_after()),
            prepared(Presence._meta.get_field("counts_until"), now), kind]


def sweep(now) -> None:
    """Every LIVE_SWEEP seconds, in every process (safe when several run it at once): delete
    the rows no process refreshes any more and those whose grace has passed, and tell each
    kind's hook which games they were on."""
    gone = _gone(now)
    games_by_kind = {}
    for kind, game_id in gone.values_list("kind", "game_id"):
        games_by_kind.setdefault(kind, set()).add(game_id)
    if not games_by_kind:
        return
    gone.delete()
    for kind, game_ids in games_by_kind.items():
        if kind in _when_gone:
            _when_gone[kind](game_ids - {None}, now)
