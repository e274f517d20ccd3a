"""What can happen to a game, as plain synchronous functions: start it, read it, act on it.

The websocket consumer runs these on the live path's database threads (live.lanes), in the
game's lane; the views, the sweeper and the management commands call them directly. Every
change happens in one transaction holding a row lock on the game (SELECT ... FOR UPDATE on
PostgreSQL; SQLite's IMMEDIATE transactions serialise writers), with the unique (game, ply)
constraint on actions as the last line of defence, so two server processes can never apply the
same ply twice. News goes out only once the transaction has committed (play.broadcast).

Time: a change is judged at `now`, the moment the server RECEIVED the message (the consumer
passes it), so the time a message waits in the server is never charged to the player; a
message received before the flag fell counts even if it is handled after.

A computer's clock (realtime) runs only while a worker thinks its move: when the turn passes
to a computer its clock stands (turn_started_at is null, nothing can lapse) until its answer
comes with the moment the worker picked the job up and the moment it answered (bots.moves);
it is charged the time between. The time its job waited in the queue is charged to nobody,
as the time a person's message waits in the server.

Steps are named by their role, as play.takeback and talk.services are: each message is a
`do_` step (do_play, do_resign, do_abort, do_claim_victory; play.rematch's do_offer_rematch,
play.premoves' do_queue_premove) that in_locked_game runs under the game's row lock.

Refusals raise PlayError(code, message) and change nothing, with one exception on purpose:
a game whose time was up ends even when the message that noticed it is refused. Reads
(current, the snapshots) never end a game: only a change, the room's timer or the sweeper
does, each in the game's lane (live.lanes).

Around this module: play.snapshots (what clients are told), play.presence (who is on the
page), play.endings (the one door for every ending), play.lapses (when nobody acts),
play.rematch (after the end).
"""
import contextvars
from datetime import datetime

from django.db import IntegrityError, transaction
from django.utils import timezone

import games
from live import sessions
from live.sockets import Refusal
from live.sql import create, update
from play import broadcast, lapses, positions, presence, statements
from play.clock import after_action, ms, restart_grace, server_gap
from play.endings import end_game, end_if_due, lapse_takeback, played_out_text, winner_of
from play.models import Game
from play.seats import PlayerIndex, opponent
from play.snapshots import clocks_of, load, result_of, snapshot

# What a move changes on the game row (one UPDATE).
MOVE_FIELDS = ["ply_count", "swapped", "both_moved", "remaining0_ms", "remaining1_ms",
               "turn_started_at", "updated_at", "premove_waiting", "conditions_waiting"]


class PlayError(Refusal):
    """A refused message: `code` from the protocol, `message` for a person. With `snapshot`
    the sender also gets a fresh snapshot (its view of the game is out of date)."""

    def __init__(self, code, message, snapshot=False):
        super().__init__(code, message)
        self.snapshot = snapshot


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
        record = Game(
            game=engine.name, options=options, player0=first, player1=second,
            time_kind=time_control.kind, minutes=time_control.minutes,
            increment=time_control.increment, days=time_control.days,
            remaining0_ms=time_control.start_ms, remaining1_ms=time_control.start_ms,
            rematch_of=rematch_of, rated=rated,
        )
        # What Game.objects.create() stores, in a statement written once (live.sql): Game's
        # save() brings its derived fields up to date first, and so does this.
        record.fields_to_save(None)
        create(record)
        # Nobody is on the game page yet.
        record.absent0_since = record.absent1_since = record.created_at
        fields = ["absent0_since", "absent1_since"]
        if time_control.kind != "untimed":
            # The first player's clock runs from the start: a player who never shows up does
            # not block the game (it is aborted, play.lapses).
            record.turn_started_at = clock_start(record, 0, record.created_at)
            fields.append("turn_started_at")
        # What save(update_fields=fields) writes, in a statement written once (live.sql):
        # an arena's turnover starts a dozen games a second on the writer.
        fields = record.fields_to_save(fields)
        update(Game, record.pk, **{field: getattr(record, field) for field in fields})
        broadcast.announce(record, "started")
    return record


# -- reading -----------------------------------------------------------------------------------

