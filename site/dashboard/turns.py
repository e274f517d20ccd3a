"""Whose turn it is, for a player's own view of their games: the games awaiting their move
(the home page, the header count) and the live `turn` event that keeps the count current.

The event goes to both players' "user-<id>" groups, where every lobby and notification
socket of theirs relays it (docs/lobby-protocol.md), after the change has committed. It is
sent by `tell_players(game)`, on the play app's post-commit news (dashboard.receivers).
"""
from live import outbox
from live.sockets import event
from play.models import Game


def awaiting(user) -> list[Game]:
    """The player's games in progress where it is their move, longest waiting first. The
    position of each comes from the play app's per-process cache of engine states."""
    if not getattr(user, "is_authenticated", False):
        return []
    found = Game.objects.of_player(user).active().with_players().order_by("updated_at", "pk")
    return [game for game in found if is_their_turn(game, user)]


def is_their_turn(game, user) -> bool:
    mover = game.player_to_move() if game.is_active else None
    return mover is not None and game.players()[mover].pk == user.pk


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
    # Here, not at the top: the lobby's listing asks this module for its snapshots.
    from lobby.services import user_group

    for index, player in enumerate(game.players()):
        outbox.send(user_group(player.pk), event(turn_event(game, index)))
