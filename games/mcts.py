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
as soon as it is dropped, without waiting for the cycle collector; and the collector is held
off while a search runs (`_CollectorPause`), since it only scanned the growing tree.

Four things the top levels add, each a switch of `search` so that the player before them can
still be measured against them (games.arena's `-old` players):

* `solver`: an MCTS-solver (Winands, Björnsson and Saito 2008).  A node whose game is over with
  a winner is *proven* for that seat; a node is proven for its seat to move as soon as one
  child is, and for the other seat once every action has been tried and every child is proven
  for that seat.  A simulation that reaches a proven node scores it without a playout,
  selection never enters a child proven lost for the chooser, and the answer is a proven win
  if the root has one and never a proven loss while something else is left.  A draw is never
  proven, so a proof is only ever of a win.
* `tree`: the tree kept from the player's last search (`Result.tree`).  When the position
  searched now follows from its root by actions the tree holds (the usual case: the opponent
  answered with a reply the search had looked at), that node becomes the root and its visits,
  values and proofs count for the new search; the budget is then the simulations added.  A
  position the tree does not hold is searched afresh, exactly as without a tree.
* `widen`: a node's children are grown in the order AMAF ranks them, as the search goes, not
  all of them in random order before any grandchild.  Without it a node of Tripen 7x7 (260
  tokens) needs 260 visits before the search looks one move deeper, so a level's few thousand
  simulations stopped two moves down.  With it, each step down compares the best child's score
  with the best untried action's, scored as a child with no visits of its own would be (its
  AMAF mean; an action AMAF has not seen yet first), and expands that action when it is ahead:
  the tree grows where AMAF says the good moves are (MoHex and Fuego score every legal move by
  RAVE from the first visit).  With no exploration term (RAVE alone, as Fuego), or a small one,
  it is how the top levels search Tripen, Colorful and Copolymer; on Hadron, where it lost, they do not
  (games.bots.Level.tuned; docs/measurements.md, issue 28).
