from django.shortcuts import render
from django.utils import timezone

from boards.diagrams import sample
from dashboard.glance import overview
from frontend import kept
from learn.services import daily
from rules.catalog import GUIDES
from tournaments.templatetags import tournament_tags


def home(request):
    cards = [(guide, sample(guide.name)) for guide in GUIDES.values()]
    # A logged-in player's own games come first: theirs to move, challenges, last results.
    glance = overview(request.user) if request.user.is_authenticated else None
    moment = timezone.now()
    puzzle = daily(timezone.localdate(moment))
    events = tournament_tags.now()
    # Kept whole for visitors who are not signed in (frontend.kept), for what changes on it:
    # the day's puzzle and the events running or next with their countdowns' words (drawn at
    # the same moment as read, so the page says what its key says). The cards never change.
    facts = (puzzle["game"], puzzle["id"], puzzle["side"], tournament_tags.shown(events, moment))
    return kept.page(request, facts, lambda: render(request, "home.html", {
        "cards": cards, "glance": glance, "daily": puzzle,
        "daily_title": GUIDES[puzzle["game"]].title,
        "tournaments_now": events, "moment": moment}))
