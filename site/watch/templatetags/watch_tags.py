"""`{% profile_games player %}` on a profile page: the player's games in progress and their
finished games with results (paginated with ?page=). Filters for the Watch rows' clocks:
`clock_text` (ms -> "4:05", as static/js/clock.js writes it) and `time_left` (a deadline)."""
import math
from datetime import datetime

from django import template
from django.utils import timezone

from watch import profiles

register = template.Library()


@register.filter
def clock_text(ms):
    """Milliseconds left as a clock shows them: "4:05", "1:02:03", "0:09.5" under ten seconds."""
    if ms is None:
        return ""
    ms = max(0, int(ms))
    if ms < 10_000:
        return f"0:0{math.floor(ms / 100) / 10:.1f}"
    total = math.ceil(ms / 1000)
    hours, minutes, seconds = total // 3600, total % 3600 // 60, total % 60
    return f"{hours}:{minutes:02}:{seconds:02}" if hours else f"{minutes}:{seconds:02}"


@register.filter
def time_left(deadline):
    """How long until an ISO deadline: "2 days 3 h", "5 h 10 min", "12 min"."""
    left = (datetime.fromisoformat(deadline) - timezone.now()).total_seconds()
    if left <= 0:
        return "no time: it is up"
    minutes = math.ceil(left / 60)
    days, hours, mins = minutes // 1440, minutes % 1440 // 60, minutes % 60
    if days:
        return f"{days} day{'s' if days > 1 else ''}" + (f" {hours} h" if hours else "")
    return f"{hours} h {mins} min" if hours else f"{mins} min"


@register.inclusion_tag("watch/_profile_games.html", takes_context=True)
def profile_games(context, player):
    request = context["request"]
    return {
        "player": player,
        "user": request.user,
        "in_progress": profiles.in_progress(player),
        "finished": profiles.finished_page(player, request.GET.get("page")),
    }
