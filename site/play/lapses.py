"""How a game ends when nobody acts (docs/protocol.md, "When nobody acts"), as lichess does it:

* the running clock runs out (realtime) or the move deadline passes (correspondence): the
  player to move loses on time;
* a side's first move is not made in time: the game is aborted, not lost; in realtime the
  first move of each side is due FIRST_MOVE after its turn began (or sooner, if its clock runs
  out sooner), in correspondence by the turn's deadline;
* an untimed game nobody has touched for UNTIMED_IDLE ends without a result.

Plain functions of a game record and a moment, so the rules are testable without a server;
play.endings applies them, under the game's row lock.
"""
from datetime import timedelta

from django.conf import settings

from play.seats import opponent


def first_move_limit():
    return timedelta(seconds=settings.PLAY_FIRST_MOVE_SECONDS)


def untimed_idle():
    return timedelta(days=settings.PLAY_UNTIMED_IDLE_DAYS)


def claim_after():
    """How long a realtime player must be gone before the opponent may claim the win."""
    return timedelta(seconds=settings.PLAY_CLAIM_AFTER_SECONDS)


def lapses_at(game):
    """When `game` ends by itself unless someone acts; None once it is over."""
    if not game.is_active:
        return None
    tc = game.time_control
    if not tc.is_realtime and not tc.is_correspondence:
        return game.updated_at + untimed_idle()
    when = game.clock_expiry()
    if when is not None and tc.is_realtime and game.first_move_pending():
        when = min(when, game.turn_started_at + first_move_limit())
    return when


def lapse(game, now):
    """What ends `game` at `now` if it is due: None, or (reason, winner) with the reason
    "time" (the player to move loses), "no_start" (aborted) or "idle" (no result)."""
    when = lapses_at(game)
    if when is None or now < when:
        return None
    if not game.time_control.is_realtime and not game.time_control.is_correspondence:
        return ("idle", None)
    if game.first_move_pending():
        return ("no_start", None)
    return ("time", opponent(game.running))
