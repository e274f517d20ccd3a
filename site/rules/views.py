from django.http import Http404
from django.shortcuts import render

from boards.diagrams import diagrams
from rules.catalog import GUIDES


def index(request):
    return render(request, "rules/index.html", {"guides": GUIDES})


def game(request, game):
    guide = GUIDES.get(game)
    if guide is None:
        raise Http404(f"No game called {game!r}.")
    context = {"guide": guide, "guides": GUIDES, "diagrams": diagrams(guide.name)}
    return render(request, f"rules/{guide.name}.html", context)
