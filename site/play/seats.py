"""The two numbers of a seat, kept apart by type so that one cannot stand where the other
belongs: a player index (0: player0, who moved first; the game row, the results, the clocks
and presence count by it) and a side (the engine's colour: `to_move` and `winner` name one).
They differ after Tripen's swap, when the players exchange sides (Game.side_of /
Game.player_of, and the engine's `person_to_move`: the player index of whoever plays next).
"""
from typing import NewType

PlayerIndex = NewType("PlayerIndex", int)
Side = NewType("Side", int)


def opponent(player: PlayerIndex) -> PlayerIndex:
    return PlayerIndex(1 - player)
