"""The game page and its JSON snapshot: pure reads (services.snapshot_for). A clock that ran out
shows its flag fallen; the game's room or the sweeper ends the game, in its lane."""
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_POST

from analysis.answers import analysis_answer
from analysis.services import analysis_of
from frontend import kept
from play import notes, services, vacations
from play.models import Game


def _current(request, game_id):
    try:
        return services.game_and_snapshot(game_id, request.user)
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
    # A finished game's page is drawn once for what it shows, for visitors who are not signed
    # in (frontend.kept).
    return kept.page(request, finished_facts(game, snapshot),
                     lambda: draw(request, game, snapshot))


def finished_facts(game, snapshot):
    """Everything a finished game's page shows beyond its address: the snapshot but the moment
    it was read (its clocks' server_time, which the page's script reads only for a player's
    claim), and the stored analysis (analysis_tags.analysis_panel). None for a game in
    progress: its clocks and presence change its page from one moment to the next."""
    if game.is_active:
        return None
    still = {**snapshot, "clocks": {k: v for k, v in snapshot["clocks"].items()
                                    if k != "server_time"}}
    return still, analysis_answer(game, analysis_of(game))


def draw(request, game, snapshot):
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
        # The viewer's own private note (players only; never anyone else's).
        "note": notes.note_of(game, request.user) if snapshot["you"] is not None else None,
        "note_max": notes.MAX_LENGTH,
    })


@require_GET
def game_snapshot(request, game_id):
    return JsonResponse(_current(request, game_id)[1])


@require_POST
@login_required
def save_note(request, game_id):
    """A player's private note on the game: JSON for the page's script, else back to the page.
    Anyone but the two players: 403; a note too long: 400."""
    game = get_object_or_404(Game.objects.with_players(), pk=game_id)
    if game.player_index(request.user) is None:
        raise PermissionDenied("only the two players of a game keep notes on it")
    try:
        text = notes.save(game, request.user, request.POST.get("text", ""))
    except notes.NoteError as refusal:
        return JsonResponse({"error": str(refusal)}, status=400)
    if "application/json" in request.headers.get("Accept", ""):
        return JsonResponse({"text": text})
    return redirect(game.get_absolute_url() + "#notes")


@login_required
def vacation(request):
    """The player's vacation: the allowance left, and a button to start or end one. POST
    `action` start or end; a refusal is shown on the page with its code (400)."""
    refusal = None
    if request.method == "POST":
        try:
            if request.POST.get("action") == "start":
                vacations.start(request.user)
            elif request.POST.get("action") == "end":
                vacations.end(request.user)
            else:
                raise vacations.VacationError("bad_request", "choose to start or end a vacation")
            return redirect("play:vacation")
        except vacations.VacationError as error:
            refusal = error
    return render(request, "play/vacation.html", {
        "vacation": vacations.status(request.user), "refusal": refusal,
    }, status=400 if refusal else 200)
