"""Whose turn it is, for a player's own view of their games: the live `turn` event that keeps
the header's count of the games awaiting their move (play.models.awaiting) current.

The event goes to both players' "user-<id>" groups, where every lobby and notification
socket of theirs relays it (docs/lobby-protocol.md), after the change has committed. It is
sent by `tell_players(game)`, on the play app's post-commit news (dashboard.receivers).
"""
from live import groups, outbox
from live.sockets import event


def turn_event(game, index) -> dict:
    """The `turn` payload for player `index` of the game."""
    mover = game.player_to_move() if game.is_active else None
    opponent = game.players()[1 - index]
    return {"type": "turn", "game_id": game.pk, "url": game.get_absolute_url(),
            "title": game.title, "opponent": opponent.get_username(),
            "your_turn": mover == index, "over": not game.is_active}


def tell_players(game) -> None:
    """Send each player their `turn` event for the game's position now. Call it after the
    commit (it queues the news in the current outbox, live.outbox)."""
    for index, player in enumerate(game.players()):
        outbox.send(groups.user(player.pk), event(turn_event(game, index)))
