"""Monte Carlo tree search over the engine's public playout path, for every game alike.

    >>> import games, random
    >>> from games.mcts import search
    >>> state = games.get("hadron").new()
    >>> search(state, playouts=50, rng=random.Random(1)).action in state.legal_actions()
    True

The search reads only `clone()`, `apply_action()`, `legal_actions()`, `is_over`, `winner`,
`person_to_move` and `swapped`.  Rewards are kept per *seat* (`person_to_move`: the player who
moved first is 0), not per side, so two things that are awkward with a strict alternation come
out right without a special case:

* a turn of several actions (Copolymer's forced claims, Colorful's two stones) is a child
  whose seat to move is its parent's: each node keeps the reward of the seat that chose the
  action leading to it, whoever moves next;
* Tripen's swap exchanges sides but not seats: the seat that swaps now holds Red, and the
  position after it is scored for that seat.

Selection is UCT (UCB1 on rewards in [0, 1]) blended with RAVE / AMAF ("all moves as first",
Gelly and Silver 2007, with Silver's minimum-MSE schedule): an action's value at a node also
learns from every simulation below the node in which the chooser's seat played that action
later.  In placement and connection games a stone or token is worth much the same a few moves
earlier or later, which is what AMAF assumes.  Playouts are uniformly random legal actions,
played by each game's `State.playout` (a random fill of the board where the order cannot
change the result: Colorful, Tripen, and Copolymer's order of claims).  The answer is the
most visited action at the root (ties: higher mean reward).

Time is counted in CPU seconds of this process (time.process_time) unless the caller passes
another clock, so a busy machine slows a search but does not weaken it in tests and the arena;
a caller that must answer within a wall-clock time (the site, on a realtime clock) passes
`clock=time.monotonic`.  The search stops early once the most visited
root action cannot be overtaken within what is left of the budget ("settled"): the answer is
the same, only sooner.  Nodes hold no reference to their parent, so a finished tree is freed
as soon as it is dropped, without waiting for the cycle collector.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from time import process_time


class Node:
    """One position in the tree.  `n`, `w`: visits and summed reward of `seat`, the seat that
    played `action` to get here.  `amaf`: per action, [visits, summed reward] of the seat to
    move here, from simulations where that seat played the action anywhere later."""

    __slots__ = ("state", "action", "seat", "to_move", "children", "untried", "n", "w", "amaf",
                 "stats")

    def __init__(self, state, action, seat, stats=None):
        self.state, self.action, self.seat = state, action, seat
        self.stats = stats       # the parent's amaf entry of `action`, shared: read in _select
        self.to_move = state.person_to_move       # None at the end of the game
        self.children: list[Node] = []
        self.untried = state.legal_actions()       # a fresh list: ours to pop from
        self.n = 0
        self.w = 0.0
        self.amaf: dict[str, list] = {}


@dataclass
class Result:
    """What a search found: the action, and figures for the arena and the site's analysis."""
    action: str
    playouts: int
    seconds: float                              # CPU seconds
    value: float                                # mean reward of `action` for the mover, 0..1
    visits: dict[str, int] = field(default_factory=dict)
    # Mean reward for the mover over every simulation of the search (None when it did not
    # search): a steadier estimate of the position than `value` on a small budget, where the
    # most visited action may have been tried only a few times.
    mean: float | None = None


def rewards(state) -> tuple[float, float]:
    """Reward per seat at the end of a game: 1 a win, 0 a loss, 0.5 each for a draw."""
    side = state.winner
    if side is None:
        return (0.5, 0.5)
    return (1.0, 0.0) if side ^ state.swapped == 0 else (0.0, 1.0)


def immediate_wins(state) -> list[str]:
    """The actions after which the game is over and the mover's seat has won."""
    seat, wins = state.person_to_move, []
    for action in state.legal_actions():
        child = state.clone()
        child.apply_action(action)
        if child.is_over and rewards(child)[seat] == 1.0:
            wins.append(action)
    return wins


