"""`{% lobby_profile player %}` on a profile page: a "Challenge" button on someone else's
profile, and the player's own pending challenges on theirs."""
from urllib.parse import urlencode

from django import template
from django.urls import reverse

from lobby import listing

register = template.Library()


@register.inclusion_tag("lobby/_profile.html", takes_context=True)
def lobby_profile(context, player):
    user = context["request"].user
    own = user.is_authenticated and user.pk == player.pk
    query = urlencode({"opponent": player.get_username()})
    return {
        "user": user,
        "player": player,
        "own": own,
        "csrf_token": context.get("csrf_token"),
        "challenges": listing.challenge_dicts(user) if own else [],
        "challenge_url": f"{reverse('lobby:play')}?{query}#new-game",
    }
