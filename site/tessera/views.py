from django.shortcuts import render
from django.utils import timezone

from boards.diagrams import sample
from dashboard.glance import overview
from learn.services import daily
from rules.catalog import GUIDES


def home(request):
    cards = [(guide, sample(guide.name)) for guide in GUIDES.values()]
    # A logged-in player's own games come first: theirs to move, challenges, last results.
    glance = overview(request.user) if request.user.is_authenticated else None
    puzzle = daily(timezone.localdate())
    return render(request, "home.html", {"cards": cards, "glance": glance, "daily": puzzle,
                                         "daily_title": GUIDES[puzzle["game"]].title})
