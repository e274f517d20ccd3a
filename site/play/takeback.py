"""Takebacks, as lichess has them: a player proposes to take back their last turn, the opponent
accepts or declines.

* It is the opponent's turn: the proposer's last turn is taken back. The opponent has replied
  already (it is the proposer's turn again): the reply goes too, so that it is the proposer's
  turn again. In every case the game goes back to the first ply of the proposer's last turn.
  A turn is every action its player made in a row (Copolymer's forced claims, Colorful's two
  stones; Tripen's swap is a turn of its own): the engine says who was to move at each ply.
* Only with the opponent's consent, only while the game is active, not before the proposer
  has made a turn, one proposal at a time. A proposal refers to the ply it was made at and
  lapses when anything happens to the game: an action, an ending (play.services,
  play.endings), a decline.
* Storage: the taken-back action rows are deleted (the history is what was played in the
  end) and the game's takeback counter is bumped, which is part of every position cache's
  key (play.positions, archive.positions, the Watch thumbnails): no process serves a
  taken-back position afterwards. Clocks go back to what they were when the proposer's turn
  began, and the turn starts again at the acceptance (correspondence: a fresh deadline).

Every step runs like a move: in the game's lane, under its row lock
(play.services.in_locked_game), judged at the moment its message was received.
"""
from django.db import transaction

from play import broadcast, positions, statements
from play.clock import clock_history
from play.models import Action
from play.services import PlayError, game_over, in_locked_game, require_player, stale
from play.signals import not_allowed
from play.snapshots import clocks_of

# What a takeback changes on the game row.
TAKEBACK_FIELDS = ["ply_count", "swapped", "both_moved", "remaining0_ms", "remaining1_ms",
                   "turn_started_at", "takeback_offer", "takebacks", "updated_at"]


def propose(game_id, user, ply, now=None):
    """Propose to take back the sender's last turn, the game being at `ply`."""
    return in_locked_game(game_id, user, do_propose_takeback, ply, now=now)


def accept(game_id, user, ply, now=None):
    """Accept the opponent's proposal, the game being at `ply`."""
    return in_locked_game(game_id, user, do_accept_takeback, ply, now=now)


def decline(game_id, user, now=None):
    """Decline the opponent's proposal, or withdraw one's own."""
    return in_locked_game(game_id, user, do_decline_takeback, now=now)


# -- the rules ---------------------------------------------------------------------------------

def movers_of(game):
    """The player who made each stored action, from the engine: who was to move at each ply
    (through Tripen's swap, which changes which player plays a side)."""
    state = game.engine.new(**game.options)
    movers = []
    for action in game.action_list():
        movers.append(state.person_to_move)
        state = state.play(action)
    return movers


def turn_start(movers, player):
    """The first ply of `player`'s last turn (None: they have made none). Everything after it,
    the opponent's reply included, goes with it."""
    last = None
    for ply in range(len(movers) - 1, -1, -1):
        if movers[ply] == player:
            last = ply
        elif last is not None:
            break
    return last


def check_takeback(game, me, ply):
    """The ply a takeback proposed by `me` at `ply` goes back to, or the refusal."""
    require_player(me)
    if not game.is_active:
        raise game_over(game)
    if ply != game.ply_count:
        raise stale(game)
    if reason := not_allowed(game, "takeback"):
        raise PlayError("not_allowed", reason)
    back_to = turn_start(movers_of(game), me)
    if back_to is None:
        raise PlayError("not_allowed", "you have made no turn to take back yet")
    return back_to


# -- the steps ---------------------------------------------------------------------------------

def do_propose_takeback(game, me, now, ply):
    back_to = check_takeback(game, me, ply)
    if game.takeback_offer == me:
        # Already standing (a resend, a second tab): a reminder to the sender alone.
        return [offered(game, me, back_to)]
    if game.takeback_offer is not None:
        raise PlayError("not_allowed", f"{game.username(game.takeback_offer)} has proposed a "
                        "takeback: accept or decline it first")
    game.takeback_offer = me
    statements.update_game(game, ["takeback_offer"])
    broadcast.to_game(game, offered(game, me, back_to))
    return []


