"""The statements every move runs, written once per process instead of compiled per call.

Django compiles a queryset's SQL on every call. For what each move does (read and lock the
game row with its players, insert the action, update the game) the compiling was over a third
of the server's CPU per move (py-spy --gil under bench/live_load.py): the row lock alone, a
select of every column joined to both players, was a third. Here each statement is built once
per database vendor from the models' own metadata, so it follows the schema, and runs on the
calling thread's connection with the ORM's own value converters: the rows and instances are
the ones the ORM would give. Everything else keeps using the ORM.

The players come from a short-lived per-process cache of user rows, with their profiles (is a
seat a computer: Game.is_computer), (`PLAYERS_FRESH`): a move needs their names and ids, which do not change under a game, and reading them again for
every move was a join per move. Each game gets copies: what is cached on a user object
(its ratings) stays with that game.
"""
import threading
import time
from functools import lru_cache

from django.contrib.auth import get_user_model
from django.db import connection
from django.db.models.base import ModelState

from live import sessions
from live.sql import (converted, converters, fetch, insert_statement, quote, table,
                      update_statement)
from play.models import Action, Game

PLAYERS_FRESH = 30.0  # seconds a cached user row serves
PLAYERS_KEPT = 20_000  # users cached per process, at most

@lru_cache(maxsize=None)
def _game_read(vendor, lock):
    """(sql, attnames, fields) of SELECT <every column> FROM the game table WHERE id = %s, with
    FOR UPDATE when `lock` (where the database has it)."""
    meta = Game._meta
    fields = tuple(meta.concrete_fields)
    sql = "SELECT {} FROM {} WHERE {} = %s".format(
        ", ".join(quote(field.column) for field in fields), table(Game),
        quote(meta.pk.column))
    if lock and connection.features.has_select_for_update:
        sql += " FOR UPDATE"
    return sql, [field.attname for field in fields], fields


def game(game_id, lock=False):
    """The game with its players, as `Game.objects.with_players().get(pk=game_id)` gives it
    (with `lock`: as `Game.objects.locked()`, inside the caller's transaction)."""
    sql, names, fields = _game_read(connection.vendor, lock)
    game_id = _game_id(game_id)
    rows = fetch(sql, [game_id])
    return _found(game_id, rows, names, fields)


def _game_id(game_id):
    low, high = connection.ops.integer_field_range(Game._meta.pk.get_internal_type())
    try:
        game_id = int(game_id)
    except (TypeError, ValueError):
        raise Game.DoesNotExist(f"there is no game {game_id!r}") from None
    if not low <= game_id <= high:
        # As the ORM answers an id no row can have (a client may send any number).
        raise Game.DoesNotExist(f"there is no game {game_id}")
    return game_id


def _found(game_id, rows, names, fields):
    if not rows:
        raise Game.DoesNotExist(f"there is no game {game_id}")
    found = Game.from_db(connection.alias, names,
                         converted(rows[0][:len(fields)], converters(fields)))
    seat_players(found)
    return found


@lru_cache(maxsize=None)
def _game_and_session_read(vendor):
    """_game_read(vendor, lock=True) with, after the game's columns, what
    live.sessions.still_logged_in reads (live.sessions.joined_read)."""
    meta = Game._meta
    fields = tuple(meta.concrete_fields)
    columns, joins = sessions.joined_read(connection.alias)
    sql = "SELECT {}, {} FROM {} g {} WHERE g.{} = %s".format(
        ", ".join(f"g.{quote(field.column)}" for field in fields), columns, table(Game), joins,
        quote(meta.pk.column))
    if connection.features.has_select_for_update:
        sql += " FOR UPDATE OF g"  # the game's row alone: a session's is not locked
    return sql, [field.attname for field in fields], fields


def game_and_session(game_id, key, user_id):
    """(game(game_id, lock=True), the columns of live.sessions.joined_read() for session `key`
    and user `user_id`), in one statement: a move's session check rides on its game's lock
    (live.sessions.riding)."""
    sql, names, fields = _game_and_session_read(connection.vendor)
    game_id = _game_id(game_id)
    rows = fetch(sql, [*sessions.read_params(key, user_id, connection.alias), game_id])
    return _found(game_id, rows, names, fields), rows[0][len(fields):]


