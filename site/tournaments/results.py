"""A tournament game's end, heard inside the transaction that ends it (play.signals.game_ending,
sent by play.endings.end_game with the game row locked): the pairing gets its result and the
two entries their points, once, committed with the end itself.

What a game is worth: a played-out game, a resignation, a loss on time or a claimed win count as
they ended (a Colorful draw is half a point each); a first move not made is a loss for the
player who did not make it (a forfeit; in an arena it also pauses that player, who is
probably gone, until they come back); an abort, or an untimed game left alone, is void and
counts for nobody. An arena game that ends later than GRACE after the arena's end is void.

An entry's points are always what `recount` makes of its counted games (and byes), but an end
adds only its own game's points to the two entries (`points_gained`: in an arena, with the
streak read from each entry's last STREAK_AFTER games), in statements written once: the end
runs on the server's writer, where recounting both players' games through the ORM was a
quarter of the writer's time in a 500-player arena's turnover (py-spy). An end that finds a
counted game of either entry ending after its own recounts them instead.
"""
from collections import Counter
from datetime import timedelta
from functools import lru_cache
from typing import NamedTuple

from django.db import connection
from django.db.models import Q
from django.urls import reverse

from live.sql import column, converted, converters, fetch, quote, table, update
from play.models import Action
from play.services import PlayError
from tournaments import news
from tournaments.formats.arena import STREAK_AFTER, ArenaGame
from tournaments.formats.arena import game_points as arena_game_points
from tournaments.formats.arena import points as arena_points
from tournaments.models import Bye, Entry, Pairing, Tournament

GRACE = timedelta(minutes=5)


def game_ended(sender, game, now, **kwargs):
    pairing = ending_pairing(game)
    if pairing is None:
        return
    # The two entries' rows, locked in one order: a round robin's games of one player may end
    # at once in two processes, and each count must see the other's result. (SQLite has no
    # row locks: its one writer already orders the ends, and the SELECT would only cost.)
    if connection.features.has_select_for_update:
        fetch(_lock_entries_sql(connection.vendor), sorted((pairing.first, pairing.second)))
    score = first_score(game)
    late = pairing.kind == Tournament.ARENA and now > pairing.ends_at + GRACE
    if score is None or late:
        store_end(pairing, now, True, None)  # void: counts for nobody, the points stand
    else:
        gained = points_gained(pairing, score, now)  # read before this game is stored
        store_end(pairing, now, False, score)
        if gained is None:
            recount(Tournament.objects.get(pk=pairing.tournament), pairing.first,
                    pairing.second)
        else:
            add_points(zip((pairing.first, pairing.second), gained))
    if pairing.kind == Tournament.ARENA and game.reason == "no_start":
        # Gone (lichess does the same): no more games until they come back and un-pause.
        absent = pairing.first if game.player_to_move() == 0 else pairing.second
        Entry.objects.filter(pk=absent).update(paused=True)
    news.changed(pairing.tournament)


class Ending(NamedTuple):
    """What a game's end needs of its pairing and event (ending_pairing)."""
    pk: int
    tournament: int
    kind: str
    ends_at: object
    first: int
    second: int
    first_berserk: bool
    second_berserk: bool
    first_actions: int  # how many actions each player made (play's Action.player)
    second_actions: int


# The pairing's and the event's columns ending_pairing reads, as Ending names them.
_ENDING = (("id", Pairing), ("tournament", Pairing), ("kind", Tournament),
           ("ends_at", Tournament), ("first", Pairing), ("second", Pairing),
           ("first_berserk", Pairing), ("second_berserk", Pairing))


@lru_cache(maxsize=None)
def _ending_sql(vendor):
    """The game's pairing still in play, its event's kind and end, and each player's count of
    actions, in one statement written once: a game's end runs on the server's writer (on
    SQLite the one every move waits for), and the ORM's compiling of the three queries this
    was cost more than the database's work (py-spy, a 500-player arena's turnover)."""
    fields = [model._meta.get_field(name) for name, model in _ENDING]
    alias = {Pairing: "p", Tournament: "t"}
    columns = [f"{alias[model]}.{quote(field.column)}"
               for field, (_, model) in zip(fields, _ENDING)]
    counted = ("(SELECT COUNT(*) FROM {} a WHERE a.{} = p.{} AND a.{} = {})".format(
        table(Action), column(Action, "game"), column(Pairing, "game"),
        column(Action, "player"), player) for player in (0, 1))
    sql = ("SELECT {} FROM {} p INNER JOIN {} t ON t.{} = p.{} "
           "WHERE p.{} = %s AND p.{} IS NULL").format(
        ", ".join([*columns, *counted]), table(Pairing), table(Tournament),
        quote(Tournament._meta.pk.column), column(Pairing, "tournament"),
        column(Pairing, "game"), column(Pairing, "ended_at"))
    return sql, tuple(fields)


