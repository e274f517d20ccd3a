"""Berserk, as lichess's arenas have it: a player halves their own clock at the start of a
game, before their first action, and gets no increment for the rest of it (Game.berserk0/1,
read by play.clock.after_action), for what the game's event gives for it (a tournament arena:
one more point for a win after enough actions; tournaments.formats.arena).

play knows only the clock. Whether a game offers berserk is the event's word, asked through
play.signals.berserk inside the game's locked transaction: a receiver that offers it records
the choice and answers True, or raises PlayError with its reason (twice); no answer: not
offered. Runs like a move: in the game's lane, under its row lock (play.services.in_locked_game).
"""
from play import broadcast, statements
from play.services import PlayError, game_over, in_locked_game, require_player, stale
from play.signals import berserk as berserk_signal
from play.snapshots import clocks_of
from play.takeback import movers_of


def go_berserk(game_id, user, ply, now=None):
    """Halve the sender's own clock, the game being at `ply`."""
    return in_locked_game(game_id, user, do_berserk, ply, now=now)


def do_berserk(game, me, now, ply):
    require_player(me)
    if not game.is_active:
        raise game_over(game)
    if ply != game.ply_count:
        raise stale(game)
    if not game.time_control.is_realtime:
        raise PlayError("not_allowed", "berserk halves a real-time clock: this game has none")
    if me in movers_of(game):
        raise PlayError("not_allowed", "berserk is only before your first action")
    # The event records the choice; a refusal below rolls it back with everything else.
    answers = berserk_signal.send(sender=type(game), game=game, player=me)
    if not any(answer for _, answer in answers):
        raise PlayError("not_allowed", "berserk is offered in arena games only")
    half = game.time_control.start_ms // 2
    left = list(game.remaining_ms)
    if game.remaining_at(now)[me] - half <= 0:
        raise PlayError("not_allowed", "less than half your time is left: too late to go berserk")
    left[me] -= half
    game.remaining_ms = left
    field = ("berserk0", "berserk1")[me]
    setattr(game, field, True)
    statements.update_game(game, ["remaining0_ms", "remaining1_ms", field, "updated_at"])
    broadcast.to_game(game, {"type": "berserk", "player": me, "ply": game.ply_count,
                             "clocks": clocks_of(game, now)})
    return []
