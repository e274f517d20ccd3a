"""The mail notices' hooks on the news of the apps below: a correspondence move
(play.signals.game_changed) and a new challenge (lobby.signals.challenge_made), both heard
once their change has committed. Each only queues a pending mail (notifications.mail)."""
from notifications.mail import queue_challenge_mail, queue_move_mail


def on_game_changed(sender, game, event, **extra):
    if event == "action" and game.time_control.is_correspondence:
        queue_move_mail(game.pk)


def on_challenge_made(sender, challenge_id, **extra):
    queue_challenge_mail(challenge_id)


def connect():
    from lobby.signals import challenge_made
    from play.signals import game_changed

    game_changed.connect(on_game_changed, dispatch_uid="notifications.move_mail")
    challenge_made.connect(on_challenge_made, dispatch_uid="notifications.challenge_mail")