def snapshot_for(game_id, user=None):
    """The game's snapshot for `user`: a pure read, which never ends the game. One whose time
    is up shows its flag fallen (its clock at zero, `expires_at` past); the game's room
    (play.rooms, as soon as a socket holds it) or the sweeper ends it, in its lane."""
    return game_and_snapshot(game_id, user)[1]


def game_and_snapshot(game_id, user=None):
    """(game, snapshot), as `snapshot_for`."""
    game = load(game_id)
    return game, snapshot(game, user)


def acted_game(game_id, now=None):
    """What the one who just acted needs of the game (the HTTP API's answer to an action):
    what the socket's `action` message tells (the position without its static board data,
    the clocks, the result), with the game's id and status; one read of the game row, the
    position from the process's cache. Not the snapshot: no players, presence, chat or
    ratings."""
    return told_after(load(game_id), now)


def told_after(game, now=None):
    """acted_game() of a game already read."""
    now = now or timezone.now()
    return {"id": game.pk, "status": game.status,
            "state": positions.live_dict(game, game.state()),
            "clocks": clocks_of(game, now), "result": result_of(game)}


_locked = contextvars.ContextVar("play_locked_games", default=None)


def acted(service, game_id, user, *args, now=None):
    """Run the change `service(game_id, user, *args, now=now)` (play, resign, abort...) and
    return (its messages for the sender, acted_game() after it), the game as the change left
    it rather than read again: on the HTTP API's path that second read of the row was a
    tenth of an action's server CPU."""
    locked = []
    token = _locked.set(locked)
    try:
        messages = service(game_id, user, *args, now=now)
    finally:
        _locked.reset(token)
    # The game the change locked, changed and committed; read again only if none was.
    return messages, told_after(locked[-1] if locked else load(game_id))


def join(game_id, channel_name, user):
    """A socket opened on the game page: count it and return the snapshot it starts from.
    It writes presence rows only: a lapsed game is ended by the room, in the game's lane.
    The game socket does the same in two steps (arrive, then snapshot_for on a reader)."""
    game = load(game_id)
    presence.arrive(game, channel_name, user)
    return snapshot(game, user)


# Games read per statement by arrive() (SQLite takes at most 999 parameters in old builds).
ARRIVING_GAMES = 500


def arrive(arrivals):
    """Sockets that opened on game pages, counted together in one transaction: a restart's
    thousands of pages reconnecting at once are a few writer jobs (live.lanes.Gathered), not
    one each with a snapshot inside, so other games' moves queued on the writer wait for a
    few. `arrivals`: (game id, channel name, user) each; returns the channel names counted (a
    socket on a game that does not exist is not). Each socket then reads its snapshot on a
    reader (snapshot_for), where its own row already counts. Presence rows only, as join()."""
    ids = list({game_id for game_id, _, _ in arrivals})
    found = {}
    for start in range(0, len(ids), ARRIVING_GAMES):
        # What arriving needs of a game: its players, and since when each has been away.
        found.update(statements.arriving(ids[start:start + ARRIVING_GAMES]))
    # In the games' order: a player's arrival may UPDATE the game's row (absent no more), and
    # two such jobs on two writer threads (or processes) that took the same games' rows in
    # different orders would deadlock.
    counting = [(found[game_id], channel_name, user)
                for game_id, channel_name, user in sorted(arrivals, key=lambda arrival: arrival[0])
                if game_id in found]
    with transaction.atomic():
        presence.arrive_all(counting)
    return {channel_name for _, channel_name, _ in counting}


# -- a restart's gap ---------------------------------------------------------------------------

