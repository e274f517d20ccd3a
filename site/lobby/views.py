"""Lobby pages and actions. Every action is a POST (CSRF-checked); lobby.js sends them with
fetch and `Accept: application/json` and gets JSON back, a plain form post gets a redirect
with a message, so the page works without JavaScript too. The lobby socket only pushes."""
from datetime import datetime, timedelta
from functools import wraps
from urllib.parse import urlencode

from django.contrib import messages
from django.contrib.auth.views import redirect_to_login
from django.http import JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_POST

import games
from lobby import listing, presence, services
from boards.diagrams import board_options
from lobby.forms import ChallengeForm, ProposalForm, option_field_name, seek_fields
from lobby.models import Seek
from ratings.display import ratings_of

LOGIN_MESSAGE = "Log in to create a seek, accept one or challenge a player."


def wants_json(request) -> bool:
    return "application/json" in request.headers.get("Accept", "")


def login_url(back: str | None = None) -> str:
    return f"{reverse('accounts:login')}?{urlencode({'next': back or reverse('lobby:play')})}"


def player_required(view):
    """Like login_required, but for POST actions: the way back after logging in is the Play
    page (the action's own URL takes no GET), and fetch gets JSON instead of a redirect."""

    @wraps(view)
    def wrapper(request, *args, **kwargs):
        if request.user.is_authenticated:
            return view(request, *args, **kwargs)
        if wants_json(request):
            return JsonResponse({"ok": False, "message": LOGIN_MESSAGE, "login_url": login_url()},
                                status=403)
        messages.info(request, LOGIN_MESSAGE)
        return redirect_to_login(reverse("lobby:play"))

    return wrapper


def lobby_action(view):
    """A lobby action: POST only, for players only, a LobbyError answered as refused()."""

    @require_POST
    @player_required
    @wraps(view)
    def action(request, *args, **kwargs):
        try:
            return view(request, *args, **kwargs)
        except services.LobbyError as error:
            return refused(request, error)

    return action


def done(request, message: str, url: str | None = None, **data):
    """A successful action: JSON for fetch, else a message and a redirect (default: Play)."""
    if wants_json(request):
        return JsonResponse({"ok": True, "message": message, "redirect": url, **data})
    messages.success(request, message)
    return redirect(url or "lobby:play")


def refused(request, error: services.LobbyError):
    """A refused action: JSON for fetch, else the reason and back to Play."""
    if wants_json(request):
        return JsonResponse({"ok": False, "message": error.message}, status=error.status)
    messages.error(request, error.message)
    return redirect("lobby:play")


def invalid(request, form, message: str):
    """A form with errors: JSON listing them, or the Play page again with them shown."""
    if wants_json(request):
        return JsonResponse({"ok": False, "message": message, "errors": form.errors},
                            status=400)
    messages.error(request, message)
    return render_play(request, form, status=400)


def play(request):
    # Here rather than on a timer: whoever looks at the lobby never sees a dead seek.
    presence.close_abandoned_seeks()
    initial = {}
    if request.GET.get("opponent"):
        initial["opponent"] = request.GET["opponent"]
    # "Play Tripen" on the rules page and the home page's cards: that game, chosen.
    if request.GET.get("game") in games.names():
        initial["game"] = request.GET["game"]
    form = ChallengeForm(initial=initial, challenger=request.user)
    return render_play(request, form, expired=expired_seeks(request))


# A player's real-time seeks that closed while they were away are told once (the session
# remembers until when); a first visit looks back this far.
EXPIRED_LOOKBACK = timedelta(hours=24)
EXPIRED_SEEN = "lobby_expired_seen_until"


