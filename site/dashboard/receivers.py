"""The dashboard's hook on the play app's news (play.signals.game_changed, sent once a change
has committed): the players' `turn` events and the queueing of "your opponent moved" mail."""
from django.dispatch import receiver

from dashboard.turns import tell_players
from notifications.mail import queue_move_mail
from play.signals import game_changed


@receiver(game_changed)
def on_game_changed(sender, game, event, **extra):
    tell_players(game)
    if event == "action" and game.time_control.is_correspondence:
        queue_move_mail(game.pk)