def closed_for_restart(seats, closing, now=None):
    """A stopping server process is about to close these players' sockets (close code 4012,
    ops.draining): `seats`, (game id, player index) each. Notes the moment on each realtime
    game in progress, so that the player is not charged for the time until their page is
    back on another process (back_after_restart). One transaction, the games' rows locked in
    their order (as arrive()). The moment is the server's, taken before the sockets close.

    Only a player who is really away is noted: one with a page on the game that stays open
    (a row of the presence ledger that counts and is not one of `closing`, the channel names
    of the sockets the stop closes: a second tab on another process) could play on there, and
    is charged as ever."""
    now = now or timezone.now()
    with transaction.atomic():
        away = []
        for game_id, seat in sorted(set(seats)):
            try:
                game = statements.game(game_id, lock=True)
            except Game.DoesNotExist:
                continue
            if game.is_active and game.time_control.is_realtime:
                away.append((game, seat))
        staying = presence.players_staying(away, set(closing), now)
        for game, seat in away:
            if (game.pk, seat) in staying:
                continue
            setattr(game, f"server_closed{seat}_at", now)
            game.save(update_fields=[f"server_closed{seat}_at"])  # the flag waits: expires_at


def back_after_restart(game_id, seat, now):
    """Player `seat` has a page on the game again after a restart closed theirs at
    game.server_closed_at(seat), and the server sent it the snapshot at `now`: their running
    clock is given back the time it ran since the close, within PLAY_RESTART_GRACE_SECONDS of
    it (play.clock.server_gap), once; the mark goes either way. The game socket runs this in
    the game's lane, before anything the page sends. Every page of the game hears the clocks
    (`clocks`). A game whose flag fell meanwhile is left to its room, which ends it: nothing
    given back un-flags a game (the flag waited for the whole grace: Game.clock_expiry)."""
    try:
        game = statements.game(game_id, lock=True)
    except Game.DoesNotExist:
        return None
    closed = game.server_closed_at(seat)
    if closed is None:
        return None
    field = f"server_closed{seat}_at"
    given = None
    if game.is_active and game.running == seat and lapses.lapse(game, now) is None:
        gap = server_gap(closed, game.turn_started_at, now, restart_grace())
        if gap:
            given = gap
            game.turn_started_at += gap
    setattr(game, field, None)
    game.save(update_fields=[field, "turn_started_at"] if given else [field])
    if given:
        broadcast.to_game(game, {"type": "clocks", "player": seat,
                                 "given_back_ms": ms(given), "clocks": clocks_of(game, now)})
    return given


# -- changing ----------------------------------------------------------------------------------

def in_locked_game(game_id, user, step, *args, now=None):
    """Lock the game, end it if its time was up at `now` (default: this moment), then run
    `step(game, player index of user, now, *args)`, which returns the messages for the sender
    alone. A refusal from the step rolls everything back, except an end that was due."""
    try:
        with transaction.atomic():
            check = sessions.riding()
            if check is None:
                game = statements.game(game_id, lock=True)
            else:
                game, session = statements.game_and_session(game_id, check.key, check.user_id)
                check.judge(session)  # a log-in that has ended changes nothing
            if (locked := _locked.get()) is not None:
                locked.append(game)  # acted(): the game after the change, for its answer
            now = received_at(game, now)
            if not end_if_due(game, now):
                return step(game, game.player_index(user), now, *args)
            failure = None
            try:
                with transaction.atomic():  # keep the end, whatever the step does
                    return step(game, game.player_index(user), now, *args)
            except PlayError as error:
                failure = error
    except IntegrityError:
        # Only reachable without row locks (SQLite shared by several processes): the unique
        # (game, ply) constraint caught a racing insert.
        raise PlayError("stale", "another action was stored for this ply first", snapshot=True)
    raise failure


def received_at(game, now):
    """The moment a change is judged at: when its message was received, but never before the
    turn it acts in began (a message that waited behind the previous action)."""
    now = now or timezone.now()
    if game.turn_started_at is not None and now < game.turn_started_at:
        return game.turn_started_at
    return now


@sessions.rides_on_lock
def play(game_id, user, ply, action, now=None, takebacks=None, thinking_since=None):
    """Make `action` at `ply`. Returns the messages for the sender alone (a `repeat`); the
    action itself is broadcast to the group. `takebacks`: the number of takebacks the mover
    saw (a computer's answer, bots.moves): a different one means the position at `ply` is not
    the one it thought about, and the action is refused as stale. `thinking_since`: when a
    computer's worker began to think it (its clock is charged from then to `now`)."""
    return in_locked_game(game_id, user, do_play, ply, action, takebacks, thinking_since,
                          now=now)