def expired_seeks(request) -> list[dict]:
    """The player's real-time seeks that closed because they left the Play page, since they
    were last told, each with the fields to post it again."""
    if not request.user.is_authenticated:
        return []
    now = timezone.now()
    seen = request.session.get(EXPIRED_SEEN)
    since = datetime.fromisoformat(seen) if seen else now - EXPIRED_LOOKBACK
    found = Seek.objects.filter(owner=request.user, status=Seek.Status.EXPIRED,
                                closed_at__gt=since).order_by("closed_at")
    request.session[EXPIRED_SEEN] = now.isoformat()
    return [{"summary": f"{seek.game_title} {seek.options_text}, {seek.time_control.text}",
             "fields": seek_fields(seek.game, seek.options, seek.time_control, seek.rated,
                                   seek.rating_range)}
            for seek in found]


def render_play(request, form, status=200, expired=()):
    """The Play page around `form` (a ProposalForm or ChallengeForm, bound or not)."""
    game_options = {
        name: [option_field_name(name, option) for option in games.get(name).option_choices()]
        for name in games.names()
    }
    context = {
        "form": form,
        "seeks": listing.for_viewer(listing.seek_dicts(), request.user),
        "challenges": listing.challenge_dicts(request.user),
        "games_in_progress": listing.games_in_progress(request.user),
        "lobby_config": {
            **lobby_config(request),
            "option_fields": game_options,
            # Every combination the engine accepts: lobby.js disables the sizes a chosen
            # Colorful board does not take.
            "valid_options": {name: board_options(games.get(name)) for name in games.names()},
        },
        "login_url": login_url(request.get_full_path()),
        "expired_seeks": expired,
    }
    return render(request, "lobby/play.html", context, status=status)


def lobby_config(request) -> dict:
    """What lobby.js needs to know, embedded in the page as JSON."""
    return {
        "socket": "/ws/lobby/",
        "you": request.user.get_username() if request.user.is_authenticated else None,
        # For greying the seeks whose rating range leaves the viewer out.
        "your_ratings": ratings_of(request.user),
        "login_url": login_url(),
    }


def challenges(request):
    """A player's pending challenges on a page of their own (also the no-JavaScript way
    to find a challenge that arrived while away)."""
    context = {
        "challenges": listing.challenge_dicts(request.user),
        "login_url": f"{reverse('accounts:login')}?{urlencode({'next': request.path})}",
        "lobby_config": lobby_config(request),
    }
    return render(request, "lobby/challenges.html", context)


@lobby_action
def seek_create(request):
    form = ProposalForm(request.POST)
    if not form.is_valid():
        return invalid(request, form, "Your seek was not created: please correct the errors below.")
    seek = services.create_seek(request.user, **form.seek())
    return done(request, f"Your seek is open: {form.summary()}. Waiting for an opponent.",
                seek=listing.seek_dict(seek))


@lobby_action
def seek_cancel(request, seek_id):
    services.cancel_seek(request.user, seek_id)
    return done(request, "Your seek is cancelled.")


@lobby_action
def seek_accept(request, seek_id):
    game = services.accept_seek(request.user, seek_id)
    return done(request, "Game on!", game.get_absolute_url())


@lobby_action
def challenge_create(request):
    form = ChallengeForm(request.POST, challenger=request.user)
    if not form.is_valid():
        return invalid(request, form, "Your challenge was not sent: please correct the errors below.")
    challenge = services.create_challenge(request.user, **form.proposal())
    return done(request, f"Challenge sent to {challenge.challenged.get_username()}: "
                         f"{form.summary()}.", challenge=listing.challenge_dict(challenge))


@lobby_action
def challenge_accept(request, challenge_id):
    game = services.accept_challenge(request.user, challenge_id)
    return done(request, "Game on!", game.get_absolute_url())


@lobby_action
def challenge_decline(request, challenge_id):
    challenge = services.decline_challenge(request.user, challenge_id)
    return done(request, f"You declined {challenge.challenger.get_username()}'s challenge.")


@lobby_action
def challenge_withdraw(request, challenge_id):
    challenge = services.withdraw_challenge(request.user, challenge_id)
    return done(request, f"You withdrew your challenge to {challenge.challenged.get_username()}.")
