"""Opt-in mail: "your correspondence opponent has moved" and "you have been challenged".

Two halves, so that neither a move nor a lobby request ever waits for a mail server:

* `queue_move_mail(game_id)` and `queue_challenge_mail(challenge_id)`, called after the
  commit of the change, only record a PendingMail row (or find the one already waiting: a
  burst of moves in a game makes one notice).
* `send_pending(now)` sends what is due, one mail per recipient with everything they have
  waiting, and marks it sent. The server's sweeper calls it; so does
  `manage.py send_pending_mail` (cron).

A notice is dropped unsent when it no longer holds at sending time: the recipient already
moved, the game ended, the challenge was answered or withdrawn, or they turned the mail off.
"""
import logging
from datetime import timedelta

from django.conf import settings
from django.core.mail import EmailMessage
from django.db import IntegrityError, transaction
from django.template.loader import render_to_string
from django.utils import timezone

from accounts.models import profile_of
from lobby.models import Challenge
from notifications.models import PendingMail
from play.models import Game

logger = logging.getLogger(__name__)

# A move's notice waits this long for more moves (and for the player to come by anyway);
# a challenge's, so that one answered at once sends nothing.
MOVE_DELAY = timedelta(minutes=5)
CHALLENGE_DELAY = timedelta(minutes=1)


def delay(kind):
    setting = {"move": "MAIL_MOVE_DELAY", "challenge": "MAIL_CHALLENGE_DELAY"}[kind]
    seconds = getattr(settings, setting, None)
    if seconds is not None:
        return timedelta(seconds=seconds)
    return MOVE_DELAY if kind == PendingMail.MOVE else CHALLENGE_DELAY


def wants(user, kind) -> bool:
    profile = profile_of(user)
    wanted = profile.mail_on_move if kind == PendingMail.MOVE else profile.mail_on_challenge
    return bool(wanted and user.email and user.is_active)


# -- queueing (after the commit of a change) ---------------------------------------------------

def queue_move_mail(game_id, now=None):
    """An action of a correspondence game was stored: if the turn passed to the other player
    and they want mail, make sure a notice is waiting for them. Returns it, or None."""
    game = Game.objects.with_players().filter(pk=game_id).first()
    if game is None or not game.is_active or not game.time_control.is_correspondence:
        return None
    mover = game.player_to_move()
    last = game.action_rows.order_by("-ply").values_list("player", flat=True).first()
    if mover is None or last is None or last == mover:
        return None  # the same player acts again (Copolymer's claims, Colorful's second stone)
    recipient = game.players()[mover]
    if not wants(recipient, PendingMail.MOVE):
        return None
    return record(recipient, PendingMail.MOVE, now, game=game)


def queue_challenge_mail(challenge_id, now=None):
    """A challenge was made: a notice for the challenged player if they want one."""
    challenge = (Challenge.objects.select_related("challenged").filter(pk=challenge_id).first())
    if challenge is None or not wants(challenge.challenged, PendingMail.CHALLENGE):
        return None
    return record(challenge.challenged, PendingMail.CHALLENGE, now, challenge=challenge)


def record(recipient, kind, now, **about):
    now = now or timezone.now()
    waiting = PendingMail.objects.filter(recipient=recipient, kind=kind, sent_at=None, **about)
    found = waiting.first()
    if found is not None:
        return found
    try:
        with transaction.atomic():
            return PendingMail.objects.create(recipient=recipient, kind=kind, created_at=now,
                                              due_at=now + delay(kind), **about)
    except IntegrityError:
        return waiting.first()  # another process recorded it at the same moment


# -- sending (the sweeper) ---------------------------------------------------------------------

def send_pending(now=None) -> int:
    """Send every notice due by `now`, grouped per recipient; returns how many mails went.
    Safe to run from several processes at once: each claims its recipients' notices under
    row locks (skipping those another process holds) and sends after the commit, so no
    database lock is held while a mail server answers; a mail that fails is tried again at
    the next run."""
    now = now or timezone.now()
    due = PendingMail.objects.filter(sent_at=None, due_at__lte=now)
    sent = 0
    for recipient_id in due.order_by().values_list("recipient", flat=True).distinct():
        with transaction.atomic():
            notices = list(due.filter(recipient_id=recipient_id)
                           .select_for_update(skip_locked=True, of=("self",))
                           .select_related("recipient", "game", "challenge"))
            if not notices:
                continue
            claimed = PendingMail.objects.filter(pk__in=[n.pk for n in notices])
            claimed.update(sent_at=now)
            message = compose(notices[0].recipient, notices)
        if message is None:
            continue
        try:
            message.send()
        except Exception:
            logger.exception("mail to %s failed; it is tried again later", recipient_id)
            claimed.update(sent_at=None)
            continue
        sent += 1
    return sent


def compose(recipient, notices):
    """The mail for `recipient` about the notices that still hold, or None."""
    moves = [game for game in still_your_move(recipient, notices)]
    challenges = [n.challenge for n in notices if n.kind == PendingMail.CHALLENGE
                  and n.challenge is not None and n.challenge.status == Challenge.Status.PENDING
                  and wants(recipient, PendingMail.CHALLENGE)]
    if not moves and not challenges:
        return None
    context = {"user": recipient, "site": settings.SITE_URL, "moves": moves,
               "challenges": challenges, "settings_url": settings.SITE_URL + "/accounts/settings/",
               "challenges_url": settings.SITE_URL + "/play/challenges/"}
    subject = subject_of(recipient, moves, challenges)
    body = render_to_string("notifications/mail.txt", context)
    return EmailMessage(subject, body, to=[recipient.email])


def still_your_move(recipient, notices):
    if not wants(recipient, PendingMail.MOVE):
        return []
    games = [n.game for n in notices if n.kind == PendingMail.MOVE and n.game is not None]
    found = Game.objects.with_players().filter(pk__in=[g.pk for g in games]).active()
    return [game for game in found.order_by("pk")
            if game.player_to_move() is not None
            and game.players()[game.player_to_move()].pk == recipient.pk]


def subject_of(recipient, moves, challenges):
    parts = []
    if len(moves) == 1:
        game = moves[0]
        opponent = game.player1 if game.player0_id == recipient.pk else game.player0
        parts.append(f"{opponent.get_username()} moved: your move in {game.title}")
    elif moves:
        parts.append(f"Your move in {len(moves)} games")
    if len(challenges) == 1:
        parts.append(f"{challenges[0].challenger.get_username()} challenges you")
    elif challenges:
        parts.append(f"{len(challenges)} challenges")
    return "Tessera: " + "; ".join(parts)
