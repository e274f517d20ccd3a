"""The opening explorer's and the analysis board's pages: public, like the Archive."""
from urllib.parse import urlencode

from django.http import Http404, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.safestring import mark_safe
from django.views.decorators.http import require_GET

import games
from games.colorful import COLOUR_NAMES, OWNER
from games.setup import turn_of
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


def board_link(options, moves, setup=None):
    params = dict(options)
    if setup is not None:
        params.update(setup.params())
    if moves:
        params["moves"] = ",".join(moves)
    return "?" + urlencode(params)


def _edited(engine_name, params, setup):
    """The set-up after the page's set-up form (`place` a piece, `remove` one, choose the side
    to move, `clear`), or None where the request edits nothing. Editing the set-up starts the
    line again from it."""
    place, remove = params.get("place", "").strip(), params.get("remove", "").strip()
    turn = params.get("set_turn")
    if not (place or remove or turn or "clear" in params):
        return None
    pieces = {} if setup is None or "clear" in params else dict(setup.pieces)
    if place:
        pieces[place] = params.get("piece", "0").strip()
    if remove:
        pieces = {cell: piece for cell, piece in pieces.items()
                  if cell.lower() != remove.lower()}
    if turn in ("0", "1"):
        return tree.Setup(pieces, int(turn))
    # Placing and removing pieces hands the turn to the side the counts name (where they
    # name one), so a set-up built piece by piece stays a position.
    counted = turn_of(engine_name, pieces)
    return tree.Setup(pieces, counted if counted is not None else (setup.turn if setup else 0))


def _refused(request, name, message):
    return render(request, "explorer/refused.html",
                  {"game": games.get(name), "message": message,
                   "back": reverse("explorer:analysis", args=[name]),
                   "place": "analysis board"}, status=400)


def _played(params) -> int:
    return len([a for a in (params.get("moves") or "").split(",") if a.strip()])


@require_GET
def analysis_board(request, game):
    name = load_game(game)
    params = request.GET.copy()
    # The form's one field: an action typed after the line, checked with the rest.
    typed = params.pop("next", [""])[-1].strip()
    if typed:
        params["moves"] = ",".join(filter(None, [params.get("moves", ""), typed]))
    refused = None
    try:
        setup = tree.Setup.parse(params)
        edited = _edited(name, params, setup)
        if edited is not None:
            try:
                fresh = params.copy()
                fresh["moves"] = ""
                tree.position(name, fresh, MAX_LINE, edited)
                params, setup = fresh, edited
            except tree.BadLine as refusal:
                # The edit is refused with the reason; the board stays as it was.
                refused, edited = str(refusal), None
        engine, options, state = tree.position(name, params, MAX_LINE, setup)
    except tree.BadLine as refusal:
        return _refused(request, name, str(refusal))
    played = _played(params)
    moves = list(state.actions[len(state.actions) - played:]) if played else []
    if typed or edited is not None:  # the position's shareable address
        return redirect(reverse("explorer:analysis", args=[name])
                        + board_link(options, moves, setup))
    board = playable(state, f"{engine.title}: the position", playing=True)
    data = board["position"]
    return render(request, "explorer/analysis_board.html", {
        "refused": refused,
        "game": engine, "games": [games.get(other) for other in games.names()],
        "options": sorted(options.items()), "board": board, "prompt": data["prompt"],
        "moves_text": ",".join(moves), "start_url": board_link(options, [], setup),
        "setup": setup, "setup_params": sorted((setup.params() if setup else {}).items()),
        "pieces": _piece_choices(engine),
        "placed": [{"cell": cell, "piece": _piece_name(engine, piece)}
                   for cell, piece in sorted(setup.pieces.items())] if setup else [],
        "steps": [{"action": action, "url": board_link(options, moves[:k + 1], setup)}
                  for k, action in enumerate(moves)],
        "legal": [{"action": action, "url": board_link(options, moves + [action], setup)}
                  for action in data["legal"]],
        "sizes": [(engine.option_label({**options, **choice}),
                   board_link({**options, **choice}, []),
                   all(options[k] == v for k, v in choice.items()))
                  for choice in board_choices(engine)],
        "explorer_url": (reverse("explorer:node", args=[name]) + board_link(options, moves)
                         if setup is None and len(moves) <= tree.counts.DEPTH else None),
        "json_url": "position.json" + board_link(options, moves, setup),
        "hint_params": board_link(options, moves, setup)[1:],
    }, status=400 if refused else 200)


def _piece_choices(engine):
    """What the set-up form can place: a side's piece, or Colorful's stone colours."""
    if engine.name == "colorful":
        return [(colour, f"{name} ({engine.sides[OWNER[colour]]})")
                for colour, name in COLOUR_NAMES.items()]
    return [("0", engine.sides[0]), ("1", engine.sides[1])]


def _piece_name(engine, piece):
    return dict(_piece_choices(engine)).get(piece, piece)


@require_GET
def analysis_json(request, game):
    try:
        name = games.get(game).name
    except ValueError as error:
        return JsonResponse({"error": "not_found", "message": str(error)}, status=404)
    try:
        _, _, state = tree.position(name, request.GET, MAX_LINE, tree.Setup.parse(request.GET))
    except tree.BadLine as refusal:
        return JsonResponse({"error": "illegal" if refusal.action else "bad_request",
                             "message": str(refusal), "index": refusal.index,
                             "action": refusal.action}, status=400)
    return JsonResponse(state.to_dict(static=request.GET.get("static") != "0"))
