"""The database away while the processes stay up, and the clocks moved on for it.

When no process is alive the site is down, and the next process to start moves the running
clocks on by the gap (live.process.record_start). When the database refuses (PostgreSQL
restarting, its backends terminated) the processes stay up but can store no move: a player
who moves meanwhile is answered `server_error` and the move is applied when resent after it
is back (docs/protocol.md). That time is not theirs to pay either. Each process notes when its
database work first failed for want of a database (`noticed`, from live.lanes), and before its
next change once the database answers again it moves the running clocks on by that stretch,
in its own transaction, before any move of that process is charged (`catch_up`). The server
stays the authority: the stretch is what the server itself saw, never what a page reports.

Several processes see the same outage, each from its first failure to its first success: the
first to come back records it (an Outage row) and moves the clocks; another moves them only for
what it saw before the recorded stretch began (under the lock of record_start, so exactly one
of them counts each moment). A process that saw nothing (no work for the database meanwhile)
moves nothing: at most the clocks move on by the time the server could not accept a move.
"""
import logging
import threading

from django.db import (DEFAULT_DB_ALIAS, DatabaseError, InterfaceError, OperationalError,
                       connections, transaction)
from django.utils import timezone

logger = logging.getLogger(__name__)

_away = {"since": None}
_lock = threading.Lock()


def noticed(error):
    """Called on a database thread whose job raised `error`: if the database is out of reach
    (not a statement's own failure, e.g. a time-out or a lock, after which the connection still
    works), remember when this process first saw it."""
    if not isinstance(error, (OperationalError, InterfaceError)):
        return
    db = connections[DEFAULT_DB_ALIAS]
    try:
        reachable = db.connection is not None and db.is_usable()
    except Exception:
        reachable = False
    if reachable or _answers_again(db):
        return
    with _lock:
        if _away["since"] is None:
            _away["since"] = timezone.now()
            logger.warning("the database is out of reach (%s); clocks move on once it is back",
                           error)


def _answers_again(db):
    """Whether a new connection works: then only this thread's connection was cut (terminated
    while it sat idle, and found out only now), not the database away. Outside a transaction
    only (a job's own has ended with its error)."""
    if db.in_atomic_block:
        return False
    try:
        db.close()
        db.ensure_connection()
        return True
    except Exception:
        return False


def away_since():
    return _away["since"]


def catch_up():
    """On a database thread that may write, before its job: if the database was out of reach,
    move the running clocks on for the stretch (in a transaction of its own). Raises what the
    database raises if it is still away (the job fails as it would have)."""
    began = _away["since"]
    if began is None:
        return
    from live import process

    ended = timezone.now()
    try:
        with transaction.atomic():
            process.hold_the_register()
            process.moved_on(*_not_yet_counted(began, ended), why="the database was away")
    except DatabaseError:
        raise  # still away (or a lock): the job fails, the next one tries again
    except Exception:
        # A fault of ours must not stop every change of the process: the stretch is charged.
        logger.exception("could not move the clocks on after the database was away")
    with _lock:
        if _away["since"] == began:
            _away["since"] = None


def _not_yet_counted(began, ended):
    """The part of [began, ended] that no recorded outage covers yet: what this process saw
    before the earliest recorded stretch that overlaps it. After a recorded stretch's end
    the database answered (another process stored its catch-up), so nothing later counts."""
    from live.models import Outage

    overlapping = Outage.objects.filter(began_at__lt=ended, ended_at__gt=began)
    first = min((o.began_at for o in overlapping), default=None)
    if first is None:
        return began, ended
    return began, min(first, ended)
