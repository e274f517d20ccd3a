"""Who has the game page open, in every server process: each open socket is a row of the
presence ledger (live.presence, kind "game"), so the numbers are counted in the database
rather than held by one process.

A row counts while its process says the socket is open: every LIVE_HEARTBEAT seconds each
process refreshes the rows of its open sockets (live.process, live.presence.still_here), and
forgets the sockets whose consumer died without a disconnect (live.registry). Rows that nobody
refreshes (their process died) stop counting after stale_after(), and the ledger's sweep then
deletes them and tells the games' pages (announce). Presence news is debounced (play.rooms): a
crowd arriving or leaving is announced once, not once per socket, and never on the move path.

Presence also keeps, per player, since when they have had no socket on the game
(Game.absent*_since): a realtime player whose opponent has been gone long enough may claim the
win (play.lapses.claim_after).
"""
from functools import lru_cache

from django.db import connection
from django.db.models import Count
from django.utils import timezone

from live import presence as ledger
from live.models import Presence
from live.presence import stale_after
from live.sql import column, fetch, prepared, table, update
from play import broadcast, lapses, statements
from play.models import Game

KIND = Presence.GAME


def counted(now=None):
    """The game sockets' rows that count at `now` (a game socket's row goes when it closes:
    no grace)."""
    return Presence.objects.filter(kind=KIND,
                                   seen_at__gte=(now or timezone.now()) - stale_after())


def counts_of(game_ids, now=None):
    """{game id: (sockets, sockets of player0, sockets of player1)} for games with any."""
    players = {pk: seats for pk, *seats in Game.objects.filter(pk__in=game_ids)
               .values_list("pk", "player0_id", "player1_id")}
    counts = {}
    for row in (counted(now).filter(game_id__in=list(players)).values("game_id", "user_id")
                .annotate(sockets=Count("pk"))):
        sockets, first, second = counts.get(row["game_id"], (0, 0, 0))
        user, seats = row["user_id"], players[row["game_id"]]
        counts[row["game_id"]] = (sockets + row["sockets"],
                                  first + (row["sockets"] if user == seats[0] else 0),
                                  second + (row["sockets"] if user == seats[1] else 0))
    return counts


@lru_cache(maxsize=None)
def _count_sql(vendor):
    user, game, seen_at = (column(Presence, name) for name in ("user", "game_id", "seen_at"))
    return (f"SELECT COUNT(*), COUNT(CASE WHEN {user} = %s THEN 1 END), "
            f"COUNT(CASE WHEN {user} = %s THEN 1 END) FROM {table(Presence)} "
            f"WHERE {game} = %s AND {seen_at} >= %s")


@lru_cache(maxsize=64)
def _counts_sql(vendor, count):
    user, game, seen_at, kind = (column(Presence, name)
                                 for name in ("user", "game_id", "seen_at", "kind"))
    return (f"SELECT {game}, {user}, COUNT(*) FROM {table(Presence)} WHERE {kind} = %s "
            f"AND {seen_at} >= %s AND {game} IN ({', '.join(['%s'] * count)}) "
            f"GROUP BY {game}, {user}")


def counts_of_games(games, now=None):
    """counts_of() of games already read, in one statement written once (live.sql)."""
    if not games:
        return {}
    since = prepared(Presence._meta.get_field("seen_at"),
                     (now or timezone.now()) - stale_after())
    seats = {game.pk: (game.player0_id, game.player1_id) for game in games}
    counts = {}
    for game_id, user, sockets in fetch(_counts_sql(connection.vendor, len(seats)),
                                        [KIND, since, *seats]):
        total, first, second = counts.get(game_id, (0, 0, 0))
        players = seats[game_id]
        counts[game_id] = (total + sockets, first + (sockets if user == players[0] else 0),
                           second + (sockets if user == players[1] else 0))
    return counts


def count_of(game, now=None):
    """counts_of() of one game, every socket's arrival asks it: written once (live.sql)."""
    since = prepared(Presence._meta.get_field("seen_at"),
                     (now or timezone.now()) - stale_after())
    sockets, first, second = fetch(_count_sql(connection.vendor),
                                   [game.player0_id, game.player1_id, game.pk, since])[0]
    return sockets, first, second


