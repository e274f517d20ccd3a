"""What can happen to a game, as plain synchronous functions.

The websocket consumer, the views and the management command all come here; the consumer
runs these through database_sync_to_async. Every change happens in one transaction holding a
row lock on the game (SELECT ... FOR UPDATE on PostgreSQL), with the unique (game, ply)
constraint on actions as the last line of defence, so two server processes can never apply
the same ply twice. Broadcasts to the game's group, the signals and the "games" group event
are sent only once the transaction has committed.

Refusals raise PlayError(code, message) and change nothing, with one exception on purpose:
a clock that has run out ends the game even when the message that noticed it is refused.
"""
import logging
from datetime import timedelta

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import IntegrityError, transaction
from django.db.models import Count, Q
from django.utils import timezone

import games
from play import positions, signals
from play.clock import after_action
from play.models import Action, Connection, Game

logger = logging.getLogger(__name__)

# A connection row counts for presence while its socket refreshes it (consumers do every
# HEARTBEAT seconds); rows of a server process that died stop counting after STALE_AFTER.
HEARTBEAT = timedelta(seconds=30)
STALE_AFTER = timedelta(seconds=90)


class PlayError(Exception):
    """A refused message: `code` from the protocol, `message` for a person. With `snapshot`
    the sender also gets a fresh snapshot (its view of the game is out of date)."""

    def __init__(self, code, message, snapshot=False):
        super().__init__(message)
        self.code, self.message, self.snapshot = code, message, snapshot


def group_name(game_id):
    return f"game-{game_id}"


def iso(moment):
    return moment.isoformat() if moment is not None else None


# -- starting ----------------------------------------------------------------------------------

def start_game(*, game, options, players, time_control, rematch_of=None):
    """A new active game; players[0] moves first (side 0). ValueError for bad options, time
    control or players."""
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
            rematch_of=rematch_of,
        )
        if time_control.kind != "untimed":
            # The first player's clock runs from the start: a player who never shows up
            # loses on time (or the opponent aborts) instead of blocking the game forever.
            record.turn_started_at = record.created_at
            record.save(update_fields=["turn_started_at"])
        _announce(record, "started")
    return record


# -- reading -----------------------------------------------------------------------------------

MAX_ID = 2**63 - 1  # ids are 64-bit: a longer number in a URL is no game, not a crash


def exists(game_id):
    return 0 < game_id <= MAX_ID and Game.objects.filter(pk=game_id).exists()


def load(game_id):
    if not 0 < game_id <= MAX_ID:
        raise Game.DoesNotExist(f"no game {game_id}")
    return Game.objects.select_related("player0", "player1").get(pk=game_id)


def result_of(game):
    if game.is_active:
        return None
    return {"winner": game.winner, "reason": game.reason, "text": game.result_text}


def clocks_of(game, now):
    tc = game.time_control
    return {
        "remaining_ms": game.remaining_at(now) if tc.is_realtime else None,
        "running": game.running,
        "deadline": iso(game.deadline),
        "turn_started_at": iso(game.turn_started_at if game.running is not None else None),
        "server_time": iso(now),
    }


def presence_of(game, now=None):
    """Open sockets on the game in every server process: counted in the database, not read."""
    now = now or timezone.now()
    counts = Connection.objects.filter(game=game, seen_at__gte=now - STALE_AFTER).aggregate(
        sockets=Count("pk"),
        first=Count("pk", filter=Q(user_id=game.player0_id)),
        second=Count("pk", filter=Q(user_id=game.player1_id)),
    )
    return {
        "players_online": [counts["first"] > 0, counts["second"] > 0],
        "watchers": counts["sockets"] - counts["first"] - counts["second"],
    }


def rematch_of_game(game):
    # Only an ended game can have a rematch: spare live games the query.
    follow_up = None if game.is_active else game.rematches.order_by("pk").first()
    return {"offered_by": game.rematch_offer,
            "url": follow_up.get_absolute_url() if follow_up else None}


def snapshot(game, user=None, now=None):
    """Everything a client needs to draw the game from scratch."""
    now = now or timezone.now()
    state = game.state()
    presence = presence_of(game, now)
    return {
        "id": game.pk,
        "url": game.get_absolute_url(),
        "game": game.game,
        "title": game.title,
        "options": game.options,
        "players": [
            {"username": player.get_username(), "side": game.side_of(index),
             "online": presence["players_online"][index]}
            for index, player in enumerate(game.players())
        ],
        "swapped": game.swapped,
        "you": game.player_index(user),
        "time_control": game.time_control.to_dict(),
        "clocks": clocks_of(game, now),
        "status": game.status,
        "result": result_of(game),
        "actions": list(state.actions),
        "state": positions.state_dict(game, state),
        "presence": presence,
        "rematch": rematch_of_game(game),
    }


