"""The opening explorer's pages: public, like the Archive it counts."""
from urllib.parse import urlencode

from django.http import Http404, JsonResponse
from django.shortcuts import render
from django.utils.safestring import mark_safe
from django.views.decorators.http import require_GET

import games
from boards import svg
from explorer import tree
from explorer.models import OpeningNode


def load_game(name):
    try:
        return games.get(name).name
    except ValueError as error:
        raise Http404(str(error)) from None


@require_GET
def index(request):
    return render(request, "explorer/index.html",
                  {"games": [games.get(name) for name in games.names()]})


def link(query, moves, pool=None):
    params = {**query.options, "pool": pool or query.pool}
    if moves:
        params["moves"] = ",".join(moves)
    return "?" + urlencode(params)


@require_GET
def node(request, game):
    name = load_game(game)
    try:
        query = tree.parse(name, request.GET)
    except tree.BadLine as refusal:
        return render(request, "explorer/refused.html",
                      {"game": games.get(name), "message": str(refusal)}, status=400)
    state = query.state
    moves = list(state.actions)
    rows = tree.next_moves(query) if state.ply < tree.counts.DEPTH else []
    for row in rows:
        row["url"] = link(query, moves + [row["action"]])
    data = state.to_dict()
    board = mark_safe(svg.render(data["board"], title=f"{query.game.title}: the position"))
    # The line so far, each action a link back to the position after it.
    steps = [{"action": action, "url": link(query, moves[:k + 1])}
             for k, action in enumerate(moves)]
    return render(request, "explorer/node.html", {
        "game": query.game, "query": query, "board": board, "rows": rows, "steps": steps,
        "start_url": link(query, []), "moves_text": ",".join(moves),
        "total": sum(row["games"] for row in rows), "depth": tree.counts.DEPTH,
        "sides": query.game.sides, "prompt": state.prompt(),
        "pools": [(key, label, link(query, moves, key)) for key, label in OpeningNode.POOLS],
        "json_url": f"node.json{link(query, moves)}",
        "sizes": [(query.game.option_label({**query.options, **choice}),
                   "?" + urlencode({**query.options, **choice, "pool": query.pool}),
                   all(query.options[k] == v for k, v in choice.items()))
                  for choice in board_choices(query.game)],
    })


def board_choices(game):
    """Every board the game is played on (each combination of its options)."""
    choices = [{}]
    for option, values in game.option_choices().items():
        choices = [{**choice, option: value} for choice in choices for value in values]
    return choices


@require_GET
def node_json(request, game):
    try:
        name = games.get(game).name
    except ValueError as error:
        return JsonResponse({"error": "not_found", "message": str(error)}, status=404)
    try:
        query = tree.parse(name, request.GET)
    except tree.BadLine as refusal:
        return JsonResponse({"error": "bad_request", "message": str(refusal),
                             "index": refusal.index, "action": refusal.action}, status=400)
    return JsonResponse(tree.answer(query))
