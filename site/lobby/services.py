"""What players do in the lobby, and who is told.

Every change runs in one transaction and is announced over the channel layer only after it
commits (transaction.on_commit), so a browser never hears of a seek or a game the database
does not have yet. Groups:

* "lobby": every open lobby socket; seeks appear and vanish there.
* "user-<id>": every lobby and notification socket of one player (lobby.consumers); their
  challenges and "your game started".

The state changes are conditional UPDATEs (Proposal's close()) run first in their
transaction: when two players accept one seek at once, exactly one UPDATE finds it open; the
other is told it was taken.

What the lobby shows is lobby.listing; real-time seeks and their owners' presence,
lobby.presence.
"""
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction

from lobby import signals
from lobby.listing import (challenge_dict, game_started, open_seeks, pending_challenges,
                           rating_bounds, seek_dict)
from lobby.models import Challenge, Seek
from live import groups, outbox
from live.sockets import event
from play.services import start_game
from ratings.display import standing

MAX_OPEN_SEEKS = 5
MAX_PENDING_CHALLENGES = 10


class LobbyError(Exception):
    """A request the lobby refuses; `message` is for the player, `status` for HTTP."""

    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.message = message
        self.status = status


def announce(group: str, payload: dict) -> None:
    """Send `payload` to a group's sockets once the current transaction commits (encoded once
    for all of them, live.sockets.event)."""
    outbox.send_after_commit(group, event(payload))


# -- seeks -------------------------------------------------------------------------------------


def lock_proposer(user):
    """Serialise one player's offers, so two requests at once cannot both pass a limit.
    A row lock on PostgreSQL; SQLite ignores it, and there a race could let one extra offer
    through, which harms nothing."""
    get_user_model().objects.select_for_update().filter(pk=user.pk).first()


def create_seek(owner, *, game, options, time_control, side, rated=True,
                rating_range=None) -> Seek:
    with transaction.atomic():
        lock_proposer(owner)
        if open_seeks().filter(owner=owner).count() >= MAX_OPEN_SEEKS:
            raise LobbyError(f"You already have {MAX_OPEN_SEEKS} open seeks: cancel one first.",
                             409)
        seek = Seek(owner=owner, game=game, options=options, side=side, rated=rated,
                    rating_range=rating_range)
        seek.time_control = time_control
        seek.save()
        announce(groups.LOBBY, {"type": "seek_added", "seek": seek_dict(seek)})
    return seek


def cancel_seek(user, seek_id: int) -> Seek:
    with transaction.atomic():
        closed = (Seek.objects.filter(pk=seek_id, owner=user, status=Seek.Status.OPEN)
                  .close(Seek.Status.CANCELLED))
        seek = Seek.objects.filter(pk=seek_id).first()
        if not closed:
            raise refusal(seek, user, "cancel")
        announce(groups.LOBBY, {"type": "seek_removed", "id": seek.pk, "reason": "cancelled"})
    return seek


def accept_seek(user, seek_id: int):
    """Start the game between the seek's owner and `user`; the owner's lobby sockets are
    told to go to it. Returns the play Game. A player outside the seek's rating range is
    refused (the page greys the seek for them already)."""
    # Before the transaction: on SQLite a read ahead of the accepting UPDATE would turn a
    # race between accepters into "database is locked" instead of a clean refusal.
    check_rating_range(user, seek_id)
    with transaction.atomic():
        taken = (Seek.objects.filter(pk=seek_id, status=Seek.Status.OPEN).exclude(owner=user)
                 .close(Seek.Status.TAKEN, accepted_by=user))
        seek = Seek.objects.select_related("owner").filter(pk=seek_id).first()
        if not taken:
            raise refusal(seek, user, "accept")
        game = start_game(
            game=seek.game, options=seek.options, players=seek.players(user),
            time_control=seek.time_control, rated=seek.rated,
        )
        Seek.objects.filter(pk=seek.pk).update(started_game=game)
        announce(groups.LOBBY, {"type": "seek_removed", "id": seek.pk, "reason": "taken"})
        announce(groups.user(seek.owner_id),
                 game_started(game, f"{user.get_username()} accepted your seek"))
    return game


def check_rating_range(user, seek_id: int) -> None:
    """Refuse a player whose rating for the seek's game is outside its range (as both ratings
    stand now). A seek that is gone or not open is left to the accepting UPDATE to explain."""
    seek = (Seek.objects.select_related("owner")
            .filter(pk=seek_id, status=Seek.Status.OPEN, rating_range__isnull=False).first())
    if seek is None or seek.owner_id == user.pk:
        return
    low, high = rating_bounds(seek)
    mine = standing(user, seek.game).rating
    if not low <= mine <= high:
        raise LobbyError(f"This seek is for players rated {low}–{high} at {seek.game_title}; "
                         f"yours is {mine}.", 403)


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


# -- challenges --------------------------------------------------------------------------------


def create_challenge(challenger, *, opponent, game, options, time_control, side,
                     rated=True) -> Challenge:
    if opponent.pk == challenger.pk:
        raise LobbyError("You cannot challenge yourself.")
    if rated and not settings.BOT_ACCOUNTS_RATED and bot_account_among(challenger, opponent):
        raise LobbyError("Bot accounts play casual games only on this site.")
    with transaction.atomic():
        lock_proposer(challenger)
        pending = pending_challenges(challenger).filter(challenger=challenger)
        if pending.filter(challenged=opponent).exists():
            raise LobbyError(f"You already have a challenge waiting for "
                             f"{opponent.get_username()}: withdraw it first.", 409)
        if pending.count() >= MAX_PENDING_CHALLENGES:
            raise LobbyError(f"You already have {MAX_PENDING_CHALLENGES} challenges waiting: "
                             "withdraw one first.", 409)
        challenge = Challenge(challenger=challenger, challenged=opponent, game=game,
                              options=options, side=side, rated=rated)
        challenge.time_control = time_control
        challenge.save()
        announce_challenge(challenge, {"type": "challenge_added",
                                       "challenge": challenge_dict(challenge)})
        transaction.on_commit(lambda: signals.challenge_made.send(sender=Challenge,
                                                                  challenge_id=challenge.pk))
    return challenge


class BotAccounts:
    """Whether a user is a bot account (a program playing through the API): the api app, above
    the lobby, tells it at its ready(), so that the operator can keep bots out of rated games."""

    def __init__(self):
        self.is_bot_account = lambda user: False


bot_accounts = BotAccounts()


def bot_account_among(*users) -> bool:
    return any(bot_accounts.is_bot_account(user) for user in users)


def accept_challenge(user, challenge_id: int):
    with transaction.atomic():
        challenge = close_challenge(user, challenge_id, Challenge.Status.ACCEPTED, "challenged")
        game = start_game(
            game=challenge.game, options=challenge.options,
            players=challenge.players(challenge.challenged),
            time_control=challenge.time_control, rated=challenge.rated,
        )
        Challenge.objects.filter(pk=challenge.pk).update(started_game=game)
        announce_challenge(challenge, {"type": "challenge_removed", "id": challenge.pk,
                                       "reason": "accepted"})
        announce(groups.user(challenge.challenger_id),
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
    closed = (Challenge.objects.filter(pk=challenge_id, status=Challenge.Status.PENDING,
                                       **{role: user})
              .close(status))
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
        announce(groups.user(user_id), payload)
