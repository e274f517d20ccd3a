"""The statements every move runs, written once per process instead of compiled per call.

Django compiles a queryset's SQL on every call. For what each move does (read and lock the
game row with its players, insert the action, update the game) the compiling was over a third
of the server's CPU per move (py-spy --gil under bench/live_load.py): the row lock alone, a
select of every column joined to both players, was a third. Here each statement is built once
per database vendor from the models' own metadata, so it follows the schema, and runs on the
calling thread's connection with the ORM's own value converters: the rows and instances are
the ones the ORM would give. Everything else keeps using the ORM.

The players come from a short-lived per-process cache of user rows (`PLAYERS_FRESH`): a move
needs their names and ids, which do not change under a game, and reading them again for
every move was a join per move. Each game gets copies: what is cached on a user object
(its ratings) stays with that game.
"""
import copy
import threading
import time
from functools import lru_cache

from django.contrib.auth import get_user_model
from django.db import connection

from play.models import Action, Game

PLAYERS_FRESH = 30.0  # seconds a cached user row serves
PLAYERS_KEPT = 20_000  # users cached per process, at most

# What `Action.objects.create(...)` of a move writes.
ACTION_FIELDS = ("game", "ply", "action", "player", "remaining0_ms", "remaining1_ms",
                 "created_at")


@lru_cache(maxsize=None)
def _game_read(vendor, lock):
    """(sql, fields, converters) of SELECT <every column> FROM the game table WHERE id = %s,
    with FOR UPDATE when `lock` (where the database has it)."""
    meta = Game._meta
    quote = connection.ops.quote_name
    fields = list(meta.concrete_fields)
    sql = "SELECT {} FROM {} WHERE {} = %s".format(
        ", ".join(quote(field.column) for field in fields), quote(meta.db_table),
        quote(meta.pk.column))
    if lock and connection.features.has_select_for_update:
        sql += " FOR UPDATE"
    converters = []
    for field in fields:
        column = field.get_col(meta.db_table)
        found = connection.ops.get_db_converters(column) + field.get_db_converters(connection)
        converters.append([(converter, column) for converter in found])
    return sql, [field.attname for field in fields], converters


def game(game_id, lock=False):
    """The game with its players, as `Game.objects.with_players().get(pk=game_id)` gives it
    (with `lock`: as `Game.objects.locked()`, inside the caller's transaction)."""
    sql, names, converters = _game_read(connection.vendor, lock)
    low, high = connection.ops.integer_field_range(Game._meta.pk.get_internal_type())
    try:
        game_id = int(game_id)
    except (TypeError, ValueError):
        raise Game.DoesNotExist(f"there is no game {game_id!r}") from None
    if not low <= game_id <= high:
        # As the ORM answers an id no row can have (a client may send any number).
        raise Game.DoesNotExist(f"there is no game {game_id}")
    with connection.cursor() as cursor:
        cursor.execute(sql, [game_id])
        row = cursor.fetchone()
    if row is None:
        raise Game.DoesNotExist(f"there is no game {game_id}")
    values = []
    for value, steps in zip(row, converters):
        for converter, column in steps:
            value = converter(value, column, connection)
        values.append(value)
    found = Game.from_db(connection.alias, names, values)
    seat_players(found)
    return found


@lru_cache(maxsize=None)
def _insert_action_sql(vendor):
    meta = Action._meta
    quote = connection.ops.quote_name
    fields = [meta.get_field(name) for name in ACTION_FIELDS]
    return "INSERT INTO {} ({}) VALUES ({})".format(
        quote(meta.db_table), ", ".join(quote(field.column) for field in fields),
        ", ".join(["%s"] * len(fields))), fields


def insert_action(game, ply, action, player, created_at, remaining_ms=None):
    """Store one action, as `Action.objects.create(...)` would (the unique (game, ply)
    constraint still stands behind it), with the realtime clocks just after it."""
    sql, fields = _insert_action_sql(connection.vendor)
    left = remaining_ms if remaining_ms is not None else (None, None)
    values = (game.pk, ply, action, player, left[0], left[1], created_at)
    params = [field.get_db_prep_save(value, connection) for field, value in zip(fields, values)]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)


@lru_cache(maxsize=None)
def _update_game_sql(vendor, names):
    meta = Game._meta
    quote = connection.ops.quote_name
    fields = [meta.get_field(name) for name in names]
    return "UPDATE {} SET {} WHERE {} = %s".format(
        quote(meta.db_table), ", ".join(f"{quote(field.column)} = %s" for field in fields),
        quote(meta.pk.column)), fields


def update_game(game, names):
    """Save fields `names` of the game, as `game.save(update_fields=names)` would (the
    model's own bookkeeping first: Game.fields_to_save)."""
    names = tuple(game.fields_to_save(names))
    sql, fields = _update_game_sql(connection.vendor, names)
    params = [field.get_db_prep_save(getattr(game, field.attname), connection)
              for field in fields]
    params.append(game.pk)
    with connection.cursor() as cursor:
        cursor.execute(sql, params)


# -- the players -------------------------------------------------------------------------------

_players = {}  # user id -> (user, when it was read)
_players_lock = threading.Lock()


def seat_players(found):
    """Give the game its two user rows from the cache, reading those missing or too old."""
    now = time.monotonic()
    ids = (found.player0_id, found.player1_id)
    cached = {pk: _players.get(pk) for pk in ids}
    missing = [pk for pk, entry in cached.items() if entry is None or now - entry[1] > PLAYERS_FRESH]
    if missing:
        for user in get_user_model().objects.filter(pk__in=missing):
            cached[user.pk] = (user, now)
        with _players_lock:
            if len(_players) > PLAYERS_KEPT:
                _players.clear()
            _players.update((pk, cached[pk]) for pk in missing if cached.get(pk))
    found._state.fields_cache["player0"] = fresh_copy(cached[found.player0_id][0])
    found._state.fields_cache["player1"] = fresh_copy(cached[found.player1_id][0])


def fresh_copy(user):
    """A copy of a cached user row of its own: what callers cache on it (their ratings,
    ratings.display) must not outlive the call or leak to another thread."""
    clone = copy.copy(user)
    clone.__dict__.pop("_prefetched_objects_cache", None)
    return clone


def forget_players():
    """Empty the cache (tests that change a user's name)."""
    with _players_lock:
        _players.clear()
