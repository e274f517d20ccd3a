"""Engine speed: random playouts on one core, per game at its default and its largest boards.

    python -m games.bench [--seconds 2.5] [--seed 1] [game ...]

Three paths per board: `play`, the door for people's actions (`legal_actions()` + `play()`:
parse, check, copy); `step`, `legal_actions()` + `apply_action()` on one clone, in place (the
generic State.playout, and what the bots ran before each game had its own); and `playout`,
the bots' path: the game's `State.playout(rng)`, a whole random game on its private
structures, as games.mcts runs it in every simulation.

For each row: random playouts (whole games) per second, the mean wall-clock time per action
in microseconds (time.perf_counter; for `playout`, the whole playout over its actions), the
same in CPU time of this process (time.process_time, over the whole playout loop), and the
CPU time relative to the game's default board.  `cpu` is the share of the wall-clock time the process actually ran: well
under 100% means other processes competed for the core, which inflates the wall-clock
figures but not the CPU ones, so the ratio is taken on CPU time.  Incremental
bookkeeping should keep the ratio near 1 however large the board: a ratio above 2 means some
action rescans the board.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import sys
from time import perf_counter, process_time

from . import get, names
from .records import options_text

WARN_RATIO = 2.0


def boards(game) -> list[dict]:
    """The default options, then the largest size of each board shape."""
    rows = [game.normalize_options()]
    shapes = game.option_choices().get("board", [None])
    for shape in shapes:
        for size in sorted(game.option_choices()["size"], reverse=True):
            options = {"size": size} if shape is None else {"board": shape, "size": size}
            try:
                options = game.normalize_options(**options)
            except ValueError:
                continue   # this size does not exist on this shape
            if options not in rows:
                rows.append(options)
            break
    return rows


PATHS = ("play", "step", "playout")


def measure(game, options: dict, seconds: float, seed: int, path: str = "play") -> dict:
    """Random playouts for about `seconds`, at least one; time spent in legal_actions + play
    (path 'play'), legal_actions + apply_action on a clone ('step') or State.playout
    ('playout')."""
    rng = random.Random(seed)
    game.new(**options)   # the board's static tables are built once, outside the timing
    playouts = actions = 0
    in_engine = 0.0
    start, cpu_start = perf_counter(), process_time()
    while playouts == 0 or perf_counter() - start < seconds:
        state = game.new(**options)
        if path == "play":
            while not state.is_over:
                t0 = perf_counter()
                legal = state.legal_actions()
                state = state.play(legal[rng.randrange(len(legal))])
                in_engine += perf_counter() - t0
                actions += 1
        elif path == "playout":
            t0 = perf_counter()
            _, moves = state.playout(rng)
            in_engine += perf_counter() - t0
            actions += len(moves)
        else:
            state = state.clone()
            while not state.is_over:
                t0 = perf_counter()
                legal = state.legal_actions()
                state.apply_action(legal[rng.randrange(len(legal))])
                in_engine += perf_counter() - t0
                actions += 1
            state.winner   # the result is part of a playout (Colorful scores the board here)
        playouts += 1
    elapsed, cpu = perf_counter() - start, process_time() - cpu_start
    return {
        "cpu_share": cpu / elapsed,
        "cpu_us_per_action": cpu / actions * 1e6,
        "playouts_per_s": playouts / elapsed,
        "actions_per_playout": actions / playouts,
        "us_per_action": in_engine / actions * 1e6,
        "playouts": playouts,
    }


def cpu_model() -> str:
    """The processor's name, for the header line."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as handle:
            for line in handle:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def main(argv=None) -> int:
    """Measure and print one row per game and board."""
    parser = argparse.ArgumentParser(prog="python -m games.bench", description=__doc__.split("\n")[0])
    parser.add_argument("games", nargs="*", help="games to measure (default: all)")
    parser.add_argument("--seconds", type=float, default=2.5, help="time budget per row")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--path", choices=PATHS, action="append",
                        help="measure only this path (repeatable; default: all three)")
    args = parser.parse_args(argv)

    print(f"machine: {platform.platform()}; Python {platform.python_version()} "
          f"({platform.python_implementation()}); CPU {cpu_model()}, {os.cpu_count()} cores seen; "
          f"one core used; {args.seconds:g} s per row, seed {args.seed}")
    header = (f"{'game':<10} {'options':<20} {'path':<7} {'cells':>5} {'playouts/s':>11} "
              f"{'actions/game':>12} {'us/action':>10} {'cpu us':>7} {'ratio':>6} {'cpu':>5}")
    print(header)
    print("-" * len(header))
    slow = []
    for name in args.games or names():
        game = get(name)
        for path in args.path or PATHS:
            base = None
            for options in boards(game):
                row = measure(game, options, args.seconds, args.seed, path)
                base = base or row["cpu_us_per_action"]
                ratio = row["cpu_us_per_action"] / base
                print(_row(game, options, path, row, ratio), flush=True)
                if ratio > WARN_RATIO:
                    slow.append(f"{name} {options_text(options)} ({path})")
    if slow:
        print(f"per-action CPU time more than {WARN_RATIO:g}x the default board: {', '.join(slow)}")
    return 0


def _row(game, options: dict, path: str, row: dict, ratio: float) -> str:
    cells = len(game.new(**options).board_dict()["cells"])
    flag = "  <-- over 2x" if ratio > WARN_RATIO else ""
    return (f"{game.name:<10} {options_text(options):<20} {path:<7} {cells:>5} "
            f"{row['playouts_per_s']:>11.1f} {row['actions_per_playout']:>12.1f} "
            f"{row['us_per_action']:>10.1f} {row['cpu_us_per_action']:>7.1f} {ratio:>6.2f} "
            f"{row['cpu_share']:>5.0%}{flag}")


if __name__ == "__main__":
    sys.exit(main())
