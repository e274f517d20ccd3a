"""Asking for an analysis or a hint, zulip style: `check_` looks up and refuses, `do_` makes
the change, `notify_` queues the job; `request_analysis` and `request_hint` run the three in
one transaction. The work itself is a job in a worker (analysis.jobs), queued after the
commit: a request never runs the engine.

Who may ask: a signed-in person, for a finished game, a few times per hour (analyses) or per
minute (hints). Anyone may read what is stored. A request for an analysis or a hint that is
already queued, running or done starts nothing: it answers with what there is. A job that
failed may be asked for again; one lost with its worker is queued again by the workers' sweep
(analysis.jobs, `pending`), nobody needs to ask.

Locks: none. Two requests for one game's analysis racing (two processes) create one row (the
unique game) and queue one job; a stopped job is taken over by a conditional UPDATE that only
one request wins. Two requests of one person racing may pass the rate limit by one, which
costs a few seconds of a worker.
"""
import math
from dataclasses import dataclass
from datetime import timedelta
from functools import lru_cache

from django.db import IntegrityError, connection, transaction
from django.utils import timezone

from analysis import estimates
from analysis.models import Analysis, BoardHint, Hint, Job, board_hint_key, hint_key
from archive import positions
from explorer import tree
from jobs.runner import submit
from live.sql import columns, instances, written
from play.models import Game

# The rate limits per person: (requests, window).
ANALYSES = (5, timedelta(hours=1))
HINTS = (6, timedelta(minutes=1))
# A hint is for a position of the finished game's own line plus at most this many explored
# actions: exploring from any finished game must not become a way to ask the engine about any
# position at all, a game one is playing included.
HINT_EXPLORED_ACTIONS = 6


class Refusal(Exception):
    """A request the server refuses: `code` and `message` for the answer, `status` the HTTP
    status, `extra` more fields of the answer (retry_after, the refused action)."""

    def __init__(self, code, message, status=400, **extra):
        super().__init__(message)
        self.code, self.message, self.status, self.extra = code, message, status, extra


def check_signed_in(user, what):
    if not getattr(user, "is_authenticated", False):
        raise Refusal("login_required", f"Log in to ask for {what}; anyone may see those "
                                        "already computed.", status=403)


def check_game(game_id):
    """The game, finished (played to its end, resigned or out of time): an analysis or a hint
    of a game still being played would be help from outside, and an aborted one has nothing
    to analyse."""
    game = Game.objects.filter(pk=game_id).first()
    if game is None:
        raise Refusal("not_found", "No such game.", status=404)
    if game.status != Game.FINISHED:
        raise Refusal("not_finished", "Only a finished game can be analysed." if game.is_active
                      else "This game was aborted: there is nothing to analyse.")
    return game


def check_rate(model, user, now, limit, noun):
    """Refuses `user` who asked for `limit[0]` new jobs of `model` (a model, or a tuple of
    models counted together) within `limit[1]`."""
    count, window = limit
    recent = sorted((stamp for one in (model if isinstance(model, tuple) else (model,))
                     for stamp in one.objects.filter(requested_by=user,
                                                     created_at__gt=now - window)
                     .order_by("-created_at").values_list("created_at", flat=True)[:count]),
                    reverse=True)[:count]
    if len(recent) < count:
        return
    wait = max(1, math.ceil((recent[-1] + window - now).total_seconds()))
    raise Refusal("rate_limited", f"At most {count} {noun} per {in_words(window)}: "
                                  f"the next one in {in_words(timedelta(seconds=wait))}.",
                  status=429, retry_after=wait)


def in_words(span):
    seconds = math.ceil(span.total_seconds())
    if seconds >= 3600 and seconds % 3600 == 0:
        hours = seconds // 3600
        return "hour" if hours == 1 else f"{hours} hours"
    if seconds >= 60:
        minutes = math.ceil(seconds / 60)
        return "minute" if minutes == 1 else f"{minutes} minutes"
    return f"{seconds} s"


def wants_work(job):
    """Whether a stored job should be queued again on request: it failed."""
    return job.status == Job.FAILED


def do_requeue(job, user, now):
    """Queue `job` again as a new request of `user`; False when another request did first."""
    taken = type(job).objects.filter(pk=job.pk, status=job.status,
                                     updated_at=job.updated_at).update(
        status=Job.QUEUED, requested_by=user, created_at=now, updated_at=now, error="")
    job.refresh_from_db()
    return bool(taken)


# -- the analysis of a game --------------------------------------------------------------------

def analysis_of(game):
    return next(iter(instances(Analysis, _analysis_statement(connection.vendor), [game.pk])),
                None)


@lru_cache(maxsize=None)
def _analysis_statement(vendor):
    """analysis_of()'s query, written once per process (live.sql): every view of a finished
    game's page asks it for the page's key, and the ORM compiled it each time."""
    return written(Analysis.objects.filter(game_id=0).order_by("pk")
                   .values_list(*columns(Analysis))[:1], [0])