def ending_pairing(game):
    """The game's pairing if it is a tournament game not yet counted (an Ending), else None."""
    sql, fields = _ending_sql(connection.vendor)
    rows = fetch(sql, [game.pk])
    if not rows:
        return None
    row = rows[0]
    return Ending(*converted(row[:len(fields)], converters(fields)), *row[len(fields):])


@lru_cache(maxsize=None)
def _lock_entries_sql(vendor):
    pk = quote(Entry._meta.pk.column)
    return f"SELECT {pk} FROM {table(Entry)} WHERE {pk} IN (%s, %s) ORDER BY {pk} FOR UPDATE"


def store_end(pairing, now, void, result):
    """The pairing's end: when, void or not, first's score, each player's actions."""
    update(Pairing, pairing.pk, ended_at=now, void=void, result=result,
           first_actions=pairing.first_actions, second_actions=pairing.second_actions)


@lru_cache(maxsize=None)
def _add_points_sql(vendor):
    points = column(Entry, "points")
    return "UPDATE {} SET {} = {} + %s WHERE {} = %s".format(
        table(Entry), points, points, quote(Entry._meta.pk.column))


def add_points(gains):
    """Add each (entry id, points) to the entry's points (nothing to write for none)."""
    sql = _add_points_sql(connection.vendor)
    with connection.cursor() as cursor:
        for entry_id, points in gains:
            if points:
                cursor.execute(sql, [points, entry_id])


@lru_cache(maxsize=None)
def _last_counted_sql(vendor):
    """Each entry's last STREAK_AFTER counted games (first's, result, end, id, which entry:
    0 the first's, 1 the second's), latest first: two subqueries, for an entry's games as
    first or second, joined."""
    fields = [Pairing._meta.get_field(name) for name in ("first", "result", "ended_at")]
    fields.append(Pairing._meta.pk)
    first, second, ended, pk = (column(Pairing, "first"), column(Pairing, "second"),
                                column(Pairing, "ended_at"), quote(Pairing._meta.pk.column))
    one = ("SELECT {} FROM (SELECT {}, {} AS entry FROM {} WHERE {} = %s AND {} IS NOT NULL "
           "AND {} = %s AND ({} = %s OR {} = %s) ORDER BY {} DESC, {} DESC LIMIT {}) {}")
    selected = ", ".join(quote(field.column) for field in fields)
    return " UNION ALL ".join(
        one.format(f"{selected}, entry", selected, side, table(Pairing),
                   column(Pairing, "tournament"), ended, column(Pairing, "void"), first,
                   second, ended, pk, STREAK_AFTER, alias)
        for side, alias in ((0, "a"), (1, "b"))), tuple(fields)


def points_gained(pairing, result, now):
    """What the game adds to each entry's points, (first's, second's), without recounting
    their games: an entry's points are always the sum over its counted games (recount), so
    this game adds its own. In a Swiss or a round robin that is its result; in an arena its
    points, which depend on the STREAK_AFTER games the entry counted before it (the streak)
    and its own berserk and actions (formats.arena.game_points). None when either entry has
    a counted game that ended after this one (an order only a clock could make, never an
    arena's one game at a time): the arena's points of the later games may change, and the
    caller recounts."""
    if pairing.kind != Tournament.ARENA:
        return result, 1 - result
    this = (now, pairing.pk)
    earlier = {pairing.first: [], pairing.second: []}
    sql, fields = _last_counted_sql(connection.vendor)
    steps = converters(fields)
    entries = (pairing.first, pairing.second)
    params = [value for entry_id in entries
              for value in (pairing.tournament, False, entry_id, entry_id)]
    for row in fetch(sql, params):
        first, result_, ended_at, pk = converted(row[:len(fields)], steps)
        if (ended_at, pk) >= this:
            return None
        entry_id = entries[row[-1]]
        earlier[entry_id].insert(0, result_ if first == entry_id else 1 - result_)
    gained = []
    for side, entry_id in enumerate((pairing.first, pairing.second)):
        game = ArenaGame(result if side == 0 else 1 - result,
                         berserk=(pairing.first_berserk, pairing.second_berserk)[side],
                         actions=(pairing.first_actions, pairing.second_actions)[side])
        gained.append(arena_game_points([ArenaGame(r) for r in earlier[entry_id]] + [game])[-1])
    return tuple(gained)


def berserk(sender, game, player, **kwargs):
    """play.berserk asks, with the game locked: an arena game's player may halve their clock
    once (the checks of the clock and the first action are play's)."""
    pairing = (Pairing.objects.select_related("tournament")
               .filter(game_id=game.pk, ended_at__isnull=True).first())
    if pairing is None or pairing.tournament.kind != Tournament.ARENA:
        return None
    field = ("first_berserk", "second_berserk")[player]
    if getattr(pairing, field):
        raise PlayError("not_allowed", "you have gone berserk already in this game")
    setattr(pairing, field, True)
    pairing.save(update_fields=[field])
    return True


