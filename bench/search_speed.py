"""Simulations per CPU second of the search now against the search of an earlier commit, side
by side in one process: the calibration of the arena's matches at equal thinking time.

    nice -n 19 python bench/search_speed.py [--base a6a705f] [--simulations 2000] [--reps 4]
                                            [game[:size] ...]

The base commit's games/mcts.py is read with `git show` and loaded as a module of its own,
over this tree's games (their rules and playouts are the same since a6a705f), so the two
searches run on the same positions in turn: a load on the machine slows both alike, and the
ratio holds where the absolute figures do not.  The base searches as the old top level did
(no solver), this tree's search as the new one does (the solver on, the top level's
exploration).  Positions: a few random actions into the game (2, 5, 8, 11, ...; one a rep),
each searched with `settle` off, so both spend the whole budget.  A match at equal time then
gives the new side `ratio` times the old side's simulations a move.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import random
import subprocess
import sys
import tempfile
from time import process_time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import games  # noqa: E402
from games import mcts  # noqa: E402
from games.bots import LEVELS  # noqa: E402


def base_search(commit: str):
    """The `search` of `commit`'s games/mcts.py, loaded as games._mcts_base."""
    source = subprocess.run(["git", "show", f"{commit}:games/mcts.py"], check=True,
                            capture_output=True, text=True).stdout
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as handle:
        handle.write(source)
    spec = importlib.util.spec_from_file_location("games._mcts_base", handle.name)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module    # its dataclasses look their module up there
    spec.loader.exec_module(module)
    os.unlink(handle.name)
    return module.search


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("boards", nargs="*", default=["hadron", "copolymer", "colorful", "tripen"],
                        help="game or game:size (default: the four default boards)")
    parser.add_argument("--base", default="a6a705f")
    parser.add_argument("--simulations", type=int, default=2000)
    parser.add_argument("--reps", type=int, default=4)
    args = parser.parse_args(argv)
    old = base_search(args.base)
    top = LEVELS[4]
    print(f"base {args.base} (no solver, exploration 0.4) against this tree (solver, the top "
          f"level's settings per game), {args.simulations} simulations a search, "
          f"{args.reps} positions")
    print(f"{'board':<16} {'base sims/CPU s':>15} {'now sims/CPU s':>15} {'ratio':>6}")
    for board in args.boards:
        name, _, size = board.partition(":")
        game = games.get(name)
        spent = {"base": 0.0, "now": 0.0}
        done = {"base": 0, "now": 0}
        for rep in range(args.reps):
            state, rng = game.new(**({"size": int(size)} if size else {})), random.Random(rep)
            for _ in range(2 + 3 * rep):
                if len(state.legal_actions()) < 3:
                    break
                state = state.play(rng.choice(state.legal_actions()))
            if state.is_over or mcts.immediate_wins(state):
                continue
            for label in ("base", "now"):
                start = process_time()
                if label == "base":
                    result = old(state, args.simulations, random.Random(rep), settle=False)
                else:
                    result = mcts.search(state, args.simulations, random.Random(rep), settle=False,
                                         solver=True, **top.search_settings(name))
                spent[label] += process_time() - start
                done[label] += result.playouts
        base, now = done["base"] / spent["base"], done["now"] / spent["now"]
        print(f"{board:<16} {base:>15,.0f} {now:>15,.0f} {now / base:>6.2f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
