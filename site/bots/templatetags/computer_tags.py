"""`{% play_the_computer %}`: the "Play the computer" form, unbound, on any page (home, Play).
The page loads static/js/computer.js for it."""
from django import template

import games
from bots.forms import ComputerForm

register = template.Library()


@register.inclusion_tag("bots/_computer_form.html", takes_context=True)
def play_the_computer(context):
    # "Play Tripen" (/play/?game=tripen) chooses that game here too, as in the new-game form.
    request = context.get("request")
    chosen = request.GET.get("game") if request is not None else None
    initial = {"game": chosen} if chosen in games.names() else {}
    return {"computer_form": ComputerForm(initial=initial),
            "csrf_token": context.get("csrf_token")}


@register.simple_tag
def computer_note(player):
    """On a profile: that the account is a computer, at which level, and where to play it."""
    from django.urls import reverse
    from django.utils.html import format_html

    from bots import accounts

    level = accounts.level_of(player.pk)
    if level is None:
        return ""
    return format_html('<p class="computer-note">A computer player, {}. '
                       '<a href="{}">Play the computer</a>.</p>',
                       accounts.level_name(level), reverse("bots:computer"))
