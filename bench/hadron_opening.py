"""Who wins Hadron's opening: every Blue reply to each of Red's first placements, searched to
the end by the top levels' exact endgame search (games.endgame), on the 5x5 board by default.

    nice -n 19 python bench/hadron_opening.py [--size 5] [--nodes 3000000]

Red's first placements are taken up to the board's symmetry (the cells of one eighth of it:
a1, a2, b2, a3, b3, c3 on 5x5); for each, every legal reply is searched with the position
after it and Red to move, and the line prints how many replies leave Red a win, how many a
loss, and how many the budget of nodes did not decide, with the CPU seconds it took.  A first
placement is a win for Red when every reply leaves Red winning.  The nodes columns say how
many positions the search took to decide (the top levels' budgets are in positions: the last
lines say how many of these positions each would decide).  This is what bounds a match
of two computers on Hadron 5x5: whoever is Red wins with exact play from the third placement
on, so the second player scores only by the first player's mistakes (docs/measurements.md,
issue 28).
"""

from __future__ import annotations

import argparse
import os
import sys
from time import process_time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import games  # noqa: E402
from games.bots import LEVELS  # noqa: E402
from games.endgame import HadronEndgame, OutOfBudget, hadron_tiles  # noqa: E402


def red_to_move_wins(state, nodes: int) -> tuple[bool | None, int]:
    """Whether the side to move wins, searched to the end (None: not within `nodes`), and
    the positions the search took."""
    search = HadronEndgame(state.board.n, nodes)
    try:
        return search.wins(*hadron_tiles(state)), search.nodes
    except OutOfBudget:
        return None, search.nodes


def first_placements(size: int) -> list[str]:
    """One cell of each class under the square's symmetries: column <= row <= the middle."""
    middle = size // 2
    return [f"{'abcdefghijk'[col]}{row + 1}" for row in range(middle + 1)
            for col in range(row + 1)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=5)
    parser.add_argument("--nodes", type=int, default=3_000_000,
                        help="the exact search's budget per position")
    args = parser.parse_args()
    game = games.get("hadron")
    print(f"Hadron {args.size}x{args.size}: Red's first placement, and what every Blue reply "
          f"leaves Red to move (budget {args.nodes:,} nodes a position)")
    print(f"{'first':>6} {'replies':>8} {'Red wins':>9} {'Red loses':>10} {'undecided':>10} "
          f"{'nodes median':>13} {'nodes max':>10} {'CPU s':>7}")
    needed = []
    for first in first_placements(args.size):
        state = game.new(size=args.size).play(first)
        start = process_time()
        found = [red_to_move_wins(state.play(reply), args.nodes)
                 for reply in state.legal_actions()]
        won = [result for result, _ in found]
        nodes = sorted(count for _, count in found)
        needed += [count for result, count in found if result is not None]
        print(f"{first:>6} {len(found):>8} {won.count(True):>9} {won.count(False):>10} "
              f"{won.count(None):>10} {nodes[len(nodes) // 2]:>13,} {nodes[-1]:>10,} "
              f"{process_time() - start:>7.1f}", flush=True)
    for level in (4, 5):
        budget = LEVELS[level].endgame
        print(f"decided within level {level}'s {budget:,} nodes: "
              f"{sum(count <= budget for count in needed)} of {len(needed)} decided positions")


if __name__ == "__main__":
    main()