def check_request_analysis(game_id, user, now):
    """The game and its analysis if any. Refuses a visitor (`login_required`), an unknown
    game (`not_found`), a game not finished (`not_finished`), and a person who asked for
    ANALYSES[0] new analyses within ANALYSES[1] (`rate_limited`): asking for one already
    queued or done costs nothing."""
    check_signed_in(user, "a computer analysis")
    game = check_game(game_id)
    analysis = analysis_of(game)
    if analysis is None or wants_work(analysis):
        check_rate(Analysis, user, now, ANALYSES, "analyses")
    return game, analysis


def do_request_analysis(game, user, analysis, now):
    """The game's analysis, created or queued again if it needs a job; returns it and whether
    a job is to be queued."""
    if analysis is None:
        try:
            with transaction.atomic():
                analysis = Analysis.objects.create(
                    game=game, requested_by=user, created_at=now, updated_at=now,
                    playouts=estimates.BUDGETS[game.game].playouts)
            return analysis, True
        except IntegrityError:      # another request created it a moment ago
            return analysis_of(game), False
    if wants_work(analysis):
        return analysis, do_requeue(analysis, user, now)
    return analysis, False


def notify_analysis(analysis):
    submit("analysis", {"analysis": analysis.pk, "from": analysis.slice_from})


def request_analysis(game_id, user, now=None):
    """Ask for the analysis of game `game_id` as `user`. Returns (analysis, queued): queued
    is False when it was already queued, running or done."""
    now = now or timezone.now()
    with transaction.atomic():
        game, analysis = check_request_analysis(game_id, user, now)
        analysis, queued = do_request_analysis(game, user, analysis, now)
        if queued:
            notify_analysis(analysis)
    return analysis, queued


# -- hints ---------------------------------------------------------------------------------

def check_position(game, ply, moves):
    """The explored `moves` in canonical notation (as the engine writes them: "C3" is "c3"),
    after the game's first `ply` actions, to a position with a move to suggest. Refuses a ply the game does not have (`no_such_ply`), a move the
    engine refuses (`illegal`, with its reason) and a position where the game is over
    (`position_over`)."""
    try:
        state = positions.explore(game, ply, moves)
    except positions.NoSuchPly as error:
        said = str(error)
        raise Refusal("no_such_ply", f"{said[:1].upper()}{said[1:]}.") from None
    except positions.IllegalLine as refusal:
        raise Refusal("illegal", f"{refusal.action}: {refusal.reason}", index=refusal.index,
                      action=refusal.action) from None
    if state.is_over:
        raise Refusal("position_over", "The game is over in this position: there is no move "
                                       "to suggest.")
    return list(state.actions[ply:])


def hint_of(game, ply, moves):
    return Hint.objects.filter(game=game, key=hint_key(ply, moves)).first()


def stored_hint(game, ply, moves):
    """The canonical line and the hint stored for that position (None: nobody asked).
    Refuses as check_position does."""
    moves = check_position(game, ply, moves)
    return moves, hint_of(game, ply, moves)


def check_near_the_game(moves):
    """Refuses a line of more than HINT_EXPLORED_ACTIONS actions beyond the game's own
    (`too_far`)."""
    if len(moves) > HINT_EXPLORED_ACTIONS:
        raise Refusal("too_far", f"Hints are for positions of this game's own line and at most "
                                 f"{HINT_EXPLORED_ACTIONS} actions beyond it.")


def position_of(state):
    """What identifies a position whatever the line that led to it: the board and the side
    to move."""
    return state.text(), state.to_move


def check_not_in_play(user, game, ply, moves):
    """Refuses a position that stands now on the board of a game `user` is playing
    (`in_play`): a hint there would be help from outside."""
    playing = Game.objects.active().of_player(user).filter(game=game.game)
    mine = [other for other in playing if other.options == game.options]
    if not mine:
        return
    wanted = position_of(positions.explore(game, ply, moves))
    for other in mine:
        if position_of(other.state()) == wanted:
            raise Refusal("in_play", "That position is on the board of a game you are playing: "
                                     "no hints there until it is over.")


def check_request_hint(game_id, user, ply, moves, now):
    """The game, the canonical line and the stored hint for the position if any. Refuses as
    check_request_analysis and check_position do, a position too far from the game's own
    line or on the board of a game the asker is playing, and a person who asked for HINTS[0]
    new hints within HINTS[1] (`rate_limited`)."""
    check_signed_in(user, "a hint")
    game = check_game(game_id)
    moves = check_position(game, ply, moves)
    check_near_the_game(moves)
    check_not_in_play(user, game, ply, moves)
    hint = hint_of(game, ply, moves)
    if hint is None or wants_work(hint):
        check_rate((Hint, BoardHint), user, now, HINTS, "hints")
    return game, moves, hint


