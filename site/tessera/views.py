from django.shortcuts import render

from boards.diagrams import sample
from dashboard.glance import overview
from rules.catalog import GUIDES


def home(request):
    cards = [(guide, sample(guide.name)) for guide in GUIDES.values()]
    # A logged-in player's own games come first: theirs to move, challenges, last results.
    glance = overview(request.user) if request.user.is_authenticated else None
    return render(request, "home.html", {"cards": cards, "glance": glance})
