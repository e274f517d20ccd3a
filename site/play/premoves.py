"""Premoves: in a realtime game, a player queues their next turn while the opponent is to move,
and the server plays it the moment the turn passes to them (lichess's premove, kept by the
server rather than the browser, so a reconnect or a second tab still has it).

* Queued, cancelled and played as changes of the game (play.services.change): under the
  game's row lock, in its lane (live.lanes), so a premove never races its owner's own move.
* Played right after the opponent's action, by play.services.play, in the same lane job and
  so before any other message of that game this process received meanwhile; each action goes
  through the same step as a person's move (services._play), so every rule and clock check is
  the same. A whole turn of several actions (Colorful's two stones, Copolymer's claims) is
  checked on the engine first and played whole or not at all.
* Charged at most PREMOVE_CHARGE_MS of thinking time: it is judged that long after the moment
  the opponent's action was judged (lichess charges a premove a fixed small amount too).
* Dropped, with the reason told to its owner alone, when it is no longer legal, when a
  takeback changed the position it was meant for, or when the owner acted meanwhile.

What the owner hears (their sockets only, through the game group's per-seat news):
`premove` (queued, also in the owner's snapshot), `premove_cleared` with a `reason`
(played, cancelled, dropped + code and message). See docs/protocol.md.
"""
from datetime import timedelta

from django.db import transaction

import games
from play import broadcast
from play.models import Premove
from play.services import PlayError, _play, change, game_over, require_player, stale

PREMOVE_CHARGE_MS = 100
# The longest turn a premove may hold: Colorful's two stones, Copolymer's forced claims.
MAX_ACTIONS = 8


def _tell_owner(game, player, message):
    transaction.on_commit(lambda: broadcast.now_to_seat(game.pk, player, message))


def queued_message(premove):
    return {"type": "premove", "ply": premove.ply, "actions": list(premove.actions)}


# -- the owner's messages ------------------------------------------------------------------------

def queue(game_id, user, ply, actions, now=None):
    return change(game_id, user, _queue, ply, actions, now=now)


def cancel(game_id, user, now=None):
    return change(game_id, user, _cancel, now=now)


def _queue(game, me, now, ply, actions):
    require_player(me)
    if not game.is_active:
        raise game_over(game)
    if not game.time_control.is_realtime:
        raise PlayError("not_realtime", "premoves are for realtime games: in a "
                        f"{game.time_control.kind} game, play your move when it is your turn")
    if ply != game.ply_count:
        raise stale(game)
    state = game.state()
    if game.player_of(state.to_move) == me:
        raise PlayError("your_turn", "it is your turn: play the move itself, not a premove")
    if not 0 < len(actions) <= MAX_ACTIONS:
        raise PlayError("illegal", f"a premove is 1 to {MAX_ACTIONS} actions")
    canonical = []
    for action in actions:
        try:
            canonical.append(state.parse_action(action))
        except games.IllegalAction as reason:
            raise PlayError("illegal", str(reason))
    premove, _ = Premove.objects.update_or_create(
        game=game, player=me,
        defaults={"ply": ply, "takebacks": game.takebacks, "actions": canonical})
    _tell_owner(game, me, queued_message(premove))
    return []


def _cancel(game, me, now):
    require_player(me)
    if game.premoves.filter(player=me).delete()[0]:
        _tell_owner(game, me, {"type": "premove_cleared", "reason": "cancelled"})
    return []


# -- after the opponent's action -----------------------------------------------------------------

def follow(game_id, after):
    """Play the premove of the player now to move in `game_id`, if any: called once an action
    judged at `after` is stored. Returns whether one was played."""
    if not Premove.objects.filter(game_id=game_id).exists():
        return False
    return change(game_id, None, _follow,
                  now=after + timedelta(milliseconds=PREMOVE_CHARGE_MS))


def _follow(game, _nobody, now):
    if not game.is_active:
        game.premoves.all().delete()
        return False
    state = game.state()
    owner = game.player_of(state.to_move)
    premove = game.premoves.filter(player=owner).first()
    if premove is None:
        return False
    premove.delete()
    reason = _why_not(game, owner, premove, state)
    if reason is not None:
        _tell_owner(game, owner, {"type": "premove_cleared", "reason": "dropped",
                                  "code": reason.code, "message": reason.message,
                                  "actions": list(premove.actions)})
        return False
    for action in premove.actions:
        _play(game, owner, now, game.ply_count, action)
    _tell_owner(game, owner, {"type": "premove_cleared", "reason": "played",
                              "actions": list(premove.actions)})
    return True


def _why_not(game, owner, premove, state):
    """A PlayError saying why `premove` cannot be played now, or None: the whole turn is
    checked on the engine before any of it is stored."""
    if premove.takebacks != game.takebacks:
        return PlayError("stale", "a takeback changed the position the premove was meant for")
    if game.action_rows.filter(ply__gte=premove.ply, player=owner).exists():
        return PlayError("stale", "you acted yourself since queuing the premove")
    for number, action in enumerate(premove.actions, 1):
        if state.is_over or game.player_of(state.to_move) != owner:
            return PlayError("illegal", f"your turn ended before action {number} of the "
                             "premove")
        try:
            state = state.play(action)
        except games.IllegalAction as reason:
            return PlayError("illegal", f"premove {action}: {reason}")
    return None