def clock_start(game: Game, player: PlayerIndex, at: datetime) -> datetime | None:
    """When the turn of `player` that begins `at` starts its clock: `at`, except a computer's
    on a realtime clock, which stands (None) until its worker picks the job up."""
    if game.time_control.is_realtime and game.is_computer(player):
        return None
    return at


@sessions.rides_on_lock
def resign(game_id, user, ply, now=None):
    return in_locked_game(game_id, user, do_resign, ply, now=now)


@sessions.rides_on_lock
def abort(game_id, user, ply, now=None):
    return in_locked_game(game_id, user, do_abort, ply, now=now)


@sessions.rides_on_lock
def claim_victory(game_id, user, ply, now=None):
    """Claim the win of a realtime game the opponent has left (play.lapses.claim_after)."""
    return in_locked_game(game_id, user, do_claim_victory, ply, now=now)


def expire(game_id, now=None):
    """End the game if its time is up (play.lapses). Returns when it will be up next (None:
    never, or over), for the caller's timer. Idempotent: the game ends once."""
    with transaction.atomic():
        game = statements.game(game_id, lock=True)
        end_if_due(game, now or timezone.now())
        return game.expires_at


# A person's changes that end the game: each costs the writer several moves (the ratings, an
# event's points), so the moves waiting beside one go first (live.lanes.ending_in_lane).
ENDINGS = frozenset({resign, abort, claim_victory})


# -- refusals ----------------------------------------------------------------------------------

def require_player(me: PlayerIndex | None) -> None:
    if me is None:
        raise PlayError("not_a_player", "only the two players can act in this game")


def stale(game):
    return PlayError("stale", f"the game is at ply {game.ply_count}: here is the position",
                     snapshot=True)


def game_over(game):
    return PlayError("game_over", f"the game is over: {game.result_text}")


# -- the steps ---------------------------------------------------------------------------------

def do_play(game: Game, me: PlayerIndex | None, now: datetime, ply: int, action: str,
          takebacks: int | None = None, thinking_since: datetime | None = None,
          by_condition: bool = False):
    require_player(me)
    if takebacks is not None and takebacks != game.takebacks:
        raise stale(game)
    state = game.state()
    if ply < game.ply_count:
        return _repeat_or_stale(game, me, ply, state, action)
    if ply > game.ply_count:
        raise stale(game)
    if not game.is_active:
        raise game_over(game)
    mover = state.person_to_move
    if mover != me:
        raise PlayError("not_your_turn", f"it is {game.username(mover)}'s turn")
    try:
        after = state.play(action)
    except games.IllegalAction as reason:
        raise PlayError("illegal", str(reason))
    canonical = after.actions[-1]
    game.swapped = bool(getattr(after, "swapped", False))
    game.both_moved = game.both_moved or me == 1
    next_player = None if after.is_over else after.person_to_move
    if game.time_control.is_realtime and (thinking_since is not None
                                          or game.turn_started_at is None):
        # A computer's answer: its clock ran from its worker's pick-up, never before the turn.
        since = min(thinking_since or now, now)
        game.turn_started_at = max(game.turn_started_at or since, since)
    remaining, game.turn_started_at = after_action(
        game.time_control, game.remaining_ms, me, next_player, game.turn_started_at, now,
        game.berserk)
    if next_player is not None and game.turn_started_at is not None:
        game.turn_started_at = clock_start(game, next_player, game.turn_started_at)
    if remaining is not None:
        game.remaining_ms = remaining
    fields = MOVE_FIELDS
    if game.takeback_offer is not None:
        lapse_takeback(game)
        fields = [*MOVE_FIELDS, "takeback_offer"]
    game.take_position(after)
    # The action is stored with the clocks after it: a takeback to the next turn puts them
    # back (play.takeback).
    if after.is_over:
        statements.insert_action(game, ply, canonical, me, now, remaining)
        end_game(game, now, winner_of(game, after), "normal", played_out_text(game, after),
                 by_action=True)
    else:
        statements.store_move(game, fields, ply, canonical, me, now, remaining)
    # The process-wide caches learn the new position only if it is really stored.
    full = after.to_dict()
    transaction.on_commit(lambda: positions.remember(game, after, full))
    message = {
        "type": "action", "ply": ply, "action": canonical, "player": me,
        "swapped": game.swapped, "state": positions.lean(after, full),
        "clocks": clocks_of(game, now), "result": result_of(game)}
    if by_condition:
        # Played by the server from the player's conditional moves (play.conditionals): the
        # move lists mark it (the snapshot's "by_condition" after a reload).
        message["by_condition"] = True
    broadcast.to_game(game, message, stored=(ply, canonical))
    if game.premove_waiting and next_player is not None and next_player != me:
        # The opponent's queued turn, at once, in this transaction (play.premoves). When it
        # is played, its own announcement tells the other apps of both actions: they read
        # the game as it stands then (one computer's turn asked for, not two).
        from play import premoves

        if premoves.follow(game, now):
            return []
    if game.conditions_waiting and next_player is not None and next_player != me:
        # The opponent's turn is over: the owner's conditional reply, if any, in this
        # transaction (play.conditionals), announcing itself as the premove does.
        from play import conditionals

        if conditionals.follow(game, now):
            return []
    broadcast.announce(game, "action")
    return []


