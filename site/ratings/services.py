"""Rating a game when it ends.

`rate_game(game, now)` is called by the play app inside the transaction that ends the game
(play.endings.finish), so the end and the rating change are stored together or not at all,
and never by a browser. It runs at most once per game: the history row per (game, player) is
unique, and the check for it is made after taking the players' rating rows.

Locks: the caller holds the game's row lock. This takes the two players' rating rows for the
game's kind (SELECT ... FOR UPDATE, in primary-key order so that two games of the same players
ending at once cannot deadlock): a player's rating changes one game at a time.

Cost: a game's end runs on the server's writer (on SQLite the one every move waits for), and
the ORM's compiling of these few statements was most of a rating's CPU (py-spy under
bench/arena_load.py, a 500-player arena's turnover). So the usual path is written once per
process, as play.statements writes a move's: one SELECT of both rating rows, one of the
history (the exactly-once check), one UPDATE per player and one INSERT of both history rows,
values in and out through the fields' own conversions. A player's first rated game at a kind
(no rating row yet) adds one INSERT of the missing rows (ignoring a row made meanwhile).
"""
from functools import lru_cache

from django.db import connection

from live.sql import column, converted, converters, fetch, quote, table, update
from ratings import glicko2, policy
from ratings.models import Rating, RatingChange


def rate_game(game, now) -> list[RatingChange]:
    """Apply a finished rated game to both players' ratings; returns the two history rows
    (player0's first), or [] for a casual or aborted game. Idempotent."""
    if not is_rated_result(game):
        return []
    players = game.players()
    rows = lock_ratings(players, game.game)
    if fetch(_rated_sql(connection.vendor), [game.pk]):
        done = list(RatingChange.objects.filter(played=game).order_by("player_index"))
        game._rating_changes = done
        return done
    before = [rows[p.pk].glicko_at(now) for p in players]
    scores = score_of(game.winner)
    changes = []
    for index, player in enumerate(players):
        opponent = 1 - index
        after = policy.bounded(glicko2.rate(before[index], [(before[opponent], scores[index])],
                                            tau=policy.TAU, periods=0.0))
        changes.append(RatingChange(
            played=game, user=player, game=game.game, player_index=index,
            opponent=players[opponent], score=scores[index],
            rating_before=before[index].rating, deviation_before=before[index].deviation,
            rating_after=after.rating, deviation_after=after.deviation,
            volatility_after=after.volatility,
            opponent_rating=before[opponent].rating,
            opponent_deviation=before[opponent].deviation,
            created_at=now,
        ))
        record(rows[player.pk], after, scores[index], now)
    insert_changes(changes)
    game._rating_changes = changes
    return changes


def is_rated_result(game) -> bool:
    """A rated game that was played to a result: one aborted, never started or left idle
    (Game.NO_RESULT) is never rated."""
    return bool(game.rated) and game.has_result


def score_of(winner):
    """Each player's score (player0's first) for a winner's player index, None for a draw."""
    if winner is None:
        return (0.5, 0.5)
    return (1.0, 0.0) if winner == 0 else (0.0, 1.0)


def lock_ratings(players, kind) -> dict:
    """The players' rating rows for `kind`, made if missing and locked (pk order)."""
    ids = sorted(player.pk for player in players)
    rows = read_ratings(ids, kind)
    if len(rows) == len(ids):
        return rows  # the usual case: one query, no savepoints
    # A first rated game at this kind: the missing rows in one INSERT that steps over a row a
    # racing transaction made meanwhile (ON CONFLICT DO NOTHING on the unique (user, game)),
    # then read back locked. A get_or_create per player took a SELECT, a savepoint and an
    # INSERT each, and was half of a game's end in a new arena (py-spy, bench/arena_load.py).
    Rating.objects.bulk_create([Rating(user_id=user_id, game=kind)
                                for user_id in ids if user_id not in rows],
                               ignore_conflicts=True)
    return read_ratings(ids, kind)