def current(game_id, user=None):
    """The game's snapshot for `user`, after ending it if a clock has run out (page loads,
    reconnects and snapshot requests notice time running out too)."""
    return current_game(game_id, user)[1]


def current_game(game_id, user=None):
    """(game, snapshot), as `current`."""
    game = load(game_id)
    if game.flag_fell(timezone.now()) is not None:
        check_clock(game_id)
        game = load(game_id)
    return game, snapshot(game, user)


# -- changing ----------------------------------------------------------------------------------

def _run(game_id, user, step, *args):
    """Lock the game, end it if a clock has run out, then run `step`. A PlayError from the step
    rolls back the step's own savepoint only, so a flag that fell still counts."""
    failure = None
    with transaction.atomic():
        game = (Game.objects.select_for_update(of=("self",))
                .select_related("player0", "player1").get(pk=game_id))
        now = timezone.now()
        _end_if_flagged(game, now)
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
    return _run(game_id, user, _play, ply, action)


def resign(game_id, user, ply):
    return _run(game_id, user, _resign, ply)


def abort(game_id, user, ply):
    return _run(game_id, user, _abort, ply)


def offer_rematch(game_id, user):
    return _run(game_id, user, _rematch)


def decline_rematch(game_id, user):
    return _run(game_id, user, _decline)


def check_clock(game_id):
    """End the game if the running clock has run out. Returns when the running clock will run
    out (None: no clock runs), for the caller's timer. Idempotent: the game ends once."""
    with transaction.atomic():
        game = Game.objects.select_for_update(of=("self",)).select_related(
            "player0", "player1").get(pk=game_id)
        _end_if_flagged(game, timezone.now())
        return game.expires_at()


def _player_required(me):
    if me is None:
        raise PlayError("not_a_player", "only the two players can act in this game")


def _name(game, index):
    return game.players()[index].get_username()


def _stale(game):
    return PlayError("stale", f"the game is at ply {game.ply_count}: here is the position",
                     snapshot=True)


def _game_over(game):
    return PlayError("game_over", f"the game is over: {game.result_text}")


def _play(game, me, now, ply, action):
    _player_required(me)
    state = game.state()
    if ply < game.ply_count:
        return _repeat_or_stale(game, me, ply, state, action)
    if ply > game.ply_count:
        raise _stale(game)
    if not game.is_active:
        raise _game_over(game)
    mover = game.player_of(state.to_move)
    if mover != me:
        raise PlayError("not_your_turn", f"it is {_name(game, mover)}'s turn")
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
        _finish(game, now, _winner_of(game, after), "normal", _normal_text(game, after))
    game.save()
    # The process-wide caches learn the new position only if it is really stored.
    full = after.to_dict()
    transaction.on_commit(lambda: positions.remember(game, after, full))
    message = {"type": "action", "ply": ply, "action": canonical, "player": me,
               "swapped": game.swapped, "state": positions.lean(full),
               "clocks": clocks_of(game, now), "result": result_of(game)}
    _broadcast(game.pk, message)
    _announce(game, "action", ply=ply)
    if after.is_over:
        _announce(game, "ended")
    return []


def _repeat_or_stale(game, me, ply, state, action):
    row = game.action_rows.filter(ply=ply).first()
    try:
        canonical = state.parse_action(action)
    except games.IllegalAction:
        canonical = action
    if row is not None and row.player == me and row.action == canonical:
        return [{"type": "repeat", "ply": ply, "action": row.action}]
    raise _stale(game)


def _winner_of(game, state):
    return None if state.winner is None else game.player_of(state.winner)


def _normal_text(game, state):
    winner = _winner_of(game, state)
    engine_text = state.result_text()
    if winner is None:
        return engine_text
    return f"{_name(game, winner)} wins — {engine_text}"


def _resign(game, me, now, ply):
    _player_required(me)
    if not game.is_active:
        if game.reason == "resign" and game.winner == 1 - me and ply == game.ply_count:
            return [{"type": "repeat", "ply": ply, "action": "resign"}]
        raise _game_over(game)
    if ply != game.ply_count:
        raise _stale(game)
    winner = 1 - me
    _finish(game, now, winner, "resign",
            f"{_name(game, me)} resigned — {_name(game, winner)} wins")
    _save_end(game, now)
    return []


def _abort(game, me, now, ply):
    _player_required(me)
    if not game.is_active:
        if game.reason == "abort" and ply == game.ply_count:
            return [{"type": "repeat", "ply": ply, "action": "abort"}]
        raise _game_over(game)
    if ply != game.ply_count:
        raise _stale(game)
    # players[0] always acts first, so both have acted once players[1] has.
    if game.action_rows.filter(player=1).exists():
        raise PlayError("not_allowed", "both players have moved: the game can no longer be "
                        "aborted (resign instead)")
    _finish(game, now, None, "abort", f"Aborted by {_name(game, me)}")
    _save_end(game, now)
    return []


