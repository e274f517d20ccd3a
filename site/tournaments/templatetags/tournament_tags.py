"""`{% tournaments_now %}`: the running events and the next one to start, on any page (home)."""
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
