"""Bot against bot, on every board a game offers: how much each level gains.

    python -m games.arena [--games 40] [--random-games 100] [--top 5] [--levels 2,3,4]
                          [--boards ends|default|all] [--size 7] [--shape long]
                          [--simulations N] [--seed 1] [--jobs 1] [--results FILE]
                          [--pair mcts4:mcts4-old] [game ...]

For each game and board: every level of --levels (default 2 to --top) against the level
below, then the top level against the random player (--random-games games) and against the
greedy one; --games games per pairing otherwise, the two players taking the first seat in turn
(Tripen is played with its pie rule: any player may swap). The boards are, per board shape, the
smallest size, the default and the largest (--boards ends), only the default, or every size
(--boards all); --size N plays only the sizes named (of every shape that has them), --shape S
only the boards of that shape (Colorful's hexhex or long).
--simulations N gives every search the same budget of N simulations a move in place of its
level's (the level's time cap still stands), for a comparison at equal budget that a shared
machine can afford; the table then measures the search, not the levels as the site plays them.
A row gives the first-named player's score (a win 1, a draw 1/2) as a rate with its 95% Wilson
interval, and its score in the games where it moved first and in those where it moved second.
Then the top level's thinking per action: CPU seconds of the process that played it (mean, max),
the wall-clock maximum, and how many of its searches the level's time cap cut short (a cut
search is weaker than its level and no longer repeatable). --pair A:B plays only that pairing
(players: random, greedy, mcts1..mcts5; a level's name with -uct: without RAVE; -old: the search
before the MCTS-solver, the kept tree, the widening and the endgame search, commit a6a705f;
-solver or -reuse: with only that one; -keep: the level keeping its tree between its moves, as
no level does on the site; and settings after commas, `,sims=N` its own budget, `,c=X` its
exploration, `,rave=X`, `,widen=0|1`, `,endgame=N` the exact endgame search's budget, 0 off,
`,collector=1` the cyclic collector running during the search, as the old level's did, `0`
held off, as the levels' is).
Budgets of each player's own are how a match at equal thinking time is played on a shared
machine: each side gets the simulations its search does in the same CPU time, calibrated side by
side, and the table then gives the opponent's CPU per action beside the top's.

The full table takes hours: --jobs N plays games in N processes, and --results FILE keeps one
JSON line per finished game, so a rerun with the same file skips the games it holds and only
plays the rest (more --games later plays only the games added); --report prints the table of
what the file holds without playing.  On a shared machine run it on one core, niced:
`nice -n 10 taskset -c 1 python -m games.arena --jobs 1 --results arena.jsonl`.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from multiprocessing import Pool
from time import perf_counter, process_time

from . import get, names
from .bots import LEVELS, TOP_LEVEL, MctsPlayer, player
from .records import options_text


def play_game(game, players, first: int, options: dict | None = None):
    """One game; players[0] takes seat `first`.  Returns (score of players[0], thinking per
    player: a list of (CPU seconds, wall seconds, search cut short) per action)."""
    seats = (players[0], players[1]) if first == 0 else (players[1], players[0])
    state = game.new(**(options or {}))
    times = {id(p): [] for p in players}
    while not state.is_over:
        bot = seats[state.person_to_move]
        wall, cpu = perf_counter(), process_time()
        action = bot.choose(state)
        cpu, wall = process_time() - cpu, perf_counter() - wall
        cut = isinstance(bot, MctsPlayer) \
            and bot.last.playouts not in (0, bot.budget(game.name)) \
            and bot.last.seconds >= bot.search_limit
        times[id(bot)].append((cpu, wall, cut))
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


def task_key(task: dict) -> tuple:
    """What identifies one game of the arena, in a task and in its recorded result (a record
    without a board or a budget is of the default board at the levels' own budgets)."""
    options = task.get("options") or get(task["game"]).normalize_options()
    return (task["game"], options_text(options), task["a"], task["b"], task["seed"],
            task["index"], task.get("simulations"))


def boards(game, which: str = "ends", sizes=None, shapes=None) -> list[dict]:
    """The boards to play `game` on: per board shape, its smallest size, the default and its
    largest ("ends"), only the default board ("default"), or every size ("all"); given
    `sizes`, the boards of those sizes only, whichever `which`; given `shapes` (Colorful's
    "hexhex", "long"), the boards of those shapes only, in a game that has shapes."""
    default = game.normalize_options()
    if sizes:
        which = "all"
    if which == "default":
        found = [default]
    else:
        choices = game.option_choices()
        found = []
        for shape in choices.get("board", [None]):
            fits = []
            for size in choices["size"]:
                try:
                    fits.append(game.normalize_options(
                        size=size, **({} if shape is None else {"board": shape})))
                except ValueError:   # a size this shape does not take
                    continue
            if which == "ends":
                fits = [o for k, o in enumerate(fits) if k in (0, len(fits) - 1) or o == default]
            found += fits
    return [o for o in found if (not sizes or o["size"] in sizes)
            and (not shapes or "board" not in o or o["board"] in shapes)]


def run_task(task: dict) -> dict:
    """Play one game of a pairing (in a worker process with --jobs) and return its record:
    the task, the first-named player's score, and that player's thinking figures."""
    a, b, seed, i = task["a"], task["b"], task["seed"], task["index"]
    budget = task.get("simulations")
    players = [player(a, seed * 1000 + 2 * i, budget), player(b, seed * 1000 + 2 * i + 1, budget)]
    score, times = play_game(get(task["game"]), players, first=i % 2, options=task.get("options"))
    mine = times[0]
    return {**task, "score": score,
            "cpu": [round(cpu, 4) for cpu, _, _ in mine],
            # The other player's, to show that a match at calibrated budgets was at equal time.
            "cpu_b": [round(cpu, 4) for cpu, _, _ in times[1]],
            "wall_max": round(max((wall for _, wall, _ in mine), default=0.0), 4),
            "cut": sum(cut for _, _, cut in mine)}


def load_results(path: str | None) -> dict[tuple, dict]:
    """The games already recorded in a results file, by key (none without a file)."""
    done = {}
    if path and os.path.exists(path):
        with open(path, encoding="utf-8") as handle:
            for line in handle:
                line = line.strip()
                if line:   # a run stopped mid-line leaves a torn last line: replay that game
                    try:
                        record = json.loads(line)
                    except json.JSONDecodeError:
                        continue
                    done[task_key(record)] = record
    return done


def pairings(top: int, n: int, random_games: int, pairs,
             levels=None) -> list[tuple[str, str, int]]:
    """(first player, second player, games) for one board's table."""
    if pairs:
        return [(a, b, n) for a, b in pairs]
    best = f"mcts{top}"
    rows = [(f"mcts{lv}", f"mcts{lv - 1}", n) for lv in levels or range(2, top + 1)]
    return rows + [(best, "random", random_games), (best, "greedy", n)]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m games.arena", description=__doc__.split("\n")[0])
    parser.add_argument("games", nargs="*", help="games to play (default: all)")
    parser.add_argument("--games", dest="n", type=int, default=40, help="games per pairing")
    parser.add_argument("--random-games", type=int, default=100,
                        help="games of the top level against random")
    parser.add_argument("--top", type=int, default=TOP_LEVEL, choices=sorted(LEVELS),
                        help="top level")
    parser.add_argument("--levels", type=_levels, metavar="2,3,4",
                        help="the levels played against the level below (default: 2..--top)")
    parser.add_argument("--boards", choices=("ends", "default", "all"), default="ends",
                        help="per board shape: smallest, default and largest size; the "
                             "default board only; every size")
    parser.add_argument("--size", type=int, action="append", help="only these sizes")
    parser.add_argument("--shape", action="append", metavar="SHAPE",
                        help="only boards of this shape, in a game that has shapes "
                             "(Colorful: hexhex, long)")
    parser.add_argument("--simulations", type=int, metavar="N",
                        help="every search's budget per move, in place of its level's")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=1, help="processes playing games")
    parser.add_argument("--results", metavar="FILE",
                        help="JSON lines of finished games: kept, and skipped on a rerun")
    parser.add_argument("--pair", action="append", metavar="A:B",
                        help="play only these pairings (repeatable)")
    parser.add_argument("--report", action="store_true",
                        help="play nothing: print the table of the games --results holds")
    args = parser.parse_args(argv)
    played = args.games or names()
    for name in args.games:
        get(name)   # a bad name fails before any game is played
    offered = {shape for name in played for shape in get(name).option_choices().get("board", [])}
    for shape in args.shape or []:
        if shape not in offered:   # and so does a shape no game played has
            parser.error(f"no board shape {shape!r} in these games: "
                         f"{', '.join(sorted(offered)) or 'none has shapes'}")
    pairs = [tuple(p.split(":", 1)) for p in args.pair or []]
    for a, b in pairs:
        player(a), player(b)   # and so does a bad player

    tables = []   # (game name, board, [(a, b, tasks)])
    for name in played:
        for options in boards(get(name), args.boards, args.size, args.shape):
            rows = []
            for k, (a, b, n) in enumerate(pairings(args.top, args.n, args.random_games, pairs,
                                                   args.levels)):
                tasks = [{"game": name, "options": options, "a": a, "b": b,
                          "seed": args.seed + k, "index": i} for i in range(n)]
                if args.simulations:
                    for task in tasks:
                        task["simulations"] = args.simulations
                rows.append((a, b, tasks))
            tables.append((name, options, rows))
    done = load_results(args.results)
    todo = [t for _, _, rows in tables for _, _, tasks in rows for t in tasks
            if task_key(t) not in done and not args.report]
    levels = "; ".join(f"{lv} {level.name}: {level.simulations} simulations"
                       + "".join(f" ({game} {n})" for game, n in (level.budgets or {}).items())
                       + f", cap {level.cap:g} CPU s" for lv, level in LEVELS.items())
    print(f"levels: {levels}")
    if args.simulations:
        print(f"every search: {args.simulations} simulations a move (the levels' caps stand)")
    print(f"seats alternating, seed {args.seed}; {len(done)} games recorded, {len(todo)} to play "
          f"in {args.jobs} process{'es' if args.jobs > 1 else ''}", flush=True)
    out = _open_results(args.results) if args.results and todo else None
    try:
        if args.jobs > 1:
            with Pool(args.jobs) as pool:
                for record in pool.imap_unordered(run_task, todo):
                    _keep(record, done, out)
        else:
            for task in todo:
                _keep(run_task(task), done, out)
    finally:
        if out:
            out.close()
    _print_tables(tables, done, pairs)
    return 0


