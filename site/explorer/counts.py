"""Keeping the opening explorer's counts (explorer.models.OpeningNode).

A game is counted once, when it ends, in the transaction that ends it (play.endings calls
`count_game`): for each of its first DEPTH actions, the node (line before it, the action)
gains one game and the result. Counting only at the end means a takeback during the game
changes nothing, and a game that ends without a result (Game.NO_RESULT: aborted, never
started, left idle) counts nothing. `rebuild` recounts the whole archive the same way.
"""
import hashlib
from collections import defaultdict

from django.db import connection, transaction

import games
from bots.accounts import bot_ids, is_bot
from explorer.models import OpeningNode

# How many actions from the start the explorer follows: openings, not whole games. Deeper
# lines are rare enough to be nearly all single games, and every action counted is a row.
DEPTH = 12

FIELDS = ("game", "variant", "pool", "line_hash", "ply", "action",
          "games", "wins0", "draws", "wins1")
KEY = ("game", "variant", "pool", "line_hash", "action")


def variant_of(game_name, options) -> str:
    """A board's options as the nodes' key text ("size=5", "board=hexhex,size=5"); ValueError
    (the engine's words) for options the game does not have."""
    full = games.get(game_name).normalize_options(**options)
    return ",".join(f"{key}={full[key]}" for key in sorted(full))


def line_hash(actions) -> str:
    """The key of a line of canonical actions (the empty line is the start)."""
    return hashlib.blake2b(",".join(actions).encode(), digest_size=8).hexdigest()


def pool_of(game, is_computer=is_bot):
    """Which pool a finished game counts in: rated games between two people, games between a
    person and a computer player (rated or not), or none: a casual game between people, or
    the computers' exhibition (bots.services), which is no one's game and not in the
    Archive."""
    computers = is_computer(game.player0_id) + is_computer(game.player1_id)
    if computers:
        return OpeningNode.COMPUTER if computers == 1 else None
    return OpeningNode.PEOPLE if game.rated else None


def result_column(game):
    """Which count the game's result adds to: the winning side (engine colour, after any
    pie-rule swap), or a draw."""
    if game.winner is None:
        return "draws"
    return f"wins{game.side_of(game.winner)}"


def rows_of(game, actions, pool):
    """The node increments of one game: one per action of its first DEPTH."""
    variant = variant_of(game.game, game.options)
    column = result_column(game)
    for ply, action in enumerate(actions[:DEPTH]):
        yield {"game": game.game, "variant": variant, "pool": pool,
               "line_hash": line_hash(actions[:ply]), "ply": ply, "action": action,
               "games": 1, "wins0": 0, "draws": 0, "wins1": 0, column: 1}


def game_ended(sender, game, now, **kwargs):
    """play.signals.game_ending's receiver: a finished game's first actions counted."""
    count_game(game)


def count_game(game):
    """Count the game that has just ended (the caller's transaction; nothing for a game with
    no result or one in no pool)."""
    if not game.has_result:
        return
    pool = pool_of(game)
    if pool is None:
        return
    add(list(rows_of(game, list(game.state().actions), pool)))


def add(rows):
    """Add `rows`' counts to the nodes, creating the missing ones: one INSERT ... ON CONFLICT
    DO UPDATE (SQLite and PostgreSQL both), so two games ending at once each add theirs.
    The rows' keys must be distinct (one game's prefixes are)."""
    if not rows:
        return
    quote = connection.ops.quote_name
    table = quote(OpeningNode._meta.db_table)
    columns = ", ".join(quote(field) for field in FIELDS)
    values = ", ".join(["(" + ", ".join(["%s"] * len(FIELDS)) + ")"] * len(rows))
    sums = ", ".join(f"{quote(f)} = {table}.{quote(f)} + excluded.{quote(f)}"
                     for f in ("games", "wins0", "draws", "wins1"))
    sql = (f"INSERT INTO {table} ({columns}) VALUES {values} "
           f"ON CONFLICT ({', '.join(quote(k) for k in KEY)}) DO UPDATE SET {sums}")
    with connection.cursor() as cursor:
        cursor.execute(sql, [row[f] for row in rows for f in FIELDS])


BATCH = 500


def rebuild(*, stdout=None):
    """Recount every node from the archive, in one transaction (the old counts are replaced,
    so running it twice gives the same counts). Returns the number of games counted."""
    from play.models import Action, Game

    computers = set(bot_ids())
    totals = defaultdict(lambda: [0, 0, 0, 0])
    counted = 0
    finished = (Game.objects.exclude(status=Game.ACTIVE).exclude(reason__in=Game.NO_RESULT)
                .only("id", "game", "options", "rated", "player0", "player1", "swapped",
                      "winner", "status", "reason"))
    with transaction.atomic():
        for chunk in chunked(finished.order_by("id").iterator(chunk_size=2000), 2000):
            lines = defaultdict(list)
            for ply_row in (Action.objects.filter(game__in=[g.pk for g in chunk], ply__lt=DEPTH)
                            .order_by("game_id", "ply").values_list("game_id", "action")):
                lines[ply_row[0]].append(ply_row[1])
            for game in chunk:
                pool = pool_of(game, computers.__contains__)
                if pool is None or not lines[game.pk]:
                    continue
                counted += 1
                for row in rows_of(game, lines[game.pk], pool):
                    sums = totals[tuple(row[k] for k in (*KEY, "ply"))]
                    for k, name in enumerate(("games", "wins0", "draws", "wins1")):
                        sums[k] += row[name]
        OpeningNode.objects.all().delete()
        OpeningNode.objects.bulk_create(
            (OpeningNode(game=key[0], variant=key[1], pool=key[2], line_hash=key[3],
                         action=key[4], ply=key[5], games=s[0], wins0=s[1], draws=s[2],
                         wins1=s[3]) for key, s in totals.items()),
            batch_size=BATCH)
    return counted


def chunked(iterable, size):
    chunk = []
    for item in iterable:
        chunk.append(item)
        if len(chunk) == size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk
