"""A node's answer: the position after a line of opening actions and the counts of each next
action, read from explorer.models.OpeningNode (one indexed query, no game is read)."""
from dataclasses import dataclass

import games
from games.setup import IllegalSetup, arrange, canonical
from explorer import counts
from explorer.models import OpeningNode

POOLS = {OpeningNode.PEOPLE, OpeningNode.COMPUTER}


class BadLine(ValueError):
    """A request the explorer cannot answer; `index`/`action` name a refused action."""

    def __init__(self, message, index=None, action=None):
        super().__init__(message)
        self.index, self.action = index, action


@dataclass
class Query:
    game: games.Game
    options: dict
    variant: str
    pool: str
    state: games.State   # the position after the line (its actions are canonical)


def position(game_name, params, limit, setup=None):
    """The game, its options (each of the game's option names in `params`) and the state
    after `moves` (comma-separated actions, as in records, at most `limit`), every action
    checked by the engine; BadLine with the engine's reason otherwise. ValueError for an
    unknown game (the caller's 404). `setup` (a Setup: the analysis board's) starts the line
    from a position set up by hand instead of the empty board."""
    game = games.get(game_name)
    options = {name: params[name] for name in game.option_choices() if params.get(name)}
    try:
        options = game.normalize_options(**options)
    except ValueError as error:
        raise BadLine(str(error)) from None
    line = [action.strip() for action in (params.get("moves") or "").split(",")
            if action.strip()]
    if len(line) > limit:
        raise BadLine(limit_text(limit, len(line)))
    state = game.new(**options) if setup is None else arranged(game, options, setup)
    for index, action in enumerate(line):
        try:
            state = state.play(action)
        except games.IllegalAction as reason:
            raise BadLine(f"action {index + 1} ({action}) is illegal: {reason}",
                          index, action) from None
    return game, options, state


# A set-up lists at most this many pieces: more than any board offered has cells (Tripen's
# size 11 has 121 cells, two tokens each).
MAX_PIECES = 250


@dataclass
class Setup:
    """Pieces put on the board by hand (cell: piece, as games.setup.arrange takes them) and
    the side to move, read from and written to the analysis board's address."""
    pieces: dict
    turn: int

    @classmethod
    def parse(cls, params):
        """The set-up in `params` (`setup=c3:0,b2:1&turn=0`), None where there is none;
        BadLine for text that is not one."""
        text, turn = params.get("setup"), params.get("turn") or "0"
        if text is None and "turn" not in params:
            return None
        if turn not in ("0", "1"):
            raise BadLine(f"turn must be 0 or 1, not {turn!r}")
        pieces = {}
        for item in filter(None, (text or "").split(",")):
            cell, colon, piece = item.strip().rpartition(":")
            if not colon or not cell or not piece:
                raise BadLine(f"{item!r} is not a piece: write cell:piece, e.g. c3:0")
            pieces[cell] = piece
            if len(pieces) > MAX_PIECES:
                raise BadLine(f"a set-up has at most {MAX_PIECES} pieces")
        return cls(pieces, int(turn))

    def params(self) -> dict:
        return {"setup": ",".join(f"{cell}:{piece}" for cell, piece in sorted(self.pieces.items())),
                "turn": str(self.turn)}


def arranged(game, options, setup: Setup):
    """The set-up's position, checked by the rules (games.setup); BadLine with their reason."""
    try:
        state = arrange(game.name, options, setup.pieces, setup.turn)
        # As the engine writes them, so that one position has one address (and one hint).
        setup.pieces = canonical(game.name, options, setup.pieces)
        return state
    except IllegalSetup as error:
        raise BadLine(f"this set-up is not a legal position: {error}") from None


def limit_text(limit, count):
    if limit == counts.DEPTH:
        return f"the explorer follows the first {limit} actions of a game, not {count}"
    return f"a line has at most {limit} actions, not {count}"


def parse(game_name, params) -> Query:
    """A node's request: the board, `pool` and the line (see position)."""
    pool = params.get("pool") or OpeningNode.PEOPLE
    if pool not in POOLS:
        raise BadLine(f"pool must be {OpeningNode.PEOPLE} or {OpeningNode.COMPUTER}, "
                      f"not {pool!r}")
    game, options, state = position(game_name, params, counts.DEPTH)
    return Query(game, options, counts.variant_of(game.name, options), pool, state)


def percent(part, whole):
    return round(100 * part / whole, 1) if whole else 0.0


def next_moves(query: Query) -> list[dict]:
    """Each action played from this position in the counted games, most played first, with
    its number of games and each side's wins and the draws (counts and percentages)."""
    rows = (OpeningNode.objects
            .filter(game=query.game.name, variant=query.variant, pool=query.pool,
                    line_hash=counts.line_hash(query.state.actions))
            .order_by("-games", "action")
            .values_list("action", "games", "wins0", "draws", "wins1"))
    return [{"action": action, "games": n, "wins": [w0, w1], "draws": d,
             "percent": {"wins0": percent(w0, n), "draws": percent(d, n),
                         "wins1": percent(w1, n)}}
            for action, n, w0, d, w1 in rows]


def answer(query: Query) -> dict:
    """The JSON answer of a node."""
    state = query.state
    return {"game": query.game.name, "options": query.options, "pool": query.pool,
            "moves": list(state.actions), "depth": counts.DEPTH,
            "to_move": state.to_move, "sides": list(query.game.sides),
            "next": next_moves(query) if state.ply < counts.DEPTH else []}
