"""What other apps hear of games, once a change has committed.

`game_changed` (sender=Game, game=<Game>, event="started" | "action" | "ended") is sent by
play.broadcast.announce after the commit, on the thread that made the change: receivers (the
dashboard's `turn` events, the opt-in mail) queue what they send through live.outbox, so it
leaves from the event loop like the game's own news. Keep receivers cheap: they run on the
live path of every move.
"""
from django.dispatch import Signal

game_changed = Signal()
