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


def shown_ply(request, game):
    """The ply a ?ply=K link asks for (the server draws it for a browser without JavaScript),
    else the latest."""
    ply = request.GET.get("ply", "")
    if ply.isascii() and ply.isdigit() and len(ply) < 7 and int(ply) <= game.ply_count:
        return int(ply)
    return game.ply_count


@require_GET
def game_page(request, game_id):
    game, snapshot = _current(request, game_id)
    return render(request, "play/game.html", {
        "game": game, "snapshot": snapshot, "live": game.is_active,
        "shown_ply": shown_ply(request, game),
        # The player cards as game.js draws them, for a browser without JavaScript.
        "players": [{**player, "side_name": snapshot["state"]["sides"][player["side"]],
                     "tally": snapshot["state"]["tallies"][player["side"]]}
                    for player in snapshot["players"]],
        # The board's module (and Colorful's colour chooser), loaded by game.js at run time
        # before its other panels (game/panels.js): preloaded in that order.
        "board_module": f"js/boards/{snapshot['state']['board']['kind']}.js",
        "chooser_module": "js/game/colorful.js" if snapshot["game"] == "colorful" else "",
        "chat_rooms": [("players", "Players"), ("spectators", "Spectators")],
    })


@require_GET
def game_snapshot(request, game_id):
    return JsonResponse(_current(request, game_id)[1])
