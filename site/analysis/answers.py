"""What the analysis and hint addresses answer, as JSON-ready dicts (docs/analysis.md)."""
from analysis import estimates
from analysis.models import Job

NONE = "none"   # nothing asked for yet


def analysis_answer(game, analysis):
    """The analysis of `game` as far as it got: its positions (each player's winning chance
    after each ply, in ply order) and the marked actions."""
    points = [] if analysis is None else [
        estimates.Point(row.ply, (row.chance0, round(1 - row.chance0, 4)), row.mover, row.forced)
        for row in analysis.estimates.all()]
    marks = estimates.marks(points, game.action_list()) if points else []
    return {
        "game": game.pk,
        "status": NONE if analysis is None else analysis.status,
        "plies": game.ply_count,
        "positions": [{"ply": point.ply, "chances": list(point.chances)} for point in points],
        "marks": [{"ply": mark.ply, "player": mark.player, "action": mark.action,
                   "drop": mark.drop, "symbol": mark.symbol} for mark in marks],
        "thresholds": {"mistake": estimates.MISTAKE, "blunder": estimates.BLUNDER},
        "playouts": None if analysis is None else analysis.playouts,
        "error": "" if analysis is None else analysis.error,
    }


def hint_answer(ply, moves, hint):
    """The hint for the position after the game's `ply` actions and the explored `moves`."""
    return {
        "status": NONE if hint is None else hint.status,
        "ply": ply,
        "moves": list(moves),
        "action": hint.action if hint is not None and hint.status == Job.DONE else None,
        "error": "" if hint is None else hint.error,
    }


def board_hint_answer(position, hint):
    """The hint for an analysis board's position (its canonical set-up and line)."""
    return {
        "status": NONE if hint is None else hint.status,
        "game": position.game,
        "options": position.options,
        "setup": position.setup,
        "moves": list(position.moves),
        "action": hint.action if hint is not None and hint.status == Job.DONE else None,
        "error": "" if hint is None else hint.error,
    }