def _levels(text: str) -> list[int]:
    levels = [int(part) for part in text.split(",")]
    if any(level - 1 not in LEVELS or level not in LEVELS for level in levels):
        raise argparse.ArgumentTypeError(f"levels from 2 to {TOP_LEVEL}, not {text}")
    return levels


def _open_results(path: str):
    """The results file, open to append, after a newline if a stopped run left a torn line
    (else the next record would be glued to it and lost too)."""
    out = open(path, "a+", encoding="utf-8")
    if out.tell():
        out.seek(out.tell() - 1)
        torn = out.read(1) != "\n"
        out.seek(0, os.SEEK_END)
        if torn:
            out.write("\n")
    return out


def _keep(record: dict, done: dict, out) -> None:
    done[task_key(record)] = record
    if out:
        out.write(json.dumps(record) + "\n")
        out.flush()


def _seat_score(records: list[dict], seat: int) -> str:
    """The first-named player's score in the games where it moved first (`seat` 0) or
    second, as "score/games": where a game favours one seat (Hadron 5x5 is a win for the
    first player, docs/measurements.md) the rate alone hides which seat won what."""
    games = [r["score"] for r in records if r["index"] % 2 == seat]
    return f"{sum(games):g}/{len(games)}"


def _print_tables(tables, done: dict, pairs) -> None:
    header = (f"{'game':<10} {'board':<20} {'pairing':<20} {'games':>5} {'score':>6} "
              f"{'draws':>5} {'rate':>5}  {'95% CI':<12}  {'moving first':>12}  moving second")
    print(header)
    print("-" * (len(header) + 8))
    for name, options, rows in tables:
        board = options_text(options)
        top = rows[0][0] if pairs else rows[-1][0]
        cpu, wall_max, cut = [], 0.0, 0
        against = []    # the top's opponents' CPU per action, where recorded
        for a, b, tasks in rows:
            records = [done[task_key(t)] for t in tasks if task_key(t) in done]
            n = len(records)
            if not n:
                continue
            score = sum(r["score"] for r in records)
            draws = sum(r["score"] == 0.5 for r in records)
            low, high = wilson(score, n)
            seats = [_seat_score(records, seat) for seat in (0, 1)]
            print(f"{name:<10} {board:<20} {a + ' vs ' + b:<20} {n:>5} {score:>6g} {draws:>5} "
                  f"{score / n:>5.2f}  {f'[{low:.2f}, {high:.2f}]':<12}  {seats[0]:>12}  "
                  f"{seats[1]}")
            if a == top:
                for r in records:
                    cpu += r["cpu"]
                    against += r.get("cpu_b", [])
                    wall_max = max(wall_max, r["wall_max"])
                    cut += r["cut"]
        if cpu:
            print(f"{name:<10} {board:<20} {top} thinking: CPU mean {sum(cpu) / len(cpu):.3f} s, "
                  f"max {max(cpu):.3f} s per action over {len(cpu)} actions (wall max "
                  f"{wall_max:.3f} s); {cut} cut by the time cap", flush=True)
            if against and pairs:
                print(f"{name:<10} {board:<20} its opponent's CPU mean "
                      f"{sum(against) / len(against):.3f} s per action over {len(against)} "
                      f"actions", flush=True)


if __name__ == "__main__":
    sys.exit(main())