def _repeat_or_stale(game: Game, me: PlayerIndex, ply: int, state, action: str):
    row = game.action_rows.filter(ply=ply).first()
    try:
        canonical = state.parse_action(action)
    except games.IllegalAction:
        canonical = action
    if row is not None and row.player == me and row.action == canonical:
        return [{"type": "repeat", "ply": ply, "action": row.action}]
    raise stale(game)


def do_resign(game: Game, me: PlayerIndex | None, now: datetime, ply: int):
    require_player(me)
    if not game.is_active:
        if game.reason == "resign" and game.winner == opponent(me) and ply == game.ply_count:
            return [{"type": "repeat", "ply": ply, "action": "resign"}]
        raise game_over(game)
    if ply != game.ply_count:
        raise stale(game)
    winner = opponent(me)
    end_game(game, now, winner, "resign",
             f"{game.username(me)} resigned — {game.username(winner)} wins")
    return []


def do_abort(game: Game, me: PlayerIndex | None, now: datetime, ply: int):
    require_player(me)
    if not game.is_active:
        if game.reason == "abort" and ply == game.ply_count:
            return [{"type": "repeat", "ply": ply, "action": "abort"}]
        raise game_over(game)
    if ply != game.ply_count:
        raise stale(game)
    if game.both_moved:
        raise PlayError("not_allowed", "both players have moved: the game can no longer be "
                        "aborted (resign instead)")
    end_game(game, now, None, "abort", f"Aborted by {game.username(me)}")
    return []


def do_claim_victory(game: Game, me: PlayerIndex | None, now: datetime, ply: int):
    require_player(me)
    if not game.is_active:
        if game.reason == "left" and game.winner == me and ply == game.ply_count:
            return [{"type": "repeat", "ply": ply, "action": "claim_victory"}]
        raise game_over(game)
    if ply != game.ply_count:
        raise stale(game)
    if not game.time_control.is_realtime:
        raise PlayError("not_allowed", "only a realtime game can be claimed when the opponent "
                        "leaves; correspondence and untimed games wait for them")
    gone = opponent(me)
    if game.is_computer(gone):
        raise PlayError("not_allowed", f"{game.username(gone)} is a computer: it never leaves "
                        "a game, it only takes its time")
    if not game.both_moved:
        raise PlayError("not_allowed", "the game has not really started: it is aborted if "
                        f"{game.username(gone)} does not make a first move in time")
    since = game.absent_since(gone)
    if since is None:
        raise PlayError("not_allowed", f"{game.username(gone)} is still on the game page")
    wait = since + lapses.claim_after() - now
    if wait.total_seconds() > 0:
        raise PlayError("not_allowed", f"{game.username(gone)} left only recently: you can "
                        f"claim the win in {int(wait.total_seconds()) + 1} s")
    end_game(game, now, me, "left",
             f"{game.username(gone)} left the game — {game.username(me)} wins")
    return []
