"""The dashboard's hook on the play app's news (play.signals.game_changed, sent once a change
has committed): the players' `turn` events. (The "your opponent moved" mail is the
notifications app's own hook.)"""
from django.dispatch import receiver

from dashboard.turns import tell_players
from play.signals import game_changed


@receiver(game_changed)
def on_game_changed(sender, game, event, **extra):
    tell_players(game)
