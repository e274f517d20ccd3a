"""The analysis and hint addresses of a game (docs/analysis.md): GET reads what is stored,
for anyone; POST asks for it (signed in, CSRF-checked), queuing a job for a worker. Both
answer JSON; a refusal is `{"error": code, "message": ...}` with its HTTP status."""
from django.http import JsonResponse
from django.utils.cache import patch_cache_control
from django.views.decorators.http import require_http_methods

from analysis import answers, services
from archive.forms import ExploreForm
from archive.views import load_json


def answer(data, status=200):
    # Stored results grow while a worker runs: never cached.
    response = JsonResponse(data, status=status)
    patch_cache_control(response, no_cache=True)
    return response


def refused(refusal):
    response = answer({"error": refusal.code, "message": refusal.message, **refusal.extra},
                      status=refusal.status)
    if "retry_after" in refusal.extra:
        response["Retry-After"] = str(refusal.extra["retry_after"])
    return response


@require_http_methods(["GET", "POST"])
def analysis(request, game_id):
    game, missing = load_json(game_id)
    if missing:
        return missing
    if request.method == "GET":
        return answer(answers.analysis_answer(game, services.analysis_of(game)))
    try:
        found, queued = services.request_analysis(game.pk, request.user)
    except services.Refusal as refusal:
        return refused(refusal)
    return answer(answers.analysis_answer(game, found), status=202 if queued else 200)


@require_http_methods(["GET", "POST"])
def hint(request, game_id):
    game, missing = load_json(game_id)
    if missing:
        return missing
    form = ExploreForm(request.GET if request.method == "GET" else request.POST, game=game)
    if not form.is_valid():
        fields = form.errors.get_json_data()
        message = " ".join(error["message"] for errors in fields.values() for error in errors)
        return answer({"error": "bad_request", "message": message, "fields": fields}, 400)
    ply, moves = form.cleaned_data["ply"], form.cleaned_data["moves"]
    try:
        if request.method == "GET":
            moves, found = services.stored_hint(game, ply, moves)
            return answer(answers.hint_answer(ply, moves, found))
        found, queued = services.request_hint(game.pk, request.user, ply, moves)
    except services.Refusal as refusal:
        return refused(refusal)
    return answer(answers.hint_answer(ply, found.line, found), status=202 if queued else 200)


@require_http_methods(["GET", "POST"])
def board_hint(request, game):
    """The analysis board's hint: the position is the board's address fields (size, setup,
    turn, moves), in the query (GET, anyone reads what is stored) or the body (POST, signed
    in, queues a job)."""
    params = request.GET if request.method == "GET" else request.POST
    try:
        if request.method == "GET":
            position, found = services.stored_board_hint(game, params)
            return answer(answers.board_hint_answer(position, found))
        position, found, queued = services.request_board_hint(game, request.user, params)
    except services.Refusal as refusal:
        return refused(refusal)
    return answer(answers.board_hint_answer(position, found), status=202 if queued else 200)
