"""What players do in the lobby, and who is told.

Every change runs in one transaction and is announced over the channel layer only after it
commits (transaction.on_commit), so a browser never hears of a seek or a game the database
does not have yet. Groups:

* "lobby": every open lobby socket; seeks appear and vanish there.
* "user-<id>": every lobby and notification socket of one player (lobby.consumers); their
  challenges and "your game started".

The state changes are conditional UPDATEs run first in their transaction: when two players
accept one seek at once, exactly one UPDATE finds it open; the other is told it was taken.
"""
from datetime import timedelta

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.urls import reverse
from django.utils import timezone

from lobby.models import Challenge, LobbyConnection, Seek, options_text
from play.models import Game
from play.services import start_game

LOBBY_GROUP = "lobby"
MAX_OPEN_SEEKS = 5
MAX_PENDING_CHALLENGES = 10


class LobbyError(Exception):
    """A request the lobby refuses; `message` is for the player, `status` for HTTP."""

    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.message = message
        self.status = status


def user_group(user_id: int) -> str:
    return f"user-{user_id}"


def announce(group: str, payload: dict) -> None:
    """Send `payload` to a group's sockets once the current transaction commits."""

    def send():
        async_to_sync(get_channel_layer().group_send)(
            group, {"type": "lobby.event", "payload": payload}
        )

    transaction.on_commit(send)


# -- what the lobby shows ----------------------------------------------------------------------


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
    found = (Game.objects.filter(Q(player0=user) | Q(player1=user), status=Game.ACTIVE)
             .select_related("player0", "player1").order_by("-updated_at")[:limit])
    return [{
        "url": game.get_absolute_url(),
        "title": game.title,
        "options_text": options_text(game.game, game.options),
        "opponent": (game.player1 if game.player0_id == user.pk else game.player0).get_username(),
        "time_control": game.time_control.text,
    } for game in found]


def proposal_dict(proposal, proposer) -> dict:
    return {
        "id": proposal.pk,
        "game": proposal.game,
        "game_title": proposal.game_title,
        "options": proposal.options,
        "options_text": proposal.options_text,
        "time_control": proposal.time_control.to_dict(),
        "realtime": proposal.tc_kind == "realtime",
        "side": proposal.side,
        "side_text": proposal.side_text(proposer),
        "created_at": proposal.created_at.isoformat(),
    }


def seek_dict(seek: Seek) -> dict:
    return {
        **proposal_dict(seek, seek.owner),
        "owner": seek.owner.get_username(),
        "accept_url": reverse("lobby:seek_accept", args=[seek.pk]),
        "cancel_url": reverse("lobby:seek_cancel", args=[seek.pk]),
    }


def challenge_dict(challenge: Challenge) -> dict:
    return {
        **proposal_dict(challenge, challenge.challenger),
        "from": challenge.challenger.get_username(),
        "to": challenge.challenged.get_username(),
        "accept_url": reverse("lobby:challenge_accept", args=[challenge.pk]),
        "decline_url": reverse("lobby:challenge_decline", args=[challenge.pk]),
        "withdraw_url": reverse("lobby:challenge_withdraw", args=[challenge.pk]),
    }


def snapshot(user, seeks=True) -> dict:
    """Everything a lobby socket shows, sent on (re)connect so nothing missed while away
    stays missed. The notification socket's has no seeks (it does not show them)."""
    shown = {
        "type": "snapshot",
        "you": user.get_username() if user.is_authenticated else None,
        "challenges": [challenge_dict(c) for c in pending_challenges(user)],
    }
    if seeks:
        shown["seeks"] = [seek_dict(seek) for seek in open_seeks()]
    return shown


# -- seeks -------------------------------------------------------------------------------------


def create_seek(owner, *, game, options, time_control, side) -> Seek:
    if open_seeks().filter(owner=owner).count() >= MAX_OPEN_SEEKS:
        raise LobbyError(f"You already have {MAX_OPEN_SEEKS} open seeks: cancel one first.", 409)
    with transaction.atomic():
        seek = Seek(owner=owner, game=game, options=options, side=side)
        seek.time_control = time_control
        seek.save()
        announce(LOBBY_GROUP, {"type": "seek_added", "seek": seek_dict(seek)})
    return seek


