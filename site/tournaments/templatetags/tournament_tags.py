"""`{% tournaments_now %}`: the running events and the next one to start, on any page (home);
`{% player_events player %}`: a player's events on their profile."""
from django import template

from tournaments.models import Tournament

register = template.Library()
RUNNING_SHOWN = 4


@register.inclusion_tag("tournaments/_now.html", takes_context=True)
def tournaments_now(context):
    running = list(Tournament.objects.filter(status=Tournament.RUNNING)
                   .order_by("-official", "starts_at")[:RUNNING_SHOWN])
    upcoming = Tournament.objects.filter(status=Tournament.UPCOMING).order_by("starts_at").first()
    return {"running": running, "next": upcoming, "user": context.get("user"),
            "csrf_token": context.get("csrf_token")}


EVENTS_SHOWN = 20


@register.inclusion_tag("tournaments/_player_events.html")
def player_events(player):
    """`{% player_events player %}` on a profile: the player's latest events (not cancelled),
    with their points and, once an event is over, their place."""
    entries = (player.tournament_entries.select_related("tournament")
               .exclude(tournament__status=Tournament.CANCELLED)
               .order_by("-tournament__starts_at", "-pk")[:EVENTS_SHOWN])
    return {"entries": list(entries)}