# Seats read per statement by players_staying() (SQLite takes at most 999 parameters in old
# builds: a game's id and a player's each).
STAYING_GAMES = 300


def players_staying(seats, closing, now=None):
    """Of `seats` ((game, player index) each), those whose player has a socket on that game
    that counts at `now` and is not one of `closing` (channel names), as (game id, player
    index): a page that stays open while the others close (a second tab on another process)."""
    seats = list(seats)
    wanted = {(game.pk, (game.player0_id, game.player1_id)[seat]): (game.pk, seat)
              for game, seat in seats}
    staying = set()
    for start in range(0, len(seats), STAYING_GAMES):
        chunk = seats[start:start + STAYING_GAMES]
        rows = counted(now).filter(game_id__in={game.pk for game, _ in chunk},
                                   user__in={(game.player0_id, game.player1_id)[seat]
                                             for game, seat in chunk})
        for game_id, user_id, channel_name in rows.values_list("game_id", "user_id",
                                                               "channel_name"):
            seat = wanted.get((game_id, user_id))
            if seat is not None and channel_name not in closing:
                staying.add(seat)
    return staying


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
    arrive_all([(game, channel_name, user)])


def arrive_all(arrivals):
    """Count sockets that opened on game pages, (game, channel name, user) each, in the
    caller's order: their presence rows in one statement, then each player who is back."""
    rows = []
    for game, channel_name, user in arrivals:
        user = user if getattr(user, "is_authenticated", False) else None
        rows.append((channel_name, user.pk if user else None, game.pk))
    ledger.arrive_all(KIND, rows)
    for game, _, user in arrivals:
        seat = game.player_index(user)
        if seat is not None and game.absent_since(seat) is not None:
            # Back on the page: a claim against them is off.
            setattr(game, f"absent{seat}_since", None)
            # Written once (live.sql): every player's arrival on a page they had left pays it.
            update(Game, game.pk, **{f"absent{seat}_since": None})


def announce(game_ids, now=None):
    """Tell the pages of these games who is there now, and note the players who left or
    came back (Game.absent*_since)."""
    now = now or timezone.now()
    counts = counts_of(game_ids, now)
    for game in Game.objects.with_players().filter(pk__in=game_ids):
        sockets, *online = counts.get(game.pk, (0, 0, 0))
        changed = absences_changed(game, online, now)
        if changed:
            Game.objects.filter(pk=game.pk).update(**changed)
            for field, value in changed.items():
                setattr(game, field, value)
        broadcast.now_to_game(game.pk, {"type": "presence",
                                        **presence_of(game, now, (sockets, *online))})


def absences_changed(game, online, now):
    """What to write of the game's Game.absent*_since, with `online` (sockets of each
    player) counted now: a player who came back or left; nothing once the game is over."""
    changed = {}
    if not game.is_active:
        return changed
    for seat in (0, 1):
        field = f"absent{seat}_since"
        if online[seat] and game.absent_since(seat) is not None:
            changed[field] = None
        elif not online[seat] and game.absent_since(seat) is None:
            changed[field] = now
    return changed


# Games counted per statement (SQLite takes at most 999 parameters in old builds).
ANNOUNCED_GAMES = 400


def announce_read(game_ids, now=None):
    """(reader) announce() of the games where nothing is to be written: their news queued;
    returns the others, for announce() on a writer (which counts them again). A game's
    sockets mostly come and go with nothing to note: a finished game's page, a watcher, a
    second tab; an arena's game that ends by a resignation over a socket opened for it
    (the player back, then gone, on a game that is over) held the writer every time."""
    now = now or timezone.now()
    # Statements written once (play.statements, live.sql): an arena's turnover asks this
    # every half second, and the querysets' compiling held the interpreter lock against the
    # moves' writer and the event loop for 4-5 ms each time.
    to_write = []
    found = statements.games(game_ids)
    counts = {}
    for start in range(0, len(found), ANNOUNCED_GAMES):
        counts.update(counts_of_games(found[start:start + ANNOUNCED_GAMES], now))
    for game in found:
        sockets, *online = counts.get(game.pk, (0, 0, 0))
        if absences_changed(game, online, now):
            to_write.append(game.pk)
            continue
        broadcast.now_to_game(game.pk, {"type": "presence",
                                        **presence_of(game, now, (sockets, *online))})
    return to_write