def cancel_seek(user, seek_id: int) -> Seek:
    with transaction.atomic():
        closed = Seek.objects.filter(pk=seek_id, owner=user, status=Seek.Status.OPEN).update(
            status=Seek.Status.CANCELLED, closed_at=timezone.now()
        )
        seek = Seek.objects.filter(pk=seek_id).first()
        if not closed:
            raise refusal(seek, user, "cancel")
        announce(LOBBY_GROUP, {"type": "seek_removed", "id": seek.pk, "reason": "cancelled"})
    return seek


def accept_seek(user, seek_id: int):
    """Start the game between the seek's owner and `user`; the owner's lobby sockets are
    told to go to it. Returns the play Game."""
    with transaction.atomic():
        taken = (Seek.objects.filter(pk=seek_id, status=Seek.Status.OPEN).exclude(owner=user)
                 .update(status=Seek.Status.TAKEN, accepted_by=user, closed_at=timezone.now()))
        seek = Seek.objects.select_related("owner").filter(pk=seek_id).first()
        if not taken:
            raise refusal(seek, user, "accept")
        game = start_game(
            game=seek.game, options=seek.options, players=seek.players(seek.owner, user),
            time_control=seek.time_control,
        )
        Seek.objects.filter(pk=seek.pk).update(started_game=game)
        announce(LOBBY_GROUP, {"type": "seek_removed", "id": seek.pk, "reason": "taken"})
        announce(user_group(seek.owner_id),
                 game_started(game, f"{user.get_username()} accepted your seek"))
    return game


def refusal(seek: Seek | None, user, doing: str) -> LobbyError:
    """Why a seek could not be cancelled or accepted."""
    if seek is None:
        return LobbyError("There is no such seek.", 404)
    if doing == "accept" and seek.owner_id == user.pk:
        return LobbyError("You cannot accept your own seek.", 400)
    if doing == "cancel" and seek.owner_id != user.pk:
        return LobbyError("You can only cancel your own seeks.", 403)
    gone = {
        Seek.Status.TAKEN: "This seek was already accepted.",
        Seek.Status.CANCELLED: "This seek was cancelled.",
        Seek.Status.EXPIRED: "This seek closed when its owner left.",
    }
    return LobbyError(gone.get(seek.status, "This seek is no longer open."), 409)


def game_started(game, message: str) -> dict:
    return {"type": "game_started", "game_id": game.pk, "url": game.get_absolute_url(),
            "message": message}


# -- challenges --------------------------------------------------------------------------------


def create_challenge(challenger, *, opponent, game, options, time_control, side) -> Challenge:
    if opponent.pk == challenger.pk:
        raise LobbyError("You cannot challenge yourself.")
    pending = pending_challenges(challenger).filter(challenger=challenger)
    if pending.filter(challenged=opponent).exists():
        raise LobbyError(f"You already have a challenge waiting for {opponent.get_username()}: "
                         "withdraw it first.", 409)
    if pending.count() >= MAX_PENDING_CHALLENGES:
        raise LobbyError(f"You already have {MAX_PENDING_CHALLENGES} challenges waiting: "
                         "withdraw one first.", 409)
    with transaction.atomic():
        challenge = Challenge(challenger=challenger, challenged=opponent, game=game,
                              options=options, side=side)
        challenge.time_control = time_control
        challenge.save()
        announce_challenge(challenge, {"type": "challenge_added",
                                       "challenge": challenge_dict(challenge)})
    return challenge


def accept_challenge(user, challenge_id: int):
    with transaction.atomic():
        challenge = close_challenge(user, challenge_id, Challenge.Status.ACCEPTED, "challenged")
        game = start_game(
            game=challenge.game, options=challenge.options,
            players=challenge.players(challenge.challenger, challenge.challenged),
            time_control=challenge.time_control,
        )
        Challenge.objects.filter(pk=challenge.pk).update(started_game=game)
        announce_challenge(challenge, {"type": "challenge_removed", "id": challenge.pk,
                                       "reason": "accepted"})
        announce(user_group(challenge.challenger_id),
                 game_started(game, f"{user.get_username()} accepted your challenge"))
    return game


def decline_challenge(user, challenge_id: int) -> Challenge:
    return end_challenge(user, challenge_id, Challenge.Status.DECLINED, "challenged")