# What a socket's arrival needs of its game (play.services.arrive): its players, and since
# when each has been away.
ARRIVAL_FIELDS = ("id", "player0", "player1", "absent0_since", "absent1_since")


@lru_cache(maxsize=64)
def _arrival_read(vendor, count):
    # In the model's order: from_db() fills the fields it is given in that order.
    wanted = {Game._meta.get_field(name) for name in ARRIVAL_FIELDS}
    fields = tuple(field for field in Game._meta.concrete_fields if field in wanted)
    sql = "SELECT {} FROM {} WHERE {} IN ({})".format(
        ", ".join(quote(field.column) for field in fields), table(Game),
        quote(Game._meta.pk.column), ", ".join(["%s"] * count))
    return sql, [field.attname for field in fields], fields


def arriving(game_ids):
    """{id: game} of these games, with only what an arrival reads (as
    `Game.objects.filter(pk__in=game_ids).only(...)` gives them, the other fields deferred):
    every socket that opens on a game page is in one such read, which a queryset compiled
    each time."""
    if not game_ids:
        return {}
    sql, names, fields = _arrival_read(connection.vendor, len(game_ids))
    steps = converters(fields)
    found = {}
    for row in fetch(sql, list(game_ids)):
        game = Game.from_db(connection.alias, names, converted(row, steps))
        found[game.pk] = game
    return found


# Games read per statement (SQLite takes at most 999 parameters in old builds).
GAMES_READ = 500


@lru_cache(maxsize=64)
def _games_read(vendor, count):
    meta = Game._meta
    fields = tuple(meta.concrete_fields)
    sql = "SELECT {} FROM {} WHERE {} IN ({})".format(
        ", ".join(quote(field.column) for field in fields), table(Game),
        quote(meta.pk.column), ", ".join(["%s"] * count))
    return sql, [field.attname for field in fields], fields


def games(game_ids):
    """The games `game_ids` with their players, as `Game.objects.with_players().filter(
    pk__in=game_ids)` gives them (in no set order): the presence news of a crowd of pages
    reads them so, once a crowd has come or gone, on a reader beside the moves."""
    found = []
    ids = list(game_ids)
    for start in range(0, len(ids), GAMES_READ):
        chunk = ids[start:start + GAMES_READ]
        sql, names, fields = _games_read(connection.vendor, len(chunk))
        steps = converters(fields)
        for row in fetch(sql, chunk):
            game = Game.from_db(connection.alias, names, converted(row, steps))
            seat_players(game)
            found.append(game)
    return found


def insert_action(game, ply, action, player, created_at, remaining_ms=None):
    """Store one action, as `Action.objects.create(...)` would (the unique (game, ply)
    constraint still stands behind it), with the realtime clocks just after it."""
    sql, params = _action_insert(game, ply, action, player, created_at, remaining_ms)
    with connection.cursor() as cursor:
        cursor.execute(sql, params)


def update_game(game, names):
    """Save fields `names` of the game, as `game.save(update_fields=names)` would (the
    model's own bookkeeping first: Game.fields_to_save)."""
    sql, params = _game_update(game, names)
    with connection.cursor() as cursor:
        cursor.execute(sql, params)


def store_move(game, names, ply, action, player, created_at, remaining_ms=None):
    """insert_action(...) and update_game(game, names) in one statement where the database
    can (PostgreSQL: an INSERT in a WITH clause runs to completion beside the UPDATE), so a
    move costs one round trip less; two statements elsewhere."""
    insert_sql, params = _action_insert(game, ply, action, player, created_at, remaining_ms)
    update_sql, update_params = _game_update(game, names)
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute(f"WITH stored AS ({insert_sql}) {update_sql}", params + update_params)
        else:
            cursor.execute(insert_sql, params)
            cursor.execute(update_sql, update_params)


