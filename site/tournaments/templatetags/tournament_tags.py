"""`{% tournaments_now %}`: the running events and the next one to start, on any page (home);
`{% player_events player %}`: a player's events on their profile."""
from functools import lru_cache

from django import template
from django.db import connection
from django.utils.timesince import timeuntil

from live.sql import columns, instances, written
from tournaments.models import Tournament

register = template.Library()
RUNNING_SHOWN = 4


def now():
    """(running events, the next to start or None): what `{% tournaments_now %}` shows."""
    found = [instances(Tournament, statement) for statement in _now_statements(connection.vendor)]
    return found[0], (found[1] or [None])[0]


@lru_cache(maxsize=None)
def _now_statements(vendor):
    """now()'s two queries, written once per process (live.sql): every home page asks them
    for its key, and the ORM's compiling of them cost more than running them."""
    running = (Tournament.objects.filter(status=Tournament.RUNNING)
               .order_by("-official", "starts_at").values_list(*columns(Tournament))[:RUNNING_SHOWN])
    upcoming = (Tournament.objects.filter(status=Tournament.UPCOMING).order_by("starts_at")
                .values_list(*columns(Tournament))[:1])
    return written(running), written(upcoming)


def shown(events, moment=None):
    """What templates/tournaments/_now.html shows of now()'s events, repr-able (frontend.kept):
    their names, kinds and addresses and the countdowns as the page words them (timeuntil, to
    the minute), so a kept page is drawn again when a countdown's words change."""
    running, upcoming = events
    return ([(event.pk, event.name, event.kind, event.get_absolute_url(),
              event.ends_at and timeuntil(event.ends_at, moment)) for event in running],
            upcoming and (upcoming.pk, upcoming.name, upcoming.get_absolute_url(),
                          timeuntil(upcoming.starts_at, moment)))


@register.inclusion_tag("tournaments/_now.html", takes_context=True)
def tournaments_now(context):
    # A view that read them already (the home page, for its key) hands them over.
    running, upcoming = context.get("tournaments_now") or now()
    # The countdowns as of the moment that view's key was read at (None: now).
    return {"running": running, "next": upcoming, "user": context.get("user"),
            "csrf_token": context.get("csrf_token"), "moment": context.get("moment")}


EVENTS_SHOWN = 20


@register.inclusion_tag("tournaments/_player_events.html")
def player_events(player):
    """`{% player_events player %}` on a profile: the player's latest events (not cancelled),
    with their points and, once an event is over, their place."""
    entries = (player.tournament_entries.select_related("tournament")
               .exclude(tournament__status=Tournament.CANCELLED)
               .order_by("-tournament__starts_at", "-pk")[:EVENTS_SHOWN])
    return {"entries": list(entries)}
