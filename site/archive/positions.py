"""Positions of a stored game at any ply: for the replay viewer, exploration, images, records.

A game's actions are append-only between takebacks, so the position after `ply` actions
never changes once the game has that many: positions are cached by (game, creation time,
takebacks, ply), the creation time keeping a reused id (a test database flushed between
tests) from picking up another game's, the takeback counter a taken-back position from
being served again (play.takeback).
Engine states are kept per process, in a cache of our own so that someone stepping through
an old game does not push the live games' positions out of play's cache: stepping to the next
ply plays one action on the state before instead of replaying the game. The JSON texts go to
Django's cache.
"""
import json

from django.core.cache import cache

import games
from play import positions as engine_states

TIMEOUT = 24 * 3600
replay_states = engine_states.LRU(256)
# An exploration is a scratch line from one position: longer than any game, short enough
# that a request cannot keep the engine busy for long.
MAX_EXPLORE = 400


class NoSuchPly(ValueError):
    """A ply the game does not have (yet)."""


class IllegalLine(ValueError):
    """An explored action the engine refuses: `index` in the line, the action, the reason."""

    def __init__(self, index, action, reason):
        super().__init__(reason)
        self.index, self.action, self.reason = index, action, reason


def stamp(game):
    return f"{game.pk}:{game.created_at.timestamp():.6f}:{game.takebacks}"


def check_ply(game, ply):
    if not 0 <= ply <= game.ply_count:
        raise NoSuchPly(f"this game has plies 0 to {game.ply_count}, not {ply}")


def state_at(game, ply):
    """The engine state after the game's first `ply` actions."""
    check_ply(game, ply)
    return engine_states.state_at(game, ply, replay_states)


def position_json(game, ply, static=True):
    """The engine's to_dict() at `ply` as JSON text; without the board's static geometry
    (state.static_board_keys) when `static` is false, for a viewer that has it already."""
    check_ply(game, ply)
    key = f"archive:json:{stamp(game)}:{ply}:{int(static)}"
    text = cache.get(key)
    if text is None:
        text = dumps(state_at(game, ply).to_dict(static=static))
        cache.set(key, text, TIMEOUT)
    return text


def dumps(data):
    return json.dumps(data, separators=(",", ":"))


def parse_line(text):
    """The actions of an explored line, written as in records: comma-separated notation."""
    line = [action.strip() for action in (text or "").split(",") if action.strip()]
    if len(line) > MAX_EXPLORE:
        raise ValueError(f"an explored line has at most {MAX_EXPLORE} actions")
    return line


def explore(game, ply, line):
    """The state after the game's first `ply` actions and then the actions of `line`, each
    checked by the engine. Nothing is stored."""
    state = state_at(game, ply)
    for index, action in enumerate(line):
        try:
            state = state.play(action)
        except games.IllegalAction as reason:
            raise IllegalLine(index, action, str(reason)) from None
    return state
