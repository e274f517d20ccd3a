"""How a game ends: one door for every ending (played out, resignation, abort, time, a first
move not made, an opponent who left, an untimed game left alone), as lila's Finisher: the
result recorded, the clocks stopped, the game saved, and everyone told, all in the caller's
transaction (which holds the game's row lock), so an ending happens exactly once."""
from datetime import datetime

from play import broadcast, lapses, positions, statements
from play.models import Game
from play.seats import PlayerIndex, opponent
from play.signals import game_ending
from play.snapshots import clocks_of, result_of
from ratings.services import rate_game

NO_RESULT = Game.NO_RESULT

# What an end saves of the game: every field, as `game.save()` does (a played-out end also
# carries its last move's changes: play.services.do_play), through the UPDATE written once
# per process (play.statements) instead of the ORM's compiled per end.
SAVED = tuple(field.name for field in Game._meta.concrete_fields
              if not field.primary_key and not field.generated)


def end_game(game: Game, now: datetime, winner: PlayerIndex | None, reason: str, text: str, *,
             by_action: bool = False) -> None:
    """End the locked `game` at `now`. `winner` is a player index (None: a draw, or no
    result). `by_action`: the game's last action ended it, and the `action` message that
    carries the result is the caller's to send; otherwise `end` is sent here."""
    if game.time_control.is_realtime and game.running is not None:
        game.remaining_ms = game.remaining_at(now)
    game.turn_started_at = None
    game.status = Game.ABORTED if reason in NO_RESULT else Game.FINISHED
    game.winner, game.reason, game.result_text = winner, reason, text[:200]
    game.finished_at = now
    if game.takeback_offer is not None:
        lapse_takeback(game)
    # Ratings change in the same transaction as the end, exactly once (ratings.services).
    rate_game(game, now)
    statements.update_game(game, SAVED)
    game_ending.send(sender=Game, game=game, now=now)
    if not by_action:
        broadcast.to_game(game, {"type": "end", "result": result_of(game),
                                 "clocks": clocks_of(game, now),
                                 "state": positions.live_dict(game, game.state())})
    broadcast.announce(game, "ended")


def lapse_takeback(game):
    """Anything that happens to the game (an action, an ending) lapses a standing takeback
    proposal, which referred to the position before it; the caller saves `takeback_offer`."""
    proposer = game.takeback_offer
    game.takeback_offer = None
    broadcast.to_game(game, {"type": "takeback_lapsed", "proposed_by": proposer,
                             "ply": game.ply_count})


def winner_of(game: Game, state) -> PlayerIndex | None:
    """The player (not side) who won a game played out; None for a draw."""
    return None if state.winner is None else game.player_of(state.winner)


def played_out_text(game, state):
    winner = winner_of(game, state)
    engine_text = state.result_text()
    if winner is None:
        return engine_text
    return f"{game.username(winner)} wins — {engine_text}"


def end_if_due(game: Game, now: datetime) -> bool:
    """End the locked `game` if nobody acted in time (play.lapses); True if it did."""
    due = lapses.lapse(game, now)
    if due is None:
        return False
    reason, winner = due
    if reason == "time":
        loser = opponent(winner)
        how = "ran out of time" if game.time_control.is_realtime else "missed the move deadline"
        text = f"{game.username(loser)} {how} — {game.username(winner)} wins"
    elif reason == "no_start":
        text = f"{game.username(game.player_to_move())} did not make a first move — aborted"
    else:
        text = f"No action for {lapses.untimed_idle().days} days — ended without a result"
    end_game(game, now, winner, reason, text)
    return True
