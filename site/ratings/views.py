"""The leaderboards: every game's best players on one page, and one game's longer list."""
from django.http import Http404
from django.shortcuts import render
from django.views.decorators.http import require_GET

import games
from frontend import kept
from ratings import leaderboard

SHORT, LONG = 10, 100


@require_GET
def boards(request):
    tops = leaderboard.tops(games.names(), SHORT)
    tables = [(name, games.get(name).title, tops[name]) for name in games.names()]
    # Drawn once for the places it lists, for visitors who are not signed in (frontend.kept).
    return kept.page(request, shown(tables), lambda: render(
        request, "ratings/leaderboard.html",
        {"tables": tables, "min_games": leaderboard.MIN_GAMES}))


@require_GET
def board(request, game):
    if game not in games.names():
        raise Http404("No such game")
    tables = [(game, games.get(game).title, leaderboard.top(game, LONG))]
    return kept.page(request, shown(tables), lambda: render(
        request, "ratings/leaderboard.html",
        {"tables": tables, "one_game": game, "min_games": leaderboard.MIN_GAMES}))


def shown(tables):
    """What the tables show of their places (templates/ratings/leaderboard.html)."""
    return [(name, [(place.rank, place.user.pk, place.user.get_username(), place.rating,
                     place.games, place.wins, place.losses, place.draws) for place in places])
            for name, _, places in tables]
