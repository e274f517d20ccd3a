"""Bot against bot, at each game's default board: how much each level gains.

    python -m games.arena [--games 10] [--top 3] [--seed 1] [--pair mcts3:mcts3-uct] [game ...]

For each game: every level from 2 to --top against the level below, then the top level
against the random player and against the greedy one; --games games per pairing, the two
players taking the first seat in turn.  A row gives the first player's score (a win 1, a draw
1/2) as a rate with its 95% Wilson interval.  Then the top level's thinking time per action,
wall clock, and how many of its searches the level's time cap cut short (a cut search is
weaker than its level and no longer repeatable).  --pair A:B plays only that pairing
(players: random, greedy, mcts1..mcts5, mcts3-uct for a level without RAVE).  Run it on one core:
`taskset -c 1 python -m games.arena`.
"""

from __future__ import annotations

import argparse
import math
import sys
from time import perf_counter

from . import get, names
from .bots import LEVELS, MctsPlayer, player
from .records import options_text


def play_game(game, players, first: int, options: dict | None = None):
    """One game; players[0] takes seat `first`.  Returns (score of players[0], thinking
    times per player as a list of (seconds, search cut short))."""
    seats = (players[0], players[1]) if first == 0 else (players[1], players[0])
    state = game.new(**(options or {}))
    times = {id(p): [] for p in players}
    while not state.is_over:
        bot = seats[state.person_to_move]
        t0 = perf_counter()
        action = bot.choose(state)
        spent = perf_counter() - t0
        cut = isinstance(bot, MctsPlayer) and bot.last.playouts not in (0, bot.playouts)
        times[id(bot)].append((spent, cut))
        state = state.play(action)
    if state.winner is None:
        score = 0.5
    else:
        score = 1.0 if state.winner ^ state.swapped == first else 0.0
    return score, [times[id(p)] for p in players]


def wilson(score: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson score interval of a rate of `score` successes in `n` trials."""
    if n == 0:
        return 0.0, 1.0
    p = score / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def match(game, a: str, b: str, n: int, seed: int):
    """n games of a against b, a first in the even ones.  Returns (a's score, draws, a's
    thinking times)."""
    total, draws, thinking = 0.0, 0, []
    for i in range(n):
        players = [player(a, seed * 1000 + 2 * i), player(b, seed * 1000 + 2 * i + 1)]
        score, times = play_game(game, players, first=i % 2)
        total += score
        draws += score == 0.5
        thinking += times[0]
    return total, draws, thinking


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m games.arena", description=__doc__.split("\n")[0])
    parser.add_argument("games", nargs="*", help="games to play (default: all)")
    parser.add_argument("--games", dest="n", type=int, default=10, help="games per pairing")
    parser.add_argument("--top", type=int, default=3, choices=sorted(LEVELS), help="top level")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--pair", action="append", metavar="A:B",
                        help="play only these pairings (repeatable)")
    args = parser.parse_args(argv)
    for name in args.games:
        get(name)   # a bad name fails before any game is played
    pairs = [tuple(p.split(":", 1)) for p in args.pair or []]
    for a, b in pairs:
        player(a), player(b)   # and so does a bad player

    levels = ", ".join(f"{lv}: {budget} playouts, cap {cap:g} s" for lv, (budget, cap) in LEVELS.items())
    print(f"levels: {levels}; {args.n} games per pairing, seats alternating, seed {args.seed}")
    header = f"{'game':<10} {'board':<20} {'pairing':<18} {'games':>5} {'score':>6} {'draws':>5} {'rate':>5}  95% CI"
    print(header)
    print("-" * (len(header) + 8))
    top = f"mcts{args.top}"
    for name in args.games or names():
        game = get(name)
        board = options_text(game.normalize_options())
        pairings = [(f"mcts{lv}", f"mcts{lv - 1}") for lv in range(2, args.top + 1)]
        pairings += [(top, "random"), (top, "greedy")]
        if pairs:
            pairings, top = pairs, pairs[0][0]
        top_times = []
        for k, (a, b) in enumerate(pairings):
            score, draws, thinking = match(game, a, b, args.n, args.seed + k)
            if a == top:
                top_times += thinking
            low, high = wilson(score, args.n)
            print(f"{name:<10} {board:<20} {a + ' vs ' + b:<18} {args.n:>5} {score:>6g} {draws:>5} "
                  f"{score / args.n:>5.2f}  [{low:.2f}, {high:.2f}]", flush=True)
        seconds = [s for s, _ in top_times]
        cut = sum(c for _, c in top_times)
        print(f"{name:<10} {board:<20} {top} thinking: mean {sum(seconds) / len(seconds):.3f} s, "
              f"max {max(seconds):.3f} s per action over {len(seconds)} actions; "
              f"{cut} cut by the time cap", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
