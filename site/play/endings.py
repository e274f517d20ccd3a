"""How a game ends: the result recorded, the clocks stopped, and everyone told. Also the
clock's own verdict: a player whose time has run out loses, whoever notices it first (a
socket's timer, a page load, any message on the game)."""
from play import broadcast, positions
from play.models import Game
from play.snapshots import clocks_of, result_of
from ratings.services import rate_game


def finish(game, now, winner, reason, text):
    """Stop the clocks (charging the running player up to `now`), record the result and, for
    a rated game, update the players' ratings: every ending comes here, inside the locked
    transaction that ends the game, so the rating changes are stored with the end or not at
    all (and once: rate_game is idempotent)."""
    if game.time_control.is_realtime and game.running is not None:
        game.remaining_ms = game.remaining_at(now)
    game.turn_started_at = None
    game.status = Game.ABORTED if reason == "abort" else Game.FINISHED
    game.winner, game.reason, game.result_text = winner, reason, text[:200]
    game.finished_at = now
    rate_game(game, now)


def save_end(game, now):
    """Store an end that came without an action (resignation, abort, time) and tell everyone."""
    game.save()
    broadcast.to_game(game.pk, {"type": "end", "result": result_of(game),
                                "clocks": clocks_of(game, now),
                                "state": positions.live_dict(game, game.state())})
    broadcast.announce(game, "ended")


def winner_of(game, state):
    """The player (not side) who won a game played out; None for a draw."""
    return None if state.winner is None else game.player_of(state.winner)


def played_out_text(game, state):
    winner = winner_of(game, state)
    engine_text = state.result_text()
    if winner is None:
        return engine_text
    return f"{game.username(winner)} wins — {engine_text}"


def end_if_flagged(game, now):
    """End a locked game whose running clock has run out at `now`; True if it did."""
    loser = game.flag_fell(now)
    if loser is None:
        return False
    winner = 1 - loser
    how = "ran out of time" if game.time_control.is_realtime else "missed the move deadline"
    finish(game, now, winner, "time",
           f"{game.username(loser)} {how} — {game.username(winner)} wins")
    save_end(game, now)
    return True

