"""Signals for other apps (lobby, watch list, archive), sent after the change is committed.

Each signal is also announced to the channel-layer group "games" as
{"type": "games.changed", "game_id": id, "event": "started" | "action" | "ended"},
so a websocket consumer in any server process can follow every game.
"""
from django.dispatch import Signal

# sender=Game, game=<Game>
game_started = Signal()
# sender=Game, game=<Game>, ply=<index of the action just stored>
action_played = Signal()
# sender=Game, game=<Game> (status finished or aborted, result fields set)
game_ended = Signal()

GAMES_GROUP = "games"