def do_accept_takeback(game, me, now, ply):
    require_player(me)
    if not game.is_active:
        raise game_over(game)
    # The ply first: a second acceptance, or one that raced a move, refers to a position
    # that is gone, whatever has been proposed since.
    if ply != game.ply_count:
        raise stale(game)
    proposer = game.takeback_offer
    if proposer is None:
        raise PlayError("not_allowed", "there is no takeback proposal to accept")
    if proposer == me:
        raise PlayError("not_allowed", "your own takeback proposal needs your opponent's consent")
    do_take_back(game, proposer, me, now)
    return []


def do_decline_takeback(game, me, now):
    require_player(me)
    proposer = game.takeback_offer
    if proposer is None:
        raise PlayError("not_allowed", "there is no takeback proposal to decline")
    game.takeback_offer = None
    statements.update_game(game, ["takeback_offer"])
    broadcast.to_game(game, {"type": "takeback_declined", "by": me, "proposed_by": proposer,
                             "ply": game.ply_count})
    return []


def do_take_back(game, proposer, accepted_by, now):
    """Take the game back to the start of the proposer's last turn, in the caller's locked
    transaction, and tell everyone."""
    movers = movers_of(game)
    back_to = turn_start(movers, proposer)
    from_ply = game.ply_count
    # Read before the counter moves: the history up to `back_to` is unchanged, so the
    # positions cached for it under the old counter are right.
    state = positions.state_at(game, back_to)
    left = clocks_before(game, back_to)
    Action.objects.filter(game=game, ply__gte=back_to).delete()
    game.takebacks += 1
    game.takeback_offer = None
    game.swapped = bool(state.swapped)
    # Abort and the first-move limit hang on this: player1's every action may be gone.
    game.both_moved = 1 in movers[:back_to]
    tc = game.time_control
    if tc.is_realtime:
        game.remaining_ms = left
    # The turn starts again now: the time spent on the taken-back actions is given back, and
    # a correspondence turn gets a fresh deadline.
    game.turn_started_at = now if tc.is_realtime or tc.is_correspondence else None
    game.take_position(state)
    if game.premove_waiting:
        from play import premoves

        premoves.drop_all(game, "a takeback changed the position the premove was meant for")
    if game.conditions_waiting:
        from play import conditionals

        conditionals.drop_all(game, "a takeback changed the position the lines were for")
    statements.update_game(game, TAKEBACK_FIELDS)
    full = state.to_dict()
    transaction.on_commit(lambda: positions.remember(game, state, full))
    notify_taken_back(game, state, full, proposer, accepted_by, from_ply, now)


def clocks_before(game, ply):
    """Realtime: each player's time left when the turn beginning at `ply` began."""
    if not game.time_control.is_realtime:
        return None
    if ply == 0:
        start = game.time_control.start_ms
        return [start, start]
    row = game.action_rows.filter(ply=ply - 1).values_list(
        "remaining0_ms", "remaining1_ms").get()
    if row[0] is not None:
        return list(row)
    # An action stored before the rows carried the clocks: the arithmetic over the rows' times.
    return clock_history(game)[ply]


# -- the news ----------------------------------------------------------------------------------

def offered(game, proposer, back_to):
    return {"type": "takeback_offered", "by": proposer, "ply": game.ply_count,
            "back_to": back_to}


def notify_taken_back(game, state, full, proposer, accepted_by, from_ply, now):
    broadcast.to_game(game, {
        "type": "taken_back", "ply": state.ply, "from_ply": from_ply, "by": proposer,
        "accepted_by": accepted_by, "takebacks": game.takebacks, "swapped": game.swapped,
        "state": positions.lean(state, full), "clocks": clocks_of(game, now)},
        rewound=True)
    # Watch rows and the players' `turn` news follow; no "opponent moved" mail.
    broadcast.announce(game, "taken_back")