def withdraw_challenge(user, challenge_id: int) -> Challenge:
    return end_challenge(user, challenge_id, Challenge.Status.WITHDRAWN, "challenger")


def end_challenge(user, challenge_id: int, status: str, role: str) -> Challenge:
    with transaction.atomic():
        challenge = close_challenge(user, challenge_id, status, role)
        announce_challenge(challenge, {"type": "challenge_removed", "id": challenge.pk,
                                       "reason": status})
    return challenge


def close_challenge(user, challenge_id: int, status: str, role: str) -> Challenge:
    """Move a pending challenge to `status` if `user` plays `role` in it (the challenged
    accepts or declines, the challenger withdraws); LobbyError saying why not otherwise."""
    closed = Challenge.objects.filter(
        pk=challenge_id, status=Challenge.Status.PENDING, **{role: user}
    ).update(status=status, closed_at=timezone.now())
    challenge = (Challenge.objects.select_related("challenger", "challenged")
                 .filter(pk=challenge_id).first())
    if closed:
        return challenge
    if challenge is None or user.pk not in (challenge.challenger_id, challenge.challenged_id):
        raise LobbyError("There is no such challenge.", 404)
    if challenge.status != Challenge.Status.PENDING:
        raise LobbyError(f"This challenge was already {challenge.status}.", 409)
    if role == "challenger":
        raise LobbyError("Only the challenger can withdraw a challenge.", 403)
    raise LobbyError("Only the challenged player can answer a challenge.", 403)


def announce_challenge(challenge: Challenge, payload: dict) -> None:
    for user_id in (challenge.challenger_id, challenge.challenged_id):
        announce(user_group(user_id), payload)


# -- presence: real-time seeks need their owner in the lobby -----------------------------------


def presence_grace() -> timedelta:
    """How long an owner may be without a lobby socket (a page reload) before their
    real-time seeks close."""
    return timedelta(seconds=getattr(settings, "LOBBY_PRESENCE_GRACE", 5))


def presence_stale() -> timedelta:
    """After this long without a ping a connection counts as gone (its server process may
    have died without saying so)."""
    return timedelta(seconds=getattr(settings, "LOBBY_PRESENCE_STALE", 75))


def connection_opened(user, channel_name: str) -> None:
    # Channel names are unique per socket: a reconnect is a new row, so a plain INSERT.
    LobbyConnection.objects.create(user=user, channel_name=channel_name)


def connection_seen(channel_name: str) -> None:
    LobbyConnection.objects.filter(channel_name=channel_name, closed_at__isnull=True).update(
        last_seen=timezone.now()
    )


def connection_closed(channel_name: str) -> None:
    # Kept for the grace period, so that a reload does not look like leaving.
    LobbyConnection.objects.filter(channel_name=channel_name).update(closed_at=timezone.now())


def present_user_ids(now):
    return LobbyConnection.objects.filter(
        Q(closed_at__isnull=True, last_seen__gte=now - presence_stale())
        | Q(closed_at__gte=now - presence_grace())
    ).values("user_id")


def close_abandoned_seeks() -> list[int]:
    """Close the open real-time seeks whose owner has no lobby socket (and forget dead
    connections). Safe to run from any process at any time; returns the closed seeks' ids."""
    now = timezone.now()
    LobbyConnection.objects.filter(
        Q(closed_at__lt=now - presence_grace())
        | Q(closed_at__isnull=True, last_seen__lt=now - presence_stale())
    ).delete()
    abandoned = Seek.objects.filter(
        status=Seek.Status.OPEN, tc_kind="realtime", created_at__lt=now - presence_grace()
    ).exclude(owner__in=present_user_ids(now))
    closed = []
    for seek_id in abandoned.values_list("id", flat=True):
        with transaction.atomic():
            # Checked again in the UPDATE itself: the owner may have come back meanwhile.
            if (Seek.objects.filter(pk=seek_id, status=Seek.Status.OPEN)
                    .exclude(owner__in=present_user_ids(now))
                    .update(status=Seek.Status.EXPIRED, closed_at=now)):
                announce(LOBBY_GROUP, {"type": "seek_removed", "id": seek_id,
                                       "reason": "expired"})
                closed.append(seek_id)
    return closed
