"""What the lobby shows, on the Play page and over its sockets: the open seeks, a player's
pending challenges and games in progress, as JSON-ready dicts (the page renders the same
dicts the sockets push, so both look alike)."""
from django.db.models import Q
from django.urls import reverse

from lobby.models import Challenge, Seek
from play.models import Game


def open_seeks():
    return Seek.objects.filter(status=Seek.Status.OPEN).select_related("owner")


def pending_challenges(user):
    """The player's pending challenges, sent and received, oldest first."""
    if not user.is_authenticated:
        return Challenge.objects.none()
    return (Challenge.objects.filter(status=Challenge.Status.PENDING)
            .filter(Q(challenger=user) | Q(challenged=user))
            .select_related("challenger", "challenged"))


def games_in_progress(user, limit=20) -> list[dict]:
    """The player's active games, so that a game started while they were elsewhere (or
    without JavaScript) is one click away."""
    if not user.is_authenticated:
        return []
    found = Game.objects.of_player(user).active().with_players().order_by("-updated_at")[:limit]
    return [{
        "url": game.get_absolute_url(),
        "title": game.title,
        "options_text": game.options_text,
        "opponent": (game.player1 if game.player0_id == user.pk else game.player0).get_username(),
        "time_control": game.time_control.text,
    } for game in found]


def proposal_dict(proposal) -> dict:
    return {
        "id": proposal.pk,
        "game": proposal.game,
        "game_title": proposal.game_title,
        "options": proposal.options,
        "options_text": proposal.options_text,
        "time_control": proposal.time_control.to_dict(),
        "realtime": proposal.time_control.is_realtime,
        "side": proposal.side,
        "side_text": proposal.side_text(),
        "created_at": proposal.created_at.isoformat(),
    }


def seek_dict(seek: Seek) -> dict:
    return {
        **proposal_dict(seek),
        "owner": seek.owner.get_username(),
        "accept_url": reverse("lobby:seek_accept", args=[seek.pk]),
        "cancel_url": reverse("lobby:seek_cancel", args=[seek.pk]),
    }


def challenge_dict(challenge: Challenge) -> dict:
    return {
        **proposal_dict(challenge),
        "from": challenge.challenger.get_username(),
        "to": challenge.challenged.get_username(),
        "accept_url": reverse("lobby:challenge_accept", args=[challenge.pk]),
        "decline_url": reverse("lobby:challenge_decline", args=[challenge.pk]),
        "withdraw_url": reverse("lobby:challenge_withdraw", args=[challenge.pk]),
    }


def seek_dicts() -> list[dict]:
    return [seek_dict(seek) for seek in open_seeks()]


def challenge_dicts(user) -> list[dict]:
    return [challenge_dict(challenge) for challenge in pending_challenges(user)]


def snapshot(user, seeks=True) -> dict:
    """Everything a lobby socket shows, sent on (re)connect so nothing missed while away
    stays missed. The notification socket's has no seeks (it does not show them)."""
    shown = {
        "type": "snapshot",
        "you": user.get_username() if user.is_authenticated else None,
        "challenges": challenge_dicts(user),
    }
    if seeks:
        shown["seeks"] = seek_dicts()
    return shown


def game_started(game, message: str) -> dict:
    return {"type": "game_started", "game_id": game.pk, "url": game.get_absolute_url(),
            "message": message}
