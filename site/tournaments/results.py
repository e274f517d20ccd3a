"""A tournament game's end, heard inside the transaction that ends it (play.signals.game_ending,
sent by play.endings.end_game with the game row locked): the pairing gets its result and the
two entries their points, once, committed with the end itself.

What a game is worth: a played-out game, a resignation, a loss on time or a claimed win count as
they ended (a Colorful draw is half a point each); a first move not made is a loss for the
player who did not make it (a forfeit; in an arena it also pauses that player, who is
probably gone, until they come back); an abort, or an untimed game left alone, is void and
counts for nobody. An arena game that ends later than GRACE after the arena's end is void.
"""
from collections import Counter
from datetime import timedelta
from functools import lru_cache

from django.db import connection
from django.db.models import Q
from django.urls import reverse

from live.sql import column, fetch, quote, table
from play.services import PlayError
from tournaments import news
from tournaments.formats.arena import ArenaGame
from tournaments.formats.arena import points as arena_points
from tournaments.models import Bye, Entry, Pairing, Tournament

GRACE = timedelta(minutes=5)


def game_ended(sender, game, now, **kwargs):
    pairing = (Pairing.objects.select_related("tournament")
               .filter(game_id=game.pk, ended_at__isnull=True).first())
    if pairing is None:
        return
    tournament = pairing.tournament
    # The two entries' rows, locked in one order: a round robin's games of one player may end
    # at once in two processes, and each recount must see the other's result. (SQLite has no
    # row locks: its one writer already orders the ends, and the SELECT would only cost.)
    if connection.features.has_select_for_update:
        list(Entry.objects.select_for_update().filter(
            pk__in=[pairing.first_id, pairing.second_id]).order_by("pk"))
    score = first_score(game)
    late = tournament.kind == Tournament.ARENA and now > tournament.ends_at + GRACE
    pairing.ended_at = now
    pairing.void = score is None or late
    pairing.result = None if pairing.void else score
    pairing.first_actions, pairing.second_actions = actions_of(game)
    pairing.save(update_fields=["ended_at", "void", "result", "first_actions",
                                "second_actions"])
    recount(tournament, pairing.first_id, pairing.second_id)
    if tournament.kind == Tournament.ARENA and game.reason == "no_start":
        # Gone (lichess does the same): no more games until they come back and un-pause.
        absent = pairing.first_id if game.player_to_move() == 0 else pairing.second_id
        Entry.objects.filter(pk=absent).update(paused=True)
    news.changed(tournament.pk)


def actions_of(game):
    """How many actions each player made (stored with each action: play's Action.player).
    Counted in Python from one column: the ORM's GROUP BY cost more to build than the game's
    few hundred rows cost to read."""
    counts = [0, 0]
    for player in game.action_rows.order_by().values_list("player", flat=True):
        counts[player] += 1
    return counts[0], counts[1]


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
