"""The play app's periodic work, run by every server process (live.process) and safe when
several run it at once: each change takes the game's row lock and happens once.

* Games whose time is up end within LIVE_SWEEP seconds although no socket is open on them
  (the processes with sockets on a game end it on the dot, play.rooms).
* Vacations whose allowance ran out end (play.vacations), as of the moment it did.
* Presence rows that no process refreshes any more are the presence ledger's sweep
  (live.presence.sweep); the games' pages hear it through play.presence.announce.
* After an outage of the whole site, the running clocks move on by its length: time during
  which no server process was alive is charged to nobody.
"""
from datetime import timedelta
from functools import lru_cache

from django.db import connection
from django.db.models import F, Q

from live.sql import EPOCH, prepared, read, written

from play import services, vacations
from play.models import Game, Vacation

# Leave games whose time is up to the processes that have sockets on them for this long: they
# end them on the dot, in the game's lane.
GRACE = timedelta(seconds=1)
BATCH = 200


def anything_due(now):
    """(reader) Whether sweep(now) has anything to do: the writer is taken only then. What
    due_games(now).exists() or due_vacations(now).exists() ask, their statements written
    once (live.sql): every process asks every LIVE_SWEEP seconds, and the ORM's compiling of
    the two queries cost more than running them."""
    vendor = connection.vendor
    return bool(read(_due_games_statement(vendor), _due_games_params(now))
                or read(_due_vacations_statement(vendor), _due_vacations_params(now)))


def due_games(now):
    return Game.objects.active().filter(Q(expires_at__isnull=True)
                                        | Q(expires_at__lte=now - GRACE))


def due_vacations(now):
    return Vacation.objects.filter(ended_at__isnull=True, ends_by__lte=now)


def _due_games_params(now):
    return [prepared(Game._meta.get_field("status"), Game.ACTIVE),
            prepared(Game._meta.get_field("expires_at"), now - GRACE)]


def _due_vacations_params(now):
    return [prepared(Vacation._meta.get_field("ends_by"), now)]


@lru_cache(maxsize=None)
def _due_games_statement(vendor):
    return written(due_games(EPOCH).values_list("pk")[:1], _due_games_params(EPOCH))


@lru_cache(maxsize=None)
def _due_vacations_statement(vendor):
    return written(due_vacations(EPOCH).values_list("pk")[:1], _due_vacations_params(EPOCH))


def sweep(now):
    # Vacations whose allowance ran out end first: their games' deadlines run again.
    vacations.end_due(now)
    # Games from before expires_at was kept get it here, once.
    for game in Game.objects.active().filter(expires_at__isnull=True)[:BATCH]:
        game.save(update_fields=["expires_at"])
    for game_id in (Game.objects.active().filter(expires_at__lte=now - GRACE)
                    .order_by("expires_at").values_list("pk", flat=True)[:BATCH]):
        services.expire(game_id, now)


def move_clocks_on(began, ended):
    """The site was down from `began` (its last sign of life) to `ended`: no player is charged
    for it. A turn that began in between (after the last heartbeat, before the crash) starts
    again at `ended`, so its player gets back at most what they had when it began, never more.
    Returns how many games' clocks moved on."""
    outage = ended - began
    running = Game.objects.active().filter(turn_started_at__isnull=False)
    # The late ones first: once at `ended`, the shift of the others below cannot take them.
    late = list(running.filter(turn_started_at__gte=began))
    for game in late:
        game.turn_started_at = ended
        game.save(update_fields=["turn_started_at"])  # expires_at follows
    moved = len(late) + running.filter(turn_started_at__lt=began).update(
        turn_started_at=F("turn_started_at") + outage, expires_at=F("expires_at") + outage)
    # Absences, and vacations (play.vacations: a turn gets back its time away from the moment
    # the vacation began, which moves on with the turn's start, or the outage would count
    # twice).
    for field in ("absent0_since", "absent1_since", "vacation0_since", "vacation1_since"):
        Game.objects.active().filter(**{f"{field}__gte": began}).update(**{field: ended})
        Game.objects.active().filter(**{f"{field}__lt": began}).update(**{field: F(field) + outage})
    return moved
