"""What can happen to a game, as plain synchronous functions: start it, read it, act on it.

The websocket consumer, the views and the management command all come here; the consumer
runs these through database_sync_to_async. Every change happens in one transaction holding a
row lock on the game (SELECT ... FOR UPDATE on PostgreSQL), with the unique (game, ply)
constraint on actions as the last line of defence, so two server processes can never apply
the same ply twice. Broadcasts to the game's group, the signals and the "games" group event
are sent only once the transaction has committed (play.broadcast).

Refusals raise PlayError(code, message) and change nothing, with one exception on purpose:
a clock that has run out ends the game even when the message that noticed it is refused.

Around this module: play.snapshots (what clients are told), play.presence (who is on the
page), play.endings (results and the clock's verdict), play.rematch (after the end).
"""
from django.db import IntegrityError, transaction
from django.utils import timezone

import games
from play import broadcast, positions, presence
from play.clock import after_action
from play.endings import end_if_flagged, finish, played_out_text, save_end, winner_of
from play.models import Action, Game
from play.snapshots import clocks_of, load, result_of, snapshot


class PlayError(Exception):
    """A refused message: `code` from the protocol, `message` for a person. With `snapshot`
    the sender also gets a fresh snapshot (its view of the game is out of date)."""

    def __init__(self, code, message, snapshot=False):
        super().__init__(message)
        self.code, self.message, self.snapshot = code, message, snapshot


# -- starting ----------------------------------------------------------------------------------

def start_game(*, game, options, players, time_control, rematch_of=None, rated=False):
    """A new active game; players[0] moves first (side 0); `rated`: its result changes the
    players' ratings. ValueError for bad options, time control or players."""
    engine = games.get(game)
    if not isinstance(options, dict):
        raise ValueError("options are a mapping of option name to value")
    options = engine.normalize_options(**options)
    time_control.validate()
    first, second = players
    if first.pk == second.pk:
        raise ValueError("a game needs two different players")
    with transaction.atomic():
        record = Game.objects.create(
            game=engine.name, options=options, player0=first, player1=second,
            time_kind=time_control.kind, minutes=time_control.minutes,
            increment=time_control.increment, days=time_control.days,
            remaining0_ms=time_control.start_ms, remaining1_ms=time_control.start_ms,
            rematch_of=rematch_of, rated=rated,
        )
        if time_control.kind != "untimed":
            # The first player's clock runs from the start: a player who never shows up
            # loses on time (or the opponent aborts) instead of blocking the game forever.
            record.turn_started_at = record.created_at
            record.save(update_fields=["turn_started_at"])
        broadcast.announce(record, "started")
    return record


# -- reading -----------------------------------------------------------------------------------

def current(game_id, user=None):
    """The game's snapshot for `user`, after ending it if a clock has run out (page loads,
    reconnects and snapshot requests notice time running out too)."""
    return current_game(game_id, user)[1]


def current_game(game_id, user=None):
    """(game, snapshot), as `current`."""
    game = noticed(load(game_id))
    return game, snapshot(game, user)


def join(game_id, channel_name, user):
    """A socket opened on the game page: count it and return the snapshot it starts from."""
    game = noticed(load(game_id))
    here = presence.arrive(game, channel_name, user)
    return snapshot(game, user, presence=here)


def noticed(game):
    """`game`, or the game as it stands once ended, if its clock has run out."""
    if game.flag_fell(timezone.now()) is None:
        return game
    check_clock(game.pk)
    return load(game.pk)


# -- changing ----------------------------------------------------------------------------------

def change(game_id, user, step, *args):
    """Lock the game, end it if a clock has run out, then run `step(game, player index of
    user, now, *args)`, which returns the messages for the sender alone. A PlayError from the
    step rolls back the step's own savepoint only, so a flag that fell still counts."""
    failure = None
    with transaction.atomic():
        game = Game.objects.locked().get(pk=game_id)
        now = timezone.now()
        end_if_flagged(game, now)
        try:
            with transaction.atomic():
                return step(game, game.player_index(user), now, *args)
        except PlayError as error:
            failure = error
        except IntegrityError:
            # Only reachable without row locks (SQLite shared by several processes): the
            # unique (game, ply) constraint caught a racing insert.
            failure = PlayError("stale", "another action was stored for this ply first",
                                snapshot=True)
    raise failure


