"""A per-process cache of engine states, so a move does not replay the whole game.

Engine states are immutable, so one state can serve every consumer, view and thread of the
process. The key is (game id, game creation time, takebacks, ply): actions are append-only
between takebacks, so the state after `ply` actions of a game never changes until a takeback
deletes some, and the takeback bumps the game's counter (play.takeback), so every process
reading the game row afterwards asks for other keys and never serves a taken-back position.
The creation time keeps a reused id (a test database flushed between tests) from picking up
another game's position. Callers read the ply and the counter from the game row they hold
(under a row lock when they are about to write), so a cached state is always the one for
the stored history.
"""
from collections import OrderedDict
from functools import cached_property, lru_cache
from threading import Lock

from django.conf import settings
from django.db import connection

from live.outbox import encoded
from live.sql import column, fetch, table

# Every move adds a position: the cache must hold each live game's latest one for longer than
# the game takes between moves, or a move replays its whole game (500 games moving every 5 s
# put 100 positions a second through it). The to_dict()s are only for snapshots and the next
# message, so fewer of them do.
SIZE = settings.LIVE_POSITIONS
DICTS = 512


class LRU:
    def __init__(self, size):
        self.size = size
        self.items = OrderedDict()
        self.lock = Lock()

    def get(self, key):
        with self.lock:
            value = self.items.get(key)
            if value is not None:
                self.items.move_to_end(key)
            return value

    def put(self, key, value):
        with self.lock:
            self.items[key] = value
            self.items.move_to_end(key)
            while len(self.items) > self.size:
                self.items.popitem(last=False)

    def clear(self):
        with self.lock:
            self.items.clear()


states = LRU(SIZE)
dicts = LRU(DICTS)
# (game id, creation time as ISO text, takebacks, ply) -> the action stored at that ply.
actions_heard = LRU(SIZE)


def key(game, ply):
    return (game.pk, game.created_at, game.takebacks, ply)


def history(game):
    """What, beside its id, names the game's stored history (its actions between takebacks),
    as news carries it: [creation time (ISO), takebacks]."""
    return [game.created_at.isoformat(), game.takebacks]


def heard(game_id, stored):
    """The news of an action stored by any process (play.broadcast.to_game's `stored`: the
    history's name, the ply, the action): the next move of the game here steps the cached
    position on by it instead of reading it back from the database. Event loop; only a
    dict write, so the engine's work stays on the database threads."""
    created, takebacks, ply, action = stored
    actions_heard.put((game_id, created, takebacks, ply), action)


def state_of(game):
    """The engine state after the game's `ply_count` stored actions."""
    return state_at(game, game.ply_count)


def state_at(game, ply, cache=None):
    """The engine state after the game's first `ply` stored actions, kept in `cache` (default:
    the live positions; the archive's replays keep their own so as not to push these out).
    Found in either cache, or one action on from the state before it, or else replayed."""
    cache = states if cache is None else cache
    state = cached(game, ply, cache)
    if state is not None:
        return state
    previous = cached(game, ply - 1, cache) if ply else None
    if previous is not None:
        # One action on: another server process stored the last action (with the players on
        # two processes, every move: its news told us which), or a replay steps on.
        action = actions_heard.get((game.pk, *history(game), ply - 1))
        if action is None:
            found = fetch(_action_sql(connection.vendor), [game.pk, ply - 1])
            if not found:
                raise RuntimeError(f"game {game.pk} has no action row at ply {ply - 1}")
            action = found[0][0]
        state = previous.play(action)
    else:
        # Before the first action there is nothing to read: every game that starts asks for
        # its first position (its expiry, then its first snapshot).
        actions = [action for action, in fetch(_actions_sql(connection.vendor),
                                                [game.pk, ply])] if ply else []
        if len(actions) != ply:
            raise RuntimeError(f"game {game.pk} has {len(actions)} action rows before ply {ply}")
        state = game.engine.replay(game.options, actions)
    cache.put(key(game, ply), state)
    return state


@lru_cache(maxsize=None)
def _action_sql(vendor):
    """The action at one ply, written once (live.sql): a process whose last news of a game
    was another process's move reads it on that game's next move."""
    from play.models import Action
    return "SELECT {} FROM {} WHERE {} = %s AND {} = %s".format(
        column(Action, "action"), table(Action), column(Action, "game"), column(Action, "ply"))


@lru_cache(maxsize=None)
def _actions_sql(vendor):
    from play.models import Action
    return "SELECT {} FROM {} WHERE {} = %s AND {} < %s ORDER BY {}".format(
        column(Action, "action"), table(Action), column(Action, "game"), column(Action, "ply"),
        column(Action, "ply"))


def cached(game, ply, cache):
    k = key(game, ply)
    return cache.get(k) or states.get(k)


class Position(dict):
    """A state's to_dict(), kept per (game, ply) and never mutated, with its JSON text made
    once: a snapshot of a big board is mostly this (a Tripen 13 position is ~120 KB of JSON,
    ~18 ms to encode), so every snapshot of the same position sends the same text
    (play.consumers) instead of encoding it again."""

    @cached_property
    def encoded(self):
        return encoded(self)


def remember(game, state, full_dict=None):
    """Cache a committed position (and its to_dict(), when already computed)."""
    states.put(key(game, state.ply), state)
    if full_dict is not None:
        dicts.put(key(game, state.ply), Position(full_dict))


def state_dict(game, state):
    """to_dict() of a state of this game, computed once per process (a Position, whose
    JSON text is made once too). Do not mutate it."""
    k = key(game, state.ply)
    d = dicts.get(k)
    if d is None:
        d = Position(state.to_dict())
        dicts.put(k, d)
    return d


def message_text(kind, game):
    """The JSON text of {"type": kind, "game": game} (a snapshot), where the game's "state",
    a Position, is the text it made once rather than encoded again."""
    state = game.get("state")
    if not isinstance(state, Position):
        return encoded({"type": kind, "game": game})
    # The rest of the game object is never empty (it carries the game's id): "{...}" loses its
    # closing brace, and the state follows.
    rest = encoded({k: v for k, v in game.items() if k != "state"})
    return f'{{"type":{encoded(kind)},"game":{rest[:-1]},"state":{state.encoded}}}}}'


def lean(state, full_dict):
    """to_dict() without the board data that never changes in a game (the engine's
    static_board_keys: geometry, labels, Tripen's pose polygons), for the messages sent after
    every action; clients keep it from their snapshot."""
    board = {k: v for k, v in full_dict["board"].items() if k not in state.static_board_keys}
    return {**full_dict, "board": board}


def live_dict(game, state):
    return lean(state, state_dict(game, state))
