"""Hooks on the play app's post-commit announcements (play.signals, sent once a change has
committed): the players' `turn` events and the queueing of "your opponent moved" mail.

If the play app stops sending these signals, its post-commit announcement calls
`on_game_changed(game, event)` instead."""
from django.dispatch import receiver

from dashboard.turns import tell_players
from notifications.mail import queue_move_mail
from play import signals


def on_game_changed(game, event):
    tell_players(game)
    if event == "action" and game.time_control.is_correspondence:
        queue_move_mail(game.pk)


@receiver(signals.game_started)
def game_started(sender, game, **extra):
    on_game_changed(game, "started")


@receiver(signals.action_played)
def action_played(sender, game, **extra):
    on_game_changed(game, "action")


@receiver(signals.game_ended)
def game_ended(sender, game, **extra):
    on_game_changed(game, "ended")