* `endgame`: a budget of positions for an exact search to the end, tried before the tree
  where the game has one (games.endgame: Hadron's).  A win it proves is played at once; a
  loss, or a position it cannot decide within the budget, is searched as without it, since
  an opponent that has not found the win yet may still miss it.
"""

from __future__ import annotations

import gc
import math
import random
import threading
import time
from contextlib import nullcontext
from dataclasses import dataclass, field
from time import process_time

from .endgame import decide

# The most of a search's time limit that the exact endgame search may take (its budget is in
# positions; this only bounds it on a slow or busy machine).
ENDGAME_SHARE = 0.75


class _CollectorPause:
    """Holds the cyclic garbage collector off while any search of this process runs, and puts
    it back as it found it once none does (a `jobs_worker` with several threads may search in
    each).  A search allocates a tracked object or more per simulation and keeps them: the collector
    kept scanning the whole growing tree, up to a quarter of a Strong search's time on Hadron
    11x11, a tenth of a second at a time past the deadline.  A tree holds no cycle (nodes have
    no parent reference): refcounting frees it, and what cyclic garbage a search makes waits
    for the collector's next run after it (docs/measurements.md, issue 28).  Threads whose
    searches overlap without end would hold it off for good: a search that starts when it has
    been off `most` seconds runs it once first."""

    def __init__(self, most: float = 30.0, clock=time.monotonic):
        self.lock = threading.Lock()
        self.searches = 0
        self.resume = False
        self.most, self.clock, self.since = most, clock, 0.0

    def __enter__(self):
        with self.lock:
            if self.searches == 0:
                self.resume = gc.isenabled()
                gc.disable()
                self.since = self.clock()
            elif self.resume and self.clock() - self.since > self.most:
                gc.collect()
                self.since = self.clock()
            self.searches += 1

    def __exit__(self, *exc_info):
        with self.lock:
            self.searches -= 1
            if self.searches == 0 and self.resume:
                gc.enable()


_collector_paused = _CollectorPause()

try:
    # collections.Counter's counting loop, in C: adds 1 to mapping[x] for each x of an
    # iterable.  AMAF's back-propagation is one such count per node of the path over the
    # playout's actions, which in Python cost as much as the playout itself (Tripen 7x7).
    from _collections import _count_elements
except ImportError:   # another Python than CPython: the same, in Python
    def _count_elements(mapping, iterable):
        get = mapping.get
        for item in iterable:
            mapping[item] = get(item, 0) + 1


class Node:
    """One position in the tree.  `n`, `w`: visits and summed reward of `seat`, the seat that
    played `action` to get here.  AMAF, per action, of the seat to move here, from simulations
    where that seat played the action anywhere later: `amaf_n` the simulations, `amaf_won`
    the wins among them, `amaf_drawn` the draws (None until there is one: most games never
    draw).  Plain counts, not a [visits, reward] pair per action, so that back-propagation
    adds to them in C (_count_elements)."""

    __slots__ = ("state", "action", "seat", "to_move", "children", "untried", "n", "w",
                 "amaf_n", "amaf_won", "amaf_drawn", "proof", "sqrt_n",
                 "proven_child")

    def __init__(self, state, action, seat):
        self.state, self.action, self.seat = state, action, seat
        self.to_move = state.person_to_move       # None at the end of the game
        self.children: list[Node] = []
        self.untried = state.legal_actions()       # a fresh list: ours to pop from
        self.n = 0
        self.w = 0.0
        # sqrt(n), kept with n: _select reads it for every child of a node at every step
        # down, where computing it again was one call per child (1,000 at Tripen 13's root).
        self.sqrt_n = 0.0
        self.amaf_n: dict[str, int] = {}
        self.amaf_won: dict[str, int] = {}
        self.amaf_drawn: dict[str, int] | None = None
        # The seat that wins from here whatever the other does, once proven (the solver's).
        self.proof = None
        # Whether a child of this node has a proof: until one has, _select need not look
        # for children proven lost among them.
        self.proven_child = False
        if self.to_move is None and state.winner is not None:
            self.proof = state.winner ^ state.swapped


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
    # The searched tree's root, for the player's next search to go on from (None when it did
    # not search); `proven`: the seat the root is proven a win for, if the solver proved it.
    tree: Node | None = None
    proven: int | None = None


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
           clock=process_time, solver: bool = False, tree: Node | None = None,
           widen: bool = False, endgame: int = 0, hold_collector: bool = True,
           keep_tree: bool = True) -> Result:
    """Search from `state` (not over) for up to `playouts` simulations or `time_limit`
    seconds of `clock` (CPU seconds of this process unless told otherwise: a player on a real
    clock passes time.monotonic, since a starved process must still answer in time),
    whichever ends first (at least one simulation), or until the answer is settled
    (unless `settle` is false: for tests that the early stop changes nothing).
    `rave` is RAVE's equivalence parameter (0 turns AMAF off: plain UCT).  An immediate win,
    or the only legal action, is played without a search (`playouts` 0 in the result).
    The same `rng` state, budget and position give the same answer whenever the time limit
    does not cut the search short (the settled stop depends on visit counts only).
    `solver` turns the MCTS-solver on; `tree` is a previous search's `Result.tree` to go on
    from where it holds this position; `widen` picks what to expand by AMAF (see the module's
    notes).  `endgame` is a budget of positions for an exact search tried first, in a game
    that has one (games.endgame): a win it finds is played without a tree search.
    `hold_collector` false leaves the cyclic collector running, as every search did before
    (the arena's old top level).  `keep_tree` false frees the tree before the search ends
    (`Result.tree` None), while the collector is still held off: the tree's objects, all
    allocated since the collector last ran, would make its first run after the search scan
    the whole tree."""
    with _collector_paused if hold_collector else nullcontext():
        return _search(state, playouts, rng, time_limit, exploration, rave, settle, clock,
                       solver, tree, widen, endgame, keep_tree)


def _search(state, playouts, rng, time_limit, exploration, rave, settle, clock, solver, tree,
            widen, endgame, keep_tree) -> Result:
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
    if endgame:
        # The tree search keeps a share of the time in case the exact search cannot decide.
        exact = decide(state, endgame, None if deadline is None
                       else start + ENDGAME_SHARE * time_limit, clock)
        if exact.won:   # a loss is searched all the same: the opponent may still go wrong
            return Result(exact.action, 0, clock() - start, 1.0, {},
                          proven=state.person_to_move)
    root = reuse(tree, state) or Node(state, None, None)
    done = 0
    while done < playouts and root.proof is None:
        _simulate(root, rng, exploration, rave, solver, widen and rave)
        done += 1
        if deadline is not None and clock() >= deadline:
            break
        if settle and done & 15 == 0 and _settled(root, playouts - done):
            break
    best = _answer(root, solver)
    result = Result(best.action, done, 0.0, best.w / best.n if best.n else 1.0,
                    {c.action: c.n for c in root.children},
                    sum(c.w for c in root.children) / max(1, sum(c.n for c in root.children)),
                    root if keep_tree else None, root.proof)
    best = root = None   # without keep_tree, the last references to the tree: freed here
    result.seconds = clock() - start
    return result


def _answer(root: Node, solver: bool) -> Node:
    """The root's child to play: the most visited (ties: higher mean); with the solver, a
    proven win if there is one, else the most visited of those not proven lost, or of all if
    every one is."""
    if not solver:
        return max(root.children, key=lambda c: (c.n, c.w / c.n))
    seat = root.to_move
    won = [c for c in root.children if c.proof == seat]
    if won:
        return max(won, key=lambda c: c.n)
    open_ = [c for c in root.children if c.proof is None or c.proof == seat] or root.children
    return max(open_, key=lambda c: (c.n, c.w / c.n if c.n else 0.0))


def reuse(tree: Node | None, state) -> Node | None:
    """The node of `tree` that holds `state`'s position, reached by the actions played since
    the tree's root; None if `tree` is None or does not hold it (another game, a position
    before its root, or a reply the search never tried)."""
    if tree is None:
        return None
    known, now = tree.state.actions, state.actions
    if len(now) < len(known) or now[:len(known)] != known \
            or tree.state.options != state.options or tree.state.game is not state.game:
        return None
    node = tree
    for action in now[len(known):]:
        node = next((c for c in node.children if c.action == action), None)
        if node is None:
            return None
    return node


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


def _simulate(root: Node, rng: random.Random, exploration: float, rave: float,
              solver: bool = False, widen: bool = False) -> None:
    node, path, moves = root, [root], []     # moves: (seat, action) from the root down
    # Selection: down through fully expanded nodes (the solver stops at a proven one); with
    # `widen`, down through any node whose best child beats its best untried action.
    expand = None
    while node.children and node.proof is None:
        if node.untried:
            if not widen:
                break
            expand = _widen(node, exploration, rave)
            if expand is not None:
                break
        node = _select(node, exploration, rave, solver)
        path.append(node)
        moves.append((node.seat, node.action))
    # Expansion: one new child, unless the game is over here.
    untried = node.untried
    if untried and node.proof is None:
        # The untried action `_widen` chose, or a random one; swapped to the end and popped:
        # O(1), where shuffling every new node's list cost as much as a playout on Tripen's
        # 294 tokens.
        k = rng.randrange(len(untried)) if expand is None else expand
        untried[k], untried[-1] = untried[-1], untried[k]
        action = untried.pop()
        state = node.state.clone()
        state.apply_action(action)
        child = Node(state, action, node.to_move)
        node.children.append(child)
        if child.proof is not None:     # the game is over there
            node.proven_child = True
        node = child
        path.append(child)
        moves.append((child.seat, action))
    # Playout: the game's own random game to the end, on its private structures.
    state = node.state
    played = ()
    if state.is_over:
        reward = rewards(state)
    elif node.proof is not None:     # proven: scored as the game will end, no playout needed
        reward = (1.0, 0.0) if node.proof == 0 else (0.0, 1.0)
    else:
        seat, played = state.playout(rng)
        reward = (0.5, 0.5) if seat is None else (1.0, 0.0) if seat == 0 else (0.0, 1.0)
    sqrt = math.sqrt
    for visited in path:
        visited.n += 1
        visited.sqrt_n = sqrt(visited.n)
        if visited.seat is not None:
            visited.w += reward[visited.seat]
    if rave:
        _back_up_amaf(path, moves, played, reward)
    if solver and path[-1].proof is not None:
        _prove(path)


def _back_up_amaf(path: list[Node], moves: list, played, reward) -> None:
    """AMAF: at each node of the path, every later action of the seat to move there counts
    as a simulation of that action, won, drawn or lost as this one was.  No action occurs
    twice in one game of ours (a cell, a token, a colour on a cell, one swap), so every later
    action is also its first occurrence: no set needed.  The playout's actions are later than
    every node of the path, so they are split by seat once and counted whole at each node;
    only the few actions of the tree below a node differ from node to node."""
    by_seat = ([action for mover, action in played if mover == 0],
               [action for mover, action in played if mover == 1])
    for depth, visited in enumerate(path):
        seat = visited.to_move
        if seat is None:
            continue
        later = [action for mover, action in moves[depth:] if mover == seat]
        gain = reward[seat]
        for actions in (later, by_seat[seat]):
            _count_elements(visited.amaf_n, actions)
            if gain == 1.0:
                _count_elements(visited.amaf_won, actions)
            elif gain == 0.5:
                if visited.amaf_drawn is None:
                    visited.amaf_drawn = {}
                _count_elements(visited.amaf_drawn, actions)


def _prove(path: list[Node]) -> None:
    """Carry a proof up the path from its last node as far as it goes: a node is won for its
    seat to move if one child is; lost for it if every action was tried and every child is
    won for the other seat."""
    for depth in range(len(path) - 2, -1, -1):
        node = path[depth]
        node.proven_child = True        # the node below it on the path is proven
        if node.proof is not None:
            return
        seat = node.to_move
        if any(c.proof == seat for c in node.children):
            node.proof = seat
        elif not node.untried and all(c.proof is not None and c.proof != seat
                                      for c in node.children):
            node.proof = node.children[0].proof
        else:
            return


def _widen(node: Node, exploration: float, rave: float) -> int | None:
    """With `widen`: the index in `node.untried` of the action to expand now, or None to go
    down to a child instead.  An untried action is scored as a child would be with no visits
    of its own (its AMAF mean alone, as RAVE's weight is then 1; unseen in AMAF, a win: tried
    before anything known to be worse) plus the exploration of one visit; it is expanded when
    that beats every child's score.  So a node's children are grown best first, as AMAF
    ranks them, instead of all of them, in random order, before any grandchild (MoHex and
    Fuego score every legal move by RAVE from the first visit)."""
    amaf_n, amaf_won, drawn = node.amaf_n.get, node.amaf_won.get, node.amaf_drawn
    drawn_get = drawn.get if drawn is not None else None
    best, best_score = None, -1.0
    for index, action in enumerate(node.untried):
        m = amaf_n(action)
        if not m:
            best = index
            break
        gained = amaf_won(action, 0)
        if drawn_get is not None:
            gained += 0.5 * drawn_get(action, 0)
        score = gained / m
        if score > best_score:
            best, best_score = index, score
    if best_score < 0.0:
        return best   # an action AMAF has not seen
    explore = exploration * math.sqrt(math.log(node.n))
    untried_score = best_score + explore
    for child in node.children:
        if child.proof is not None and child.proof != node.to_move:
            continue   # proven lost for the chooser (the solver's): never chosen
        n = child.n
        score = child.w / n
        m = amaf_n(child.action)
        if m:
            gained = amaf_won(child.action, 0)
            if drawn_get is not None:
                gained += 0.5 * drawn_get(child.action, 0)
            beta = m / (n + m + n * m / rave)
            score = (1.0 - beta) * score + beta * gained / m
        if score + explore / child.sqrt_n >= untried_score:
            return None
    return best


def _select(node: Node, exploration: float, rave: float, solver: bool = False) -> Node:
    """The child with the best UCB1 score, its mean blended with its AMAF mean by RAVE (with
    the solver: never a child proven lost for the chooser; the node is not proven, so one
    child at least is not).  The hottest loop of the tree, run over every child of each node
    on the way down: locals only, sqrt(n) kept on the child, and the same arithmetic in the
    same order as ever, so that the scores, and the choices, are the same to the last bit."""
    explore = exploration * math.sqrt(math.log(node.n))
    best, best_score = None, -1.0
    seat = node.to_move
    children = node.children
    if solver and node.proven_child:   # never a child proven lost for the chooser
        children = [c for c in children if c.proof is None or c.proof == seat]
    if not rave:
        for child in children:
            score = child.w / child.n + explore / child.sqrt_n
            if score > best_score:
                best, best_score = child, score
        return best
    amaf_n, amaf_won, drawn = node.amaf_n.get, node.amaf_won.get, node.amaf_drawn
    if drawn is not None:
        drawn_get = drawn.get
        for child in children:
            n = child.n
            score = child.w / n
            action = child.action
            m = amaf_n(action)
            if m:
                gained = amaf_won(action, 0) + 0.5 * drawn_get(action, 0)
                beta = m / (n + m + n * m / rave)
                score = (1.0 - beta) * score + beta * gained / m
            score += explore / child.sqrt_n
            if score > best_score:
                best, best_score = child, score
        return best
    for child in children:
        n = child.n
        score = child.w / n
        action = child.action
        m = amaf_n(action)
        if m:
            beta = m / (n + m + n * m / rave)
            score = (1.0 - beta) * score + beta * amaf_won(action, 0) / m
        score += explore / child.sqrt_n
        if score > best_score:
            best, best_score = child, score
    return best
