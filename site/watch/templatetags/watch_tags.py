"""`{% profile_games player %}` on a profile page: the player's games in progress and their
finished games with results (paginated with ?page=)."""
from django import template

from watch import profiles

register = template.Library()


@register.inclusion_tag("watch/_profile_games.html", takes_context=True)
def profile_games(context, player):
    request = context["request"]
    return {
        "player": player,
        "user": request.user,
        "in_progress": profiles.in_progress(player),
        "finished": profiles.finished_page(player, request.GET.get("page")),
    }