# What `Action.objects.create(...)` of a move writes.
def _action_insert(game, ply, action, player, created_at, remaining_ms):
    left = remaining_ms if remaining_ms is not None else (None, None)
    return insert_statement(Action, {
        "game": game.pk, "ply": ply, "action": action, "player": player,
        "remaining0_ms": left[0], "remaining1_ms": left[1], "created_at": created_at})


def _game_update(game, names):
    names = game.fields_to_save(names)
    return update_statement(Game, game.pk, {name: getattr(game, Game._meta.get_field(name).attname)
                                            for name in names})


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
        for user in read_users(missing):
            cached[user.pk] = (user, now)
        with _players_lock:
            if len(_players) > PLAYERS_KEPT:
                _players.clear()
            _players.update((pk, cached[pk]) for pk in missing if cached.get(pk))
    found._state.fields_cache["player0"] = fresh_copy(cached[found.player0_id][0])
    found._state.fields_cache["player1"] = fresh_copy(cached[found.player1_id][0])


@lru_cache(maxsize=None)
def _users_read(vendor, count):
    """(sql, user fields, profile fields) of the users' rows with their profiles (a LEFT JOIN:
    a user may have none), `count` ids: `User.objects.select_related("profile")`, written
    once. A player's row is read again every PLAYERS_FRESH seconds: at 500 games that was a
    query compiled every third move (7% of the server's CPU, py-spy)."""
    user_meta = get_user_model()._meta
    profile_relation = user_meta.get_field("profile")
    profile_meta = profile_relation.related_model._meta
    user_fields = tuple(user_meta.concrete_fields)
    profile_fields = tuple(profile_meta.concrete_fields)
    columns = [f"u.{quote(field.column)}" for field in user_fields] + \
              [f"p.{quote(field.column)}" for field in profile_fields]
    sql = "SELECT {} FROM {} u LEFT OUTER JOIN {} p ON p.{} = u.{} WHERE u.{} IN ({})".format(
        ", ".join(columns), table(user_meta.model), table(profile_meta.model),
        quote(profile_relation.field.column), quote(user_meta.pk.column),
        quote(user_meta.pk.column), ", ".join(["%s"] * count))
    return sql, user_fields, profile_fields


def read_users(ids):
    """The users `ids` with their profiles, as `User.objects.select_related("profile")
    .filter(pk__in=ids)` gives them (a user without a profile raises on `.profile` as there)."""
    sql, user_fields, profile_fields = _users_read(connection.vendor, len(ids))
    user_model = get_user_model()
    profile_relation = user_model._meta.get_field("profile")
    profile_model = profile_relation.related_model
    user_names = [field.attname for field in user_fields]
    profile_names = [field.attname for field in profile_fields]
    split = len(user_fields)
    users = []
    for row in fetch(sql, list(ids)):
        values = converted(row, converters(user_fields + profile_fields))
        user = user_model.from_db(connection.alias, user_names, values[:split])
        profile = None
        if values[split + profile_names.index(profile_model._meta.pk.attname)] is not None:
            profile = profile_model.from_db(connection.alias, profile_names, values[split:])
            profile_relation.field.set_cached_value(profile, user)
        profile_relation.set_cached_value(user, profile)
        users.append(user)
    return users


def fresh_copy(user):
    """A copy of a cached user row of its own: what callers cache on it (their ratings,
    ratings.display) must not outlive the call or leak to another thread.

    What `copy.copy(user)` gives (its own attributes, its own state and related-object cache,
    the related objects themselves shared), made directly: copy.copy goes through pickling's
    hooks (Model.__reduce__, __getstate__, __setstate__, copy.copy of the state), 2% of a
    move's server CPU for the two players of every game read (py-spy, bench/api_bots.py)."""
    from ratings.display import KEPT

    attributes = user.__dict__.copy()
    attributes.pop("_prefetched_objects_cache", None)
    attributes.pop(KEPT, None)
    state = attributes["_state"] = ModelState()
    state.__dict__.update(user._state.__dict__)
    state.fields_cache = user._state.fields_cache.copy()
    clone = user.__class__.__new__(user.__class__)
    clone.__dict__.update(attributes)
    return clone


def forget_players():
    """Empty the cache (tests that change a user's name)."""
    with _players_lock:
        _players.clear()