def play(game_id, user, ply, action):
    """Make `action` at `ply`. Returns the messages for the sender alone (a `repeat`); the
    action itself is broadcast to the group."""
    return change(game_id, user, _play, ply, action)


def resign(game_id, user, ply):
    return change(game_id, user, _resign, ply)


def abort(game_id, user, ply):
    return change(game_id, user, _abort, ply)


def check_clock(game_id):
    """End the game if the running clock has run out. Returns when the running clock will run
    out (None: no clock runs), for the caller's timer. Idempotent: the game ends once."""
    with transaction.atomic():
        game = Game.objects.locked().get(pk=game_id)
        end_if_flagged(game, timezone.now())
        return game.expires_at()


# -- refusals ----------------------------------------------------------------------------------

def require_player(me):
    if me is None:
        raise PlayError("not_a_player", "only the two players can act in this game")


def stale(game):
    return PlayError("stale", f"the game is at ply {game.ply_count}: here is the position",
                     snapshot=True)


def game_over(game):
    return PlayError("game_over", f"the game is over: {game.result_text}")


# -- the steps ---------------------------------------------------------------------------------

def _play(game, me, now, ply, action):
    require_player(me)
    state = game.state()
    if ply < game.ply_count:
        return _repeat_or_stale(game, me, ply, state, action)
    if ply > game.ply_count:
        raise stale(game)
    if not game.is_active:
        raise game_over(game)
    mover = game.player_of(state.to_move)
    if mover != me:
        raise PlayError("not_your_turn", f"it is {game.username(mover)}'s turn")
    try:
        after = state.play(action)
    except games.IllegalAction as reason:
        raise PlayError("illegal", str(reason))
    canonical = after.actions[-1]
    Action.objects.create(game=game, ply=ply, action=canonical, player=me)
    game.swapped = bool(getattr(after, "swapped", False))
    next_player = None if after.is_over else game.player_of(after.to_move)
    remaining, game.turn_started_at = after_action(
        game.time_control, game.remaining_ms, me, next_player, game.turn_started_at, now)
    if remaining is not None:
        game.remaining_ms = remaining
    game.take_position(after)
    if after.is_over:
        finish(game, now, winner_of(game, after), "normal", played_out_text(game, after))
    game.save()
    # The process-wide caches learn the new position only if it is really stored.
    full = after.to_dict()
    transaction.on_commit(lambda: positions.remember(game, after, full))
    broadcast.to_game(game.pk, {
        "type": "action", "ply": ply, "action": canonical, "player": me,
        "swapped": game.swapped, "state": positions.lean(after, full),
        "clocks": clocks_of(game, now), "result": result_of(game)})
    broadcast.announce(game, "action", ply=ply)
    if after.is_over:
        broadcast.announce(game, "ended")
    return []


def _repeat_or_stale(game, me, ply, state, action):
    row = game.action_rows.filter(ply=ply).first()
    try:
        canonical = state.parse_action(action)
    except games.IllegalAction:
        canonical = action
    if row is not None and row.player == me and row.action == canonical:
        return [{"type": "repeat", "ply": ply, "action": row.action}]
    raise stale(game)


def _resign(game, me, now, ply):
    require_player(me)
    if not game.is_active:
        if game.reason == "resign" and game.winner == 1 - me and ply == game.ply_count:
            return [{"type": "repeat", "ply": ply, "action": "resign"}]
        raise game_over(game)
    if ply != game.ply_count:
        raise stale(game)
    winner = 1 - me
    finish(game, now, winner, "resign",
           f"{game.username(me)} resigned — {game.username(winner)} wins")
    save_end(game, now)
    return []


def _abort(game, me, now, ply):
    require_player(me)
    if not game.is_active:
        if game.reason == "abort" and ply == game.ply_count:
            return [{"type": "repeat", "ply": ply, "action": "abort"}]
        raise game_over(game)
    if ply != game.ply_count:
        raise stale(game)
    # players[0] always acts first, so both have acted once players[1] has.
    if game.action_rows.filter(player=1).exists():
        raise PlayError("not_allowed", "both players have moved: the game can no longer be "
                        "aborted (resign instead)")
    finish(game, now, None, "abort", f"Aborted by {game.username(me)}")
    save_end(game, now)
    return []
