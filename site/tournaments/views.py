"""Tournament pages: the list with the create form, an event's page with its standings, and
the players' actions (join, withdraw, pause, come back, cancel) as POSTs answered with a
redirect and a message, or with JSON for fetch (`Accept: application/json`)."""
from functools import wraps

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from play.labels import game_titles
from tournaments import services
from tournaments.forms import TournamentForm
from tournaments.models import Entry, Pairing, Tournament
from tournaments.rules import rules_of
from tournaments.standings import table

SHOWN = 30  # events of each state on the list


def wants_json(request):
    return "application/json" in request.headers.get("Accept", "")


@require_GET
def index(request):
    game = request.GET.get("game") or None
    if game not in dict(game_titles()):
        game = None  # an unknown game: every game is listed
    events = Tournament.objects.order_by("starts_at")
    if game:
        events = events.filter(game=game)
    context = {
        "running": events.filter(status=Tournament.RUNNING)[:SHOWN],
        "upcoming": events.filter(status=Tournament.UPCOMING)[:SHOWN],
        "finished": events.filter(status=Tournament.FINISHED).order_by("-finished_at")[:SHOWN],
        "form": TournamentForm(user=request.user) if request.user.is_authenticated else None,
        "game": game,
        "games": game_titles(),
    }
    return render(request, "tournaments/index.html", context)


@login_required
@require_http_methods(["GET", "POST"])
def create(request):
    form = TournamentForm(request.POST or None, user=request.user)
    if request.method == "POST" and form.is_valid():
        tournament = services.create(request.user, **form.event())
        messages.success(request, f"{tournament.name} is on the calendar.")
        return redirect(tournament)
    status = 400 if request.method == "POST" else 200
    return render(request, "tournaments/create.html", {"form": form}, status=status)


@require_GET
def event(request, tournament_id):
    tournament = get_object_or_404(Tournament, pk=tournament_id)
    rows = table(tournament)
    mine = None
    if request.user.is_authenticated:
        mine = Entry.objects.filter(tournament=tournament, player=request.user).first()
    in_play = (Pairing.objects.filter(tournament=tournament, ended_at__isnull=True)
               .select_related("game__player0", "game__player1").order_by("-created_at")[:12])
    context = {"tournament": tournament, "rows": rows, "mine": mine, "games": in_play,
               "rules": rules_of(tournament),
               "now": timezone.now(),
               "my_game": _my_game(tournament, request.user),
               "podium": rows[:3] if tournament.status == Tournament.FINISHED else [],
               "best_person": _best_person(rows) if tournament.status == Tournament.FINISHED
               else None}
    return render(request, "tournaments/event.html", context)


def _best_person(rows):
    """Computers never take a prize: the best person, when a computer is on the podium."""
    if any(row["bot"] for row in rows[:3]):
        return next((row for row in rows if not row["bot"]), None)
    return None


@require_GET
def standings(request, tournament_id):
    """The standings and the asker's game in play, for the page's script (it polls)."""
    tournament = get_object_or_404(Tournament, pk=tournament_id)
    game = _my_game(tournament, request.user)
    return JsonResponse({"status": tournament.status, "rows": table(tournament),
                         "my_game": game.get_absolute_url() if game else None})


def _my_game(tournament, user):
    if not user.is_authenticated:
        return None
    pairing = (Pairing.objects.filter(tournament=tournament, ended_at__isnull=True)
               .filter(first__player=user).first() or Pairing.objects.filter(
                   tournament=tournament, ended_at__isnull=True, second__player=user).first())
    return pairing.game if pairing else None


def action(done):
    """A POST by a logged-in player; a TournamentError is the answer, nothing changed."""
    def wrap(view):
        @require_POST
        @login_required
        @wraps(view)
        def run(request, tournament_id):
            tournament = get_object_or_404(Tournament, pk=tournament_id)
            try:
                view(request, tournament.pk)
            except services.TournamentError as error:
                if wants_json(request):
                    return JsonResponse({"ok": False, "code": error.code,
                                         "message": error.message}, status=409)
                messages.error(request, error.message.capitalize() + ".")
                return redirect(tournament)
            if wants_json(request):
                return JsonResponse({"ok": True, "message": done})
            messages.success(request, done)
            return redirect(tournament)
        return run
    return wrap


@action("You are in. You will be paired as soon as the event allows.")
def join(request, tournament_id):
    services.join(tournament_id, request.user)


@action("You have withdrawn: no further games; a game in play goes on and counts.")
def withdraw(request, tournament_id):
    services.withdraw(tournament_id, request.user)


@action("Paused: no new game until you come back.")
def pause(request, tournament_id):
    services.pause(tournament_id, request.user)


@action("Welcome back: you will be paired in the next wave.")
def resume(request, tournament_id):
    services.pause(tournament_id, request.user, paused=False)


@action("The event is cancelled.")
def cancel(request, tournament_id):
    services.cancel(tournament_id, request.user)
