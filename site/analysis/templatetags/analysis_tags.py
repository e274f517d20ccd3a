"""The computer analysis panel under a game's replay board (static/js/analysis.js draws it)."""
from urllib.parse import urlencode

from django import template
from django.urls import reverse

from analysis import answers, estimates, services
from play.models import Game

register = template.Library()


@register.inclusion_tag("analysis/_panel.html", takes_context=True)
def analysis_panel(context, game):
    """The panel with the game's stored analysis in it, so the replay shows a finished
    analysis without asking again. Hidden while the game is played (game.js shows it once
    the game is over)."""
    request = context["request"]
    finished = game.status == Game.FINISHED
    stored = answers.analysis_answer(game, services.analysis_of(game) if finished else None)
    return {
        "game": game,
        "request": request,
        # The thresholds in points of winning chance, for the legend.
        "points": {"mistake": round(estimates.MISTAKE * 100),
                   "blunder": round(estimates.BLUNDER * 100)},
        "data": {**stored, "signed_in": request.user.is_authenticated,
                 "login_url": f"{reverse('accounts:login')}?{urlencode({'next': request.path})}"},
    }
