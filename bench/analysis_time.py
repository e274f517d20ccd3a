"""What a computer analysis costs: seconds per analysed game, per game kind, at the default
board sizes and the budgets of analysis.estimates.BUDGETS, on one core.

    nice python bench/analysis_time.py                  # 3 games of each kind
    python bench/analysis_time.py --games 5 --kinds hadron tripen
    taskset -c 1 python bench/analysis_time.py          # pinned to one core

The games are played by the computer players at level 1 (fast, but not random: random games
run longer or shorter than people's), then analysed position by position exactly as the job
does (analysis.estimates.analyse). CPU seconds are the process's own, which is what a worker
spends; wall seconds include whatever else the machine does. It also prints the cost of a
hint (one level-4 search from a middle position). It prints figures; it is not a test.
"""
import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "site")]

import games  # noqa: E402
from games.bots import choose  # noqa: E402

from analysis import estimates  # noqa: E402  (plain Python: no Django needed)


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3, help="games per kind")
    parser.add_argument("--kinds", nargs="*", default=sorted(estimates.BUDGETS))
    parser.add_argument("--level", type=int, default=1, help="level of the players")
    parser.add_argument("--seed", type=int, default=1)
    return parser.parse_args()


def play(name, level, seed):
    state = games.get(name).new()
    while not state.is_over:
        state = state.play(choose(state, level, seed=seed * 1000 + state.ply))
    return state


def main():
    args = parse_args()
    print(f"{'game':<10} {'plies':<18} {'CPU s/game':<20} {'wall s/game':>11} "
          f"{'CPU s/position':>15} {'max':>6} {'hint CPU s':>11}")
    for name in args.kinds:
        budget = estimates.BUDGETS[name]
        plies, cpu, wall, per_position, hints = [], [], [], [], []
        for number in range(args.games):
            final = play(name, args.level, args.seed + number)
            actions = list(final.actions)
            plies.append(len(actions))
            cpu0, wall0 = time.process_time(), time.perf_counter()
            last = cpu0
            for _ in estimates.analyse(games.get(name), {}, actions, budget, seed=number):
                now = time.process_time()
                per_position.append(now - last)
                last = now
            cpu.append(time.process_time() - cpu0)
            wall.append(time.perf_counter() - wall0)
            middle = games.get(name).replay({}, actions[: len(actions) // 2])
            if not middle.is_over:
                cpu0 = time.process_time()
                estimates.preferred_action(middle, seed=number)
                hints.append(time.process_time() - cpu0)
        print(f"{name:<10} {min(plies):>3}-{max(plies):<3} (mean {statistics.mean(plies):>3.0f})"
              f" {statistics.mean(cpu):>7.1f} (max {max(cpu):>5.1f})"
              f" {statistics.mean(wall):>13.1f}"
              f" {statistics.mean(per_position):>15.3f} {max(per_position):>6.2f}"
              f" {statistics.mean(hints) if hints else float('nan'):>11.2f}")
    print("budgets: " + ", ".join(f"{name} {b.playouts} simulations (cap {b.seconds} s)"
                                  for name, b in sorted(estimates.BUDGETS.items()))
          + f"; at most {estimates.GAME_SECONDS:.0f} s per game")


if __name__ == "__main__":
    main()
