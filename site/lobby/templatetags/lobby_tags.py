"""`{% lobby_profile player %}` on a profile page: a "Challenge" button on someone else's
profile, and the player's own pending challenges on theirs. `{% new_opponent_form game %}`
on a game page: a seek like the game that ended."""
from urllib.parse import urlencode

from django import template
from django.urls import reverse

from lobby import listing
from lobby.forms import seek_fields

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


@register.inclusion_tag("lobby/_seek_again.html", takes_context=True)
def new_opponent_form(context, game, hide=False):
    """`{% new_opponent_form game %}` on a game page: a seek like that game (same game,
    board and time control, random side), for its players once it is over."""
    return {
        "csrf_token": context.get("csrf_token"),
        "fields": seek_fields(game.game, game.options, game.time_control, game.rated),
        "label": "New opponent", "form_id": "new-opponent-form", "button_id": "new-opponent",
        "hide": hide,
    }
