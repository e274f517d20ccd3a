"""The analysis and hint jobs, run by the workers (jobs.runner): in a pool of worker processes
of the server by default, in `manage.py jobs_worker` processes at scale. A request only queues
them (analysis.services).

Each job reads what it is for from the database and writes its own results. Takes no lock:
one job per analysis or hint is in work at a time (services; a job's `key` names the row and,
for an analysis, its slice, so the workers never hold it twice), and should one be delivered
twice, each ply's estimate is stored once (the unique (analysis, ply)) and a hint's answer is
the same action, written twice. A job lost with its worker (a killed process) is queued
again by the workers' sweep (`pending`: every analysis and hint still queued or running),
and an analysis goes on from the first ply not stored.

An analysis runs in slices of about settings.ANALYSIS_SLICE seconds (3), each a job of its
own, queued by the previous one's `then`: the workers are shared with the computer players,
whose moves then wait for a slice at most, never for a whole game.
"""
import logging
import time

from django.conf import settings
from django.utils import timezone

from analysis import estimates
from analysis.models import Analysis, BoardHint, Estimate, Hint, Job
from archive import positions
from explorer import tree
from jobs.runner import job, submit

log = logging.getLogger(__name__)


def touch(model, pk, **fields):
    model.objects.filter(pk=pk).update(updated_at=timezone.now(), **fields)


def pending_analyses():
    return [{"analysis": pk, "from": start} for pk, start in Analysis.objects.filter(
        status__in=(Job.QUEUED, Job.RUNNING)).values_list("pk", "slice_from")]


def pending_hints():
    return [{"hint": pk} for pk in Hint.objects.filter(
        status__in=(Job.QUEUED, Job.RUNNING)).values_list("pk", flat=True)]


def pending_board_hints():
    return [{"board_hint": pk} for pk in BoardHint.objects.filter(
        status__in=(Job.QUEUED, Job.RUNNING)).values_list("pk", flat=True)]


def next_slice(payload, result):
    """After a slice: queue the next one, if the game has more plies to analyse."""
    if result is None:
        return
    Analysis.objects.filter(pk=payload["analysis"]).update(slice_from=result["from"])
    submit("analysis", {"analysis": payload["analysis"], "from": result["from"]})


@job("analysis", key=lambda payload: f"{payload['analysis']}:{payload.get('from', 0)}",
     pending=pending_analyses, then=next_slice)
def analyse(payload):
    """The winning chances at the plies of an analysis's game, stored ply by ply as they are
    computed (each its own commit, so the replay page shows the progress), from the first
    ply not yet stored, for about settings.ANALYSIS_SLICE seconds. Returns where the next
    slice starts (None: the analysis is done, or failed, or gone)."""
    analysis = (Analysis.objects.select_related("game")
                .filter(pk=payload["analysis"]).first())
    if analysis is None or analysis.status in (Job.DONE, Job.FAILED):
        return None
    game = analysis.game
    actions = game.action_list()
    touch(Analysis, analysis.pk, status=Job.RUNNING)
    began = time.monotonic()
    try:
        for point in estimates.analyse(game.engine, game.options, actions,
                                       estimates.BUDGETS[game.game], seed=game.pk,
                                       start=analysis.estimates.count()):
            Estimate.objects.bulk_create(
                [Estimate(analysis=analysis, ply=point.ply, chance0=point.chances[0],
                          mover=point.mover, forced=point.forced)], ignore_conflicts=True)
            touch(Analysis, analysis.pk)
            sliced = time.monotonic() - began >= settings.ANALYSIS_SLICE
            if point.ply < len(actions) and sliced:
                return {"from": point.ply + 1}
    except Exception as error:
        log.exception("analysis %s of game %s failed", analysis.pk, game.pk)
        touch(Analysis, analysis.pk, status=Job.FAILED, error=str(error)[:200])
        return None
    touch(Analysis, analysis.pk, status=Job.DONE)
    return None


@job("hint", key=lambda payload: str(payload["hint"]), pending=pending_hints)
def hint(payload):
    """The engine's preferred action in a hint's position (the game's ply and the explored
    line, checked when it was asked for)."""
    found = Hint.objects.select_related("game").filter(pk=payload["hint"]).first()
    if found is None or found.status == Job.DONE:
        return
    touch(Hint, found.pk, status=Job.RUNNING)
    try:
        state = positions.explore(found.game, found.ply, found.line)
        action = estimates.preferred_action(state, seed=found.pk)
    except Exception as error:
        log.exception("hint %s of game %s failed", found.pk, found.game_id)
        touch(Hint, found.pk, status=Job.FAILED, error=str(error)[:200])
        return
    touch(Hint, found.pk, status=Job.DONE, action=action)


@job("board_hint", key=lambda payload: str(payload["board_hint"]), pending=pending_board_hints)
def board_hint(payload):
    """The engine's preferred action in an analysis board's position (its set-up and line,
    checked when it was asked for, read again through the same rules)."""
    found = BoardHint.objects.filter(pk=payload["board_hint"]).first()
    if found is None or found.status == Job.DONE:
        return
    touch(BoardHint, found.pk, status=Job.RUNNING)
    try:
        params = found.params()
        _, _, state = tree.position(found.game, params, len(found.line),
                                    tree.Setup.parse(params))
        action = estimates.preferred_action(state, seed=found.pk)
    except Exception as error:
        log.exception("hint %s of an analysis board failed", found.pk)
        touch(BoardHint, found.pk, status=Job.FAILED, error=str(error)[:200])
        return
    touch(BoardHint, found.pk, status=Job.DONE, action=action)