def do_request_hint(game, user, ply, moves, hint, now):
    if hint is None:
        try:
            with transaction.atomic():
                hint = Hint.objects.create(game=game, requested_by=user, ply=ply,
                                           moves=",".join(moves), key=hint_key(ply, moves),
                                           created_at=now, updated_at=now)
            return hint, True
        except IntegrityError:
            return hint_of(game, ply, moves), False
    if wants_work(hint):
        return hint, do_requeue(hint, user, now)
    return hint, False


def notify_hint(hint):
    submit("hint", {"hint": hint.pk})


def request_hint(game_id, user, ply, moves, now=None):
    """Ask for the engine's preferred action after ply `ply` of game `game_id` and the
    explored `moves`, as `user`. Returns (hint, queued)."""
    now = now or timezone.now()
    with transaction.atomic():
        game, moves, hint = check_request_hint(game_id, user, ply, moves, now)
        hint, queued = do_request_hint(game, user, ply, moves, hint, now)
        if queued:
            notify_hint(hint)
    return hint, queued


# -- hints on the analysis board: any position, no game behind it ------------------------------

# As long as the analysis board's line (explorer.views.MAX_LINE).
BOARD_LINE = 400


@dataclass
class BoardPosition:
    """A position of the analysis board, canonical: the game, its board, the set-up (its
    address fields, or None) and the line played from there."""
    game: str
    options: dict
    setup: dict | None
    moves: list
    state: object

    @property
    def key(self):
        return board_hint_key(self.game, self.options, self.setup, self.moves)


def check_board_position(game_name, params):
    """The position the analysis board's address `params` names. Refuses an unknown game
    (`not_found`), a set-up or line the rules refuse (`illegal`, with their reason) and a
    position where the game is over (`position_over`)."""
    try:
        setup = tree.Setup.parse(params)
        engine, options, state = tree.position(game_name, params, BOARD_LINE, setup)
    except tree.BadLine as refusal:
        raise Refusal("illegal", f"{str(refusal)[:1].upper()}{str(refusal)[1:]}.",
                      index=refusal.index, action=refusal.action) from None
    except ValueError as error:
        raise Refusal("not_found", f"{error}.", status=404) from None
    if state.is_over:
        raise Refusal("position_over", "The game is over in this position: there is no move "
                                       "to suggest.")
    played = len([a for a in (params.get("moves") or "").split(",") if a.strip()])
    moves = list(state.actions[len(state.actions) - played:]) if played else []
    return BoardPosition(engine.name, options, setup and setup.params(), moves, state)


def check_board_not_in_play(user, position):
    """Refuses a position that stands now on the board of a game `user` is playing, as for a
    game's hints (`in_play`)."""
    playing = Game.objects.active().of_player(user).filter(game=position.game)
    wanted = position_of(position.state)
    for other in playing:
        if other.options == position.options and position_of(other.state()) == wanted:
            raise Refusal("in_play", "That position is on the board of a game you are playing: "
                                     "no hints there until it is over.")


def stored_board_hint(game_name, params):
    """The canonical position and the hint stored for it (None: nobody asked)."""
    position = check_board_position(game_name, params)
    return position, BoardHint.objects.filter(key=position.key).first()


def check_request_board_hint(game_name, user, params, now):
    """The position and its stored hint if any. Refuses as check_board_position does, a
    visitor (`login_required`), a position on the board of a game the asker is playing
    (`in_play`), and a person who asked for HINTS[0] new hints, of games or of the board,
    within HINTS[1] (`rate_limited`)."""
    check_signed_in(user, "a hint")
    position = check_board_position(game_name, params)
    check_board_not_in_play(user, position)
    hint = BoardHint.objects.filter(key=position.key).first()
    if hint is None or wants_work(hint):
        check_rate((Hint, BoardHint), user, now, HINTS, "hints")
    return position, hint


def do_request_board_hint(position, user, hint, now):
    if hint is None:
        try:
            with transaction.atomic():
                hint = BoardHint.objects.create(
                    game=position.game, options=position.options, setup=position.setup,
                    moves=",".join(position.moves), key=position.key, requested_by=user,
                    created_at=now, updated_at=now)
            return hint, True
        except IntegrityError:      # another request created it a moment ago
            return BoardHint.objects.get(key=position.key), False
    if wants_work(hint):
        return hint, do_requeue(hint, user, now)
    return hint, False


def notify_board_hint(hint):
    submit("board_hint", {"board_hint": hint.pk})


def request_board_hint(game_name, user, params, now=None):
    """Ask for the engine's hint in the analysis board's position `params`, as `user`.
    Returns (position, hint, queued)."""
    now = now or timezone.now()
    with transaction.atomic():
        position, hint = check_request_board_hint(game_name, user, params, now)
        hint, queued = do_request_board_hint(position, user, hint, now)
        if queued:
            notify_board_hint(hint)
    return position, hint, queued
