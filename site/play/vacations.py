"""Vacations: a correspondence player takes holidays (as on Little Golem and lichess's
correspondence), and while they are away their move deadlines stand still in every
correspondence game, so nobody loses on time for being away. Realtime and untimed games are
never paused.

* Each player has PLAY_VACATION_DAYS days a calendar year (UTC), and the days an operator
  granted them for that year (VacationGrant, `manage.py vacations grant`); time away counts to
  the second, the year it fell in. Starting a vacation marks every active correspondence game of
  the player (Game.vacation<seat>_since); while the player to move is marked, the game has no
  deadline (Game.clock_expiry, so play.lapses, the sweeper and the pages agree).
* Ending it, or the sweeper when the allowance runs out (Vacation.ends_by), gives back each
  turn its time away: the turn's start moves on by the part of it spent on vacation, so the
  player has the time they had when they left (a turn that began while they were away starts
  at their return). Everything is in the database: a restart of the server changes nothing.
* Games started while a player is away are not paused (they accepted them while away).
* A vacation never un-flags a game: one whose deadline passed before the player left ends on
  time when they leave (the game's row lock orders leaving, the sweeper and the opponent's
  move; tests/site/test_vacations_race.py).

Refusals (VacationError, codes in docs/protocol.md): `already_on_vacation`, `no_days_left`,
`not_on_vacation`.
"""
from datetime import datetime, timedelta, timezone as tz

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Q, Sum
from django.utils import timezone

from play import broadcast
from play.endings import end_if_due
from play.models import Game, Vacation, VacationGrant
from play.snapshots import clocks_of


class VacationError(Exception):
    def __init__(self, code, message):
        super().__init__(message)
        self.code = code
        self.message = message


def allowance_days(user, now):
    """The site's yearly days plus the operator's grants to `user` for `now`'s year."""
    granted = (VacationGrant.objects.filter(user=user, year=now.year)
               .aggregate(total=Sum("days"))["total"] or 0)
    return settings.PLAY_VACATION_DAYS + granted


def allowance(user, now):
    return timedelta(days=allowance_days(user, now))


def year_start(now):
    return datetime(now.year, 1, 1, tzinfo=tz.utc)


def used(user, now):
    """Time away this calendar year, up to `now`."""
    start = year_start(now)
    total = timedelta()
    for vacation in Vacation.objects.filter(user=user).filter(
            Q(ended_at__isnull=True) | Q(ended_at__gt=start)):
        begun = max(vacation.started_at, start)
        ended = min(vacation.ended_at or now, now)
        if ended > begun:
            total += ended - begun
    return total


def days_left(user, now):
    return max(timedelta(), allowance(user, now) - used(user, now))


def current(user):
    return Vacation.objects.filter(user=user, ended_at__isnull=True).first()


def status(user, now=None):
    """What the vacation page shows: the allowance, what is left, the vacation now if any."""
    now = now or timezone.now()
    away = current(user)
    left = days_left(user, now)
    return {"allowance_days": allowance_days(user, now),
            "left": left, "left_days": round(left.total_seconds() / 86400, 1),
            "away_since": away.started_at if away else None,
            "ends_by": away.ends_by if away else None}


def _seats(user):
    """(game, seat) of every active correspondence game of `user`, row-locked."""
    games = (Game.objects.select_for_update().filter(status=Game.ACTIVE, time_kind="correspondence")
             .filter(Q(player0=user) | Q(player1=user)).order_by("pk"))
    return [(game, 0 if game.player0_id == user.pk else 1) for game in games]


def start(user, now=None):
    now = now or timezone.now()
    with transaction.atomic():
        # One vacation change of a player at a time: their row is the lock.
        get_user_model().objects.select_for_update().get(pk=user.pk)
        if current(user) is not None:
            raise VacationError("already_on_vacation", "you are already on vacation")
        left = days_left(user, now)
        if left <= timedelta():
            raise VacationError("no_days_left", f"your {allowance_days(user, now)} days of "
                                f"vacation for {now.year} are used up")
        vacation = Vacation.objects.create(user=user, started_at=now, ends_by=now + left)
        for game, seat in _seats(user):
            # A deadline that already passed (the sweeper had not come by yet) is not stopped:
            # the game ends on time now, as the sweeper would have ended it; marking it would
            # take its deadline away and un-flag it.
            if end_if_due(game, now):
                continue
            field = f"vacation{seat}_since"
            setattr(game, field, now)
            game.save(update_fields=[field])
            _tell(game, seat, True, now)
    return vacation


def end(user, now=None):
    now = now or timezone.now()
    with transaction.atomic():
        get_user_model().objects.select_for_update().get(pk=user.pk)
        vacation = current(user)
        if vacation is None:
            raise VacationError("not_on_vacation", "you are not on vacation")
        _back(vacation, min(now, vacation.ends_by))
    return vacation


def grant(user, days, now=None, reason=""):
    """An operator adds `days` to `user`'s allowance for this year; a vacation under way lasts
    that much longer (its end moves with what is left). Returns the vacation, if any."""
    if days < 1:
        raise ValueError("grant at least one day")
    now = now or timezone.now()
    with transaction.atomic():
        get_user_model().objects.select_for_update().get(pk=user.pk)
        VacationGrant.objects.create(user=user, year=now.year, days=days, granted_at=now,
                                     reason=reason[:200])
        vacation = current(user)
        if vacation is not None and vacation.ends_by > now:
            vacation.ends_by = now + days_left(user, now)
            vacation.save(update_fields=["ends_by"])
    return vacation


def away():
    """The vacations under way, oldest first, with their players."""
    return Vacation.objects.filter(ended_at__isnull=True).select_related("user").order_by(
        "started_at")


def _back(vacation, at):
    vacation.ended_at = at
    vacation.save(update_fields=["ended_at"])
    for game, seat in _seats(vacation.user):
        field = f"vacation{seat}_since"
        since = getattr(game, field)
        if since is None:
            continue
        setattr(game, field, None)
        fields = [field]
        if game.running == seat and game.turn_started_at is not None:
            # The turn gets back the part of it spent away.
            game.turn_started_at += max(timedelta(), at - max(since, game.turn_started_at))
            fields.append("turn_started_at")
        game.save(update_fields=fields)
        _tell(game, seat, False, at)


def end_due(now):
    """The sweeper: end the vacations whose allowance ran out, as of the moment it did."""
    for vacation in (Vacation.objects.filter(ended_at__isnull=True, ends_by__lte=now)
                     .select_related("user")[:200]):
        with transaction.atomic():
            get_user_model().objects.select_for_update().get(pk=vacation.user_id)
            fresh = current(vacation.user)
            if fresh is not None and fresh.ends_by <= now:
                _back(fresh, fresh.ends_by)


def _tell(game, seat, away, now):
    """The game's pages: a player left or came back, and the clocks as they are now."""
    broadcast.to_game(game, {"type": "vacation", "player": seat, "away": away,
                             "clocks": clocks_of(game, now)})
