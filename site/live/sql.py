"""SQL written once per process for the live path's hottest statements.

Django compiles a queryset's SQL on every call, and on the live path that compiling cost more
than the database's own work (play.statements says how much for a move). The few statements
every move or every socket's arrival runs are written here once per database vendor, from the
models' own metadata (table and column names follow the schema), and run on the calling
thread's connection. Values go in through each field's own preparation
(`get_db_prep_save`) and come out through the ORM's own converters, so they are what the ORM
would have given. Everything else keeps using the ORM.
"""
from datetime import datetime, timezone
from functools import lru_cache

from django.db import DEFAULT_DB_ALIAS, connection, connections
from django.db.models import Count, Value


def quote(name):
    return connection.ops.quote_name(name)


def table(model):
    return quote(model._meta.db_table)


def column(model, name):
    """The quoted column of field `name` (its attname for a foreign key: `game` -> game_id)."""
    return quote(model._meta.get_field(name).column)


@lru_cache(maxsize=None)
def _insert(vendor, model, names, rows=1):
    """The INSERT of `rows` rows of `model`'s fields `names`, and those fields."""
    fields = [model._meta.get_field(name) for name in names]
    row = "({})".format(", ".join(["%s"] * len(fields)))
    sql = "INSERT INTO {} ({}) VALUES {}".format(
        table(model), ", ".join(quote(field.column) for field in fields),
        ", ".join([row] * rows))
    return sql, fields


@lru_cache(maxsize=None)
def _update(vendor, model, names):
    fields = [model._meta.get_field(name) for name in names]
    sql = "UPDATE {} SET {} WHERE {} = %s".format(
        table(model), ", ".join(f"{quote(field.column)} = %s" for field in fields),
        quote(model._meta.pk.column))
    return sql, fields


def _saved(fields, values):
    # The thread's connection itself, looked up once: `connection` is a proxy that finds it
    # again on every use (an asgiref Local), and a game's end prepares some thirty values, a
    # sixth of its CPU on the writer.
    db = connections[DEFAULT_DB_ALIAS]
    return [field.get_db_prep_save(value, db) for field, value in zip(fields, values)]


def insert_statement(model, values):
    """The INSERT of one row of `model` with these field values (a foreign key by its id), as
    (sql, params): for a caller that runs it beside other statements."""
    sql, fields = _insert(connection.vendor, model, tuple(values))
    return sql, _saved(fields, values.values())


def update_statement(model, pk, values):
    """The UPDATE of these fields of `model`'s row `pk`, as (sql, params)."""
    sql, fields = _update(connection.vendor, model, tuple(values))
    return sql, [*_saved(fields, values.values()), pk]


# Rows per INSERT of insert_rows() (SQLite takes at most 999 parameters in old builds).
ROWS_PER_INSERT = 100


def insert_rows(model, names, rows):
    """INSERT these rows of `model` (each the values of the fields `names`, in order) as
    `model.objects.create(...)` would store each, in one statement per ROWS_PER_INSERT; the
    database's constraints still stand. A crowd's rows at the price of a few statements: on
    PostgreSQL a statement's own cost on the client was most of a small row's."""
    names = tuple(names)
    for start in range(0, len(rows), ROWS_PER_INSERT):
        chunk = rows[start:start + ROWS_PER_INSERT]
        sql, fields = _insert(connection.vendor, model, names, len(chunk))
        params = []
        for values in chunk:
            params += _saved(fields, values)
        with connection.cursor() as cursor:
            cursor.execute(sql, params)


def update(model, pk, **values):
    """UPDATE these fields of `model`'s row `pk` as `save(update_fields=...)` would store
    them, without the ORM's compiling."""
    with connection.cursor() as cursor:
        cursor.execute(*update_statement(model, pk, values))


@lru_cache(maxsize=None)
def _create(vendor, model):
    meta = model._meta
    fields = tuple(field for field in meta.local_concrete_fields
                   if not field.primary_key and not field.generated)
    sql = "INSERT INTO {} ({}) VALUES ({})".format(
        table(model), ", ".join(quote(field.column) for field in fields),
        ", ".join(["%s"] * len(fields)))
    # What the database makes (the key, generated columns) comes back as save() takes it.
    returning = (tuple(meta.db_returning_fields)
                 if connection.features.can_return_columns_from_insert else ())
    if returning:
        sql += " RETURNING " + ", ".join(quote(field.column) for field in returning)
    return sql, fields, returning


