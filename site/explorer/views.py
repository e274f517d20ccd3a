"""The opening explorer's and the analysis board's pages: public, like the Archive."""
from urllib.parse import urlencode

from django.http import Http404, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.safestring import mark_safe
from django.views.decorators.http import require_GET

import games
from boards import svg
from boards.playable import playable
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
                      {"game": games.get(name), "message": str(refusal),
                       "back": reverse("explorer:node", args=[name]),
                       "place": "opening explorer"}, status=400)
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
        "analysis_url": reverse("explorer:analysis", args=[name]) + board_link(query.options,
                                                                               moves),
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
    return [choice for choice in choices if allowed(game, choice)]


def allowed(game, options):
    try:
        game.normalize_options(**options)  # e.g. no long Colorful board of side 7
    except ValueError:
        return False
    return True


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


# -- the analysis board: any line of any game, shared by its address ---------------------------

# As long as an explored line of the Archive (archive.positions): a whole game of any board.
MAX_LINE = 400


def board_link(options, moves):
    params = dict(options)
    if moves:
        params["moves"] = ",".join(moves)
    return "?" + urlencode(params)


@require_GET
def analysis_board(request, game):
    name = load_game(game)
    params = request.GET.copy()
    # The form's one field: an action typed after the line, checked with the rest.
    typed = params.pop("next", [""])[-1].strip()
    if typed:
        params["moves"] = ",".join(filter(None, [params.get("moves", ""), typed]))
    try:
        engine, options, state = tree.position(name, params, MAX_LINE)
    except tree.BadLine as refusal:
        return render(request, "explorer/refused.html",
                      {"game": games.get(name), "message": str(refusal),
                       "back": reverse("explorer:analysis", args=[name]),
                       "place": "analysis board"}, status=400)
    moves = list(state.actions)
    if typed:  # the line's shareable address, the typed action in it
        return redirect(reverse("explorer:analysis", args=[name]) + board_link(options, moves))
    board = playable(state, f"{engine.title}: the position", playing=True)
    data = board["position"]
    return render(request, "explorer/analysis_board.html", {
        "game": engine, "games": [games.get(other) for other in games.names()],
        "options": sorted(options.items()), "board": board, "prompt": data["prompt"],
        "moves_text": ",".join(moves), "start_url": board_link(options, []),
        "steps": [{"action": action, "url": board_link(options, moves[:k + 1])}
                  for k, action in enumerate(moves)],
        "legal": [{"action": action, "url": board_link(options, moves + [action])}
                  for action in data["legal"]],
        "sizes": [(engine.option_label({**options, **choice}),
                   board_link({**options, **choice}, []),
                   all(options[k] == v for k, v in choice.items()))
                  for choice in board_choices(engine)],
        "explorer_url": (reverse("explorer:node", args=[name]) + board_link(options, moves)
                         if len(moves) <= tree.counts.DEPTH else None),
        "json_url": "position.json" + board_link(options, moves),
    })


@require_GET
def analysis_json(request, game):
    try:
        name = games.get(game).name
    except ValueError as error:
        return JsonResponse({"error": "not_found", "message": str(error)}, status=404)
    try:
        _, _, state = tree.position(name, request.GET, MAX_LINE)
    except tree.BadLine as refusal:
        return JsonResponse({"error": "illegal" if refusal.action else "bad_request",
                             "message": str(refusal), "index": refusal.index,
                             "action": refusal.action}, status=400)
    return JsonResponse(state.to_dict(static=request.GET.get("static") != "0"))
