"""Telling everyone: the game's own group (its players' and spectators' sockets) and, through
play.signals, the other apps and the "games" group.

Anything about a change is sent only once its transaction has committed, so nobody hears of
a move the database does not have.
"""
import logging

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction

from play import signals
from play.models import Game

logger = logging.getLogger(__name__)

SIGNALS = {"started": signals.game_started, "action": signals.action_played,
           "ended": signals.game_ended}


def group_name(game_id):
    return f"game-{game_id}"


def to_game(game_id, message):
    """Send `message` to everyone on the game's page once the transaction commits."""
    event = {"type": "game.event", "message": message}
    transaction.on_commit(lambda: send(group_name(game_id), event))


def announce(game, event, **extra):
    """Send play.signals' signal for `event` and tell the "games" group, after the commit."""
    signal = SIGNALS[event]

    def tell():
        signal.send(sender=Game, game=game, **extra)
        send(signals.GAMES_GROUP, {"type": "games.changed", "game_id": game.pk, "event": event})

    transaction.on_commit(tell)


def send(group, event):
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        async_to_sync(layer.group_send)(group, event)
    except Exception:
        # The move is stored whatever happens to the notification; clients that miss it see
        # a gap in the plies and ask for a snapshot.
        logger.exception("could not send %s to group %s", event.get("type"), group)
