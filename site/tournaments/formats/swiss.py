"""Swiss pairing: every player meets someone with the same or nearest score, never the same
opponent twice, sides balanced, and an odd player out gets a bye.

One round is one maximum-weight matching (networkx's blossom algorithm, `maxcardinality`:
everyone is paired first) on a graph whose vertices are the players (and a BYE vertex when
their number is odd). An edge's weight is a large constant less its cost; the costs are
tiers, each weighing more than the most that every tier below it can add up to over a whole
round, so the matching settles them in this order:

1. a repeat: the two have met before (never, while any pairing avoids it);
2. the bye: BYE's edges go only to players who have had no bye; the cost is the player's
   place counted from the bottom of the standings, so the lowest-ranked without a bye gets it;
3. an absolute side clash: both must take the same side (the side they had the last two
   games, or the side they had more often: first and second counts stay within one);
4. the score gap: (difference of the two scores, in half points) squared, so nearest scores
   meet and a gap of two is worse than two gaps of one;
5. a mild side clash: both would like the same side (the other side to their last game).

Who moves first in a pair: the stronger side preference wins; equal ones that clash go the
higher-ranked player's way; no preference: the higher-ranked moves first on even boards.

Large fields (a 1,000-player round) are matched in blocks of BLOCK players in standings order
(the bye in the last one), since the blossom algorithm's time grows much faster than the
field: the blocks are doubled until each pairs all its players without a repeat (and the
bye reaches a player without one), up to the whole field. The score tier wants pairs among
neighbours in the standings anyway; a block boundary costs at most a gap the whole-field
matching might have spared.
"""
from dataclasses import dataclass, field

import networkx as nx

# Fewer players than this at the start and the event is cancelled (lichess's rule): nothing is
# paired, and those who joined are told (tournaments.services).
MIN_PLAYERS = 2
BYE = object()
BLOCK = 48
FIRST, SECOND = 0, 1


@dataclass
class SwissPlayer:
    """`score` in points (a bye counts 1); `opponents`: everyone met so far; `sides`: the
    sides played so far in order (FIRST or SECOND; byes left out); `had_bye`."""
    id: object
    score: float = 0
    opponents: set = field(default_factory=set)
    sides: list = field(default_factory=list)
    had_bye: bool = False


@dataclass
class SwissRound:
    pairs: list  # (first, second) ids, best board first
    bye: object = None


def side_due(sides):
    """(side, strength) a player would take next: strength 2 absolute, 1 mild, 0 none."""
    if len(sides) >= 2 and sides[-1] == sides[-2]:
        return 1 - sides[-1], 2
    balance = sides.count(FIRST) - sides.count(SECOND)
    if balance:
        return (SECOND if balance > 0 else FIRST), 2
    if sides:
        return 1 - sides[-1], 1
    return None, 0


def pair_round(players):
    """The next round for `players` (SwissPlayer, any order; ranked by score, then the order
    given, so pass them in the order of the previous standings or by rating)."""
    ranked = sorted(enumerate(players), key=lambda item: (-item[1].score, item[0]))
    ranked = [player for _, player in ranked]
    if len(ranked) <= 1:
        return SwissRound([], bye=ranked[0].id if ranked else None)
    size = BLOCK
    while True:
        boards = _pair_blocks(ranked, size)
        if boards is not None:
            return _round(ranked, boards)
        size *= 2


def _pair_blocks(ranked, size):
    """Boards (i, j) by standings index (j == len(ranked): the bye), matching blocks of `size`
    players in standings order; None if a block cannot be paired without a repeat (or its
    bye would go to a player who had one while somebody else has not): then blocks twice as
    large are tried, up to the whole field."""
    count = len(ranked)
    anyone_without_bye = any(not player.had_bye for player in ranked)
    boards = []
    start = 0
    while start < count:
        end = count if count - start < 2 * size else start + size
        block = range(start, end)
        matching, costs = _match(ranked, block, with_bye=end == count and count % 2)
        whole = start == 0 and end == count
        clean = not any(costs[edge][0] for edge in matching)
        if not whole and (2 * len(matching) < len(block) or not clean or (
                end == count and count % 2 and anyone_without_bye
                and not any(j == count for _, j in matching))):
            return None
        boards.extend(matching)
        start = end
    return boards


def _match(ranked, block, with_bye):
    """The maximum-weight matching among the players `block` (a range of standings indexes,
    the BYE vertex numbered len(ranked)), and the cost tuple of every edge."""
    count = len(ranked)
    due = {i: side_due(ranked[i].sides) for i in block}
    costs = {}
    for i in block:
        for j in range(i + 1, block.stop):
            costs[(i, j)] = _cost(ranked[i], ranked[j], due[i], due[j])
    if with_bye:
        eligible = [i for i in block if not ranked[i].had_bye]
        repeat = not eligible
        for place, i in enumerate(reversed(eligible or list(block))):
            costs[(i, count)] = (int(repeat), place, 0, 0, 0)
    tiers = _tier_bases(len(block), [ranked[block.start], ranked[block.stop - 1]])
    top = tiers[0] * (len(block) // 2 + 2)
    graph = nx.Graph()
    for (i, j), cost in costs.items():
        graph.add_edge(i, j, weight=top - sum(c * b for c, b in zip(cost, tiers)))
    matching = nx.max_weight_matching(graph, maxcardinality=True)
    return {(min(i, j), max(i, j)) for i, j in matching}, costs


def _cost(a, b, due_a, due_b):
    repeat = int(b.id in a.opponents or a.id in b.opponents)
    (side_a, strength_a), (side_b, strength_b) = due_a, due_b
    clash = side_a is not None and side_a == side_b
    absolute = int(clash and strength_a == strength_b == 2)
    mild = int(clash and not absolute)
    gap = round(abs(a.score - b.score) * 2) ** 2
    return (repeat, 0, absolute, gap, mild)


def _tier_bases(count, ranked):
    """Multipliers so that each tier outweighs everything below it over a whole round."""
    edges = count // 2 + 1
    widest = round((ranked[0].score - ranked[-1].score) * 2) ** 2
    bounds = [edges, count, edges, edges * widest, edges]  # most a round can add per tier
    bases = [1] * 5
    for tier in range(3, -1, -1):
        bases[tier] = bases[tier + 1] * (bounds[tier + 1] + 1)
    return bases


def _round(ranked, matching):
    count = len(ranked)
    bye = None
    boards = []
    for i, j in sorted(matching):
        if j == count:
            bye = ranked[i].id
        else:
            boards.append((i, j))
    pairs = [_sides(ranked[i], ranked[j], board) for board, (i, j) in enumerate(boards)]
    return SwissRound(pairs, bye)


def _sides(higher, lower, board):
    side_h, strength_h = side_due(higher.sides)
    side_l, strength_l = side_due(lower.sides)
    if strength_l > strength_h:
        side_h = 1 - side_l
    elif side_h is None:
        side_h = FIRST if board % 2 == 0 else SECOND
    return (higher.id, lower.id) if side_h == FIRST else (lower.id, higher.id)