HOUSE_RULES = {"takeback": "takebacks are off in tournament games",
               "chat": "the players' chat is off in tournament games"}

# (game id, created) -> (event name, address, arena) or None, per process. A game's event
# never changes (its pairing is made in the transaction that starts it), so each process asks
# once per game: a socket joining a game, a chat line or a takeback costs no query here after
# the first. The creation time is in the key because a rolled-back id can come again (SQLite).
_EVENT_OF_GAME = {}
_KEPT = 20_000


@lru_cache(maxsize=None)
def _event_sql(vendor):
    """The game's event (id, name, kind), written once: every first socket on a game asks it
    (a reconnect after a restart, once per game), and the ORM compiled it each time (a quarter
    of a handshake's joining, py-spy at 500 games). A game has one pairing at most."""
    return "SELECT t.{}, t.{}, t.{} FROM {} p INNER JOIN {} t ON t.{} = p.{} WHERE p.{} = %s".format(
        quote(Tournament._meta.pk.column), column(Tournament, "name"), column(Tournament, "kind"),
        table(Pairing), table(Tournament), quote(Tournament._meta.pk.column),
        column(Pairing, "tournament"), column(Pairing, "game"))


def event_of(game):
    key = (game.pk, game.created_at)
    if key in _EVENT_OF_GAME:
        return _EVENT_OF_GAME[key]
    rows = fetch(_event_sql(connection.vendor), [game.pk])
    found = rows[0] if rows else None
    known = None if found is None else (
        found[1], reverse("tournaments:event", args=[found[0]]), found[2] == Tournament.ARENA)
    if len(_EVENT_OF_GAME) >= _KEPT:
        _EVENT_OF_GAME.clear()  # rare, and only costs one query per game again
    _EVENT_OF_GAME[key] = known
    return known


def house_rules(sender, game, **kwargs):
    """Tournament games have no takebacks and no chat between the players (lichess's arenas);
    spectators still talk among themselves."""
    return HOUSE_RULES if event_of(game) is not None else None


def occasion(sender, game, **kwargs):
    """The event a game is played in, for its page (play.signals.occasion): its name and
    address; in an arena, who went berserk (read fresh: it changes) and whether it is
    offered."""
    known = event_of(game)
    if known is None:
        return None
    name, url, arena = known
    berserk = [False, False]
    if arena:
        flags = Pairing.objects.filter(game_id=game.pk).values_list(
            "first_berserk", "second_berserk").first()
        berserk = list(flags) if flags else berserk
    return {"name": name, "url": url,
            "berserk_offered": arena and game.time_control.is_realtime, "berserk": berserk}


def first_score(game):
    """The game's player0's score, or None for a game without a result."""
    if game.status == game.ABORTED:
        if game.reason != "no_start":
            return None
        return 0.0 if game.player_to_move() == 0 else 1.0
    if game.winner is None:
        return 0.5
    return 1.0 if game.winner == 0 else 0.0


def recount(tournament, *entry_ids):
    """Set the entries' points from their counted games (and byes): the same sum whether a
    game is the first or the last to be counted, so a recount never counts anything twice.
    The entries' games are read in one query."""
    points = points_of(tournament, entry_ids)
    for entry_id in entry_ids:
        Entry.objects.filter(pk=entry_id).update(points=points[entry_id])


def points_of(tournament, entry_ids):
    """{entry id: points} from the entries' counted games (and byes)."""
    played = arena_games(tournament, entry_ids)
    if tournament.kind == Tournament.ARENA:
        return {entry_id: arena_points(played[entry_id]) for entry_id in entry_ids}
    byes = Counter(Bye.objects.filter(tournament=tournament, entry_id__in=entry_ids,
                                      played=False).values_list("entry_id", flat=True))
    return {entry_id: sum(game.result for game in played[entry_id]) + byes[entry_id]
            for entry_id in entry_ids}


def arena_games(tournament, entry_ids):
    """{entry id: its counted games from its side (result, berserk, own actions), in the
    order they ended}."""
    games = {entry_id: [] for entry_id in entry_ids}
    rows = (Pairing.objects.filter(tournament=tournament, ended_at__isnull=False, void=False)
            .filter(Q(first_id__in=entry_ids) | Q(second_id__in=entry_ids))
            .order_by("ended_at", "pk")
            .values_list("first_id", "second_id", "result", "first_berserk", "second_berserk",
                         "first_actions", "second_actions"))
    for first, second, result, *berserk_actions in rows:
        for side, entry_id in enumerate((first, second)):
            if entry_id in games:
                games[entry_id].append(ArenaGame(
                    result if side == 0 else 1 - result, berserk=berserk_actions[side],
                    actions=berserk_actions[2 + side]))
    return games
