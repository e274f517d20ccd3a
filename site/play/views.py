"""The game page and its JSON snapshot. Both notice a clock that has run out (services.current)."""
from django.http import Http404, JsonResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from play import services
from play.models import Game


def _current(request, game_id):
    try:
        return services.current_game(game_id, request.user)
    except Game.DoesNotExist:
        raise Http404("No such game")


@require_GET
def game_page(request, game_id):
    game, snapshot = _current(request, game_id)
    return render(request, "play/game.html",
                  {"game": game, "snapshot": snapshot, "live": game.is_active})


@require_GET
def game_snapshot(request, game_id):
    return JsonResponse(_current(request, game_id)[1])
