from django.shortcuts import render

from boards.diagrams import sample
from rules.catalog import GUIDES


def home(request):
    cards = [(guide, sample(guide.name)) for guide in GUIDES.values()]
    return render(request, "home.html", {"cards": cards})
