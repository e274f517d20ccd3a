from django.conf import settings
from django.http import Http404
from django.shortcuts import render

from boards.diagrams import diagrams
from frontend import kept
from rules.catalog import GUIDES


def index(request):
    limits = {"first_move": settings.PLAY_FIRST_MOVE_SECONDS,
              "claim_after": settings.PLAY_CLAIM_AFTER_SECONDS,
              "idle_days": settings.PLAY_UNTIMED_IDLE_DAYS}
    return render(request, "rules/index.html", {"guides": GUIDES, "lapses": limits})


def game(request, game):
    guide = GUIDES.get(game)
    if guide is None:
        raise Http404(f"No game called {game!r}.")
    context = {"guide": guide, "guides": GUIDES, "diagrams": diagrams(guide.name)}
    # The same for everyone who is not signed in, for as long as the process runs: no facts
    # beyond its address (frontend.kept).
    return kept.page(request, (), lambda: render(request, f"rules/{guide.name}.html", context))
