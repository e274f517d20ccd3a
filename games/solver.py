"""Forced wins within a bound, for every game, and an independent check of what was found.

    >>> import games
    >>> from games.solver import solve
    >>> state = games.get("hadron").replay({"size": 5}, ["c3"])
    >>> solve(state, 1).depth is None
    True

"Wins by force within N actions" is counted per *seat* (`person_to_move`, as the computer's
search counts it) and per action, not per turn: Copolymer's forced claims and Colorful's second
stone are actions of the same seat, and after Tripen's swap the seat that placed Red's token
plays Blue.  The seat to move wins within N when it has an action after which, whatever the
other seat does, the game is over with that seat the winner by the N-th action (a draw is not
a win).  Within N implies within N + 1, which the transposition table relies on.

`solve` deepens from 1 to the bound and reports the shortest forced win it finds, with *every*
first action that wins that fast (a puzzle's answers), and can write a certificate for its
claims: for every first action, either a winning strategy (one answer of the winner to every
reply) or a refutation (one reply to every try).  `verify` re-checks such a certificate by
itself: it walks the positions with `play()`, the checked path people's actions take, lists
the actions with `legal_actions()` at every node where every action must be covered, and
scores the ends by `winner` and `swapped`; it trusts nothing the solver computed.
`brute_force` is the plain exhaustive search (no table, no ordering, no game knowledge), for
the tests to compare the solver against on small boards.

Tripen's search knows two facts of its geometry, both checked by the tests against
`brute_force`: a token of one colour can neither make nor break a chain of the other colour,
and it takes a placement away only by overlapping it.  So when the seat that searches needs
an immediate win after one reply, the only replies that can stop it are the opponent's own
immediate wins and the tokens that overlap (or are) one of its winning tokens.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


def seat_winner(state) -> int | None:
    """The seat (0: the player who moved first) that won a finished game; None for a draw."""
    side = state.winner
    return None if side is None else side ^ state.swapped


# -- position keys for the transposition table ----------------------------------------------
# A key names everything that decides the rest of the game, so two move orders reaching the
# same position share one entry.  A game without a key is searched without a table.

def _key_copolymer(state):
    return bytes(3 if o is None else o for o in state.owner), state.mover


def _key_hadron(state):
    return bytes(3 if o is None else o for o in state.owner), state.mover


def _key_colorful(state):
    return "".join(s or "." for s in state.stones), state.mover, state.owed


def _key_tripen(state):
    return bytes(state.colour), state.mover, state.swapped, len(state.actions) == 1


# Games in which an action never ends the game in the other side's favour (Hadron: the last
# to place wins; Tripen: a token only completes its own colour's chain), so the other side
# cannot win by force in one action of ours.
MOVER_NEVER_LOSES_BY_MOVING = {"hadron", "tripen"}

KEYS = {"copolymer": _key_copolymer, "hadron": _key_hadron, "colorful": _key_colorful,
        "tripen": _key_tripen}


# -- Tripen's immediate wins, read from its union-find without playing each token -----------

def _tripen_winning_tokens(state, side: int) -> list[int]:
    """The free tokens that would complete `side`'s chain if `side` placed them now: those
    whose joins and borders reach both of the side's goal borders' components (the test
    apply() makes after the union, before it).  Only tokens next to one of the two
    components can, so those are gathered from the side's own tokens and the goal borders'
    lists instead of testing every free token of the board."""
    from .tripen import GOALS
    b, colour, parent, free = state.board, state.colour, state.parent, state.free

    def find(node):
        while parent[node] != node:
            node = parent[node]
        return node

    start, end = GOALS[side]
    first, last = find(b.border_node[start]), find(b.border_node[end])
    near_first = {node for node in _border_tokens(b)[start] if free[node]}
    near_last = {node for node in _border_tokens(b)[end] if free[node]}
    mine, joins = side + 1, b.joins
    for token, c in enumerate(colour):
        if c == mine:
            root = find(token)
            if root == first:
                near_first.update(other for other in joins[token] if free[other])
            elif root == last:
                near_last.update(other for other in joins[token] if free[other])
    return sorted(near_first & near_last)


_BORDER_TOKENS: dict[int, dict[str, list[int]]] = {}


def _border_tokens(board) -> dict[str, list[int]]:
    """Per border, the tokens of the board that touch it (boards are shared per size)."""
    found = _BORDER_TOKENS.get(board.n)
    if found is None:
        found = {}
        for node, borders in enumerate(board.borders_touched):
            for border in borders:
                found.setdefault(border, []).append(node)
        _BORDER_TOKENS[board.n] = found
    return found


@dataclass
class Solution:
    """What `solve` found for the seat to move."""
    seat: int
    bound: int
    depth: int | None                    # actions of the shortest forced win; None: none
    moves: list[str] = field(default_factory=list)   # every first action that wins in `depth`
    line: list[str] = field(default_factory=list)    # one winning line, best defence
    nodes: int = 0

    @property
    def wins(self) -> bool:
        return self.depth is not None


class Solver:
    """Depth-limited AND/OR search for one seat, with a transposition table that remembers,
    per position, the shortest bound proven to win and the longest proven not to, and the
    action that decided each."""

    def __init__(self, state):
        self.seat = state.person_to_move
        self.key = KEYS.get(state.game.name)
        self.game = state.game.name
        self.tripen = self.game == "tripen"
        self.won: dict[Any, tuple[int, str | None]] = {}    # key -> (depth, action)
        self.lost: dict[Any, tuple[int, str | None]] = {}
        self.nodes = 0

    # -- the search ------------------------------------------------------------------------

    def wins(self, state, depth: int) -> bool:
        """Whether self.seat wins from `state` within `depth` actions, whoever moves."""
        if state.is_over:
            return seat_winner(state) == self.seat
        if depth <= 0:
            return False
        key = self.key(state) if self.key else None
        if key is not None:
            won = self.won.get(key)
            if won is not None and won[0] <= depth:
                return True
            lost = self.lost.get(key)
            if lost is not None and lost[0] >= depth:
                return False
        self.nodes += 1
        ours = state.person_to_move == self.seat
        result, action = (self._or if ours else self._and)(state, depth)
        if key is not None:
            if result:
                self.won[key] = (depth, action)
            else:
                self.lost[key] = (depth, action)
        return result

    def _children(self, state):
        for action in state.legal_actions():
            child = state.clone()
            child.apply_action(action)
            yield action, child

    def immediate_wins(self, state) -> list[str]:
        """The actions after which the seat to move has won."""
        if self.tripen:   # the winner's seat is the mover's, swapped or not
            names = state.board.node_names
            return [names[node] for node in _tripen_winning_tokens(state, state.mover)]
        seat = state.person_to_move
        return [action for action, child in self._children(state)
                if child.is_over and seat_winner(child) == seat]

    def _or(self, state, depth):
        wins = self.immediate_wins(state)
        if wins:
            return True, wins[0]
        if depth == 1:
            return False, None
        for action, child in self._children(state):
            if self.wins(child, depth - 1):
                return True, action
        return False, None

    def _and(self, state, depth):
        if depth == 1 and self.game in MOVER_NEVER_LOSES_BY_MOVING:
            return False, state.legal_actions()[0]
        if self.tripen and depth == 2 and len(state.actions) != 1:
            return self._tripen_and(state)
        theirs = self.immediate_wins(state)
        if theirs:
            return False, theirs[0]
        for action, child in self._children(state):
            if not self.wins(child, depth - 1):
                return False, action
        return True, None

    def _tripen_and(self, state):
        """The other seat to move, ours to win at once after its reply: if we have no winning
        token now, no reply gives us one; if the other seat can win at once, it does; and
        otherwise only a reply on or overlapping one of our winning tokens can stop them."""
        b = state.board
        ours = _tripen_winning_tokens(state, 1 - state.mover)
        if not ours:
            return False, state.legal_actions()[0]
        theirs = self.immediate_wins(state)
        if theirs:
            return False, theirs[0]
        replies = set(ours)
        for node in ours:
            replies.update(b.blocks[node])
        names = b.node_names
        for node in sorted(replies):
            if state.free[node]:
                child = state.clone()
                child.apply_action(names[node])
                if not self.wins(child, 1):
                    return False, names[node]
        return True, None

    # -- certificates --------------------------------------------------------------------

    def certificate(self, state, depth: int, claim: bool):
        """A strategy for `claim` (our win within `depth`, or its absence) from `state`,
        which the search has decided: at the nodes of the side the claim favours, one action
        {"play": a, "then": ...}; at the other side's nodes every legal action
        {"replies": {a: ...}}; None at the ends."""
        assert self.wins(state, depth) == claim
        if state.is_over or depth <= 0:
            return None
        ours = state.person_to_move == self.seat
        if ours == claim:
            for action, child in self._ordered_children(state, claim):
                if self.wins(child, depth - 1) == claim:
                    return {"play": action, "then": self.certificate(child, depth - 1, claim)}
            raise AssertionError("the search's answer has no action to show for it")
        return {"replies": {action: self.certificate(child, depth - 1, claim)
                            for action, child in self._children(state)}}

    def _ordered_children(self, state, claim):
        """Children, the one the table remembers as deciding first (it usually is)."""
        key = self.key(state) if self.key else None
        remembered = (self.won if claim else self.lost).get(key) if key is not None else None
        first = remembered[1] if remembered else None
        if first is not None:
            child = state.clone()
            child.apply_action(first)
            yield first, child
        for action, child in self._children(state):
            if action != first:
                yield action, child


def winning_moves(state, depth: int, solver: Solver | None = None) -> list[str]:
    """Every action of the seat to move after which it wins within `depth` actions (this
    action included), in legal_actions() order."""
    solver = solver or Solver(state)
    return [action for action, child in solver._children(state)
            if solver.wins(child, depth - 1)]


def solve(state, bound: int, solver: Solver | None = None) -> Solution:
    """The shortest forced win of the seat to move within `bound` actions, and every first
    action that achieves it (see the module's docstring)."""
    if state.is_over:
        raise ValueError("the game is over: there is nothing to solve")
    solver = solver or Solver(state)
    for depth in range(1, bound + 1):
        if solver.wins(state, depth):
            moves = winning_moves(state, depth, solver)
            return Solution(solver.seat, bound, depth, moves,
                            _line(solver, state, depth), solver.nodes)
    return Solution(solver.seat, bound, None, [], [], solver.nodes)


def _line(solver: Solver, state, depth: int) -> list[str]:
    """One winning line: our deciding action, and the opponent's best defence (`defence`)."""
    line = []
    while not state.is_over and depth > 0:
        if state.person_to_move == solver.seat:
            action = next(a for a, child in solver._ordered_children(state, True)
                          if solver.wins(child, depth - 1))
        else:
            action = defence(solver, state, depth)
        line.append(action)
        state = state.clone()
        state.apply_action(action)
        depth -= 1
    return line


def defence(solver: Solver, state, depth: int) -> str:
    """The reply of the seat that is losing within `depth` actions that holds out best: one
    not beaten in fewer actions, and among those the one that leaves the winner the fewest
    winning answers (a reply that stops one threat of two rather than none); the first in
    legal order among equals."""
    best = None
    for a, child in solver._children(state):
        if child.is_over:
            score = (False, 0) if seat_winner(child) == solver.seat else (True, 1)
        elif child.person_to_move != solver.seat:    # the loser acts again (a forced claim)
            score = (not solver.wins(child, depth - 2), 0)
        else:
            longest = not solver.wins(child, depth - 2)
            answers = (solver.immediate_wins(child) if depth == 2
                       else winning_moves(child, depth - 1, solver))
            score = (longest, -len(answers))
        if best is None or score > best[0]:
            best = (score, a)
    return best[1]


def proof(state, depth: int, solver: Solver | None = None) -> dict[str, Any]:
    """For every legal first action, a certificate: a winning strategy within `depth`
    actions for the actions that win, a refutation for the others.  {"wins": {...},
    "fails": {...}}, each mapping an action to the certificate of the position after it."""
    solver = solver or Solver(state)
    out = {"wins": {}, "fails": {}}
    for action, child in solver._children(state):
        claim = solver.wins(child, depth - 1)
        out["wins" if claim else "fails"][action] = solver.certificate(child, depth - 1, claim)
    return out


# -- the independent checks ------------------------------------------------------------------

class CertificateError(AssertionError):
    """A certificate that does not prove what it claims; the message says where."""


def verify(state, depth: int, winning: list[str], certificate: dict[str, Any]) -> None:
    """Check, with the engine's checked path only, that exactly the actions `winning` win
    within `depth` actions for the seat to move in `state`: every legal action must be
    covered, the listed ones by a winning strategy and the others by a refutation.
    CertificateError says what failed."""
    seat = state.person_to_move
    legal = state.legal_actions()
    if sorted(winning) != sorted(certificate["wins"]):
        raise CertificateError(f"listed {sorted(winning)}, proven {sorted(certificate['wins'])}")
    try:
        _check_all(state, seat, depth, legal, certificate)
    except (KeyError, TypeError) as error:   # a strategy shaped for the other claim
        raise CertificateError(f"the certificate does not fit the position: {error!r}") from None


def _check_all(state, seat, depth, legal, certificate):
    for action in legal:
        if action in certificate["wins"]:
            _check(state.play(action), seat, depth - 1, True, certificate["wins"][action],
                   [action])
        elif action in certificate["fails"]:
            _check(state.play(action), seat, depth - 1, False, certificate["fails"][action],
                   [action])
        else:
            raise CertificateError(f"{action} is neither proven nor refuted")


def _check(state, seat, depth, claim, cert, path):
    if state.is_over:
        if (seat_winner(state) == seat) != claim:
            raise CertificateError(f"{' '.join(path)} ends the other way")
        return
    if depth <= 0:
        if claim:
            raise CertificateError(f"{' '.join(path)}: no win within the bound")
        return
    if cert is None:
        raise CertificateError(f"{' '.join(path)}: the certificate stops short")
    if (state.person_to_move == seat) == claim:
        action = cert["play"]
        _check(state.play(action), seat, depth - 1, claim, cert["then"], path + [action])
        return
    replies = cert["replies"]
    legal = state.legal_actions()
    if set(legal) != set(replies):
        raise CertificateError(f"{' '.join(path)}: the replies covered are not the legal ones")
    for action in legal:
        _check(state.play(action), seat, depth - 1, claim, replies[action], path + [action])


def brute_force(state, depth: int) -> list[str]:
    """Every first action with which the seat to move wins within `depth` actions, by plain
    exhaustive search through play(): no table, no move ordering, nothing known of any game.
    Slow; for the tests on small boards."""
    seat = state.person_to_move

    def wins(position, left):
        if position.is_over:
            return seat_winner(position) == seat
        if left == 0:
            return False
        children = (position.play(a) for a in position.legal_actions())
        if position.person_to_move == seat:
            return any(wins(child, left - 1) for child in children)
        return all(wins(child, left - 1) for child in children)

    return [a for a in state.legal_actions() if wins(state.play(a), depth - 1)]