def _rematch(game, me, now):
    _player_required(me)
    if game.is_active:
        raise PlayError("not_allowed", "a rematch can be offered once the game is over")
    follow_up = game.rematches.order_by("pk").first()
    if follow_up is not None:
        return [{"type": "rematch_started", "url": follow_up.get_absolute_url(),
                 "id": follow_up.pk}]
    if game.rematch_offer is None:
        game.rematch_offer = me
        game.save(update_fields=["rematch_offer", "updated_at"])
        _broadcast(game.pk, {"type": "rematch", "offered_by": me})
        return []
    if game.rematch_offer == me:
        return [{"type": "rematch", "offered_by": me}]  # already standing: just a reminder
    # The opponent offered: accept. Colours swap: the other player moves first this time.
    follow_up = start_game(game=game.game, options=game.options,
                           players=(game.player1, game.player0),
                           time_control=game.time_control, rematch_of=game)
    game.rematch_offer = None
    game.save(update_fields=["rematch_offer", "updated_at"])
    _broadcast(game.pk, {"type": "rematch_started", "url": follow_up.get_absolute_url(),
                         "id": follow_up.pk})
    return []


def _decline(game, me, now):
    _player_required(me)
    if game.rematch_offer is None:
        raise PlayError("not_allowed", "there is no rematch offer to decline")
    game.rematch_offer = None
    game.save(update_fields=["rematch_offer", "updated_at"])
    _broadcast(game.pk, {"type": "rematch", "offered_by": None})
    return []


def _end_if_flagged(game, now):
    loser = game.flag_fell(now)
    if loser is None:
        return False
    winner = 1 - loser
    how = "ran out of time" if game.time_control.is_realtime else "missed the move deadline"
    _finish(game, now, winner, "time", f"{_name(game, loser)} {how} — {_name(game, winner)} wins")
    _save_end(game, now)
    return True


def _finish(game, now, winner, reason, text):
    """Stop the clocks (charging the running player up to `now`) and record the result."""
    if game.time_control.is_realtime and game.running is not None:
        game.remaining_ms = game.remaining_at(now)
    game.turn_started_at = None
    game.status = Game.ABORTED if reason == "abort" else Game.FINISHED
    game.winner, game.reason, game.result_text = winner, reason, text[:200]
    game.finished_at = now


def _save_end(game, now):
    game.save()
    _broadcast(game.pk, {"type": "end", "result": result_of(game), "clocks": clocks_of(game, now),
                         "state": positions.live_dict(game, game.state())})
    _announce(game, "ended")


# -- presence ----------------------------------------------------------------------------------

def join(game_id, channel_name, user):
    """A socket opened on the game page: count it and return the snapshot it starts from."""
    user = user if getattr(user, "is_authenticated", False) else None
    game = load(game_id)
    Connection.objects.update_or_create(
        channel_name=channel_name, defaults={"game": game, "user": user, "seen_at": timezone.now()})
    _send_presence(game)
    return current(game_id, user)


def leave(game_id, channel_name):
    Connection.objects.filter(channel_name=channel_name).delete()
    game = Game.objects.filter(pk=game_id).first()
    if game is not None:
        _send_presence(game)


def still_here(channel_name):
    """Heartbeat of an open socket; also clears rows that no process refreshes any more."""
    now = timezone.now()
    Connection.objects.filter(channel_name=channel_name).update(seen_at=now)
    Connection.objects.filter(seen_at__lt=now - 10 * STALE_AFTER).delete()


def _send_presence(game):
    _send(group_name(game.pk), {"type": "game.event",
                                "message": {"type": "presence", **presence_of(game)}})


# -- telling everyone --------------------------------------------------------------------------

def _broadcast(game_id, message):
    """Send `message` to everyone on the game's page once the transaction commits."""
    event = {"type": "game.event", "message": message}
    transaction.on_commit(lambda: _send(group_name(game_id), event))


def _announce(game, event, **extra):
    signal = {"started": signals.game_started, "action": signals.action_played,
              "ended": signals.game_ended}[event]

    def tell():
        signal.send(sender=Game, game=game, **extra)
        _send(signals.GAMES_GROUP, {"type": "games.changed", "game_id": game.pk, "event": event})

    transaction.on_commit(tell)


def _send(group, event):
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        async_to_sync(layer.group_send)(group, event)
    except Exception:
        # The move is stored whatever happens to the notification; clients that miss it see
        # a gap in the plies and ask for a snapshot.
        logger.exception("could not send %s to group %s", event.get("type"), group)
