"""The puzzles from the command line (see games.puzzles):

    python -m games.puzzles generate <game> --count 200 [--seed 1] [--out FILE]
    python -m games.puzzles check <game> [--sample N] [--file FILE]
    python -m games.puzzles agree <game> [--size N] [--board B] [--positions 50] [--seed 1]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from time import perf_counter

from .. import get, names
from ..solver import Solver, brute_force, winning_moves
from . import BOUNDS, DATA, check, generate


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m games.puzzles",
                                     description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(required=True, metavar="command")

    gen = commands.add_parser("generate", help="mine puzzles from seeded computer games")
    gen.add_argument("game", choices=names())
    gen.add_argument("--count", type=int, default=200)
    gen.add_argument("--seed", type=int, default=1, help="the first game's seed")
    gen.add_argument("--out", help="where to write (default: the shipped data/<game>.json)")
    gen.set_defaults(command=generate_command)

    chk = commands.add_parser("check", help="re-check a set of puzzles")
    chk.add_argument("game", choices=names())
    chk.add_argument("--file", help="default: the shipped data/<game>.json")
    chk.add_argument("--sample", type=int, help="check this many, chosen at random (seeded)")
    chk.set_defaults(command=check_command)

    agree = commands.add_parser("agree", help="the solver against exhaustive search")
    agree.add_argument("game", choices=names())
    agree.add_argument("--size", type=int)
    agree.add_argument("--board")
    agree.add_argument("--bound", type=int, default=3)
    agree.add_argument("--positions", type=int, default=50)
    agree.add_argument("--seed", type=int, default=1)
    agree.add_argument("--late", type=int, default=12,
                       help="positions with at most this many legal actions (default 12)")
    agree.set_defaults(command=agree_command)

    args = parser.parse_args(argv)
    return args.command(args)


def generate_command(args) -> int:
    start = perf_counter()

    def progress(played, kept):
        print(f"\r{args.game}: {played} games, {kept} puzzles", end="", file=sys.stderr)

    data = generate(args.game, args.count, args.seed, progress=progress)
    data["command"] = f"python -m games.puzzles generate {args.game} --count {args.count} " \
                      f"--seed {args.seed}"
    out = args.out or DATA / f"{args.game}.json"
    with open(out, "w", encoding="utf-8") as handle:
        json.dump(data, handle, indent=1)
        handle.write("\n")
    depths = {}
    for puzzle in data["puzzles"]:
        depths[puzzle["depth"]] = depths.get(puzzle["depth"], 0) + 1
    print(f"\n{args.game}: {len(data['puzzles'])} puzzles from {data['games']} games in "
          f"{perf_counter() - start:.0f} s; by length in actions: "
          f"{dict(sorted(depths.items()))}; written to {out}")
    return 0


def check_command(args) -> int:
    with open(args.file or DATA / f"{args.game}.json", encoding="utf-8") as handle:
        puzzles = json.load(handle)["puzzles"]
    if args.sample:
        puzzles = random.Random(1).sample(puzzles, min(args.sample, len(puzzles)))
    start = perf_counter()
    for puzzle in puzzles:
        check(puzzle)
    print(f"{args.game}: {len(puzzles)} puzzles re-checked in {perf_counter() - start:.1f} s")
    return 0


def agree_command(args) -> int:
    """Random positions of random games (one per game, at a random ply with at most --late
    legal actions, so that the exhaustive search ends); at every bound up to --bound, the
    solver's winning moves against brute force's."""
    game = get(args.game)
    options = {k: v for k, v in (("size", args.size), ("board", args.board)) if v is not None}
    rng = random.Random(args.seed)
    compared = agreed = with_win = won = 0
    solver_s = brute_s = 0.0
    positions = 0
    while positions < args.positions:
        state, history = game.new(**options), []
        while not state.is_over:
            history.append(state)
            state = state.play(rng.choice(state.legal_actions()))
        late = [s for s in history if len(s.legal_actions()) <= args.late]
        if not late:
            continue
        state = rng.choice(late)
        positions += 1
        solver = Solver(state)
        for depth in range(1, args.bound + 1):
            t = perf_counter()
            exhaustive = brute_force(state, depth)
            brute_s += perf_counter() - t
            t = perf_counter()
            claimed = winning_moves(state, depth, solver)
            solver_s += perf_counter() - t
            compared += 1
            agreed += claimed == exhaustive
            with_win += bool(exhaustive)
        won += bool(exhaustive)
    print(f"{args.game} {game.option_label(game.normalize_options(**options))}: "
          f"{positions} positions ({won} with a forced win within {args.bound}), bounds "
          f"1..{args.bound}: {agreed}/{compared} agree ({with_win} with a forced win); solver {solver_s:.2f} s, exhaustive {brute_s:.2f} s")
    return 0 if agreed == compared else 1


if __name__ == "__main__":
    sys.exit(main())
