"""Who has the game page open, in every server process: each open socket is a Connection row,
so the numbers are counted in the database rather than held by one process.

A row counts while its process says the socket is open: every LIVE_HEARTBEAT seconds each
process refreshes the rows of its open sockets in one UPDATE (live.process), and forgets the
sockets whose consumer died without a disconnect (live.registry). Rows that nobody refreshes
(their process died) stop counting after stale_after(), and the sweeper then deletes them and
tells the games' pages. Presence news is debounced (play.rooms): a crowd arriving or leaving is
announced once, not once per socket, and never on the move path.

Presence also keeps, per player, since when they have had no socket on the game
(Game.absent*_since): a realtime player whose opponent has been gone long enough may claim the
win (play.lapses.claim_after).
"""
from functools import lru_cache

from django.db import connection
from django.db.models import Count, F, Q
from django.utils import timezone

from live.process import stale_after
from live.sql import column, fetch, insert, prepared, table
from play import broadcast, lapses
from play.models import Connection, Game

# Presence rows are refreshed in batches of this many channel names per UPDATE.
BATCH = 500


def counted(now=None):
    """The connection rows that count at `now`."""
    return Connection.objects.filter(seen_at__gte=(now or timezone.now()) - stale_after())


def counts_of(game_ids, now=None):
    """{game id: (sockets, sockets of player0, sockets of player1)} for games with any."""
    rows = (counted(now).filter(game_id__in=game_ids).values("game_id")
            .annotate(sockets=Count("pk"),
                      first=Count("pk", filter=Q(user_id=F("game__player0_id"))),
                      second=Count("pk", filter=Q(user_id=F("game__player1_id")))))
    return {row["game_id"]: (row["sockets"], row["first"], row["second"]) for row in rows}


@lru_cache(maxsize=None)
def _count_sql(vendor):
    user, game, seen_at = (column(Connection, name) for name in ("user", "game", "seen_at"))
    return (f"SELECT COUNT(*), COUNT(CASE WHEN {user} = %s THEN 1 END), "
            f"COUNT(CASE WHEN {user} = %s THEN 1 END) FROM {table(Connection)} "
            f"WHERE {game} = %s AND {seen_at} >= %s")


def count_of(game, now=None):
    """counts_of() of one game, every socket's arrival asks it: written once (live.sql)."""
    since = prepared(Connection._meta.get_field("seen_at"),
                     (now or timezone.now()) - stale_after())
    sockets, first, second = fetch(_count_sql(connection.vendor),
                                   [game.player0_id, game.player1_id, game.pk, since])[0]
    return sockets, first, second


def presence_of(game, now=None, counts=None):
    """Which players have the page open, how many others watch, and from when each player
    may claim the win because the opponent left (null: not claimable)."""
    sockets, first, second = counts or count_of(game, now)
    # A computer player has no page open, and is always there.
    computers = [game.is_computer(0), game.is_computer(1)]
    return {
        "players_online": [first > 0 or computers[0], second > 0 or computers[1]],
        "watchers": sockets - first - second,
        "claimable_at": [claimable_at(game, 1), claimable_at(game, 0)],
    }


def claimable_at(game, gone):
    """When the opponent of player `gone` may claim the win, if `gone` has left a realtime
    game in progress."""
    since = game.absent_since(gone)
    if (since is None or not game.is_active or not game.time_control.is_realtime
            or game.is_computer(gone)
            or not game.both_moved):
        # Before both have moved, a player who does not show up gets the game aborted.
        return None
    return (since + lapses.claim_after()).isoformat()


def arrive(game, channel_name, user):
    """Count a socket that opened on the game page (its news is sent by play.rooms)."""
    user = user if getattr(user, "is_authenticated", False) else None
    # A channel name is new with each socket: a plain INSERT (update_or_create's SELECT and two
    # savepoints were a third of a handshake's statements), written once (live.sql).
    now = timezone.now()
    insert(Connection, game=game.pk, channel_name=channel_name, user=user.pk if user else None,
           created_at=now, seen_at=now)
    seat = game.player_index(user)
    if seat is not None and game.absent_since(seat) is not None:
        # Back on the page: a claim against them is off.
        setattr(game, f"absent{seat}_since", None)
        Game.objects.filter(pk=game.pk).update(**{f"absent{seat}_since": None})


def leave(channel_names):
    """Forget sockets that closed; returns the ids of their games."""
    if len(channel_names) == 1:
        return {game_id for game_id, in fetch(_leave_sql(connection.vendor), channel_names)}
    found = Connection.objects.filter(channel_name__in=channel_names)
    game_ids = set(found.values_list("game_id", flat=True))
    found.delete()
    return game_ids


@lru_cache(maxsize=None)
def _leave_sql(vendor):
    """One socket's leaving, every socket pays it: one statement (PostgreSQL and SQLite
    3.35+ both have RETURNING)."""
    return (f"DELETE FROM {table(Connection)} WHERE {column(Connection, 'channel_name')} = %s "
            f"RETURNING {column(Connection, 'game')}")


def still_here(channel_names, now=None):
    """The heartbeat of this process's open sockets."""
    now = now or timezone.now()
    for start in range(0, len(channel_names), BATCH):
        Connection.objects.filter(channel_name__in=channel_names[start:start + BATCH]).update(
            seen_at=now)


def forget_stale(now):
    """Sweeper: drop the rows no process refreshes any more (their process died) and tell
    their games' pages."""
    stale = Connection.objects.filter(seen_at__lt=now - stale_after())
    game_ids = set(stale.values_list("game_id", flat=True))
    if game_ids:
        stale.delete()
        announce(game_ids, now)


def announce(game_ids, now=None):
    """Tell the pages of these games who is there now, and note the players who left or
    came back (Game.absent*_since)."""
    now = now or timezone.now()
    counts = counts_of(game_ids, now)
    for game in Game.objects.with_players().filter(pk__in=game_ids):
        sockets, *online = counts.get(game.pk, (0, 0, 0))
        changed = {}
        for seat in (0, 1):
            field = f"absent{seat}_since"
            if online[seat] and game.absent_since(seat) is not None:
                changed[field] = None
            elif not online[seat] and game.absent_since(seat) is None:
                changed[field] = now
        if changed and game.is_active:
            Game.objects.filter(pk=game.pk).update(**changed)
            for field, value in changed.items():
                setattr(game, field, value)
        broadcast.now_to_game(game.pk, {"type": "presence",
                                        **presence_of(game, now, (sockets, *online))})
