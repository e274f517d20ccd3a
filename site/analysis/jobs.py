"""The analysis and hint jobs, run by the workers (bots.jobs): in a pool of worker processes
of the server by default, in `manage.py bot_worker` processes at scale. A request only queues
them (analysis.services).

Each job reads what it is for from the database and writes its own results. Takes no lock:
one job per analysis or hint is queued at a time (services; the job's `key` is the row's id,
so the workers never hold it twice), and should one be delivered twice, each ply's estimate is
stored once (the unique (analysis, ply)) and a hint's answer is the same action, written
twice. A job lost with its worker (a killed process) is queued again by the workers' sweep
(`pending`: every analysis and hint still queued or running), and an analysis goes on from
the first ply not stored.
"""
import logging

from django.utils import timezone

from analysis import estimates
from analysis.models import Analysis, Estimate, Hint, Job
from archive import positions
from bots.jobs import job

log = logging.getLogger(__name__)


def touch(model, pk, **fields):
    model.objects.filter(pk=pk).update(updated_at=timezone.now(), **fields)


def pending_analyses():
    return [{"analysis": pk} for pk in Analysis.objects.filter(
        status__in=(Job.QUEUED, Job.RUNNING)).values_list("pk", flat=True)]


def pending_hints():
    return [{"hint": pk} for pk in Hint.objects.filter(
        status__in=(Job.QUEUED, Job.RUNNING)).values_list("pk", flat=True)]


@job("analysis", key=lambda payload: str(payload["analysis"]), pending=pending_analyses)
def analyse(payload):
    """The winning chances at every ply of an analysis's game, stored ply by ply as they are
    computed (each its own commit, so the replay page shows the progress), from the first
    ply not yet stored: a job taken over from a stopped worker goes on where it stopped."""
    analysis = (Analysis.objects.select_related("game")
                .filter(pk=payload["analysis"]).first())
    if analysis is None or analysis.status == Job.DONE:
        return
    game = analysis.game
    touch(Analysis, analysis.pk, status=Job.RUNNING)
    start = analysis.estimates.count()
    try:
        for point in estimates.analyse(game.engine, game.options, game.action_list(),
                                       estimates.BUDGETS[game.game], seed=game.pk, start=start):
            Estimate.objects.bulk_create(
                [Estimate(analysis=analysis, ply=point.ply, chance0=point.chances[0],
                          mover=point.mover, forced=point.forced)], ignore_conflicts=True)
            touch(Analysis, analysis.pk)
    except Exception as error:
        log.exception("analysis %s of game %s failed", analysis.pk, game.pk)
        touch(Analysis, analysis.pk, status=Job.FAILED, error=str(error)[:200])
        return
    touch(Analysis, analysis.pk, status=Job.DONE)


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