@lru_cache(maxsize=None)
def _ratings_sql(vendor, count):
    """SELECT <every column> of the rating rows of `count` users at one kind, in pk order,
    locked where the database has row locks: `Rating.objects.select_for_update()
    .filter(user_id__in=..., game=...).order_by("pk")`, written once."""
    fields = tuple(Rating._meta.concrete_fields)
    sql = "SELECT {} FROM {} WHERE {} IN ({}) AND {} = %s ORDER BY {}".format(
        ", ".join(quote(field.column) for field in fields), table(Rating),
        column(Rating, "user"), ", ".join(["%s"] * count), column(Rating, "game"),
        quote(Rating._meta.pk.column))
    if connection.features.has_select_for_update:
        sql += " FOR UPDATE"
    return sql, [field.attname for field in fields], fields


def read_ratings(ids, kind) -> dict:
    """{user id: Rating} of the users' rows at `kind` that exist, locked (pk order)."""
    sql, names, fields = _ratings_sql(connection.vendor, len(ids))
    steps = converters(fields)
    found = (Rating.from_db(connection.alias, names, converted(row, steps))
             for row in fetch(sql, [*ids, kind]))
    return {row.user_id: row for row in found}


@lru_cache(maxsize=None)
def _rated_sql(vendor):
    """Whether the game has its history rows already (rated once): read after the rating
    rows are locked, so a second transaction rating the same game sees the first's rows."""
    return "SELECT 1 FROM {} WHERE {} = %s LIMIT 1".format(
        table(RatingChange), column(RatingChange, "played"))


# What a rating update changes on a player's row (record()).
RECORDED = ("rating", "deviation", "volatility", "games", "wins", "losses", "draws",
            "last_rated_at")


def record(row, after, score, now):
    row.rating, row.deviation, row.volatility = after.rating, after.deviation, after.volatility
    row.games += 1
    if score == 1.0:
        row.wins += 1
    elif score == 0.0:
        row.losses += 1
    else:
        row.draws += 1
    row.last_rated_at = now
    update(Rating, row.pk, **{name: getattr(row, name) for name in RECORDED})


@lru_cache(maxsize=None)
def _insert_changes_sql(vendor, count):
    """INSERT of `count` history rows in one statement (with their new ids back where the
    database returns them, as bulk_create does; by user, since RETURNING's row order is not
    promised)."""
    fields = [field for field in RatingChange._meta.concrete_fields if not field.primary_key]
    row = "(" + ", ".join(["%s"] * len(fields)) + ")"
    sql = "INSERT INTO {} ({}) VALUES {}".format(
        table(RatingChange), ", ".join(quote(field.column) for field in fields),
        ", ".join([row] * count))
    returning = connection.features.can_return_rows_from_bulk_insert
    if returning:
        sql += " RETURNING {}, {}".format(quote(RatingChange._meta.pk.column),
                                          column(RatingChange, "user"))
    return sql, fields, returning


def insert_changes(changes):
    """`RatingChange.objects.bulk_create(changes)`: one INSERT, ids set where returned."""
    sql, fields, returning = _insert_changes_sql(connection.vendor, len(changes))
    params = [field.get_db_prep_save(getattr(change, field.attname), connection)
              for change in changes for field in fields]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        if returning:
            ids = {user_id: pk for pk, user_id in cursor.fetchall()}
            for change in changes:
                change.pk = ids[change.user_id]
                change._state.adding = False
                change._state.db = connection.alias


def changes_of(game) -> list[RatingChange]:
    """The game's history rows (player0's first): those just written by rate_game on this
    instance, else read."""
    cached = getattr(game, "_rating_changes", None)
    if cached is not None:
        return cached
    if not is_rated_result(game):
        return []
    found = list(RatingChange.objects.filter(played=game).select_related("user")
                 .order_by("player_index"))
    game._rating_changes = found
    return found


def result_ratings(game) -> list[dict]:
    """The rating changes as the end message and snapshots carry them (docs/protocol.md)."""
    return [{"username": change.user.get_username(), "before": change.before,
             "after": change.after, "change": change.change,
             "provisional": change.provisional}
            for change in changes_of(game)]

