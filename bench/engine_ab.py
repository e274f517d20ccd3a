"""The engine's speed in two trees side by side, in one process, rounds alternating between
them: each game's playouts (State.playout from the start) and its top level's simulations,
both per CPU second, on the default and the largest boards.

    python bench/engine_ab.py --base /tmp/base [--what search|playout] [--rounds 3]
                              [--seconds 1.6] [game ...]

`--base` is another checkout (an export of an earlier commit); this tree is the one the
script lies in.  Both trees' `games` packages are loaded under other names, so one process
measures both on the same core in the same minutes, which on a shared machine is fairer than
two runs of games.bench one after the other.  `search`: the top level's search (solver, UCB
constant 0.15, RAVE; LEVELS[4]'s 10,000 simulations cut at `--seconds` of CPU, its cap) from a
position 4 seeded random actions in, simulations per CPU second; `playout`: whole random
playouts per CPU second for `--seconds`.  Medians of the rounds, and the ratio this / base.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import os
import random
import statistics
import sys
from time import process_time

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BOARDS = [("hadron", {}), ("hadron", {"size": 11}), ("copolymer", {}), ("copolymer", {"size": 8}),
          ("colorful", {}), ("colorful", {"size": 7}), ("colorful", {"board": "long", "size": 6}),
          ("tripen", {}), ("tripen", {"size": 13})]


def load(alias: str, root: str):
    """The `games` package of the tree at `root`, imported as `alias`, and its mcts."""
    spec = importlib.util.spec_from_file_location(
        alias, os.path.join(root, "games", "__init__.py"),
        submodule_search_locations=[os.path.join(root, "games")])
    module = importlib.util.module_from_spec(spec)
    sys.modules[alias] = module
    spec.loader.exec_module(module)
    return module, importlib.import_module(alias + ".mcts")


def rate(tree, name, options, what, seconds, seed) -> float:
    games, mcts = tree
    state = games.get(name).new(**options)
    if what == "playout":
        rng, count, start = random.Random(seed), 0, process_time()
        while process_time() - start < seconds:
            state.playout(rng)
            count += 1
        return count / (process_time() - start)
    rng = random.Random(3)
    for _ in range(4):
        state = state.play(rng.choice(state.legal_actions()))
    start = process_time()
    result = mcts.search(state, 10000, random.Random(seed), time_limit=seconds, solver=True,
                         exploration=0.15)
    return result.playouts / (process_time() - start)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("games", nargs="*")
    parser.add_argument("--base", required=True)
    parser.add_argument("--what", choices=("search", "playout"), default="search")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=1.6)
    args = parser.parse_args(argv)
    trees = {"base": load("games_base", args.base), "this": load("games_this", HERE)}
    print(f"{'game':<10} {'options':<32} {args.what:<8} {'base':>8} {'this':>8}  ratio")
    for name, options in BOARDS:
        if args.games and name not in args.games:
            continue
        rates = {"base": [], "this": []}
        for k in range(args.rounds):
            for label in (("base", "this") if k % 2 == 0 else ("this", "base")):
                rates[label].append(rate(trees[label], name, options, args.what, args.seconds, k))
        base, this = (statistics.median(rates[label]) for label in ("base", "this"))
        print(f"{name:<10} {str(options):<32} {'':<8} {base:8.0f} {this:8.0f}  {this / base:.2f}"
              f"   (rounds {', '.join(f'{r:.0f}' for r in rates['base'])} / "
              f"{', '.join(f'{r:.0f}' for r in rates['this'])})", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