def create(instance):
    """Store a new row, as `instance.save()` stores one of a plain model (every field through
    its own pre_save, so auto_now_add and defaults come out the same), and give the instance
    its key: for the rows an arena's wave creates per game (the game, its pairing). A model's
    own save() and the save signals are not run: the caller does what its save() would."""
    model = type(instance)
    sql, fields, returning = _create(connection.vendor, model)
    db = connections[DEFAULT_DB_ALIAS]
    params = [field.get_db_prep_save(field.pre_save(instance, True), db) for field in fields]
    with db.cursor() as cursor:
        cursor.execute(sql, params)
        if returning:
            for field, value in zip(returning, converted(cursor.fetchone(),
                                                         converters(returning))):
                setattr(instance, field.attname, value)
        else:
            instance.pk = db.ops.last_insert_id(cursor, model._meta.db_table,
                                                model._meta.pk.column)
    instance._state.adding = False
    instance._state.db = db.alias
    return instance


def prepared(field, value):
    """`value` as a parameter compared with `field`'s column."""
    return field.get_db_prep_value(value, connection, prepared=False)


@lru_cache(maxsize=None)
def _converters(vendor, fields):
    steps = []
    for field in fields:
        column_ = field.get_col(field.model._meta.db_table)
        found = connection.ops.get_db_converters(column_) + field.get_db_converters(connection)
        steps.append(tuple((converter, column_) for converter in found))
    return tuple(steps)


def converters(fields):
    """Per column of a result whose columns are these model fields: the ORM's converters."""
    return _converters(connection.vendor, tuple(fields))


def converted(row, steps):
    """A raw result row as the ORM gives its values (datetimes, booleans, JSON...)."""
    db = connections[DEFAULT_DB_ALIAS]  # once, not per value (_saved)
    values = []
    for value, column_steps in zip(row, steps):
        for converter, column_ in column_steps:
            value = converter(value, column_, db)
        values.append(value)
    return values


def fetch(sql, params):
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall()


# A moment to build a written() statement's queryset with where the caller's moments go in at
# each run (its placeholders): any fixed moment does.
EPOCH = datetime(2000, 1, 1, tzinfo=timezone.utc)


def written(queryset, placeholders=None):
    """(sql, params, steps) of a queryset of values_list(): its statement as the ORM writes it
    and, per column, the ORM's converters (as converters() gives them), for a caller that keeps
    it (lru_cache, keyed by the vendor and whatever the queryset was built from) and runs it
    with read(). `placeholders`: the values the queryset was built with that the caller puts
    its own in place of at each run (a game's id written as 0, ids as range(count)); they are
    checked to be the statement's parameters, in order, so a value cannot go in a wrong place."""
    compiler = queryset.query.get_compiler(queryset.db)
    sql, params = compiler.as_sql()
    if placeholders is not None:
        assert list(params) == list(placeholders), params
    found = compiler.get_converters([column for column, _, _ in compiler.select])
    steps = tuple(tuple((converter, found[index][1]) for converter in found[index][0])
                  if index in found else () for index in range(len(compiler.select)))
    return sql, tuple(params), steps


def read(statement, params=None):
    """The rows of a written() statement, run with its own parameters or, in place of its
    placeholders, with `params`; their values as the ORM gives them."""
    sql, own, steps = statement
    return [converted(row, steps) for row in fetch(sql, own if params is None else params)]


def counting(queryset):
    """`queryset.count()` as a values_list() queryset of one row, for written(): the aggregate
    grouped by a constant, which groups by nothing (the plain COUNT(*) that count() runs)."""
    return (queryset.order_by().annotate(counted_by=Value(1)).values("counted_by")
            .annotate(counted=Count("*")).values_list("counted"))


@lru_cache(maxsize=None)
def columns(model):
    """The attnames of `model`'s concrete fields: a written() queryset's values_list() of whole
    rows, which instances() builds back into objects."""
    return tuple(field.attname for field in model._meta.concrete_fields)


def instances(model, statement, params=None):
    """read() of a statement of values_list(*columns(model)), as the model's objects, built as
    the ORM builds them."""
    names, alias = columns(model), connection.alias
    return [model.from_db(alias, names, row) for row in read(statement, params)]
