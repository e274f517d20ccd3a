"""Scheduled events: the operator lists recurring events in one setting (TOURNAMENT_SCHEDULE,
JSON), and `plan(now)`, a periodic job, creates each occurrence of the next day that does not
exist yet (official, with no creator). Each occurrence has a key (name and start) that the
database keeps unique, so processes planning at once create it once.

An entry of the list:

    {"name": "Hourly Hadron arena", "kind": "arena", "game": "hadron", "options": {"size": 5},
     "clock": "3+2", "minutes": 30, "every": "hour", "at": ":00"}

* every "hour" (at ":MM"), "day" (at "HH:MM"), or "week" (at "mon HH:MM"), in UTC
* a real-time clock as "minutes+increment", or "days" per move (correspondence)
* "minutes" (an arena's length), "rounds" (Swiss), "round_days" (a correspondence Swiss's
  days from one round to the next, 1-30; absent: when the round before has ended), "double"
  (round robin), "rated" (default true), "max_players"
"""
import json
from datetime import datetime, timedelta, timezone as tz

from django.conf import settings
from django.db import IntegrityError, transaction

import games
from play.clock import TimeControl
from tournaments import services
from tournaments.forms import ROUND_DAYS
from tournaments.models import Tournament

AHEAD = timedelta(days=1)
WEEKDAYS = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]

DEFAULT = [
    {"name": "Hourly Hadron arena", "kind": "arena", "game": "hadron", "options": {"size": 5},
     "clock": "3+2", "minutes": 30, "every": "hour", "at": ":00"},
    {"name": "Daily Tripen arena", "kind": "arena", "game": "tripen", "options": {"size": 7},
     "clock": "5+3", "minutes": 60, "every": "day", "at": "18:00"},
] + [
    {"name": f"Weekly {games.get(name).title} Swiss", "kind": "swiss", "game": name,
     "options": {}, "days": 2, "rounds": 5, "every": "week", "at": f"{day} 12:00"}
    for name, day in zip(games.names(), WEEKDAYS)
]


def entries():
    """The schedule in force: the setting's JSON, else DEFAULT in development, else none.
    ValueError for a malformed setting (checked at start-up by `check`)."""
    raw = settings.TOURNAMENT_SCHEDULE
    if raw is None:
        return DEFAULT if settings.DEBUG else []
    listed = json.loads(raw)
    if not isinstance(listed, list):
        raise ValueError("TOURNAMENT_SCHEDULE is a JSON list of events")
    for entry in listed:
        event_settings(entry, datetime.now(tz.utc))  # raises on a bad entry
    return listed


def occurrences(entry, now):
    """The entry's start times in (now, now + AHEAD]."""
    every, at = entry["every"], entry["at"].strip().lower()
    if every == "hour":
        minute = int(at.lstrip(":"))
        first = now.replace(minute=minute, second=0, microsecond=0)
        step = timedelta(hours=1)
    elif every == "day":
        hour, minute = map(int, at.split(":"))
        first = now.replace(hour=hour, minute=minute, second=0, microsecond=0)
        step = timedelta(days=1)
    elif every == "week":
        day, time = at.split()
        hour, minute = map(int, time.split(":"))
        first = now.replace(hour=hour, minute=minute, second=0, microsecond=0) + timedelta(
            days=WEEKDAYS.index(day) - now.weekday())
        step = timedelta(weeks=1)
    else:
        raise ValueError(f"'every' is hour, day or week, not {every!r}")
    while first <= now:
        first += step
    while first <= now + AHEAD:
        yield first
        first += step


def event_settings(entry, starts_at):
    """services.create's arguments for one occurrence; ValueError for a bad entry."""
    engine = games.get(entry["game"])  # KeyError/ValueError for an unknown game
    options = engine.normalize_options(**entry.get("options", {}))
    if "clock" in entry:
        minutes, increment = map(int, entry["clock"].split("+"))
        time_control = TimeControl("realtime", minutes, increment)
    else:
        time_control = TimeControl("correspondence", days=int(entry["days"]))
    time_control.validate()
    kind = entry["kind"]
    if kind not in dict(Tournament.KINDS):
        raise ValueError(f"unknown format {kind!r}")
    round_days = entry.get("round_days")
    if round_days is not None and not (isinstance(round_days, int)
                                       and ROUND_DAYS[0] <= round_days <= ROUND_DAYS[1]):
        raise ValueError(f"round_days is {ROUND_DAYS[0]} to {ROUND_DAYS[1]}, not {round_days!r}")
    return {"name": entry["name"][:80], "kind": kind, "game": engine.name, "options": options,
            "time_control": time_control, "rated": entry.get("rated", True),
            "starts_at": starts_at, "minutes": entry.get("minutes", 60),
            "rounds": entry.get("rounds", 5), "double": entry.get("double", False),
            "max_players": entry.get("max_players"), "round_days": round_days,
            "schedule_key": f"{entry['name'][:80]}@{starts_at:%Y-%m-%dT%H:%M}"}


def plan(now=None):
    """Create the next day's occurrences that do not exist yet; returns how many it made."""
    now = now or datetime.now(tz.utc)
    made = 0
    for entry in entries():
        for starts_at in occurrences(entry, now):
            arguments = event_settings(entry, starts_at)
            if Tournament.objects.filter(schedule_key=arguments["schedule_key"]).exists():
                continue
            try:
                with transaction.atomic():
                    services.create(None, **arguments)
                made += 1
            except IntegrityError:
                pass  # another process made it first
    return made
