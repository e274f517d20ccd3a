"""Opt-in mail: a correspondence opponent moved, a challenge arrived. Queued after the commit
(a burst of moves makes one notice), sent in batches by send_pending, one mail per
recipient; nothing for players who did not ask, or when the notice no longer holds."""
from datetime import timedelta

import pytest
from django.core import mail
from django.utils import timezone

from accounts.models import profile_of
from lobby import services as lobby
from notifications.mail import MOVE_DELAY, queue_move_mail, send_pending
from notifications.models import PendingMail
from play import services
from play.clock import TimeControl

pytestmark = pytest.mark.django_db


def wants_mail(user, email, **choices):
    user.email = email
    user.save()
    profile = profile_of(user)
    for name, value in choices.items():
        setattr(profile, name, value)
    profile.save()


def correspondence(first, second, game="hadron", options=None):
    return services.start_game(game=game, options=options or {"size": 5},
                               players=(first, second), time_control=TimeControl.correspondence(3))


def play(game, user, ply, action, capture):
    """One move, with its after-commit work run as the server runs it."""
    with capture(execute=True):
        services.play(game.pk, user, ply, action)


def test_a_burst_of_moves_sends_one_mail_after_the_delay(
        alice, bob, django_capture_on_commit_callbacks):
    wants_mail(bob, "bob@example.org", mail_on_move=True)
    wants_mail(alice, "alice@example.org", mail_on_move=True)
    first = correspondence(alice, bob)
    second = correspondence(alice, bob)
    play(first, alice, 0, "c3", django_capture_on_commit_callbacks)
    play(second, alice, 0, "c3", django_capture_on_commit_callbacks)
    play(first, bob, 1, "a1", django_capture_on_commit_callbacks)
    play(first, alice, 2, "e5", django_capture_on_commit_callbacks)
    notices = PendingMail.objects.filter(recipient=bob, sent_at=None)
    assert sorted(n.game_id for n in notices) == [first.pk, second.pk]

    now = timezone.now()
    assert send_pending(now) == 0 and mail.outbox == []           # not due yet
    # alice's notice (bob's move at ply 1) no longer holds: she has moved since.
    assert send_pending(now + MOVE_DELAY + timedelta(seconds=1)) == 1
    [to_bob] = mail.outbox
    assert to_bob.to == ["bob@example.org"]
    assert to_bob.subject == "Tessera: Your move in 2 games"
    assert f"http://127.0.0.1:8000/game/{first.pk}/" in to_bob.body
    assert f"/game/{second.pk}/" in to_bob.body and "against alice" in to_bob.body
    assert "/accounts/settings/" in to_bob.body
    # Sent once.
    assert send_pending(now + 2 * MOVE_DELAY) == 0 and len(mail.outbox) == 1
    assert PendingMail.objects.filter(sent_at=None).count() == 0


def test_a_notice_that_no_longer_holds_sends_nothing(alice, bob,
                                                     django_capture_on_commit_callbacks):
    wants_mail(bob, "bob@example.org", mail_on_move=True)
    game = correspondence(alice, bob)
    play(game, alice, 0, "c3", django_capture_on_commit_callbacks)
    play(game, bob, 1, "a1", django_capture_on_commit_callbacks)  # bob came by and moved
    assert send_pending(timezone.now() + MOVE_DELAY * 2) == 0
    assert mail.outbox == [] and not PendingMail.objects.filter(sent_at=None).exists()


def test_nobody_gets_mail_they_did_not_ask_for(alice, bob, carol,
                                               django_capture_on_commit_callbacks):
    wants_mail(bob, "bob@example.org")                       # no opt-in
    wants_mail(carol, "", mail_on_move=True)                 # no address
    for opponent in (bob, carol):
        play(correspondence(alice, opponent), alice, 0, "c3", django_capture_on_commit_callbacks)
    realtime = services.start_game(game="hadron", options={}, players=(alice, bob),
                                   time_control=TimeControl.realtime(5, 0))
    wants_mail(bob, "bob@example.org", mail_on_move=True)
    play(realtime, alice, 0, "c3", django_capture_on_commit_callbacks)  # not correspondence
    assert not PendingMail.objects.exists()


def test_the_same_player_acting_again_is_not_a_move_to_tell(alice, bob):
    """Colorful Connection: after the first stone each turn is two stones, two actions."""
    wants_mail(alice, "alice@example.org", mail_on_move=True)
    wants_mail(bob, "bob@example.org", mail_on_move=True)
    game = services.start_game(game="colorful", options={"size": 3}, players=(alice, bob),
                               time_control=TimeControl.correspondence(1))
    for ply, (player, expected) in enumerate([(alice, bob), (bob, None), (bob, alice)]):
        game.refresh_from_db()
        services.play(game.pk, player, ply, game.state().legal_actions()[0])
        queued = queue_move_mail(game.pk)
        assert (queued.recipient if queued else None) == expected, ply


def test_a_challenge_mails_the_challenged_player_unless_answered_first(
        alice, bob, django_capture_on_commit_callbacks):
    wants_mail(bob, "bob@example.org", mail_on_challenge=True)
    with django_capture_on_commit_callbacks(execute=True):
        kept = lobby.create_challenge(alice, opponent=bob, game="hadron", options={"size": 7},
                                      time_control=TimeControl.correspondence(3), side="random")
    assert PendingMail.objects.get().challenge == kept
    assert send_pending(timezone.now() + timedelta(minutes=2)) == 1
    sent = mail.outbox[0]
    assert sent.to == ["bob@example.org"] and sent.subject == "Tessera: alice challenges you"
    assert "alice: Hadron 7×7, 3 days per move, rated" in sent.body
    assert "http://127.0.0.1:8000/play/challenges/" in sent.body

    lobby.decline_challenge(bob, kept.pk)
    with django_capture_on_commit_callbacks(execute=True):
        withdrawn = lobby.create_challenge(alice, opponent=bob, game="tripen",
                                           options={"size": 7},
                                           time_control=TimeControl.untimed(), side="random")
    lobby.withdraw_challenge(alice, withdrawn.pk)
    assert send_pending(timezone.now() + timedelta(minutes=2)) == 0
    assert len(mail.outbox) == 1


def test_nothing_is_queued_before_the_commit(alice, bob, django_capture_on_commit_callbacks):
    wants_mail(bob, "bob@example.org", mail_on_challenge=True)
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        lobby.create_challenge(alice, opponent=bob, game="hadron", options={"size": 7},
                               time_control=TimeControl.untimed(), side="random")
    assert not PendingMail.objects.exists() and callbacks