def search(state, playouts: int, rng: random.Random, time_limit: float | None = None,
           exploration: float = 0.4, rave: float = 500.0, settle: bool = True,
           clock=process_time) -> Result:
    """Search from `state` (not over) for up to `playouts` simulations or `time_limit`
    seconds of `clock` (CPU seconds of this process unless told otherwise: a player on a real
    clock passes time.monotonic, since a starved process must still answer in time),
    whichever ends first (at least one simulation), or until the answer is settled
    (unless `settle` is false: for tests that the early stop changes nothing).
    `rave` is RAVE's equivalence parameter (0 turns AMAF off: plain UCT).  An immediate win,
    or the only legal action, is played without a search (`playouts` 0 in the result).
    The same `rng` state, budget and position give the same answer whenever the time limit
    does not cut the search short (the settled stop depends on visit counts only)."""
    start = clock()
    deadline = None if time_limit is None else start + time_limit
    if state.is_over:
        raise ValueError("the game is over: there is nothing to search")
    wins = immediate_wins(state)
    if wins:
        return Result(sorted(wins)[0], 0, clock() - start, 1.0, {})
    legal = state.legal_actions()
    if len(legal) == 1:   # a forced action (e.g. the last cell) needs no search
        return Result(legal[0], 0, clock() - start, 0.5, {})
    root = Node(state, None, None)
    done = 0
    while done < playouts:
        _simulate(root, rng, exploration, rave)
        done += 1
        if deadline is not None and clock() >= deadline:
            break
        if settle and done & 15 == 0 and _settled(root, playouts - done):
            break
    best = max(root.children, key=lambda c: (c.n, c.w / c.n))
    return Result(best.action, done, clock() - start, best.w / best.n,
                  {c.action: c.n for c in root.children},
                  sum(c.w for c in root.children) / sum(c.n for c in root.children))


def _settled(root: Node, left: int) -> bool:
    """Whether no other root action can reach the most visited one's count in `left` more
    simulations (an untried action counts as 0 visits)."""
    first = second = 0
    for child in root.children:
        n = child.n
        if n > first:
            first, second = n, first
        elif n > second:
            second = n
    return first - second > left


def _simulate(root: Node, rng: random.Random, exploration: float, rave: float) -> None:
    node, path, moves = root, [root], []     # moves: (seat, action) from the root down
    # Selection: down through fully expanded nodes.
    while not node.untried and node.children:
        node = _select(node, exploration, rave)
        path.append(node)
        moves.append((node.seat, node.action))
    # Expansion: one new child, unless the game is over here.
    untried = node.untried
    if untried:
        # A random untried action, swapped to the end and popped: O(1), where shuffling
        # every new node's list cost as much as a playout on Tripen's 294 tokens.
        k = rng.randrange(len(untried))
        untried[k], untried[-1] = untried[-1], untried[k]
        action = untried.pop()
        state = node.state.clone()
        state.apply_action(action)
        child = Node(state, action, node.to_move, node.amaf.setdefault(action, [0, 0.0]))
        node.children.append(child)
        node = child
        path.append(child)
        moves.append((child.seat, action))
    # Playout: the game's own random game to the end, on its private structures.
    state = node.state
    if state.is_over:
        reward = rewards(state)
    else:
        seat, played = state.playout(rng)
        reward = (0.5, 0.5) if seat is None else (1.0, 0.0) if seat == 0 else (0.0, 1.0)
        if rave:
            moves += played
    # Back-propagation, with AMAF: at each node, every later action of the seat to move there.
    for depth, visited in enumerate(path):
        visited.n += 1
        if visited.seat is not None:
            visited.w += reward[visited.seat]
        if rave and visited.to_move is not None:
            # No action occurs twice in one game of ours (a cell, a token, a colour on a cell,
            # one swap), so every later action is also its first occurrence: no set needed.
            seat, amaf = visited.to_move, visited.amaf
            gain = reward[seat]
            for mover, action in moves[depth:]:
                if mover == seat:
                    stats = amaf.get(action)
                    if stats is None:
                        amaf[action] = [1, gain]
                    else:
                        stats[0] += 1
                        stats[1] += gain


def _select(node: Node, exploration: float, rave: float) -> Node:
    """The child with the best UCB1 score, its mean blended with its AMAF mean by RAVE."""
    explore = exploration * math.sqrt(math.log(node.n))
    sqrt = math.sqrt
    best, best_score = None, -1.0
    for child in node.children:
        n = child.n
        score = child.w / n
        if rave:
            m, gained = child.stats
            if m:
                beta = m / (n + m + n * m / rave)
                score = (1.0 - beta) * score + beta * gained / m
        score += explore / sqrt(n)
        if score > best_score:
            best, best_score = child, score
    return best
