"""Premoves: in a realtime game, a player queues their next turn while the opponent is to move,
and the server plays it the moment the turn passes to them (lichess's premove, kept by the
server rather than the browser, so a reconnect or a second tab still has it).

* Queued, cancelled and played as changes of the game (play.services.in_locked_game): under the
  game's row lock, in its lane (live.lanes), so a premove never races its owner's own move.
* Played right after the opponent's action, by play.services.play, in the same lane job and
  so before any other message of that game this process received meanwhile; each action goes
  through the same step as a person's move (services.do_play), so every rule and clock check is
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


import games
from live.sql import converted, converters, fetch, quote, table
from play import broadcast
from play.models import Game, Premove
from play.services import PlayError, do_play, game_over, in_locked_game, require_player, stale

PREMOVE_CHARGE_MS = 100
# The longest turn a premove may hold: Colorful's two stones, Copolymer's forced claims.
MAX_ACTIONS = 8


def queued_message(premove):
    return {"type": "premove", "ply": premove.ply, "actions": list(premove.actions)}


# -- the owner's messages ------------------------------------------------------------------------

def queue(game_id, user, ply, actions, now=None):
    return in_locked_game(game_id, user, do_queue_premove, ply, actions, now=now)


def cancel(game_id, user, now=None):
    return in_locked_game(game_id, user, do_cancel_premove, now=now)


def do_queue_premove(game, me, now, ply, actions):
    require_player(me)
    if not game.is_active:
        raise game_over(game)
    if not game.time_control.is_realtime:
        raise PlayError("not_realtime", "premoves are for realtime games: in a "
                        f"{game.time_control.kind} game, play your move when it is your turn")
    if ply != game.ply_count:
        raise stale(game)
    state = game.state()
    if state.person_to_move == me:
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
    game.mark_waiting("premove_waiting", True)
    broadcast.to_seat(game, me, queued_message(premove))
    return []


def do_cancel_premove(game, me, now):
    require_player(me)
    if game.premoves.filter(player=me).delete()[0]:
        game.mark_waiting("premove_waiting", game.premoves.exists())
        broadcast.to_seat(game, me, {"type": "premove_cleared", "reason": "cancelled"})
    return []


# -- after the opponent's action -----------------------------------------------------------------

def follow(game, after):
    """Play the premove of the player now to move, in the transaction that stored the
    opponent's action judged at `after` (services.do_play calls this while the game's row is
    locked, so nothing else of the game can come between). Every other premove of the game
    is dropped: its owner has just acted. Returns whether one was played.

    Two statements when one is played: the premoves taken (DELETE ... RETURNING) and the
    premove's action stored, which writes the game's flag with it."""
    queued = {premove.player: premove for premove in taken(game)}
    game.premove_waiting = False
    state = game.state()
    owner = None if state.is_over else state.person_to_move
    for player, premove in queued.items():
        if player != owner:
            _dropped(game, premove, PlayError("stale", "you acted yourself since queuing the "
                                                       "premove"))
    premove = queued.get(owner)
    now = after + timedelta(milliseconds=PREMOVE_CHARGE_MS)
    reason = None if premove is None else _why_not(game, owner, premove, state, now)
    if premove is None or reason is not None:
        Game.objects.filter(pk=game.pk).update(premove_waiting=False)
        if reason is not None:
            _dropped(game, premove, reason)
        return False
    for action in premove.actions:
        do_play(game, owner, now, game.ply_count, action)
    broadcast.to_seat(game, owner, {"type": "premove_cleared", "reason": "played",
                                    "actions": list(premove.actions)})
    return True


def drop_all(game, why):
    """Drop every premove of the game, their owners told `why` (a takeback)."""
    for premove in taken(game):
        _dropped(game, premove, PlayError("stale", why))
    game.premove_waiting = False
    Game.objects.filter(pk=game.pk).update(premove_waiting=False)


def taken(game):
    """The game's premoves, deleted: one statement."""
    meta = Premove._meta
    columns = [meta.get_field(name) for name in ("player", "ply", "takebacks", "actions")]
    sql = "DELETE FROM {} WHERE {} = %s RETURNING {}".format(
        table(Premove), quote(meta.get_field("game").column),
        ", ".join(quote(field.column) for field in columns))
    found = []
    for row in fetch(sql, [game.pk]):
        values = converted(row, converters(columns))
        found.append(Premove(game=game, **dict(zip(("player", "ply", "takebacks", "actions"),
                                                   values))))
    return found


def _dropped(game, premove, reason):
    broadcast.to_seat(game, premove.player, {
        "type": "premove_cleared", "reason": "dropped", "code": reason.code,
        "message": reason.message, "actions": list(premove.actions)})


def _why_not(game, owner, premove, state, now):
    """A PlayError saying why `premove` cannot be played `now`, or None: the whole turn is
    checked on the engine before any of it is stored."""
    if premove.takebacks != game.takebacks:
        return PlayError("stale", "a takeback changed the position the premove was meant for")
    if game.remaining_at(now)[owner] <= 0:
        return PlayError("no_time", "your clock would run out before the premove")
    for number, action in enumerate(premove.actions, 1):
        if state.is_over or state.person_to_move != owner:
            return PlayError("illegal", f"your turn ended before action {number} of the "
                             "premove")
        try:
            state = state.play(action)
        except games.IllegalAction as reason:
            return PlayError("illegal", f"premove {action}: {reason}")
    return None
