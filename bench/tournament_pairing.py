"""Benchmark of tournament pairing (tournaments.formats): the CPU time of one arena wave and
of one Swiss round, on large fields.

    python bench/tournament_pairing.py                 # 1,000 players each
    python bench/tournament_pairing.py --players 2000 --rounds 9

Arena: 1,000 players with 500 games in play, i.e. every player has a last opponent; a wave
pairs those who are free (half of the field, then all of it: the worst case). Swiss: a
1,000-player event played round by round with random results, each round paired from the
previous standings (Buchholz and Sonneborn-Berger computed as the app does). Targets (issue
23): a wave <= 100 ms of CPU, a Swiss round <= 2 s. It prints figures; it is not a test.
"""
import argparse
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "site")]

from tournaments.formats.arena import pair_wave  # noqa: E402
from tournaments.formats.standings import swiss_standings  # noqa: E402
from tournaments.formats.swiss import FIRST, SECOND, SwissPlayer, pair_round  # noqa: E402


def cpu(function, *args):
    start = time.process_time()
    result = function(*args)
    return time.process_time() - start, result


def arena(players, repeat, rng):
    field = list(range(players))
    rng.shuffle(field)
    last = {}
    for a, b in zip(field[::2], field[1::2]):
        last[a], last[b] = b, a
    for label, waiting in (("half the field free", field[: players // 2]),
                           ("the whole field free", field)):
        times = [cpu(pair_wave, waiting, last)[0] for _ in range(repeat)]
        pairs = pair_wave(waiting, last)
        print(f"arena wave, {players} players, {label} ({len(waiting)}): "
              f"median {statistics.median(times) * 1000:.1f} ms CPU, "
              f"max {max(times) * 1000:.1f} ms, {len(pairs)} pairs")


def swiss(players, rounds, rng):
    field = [SwissPlayer(index) for index in range(players)]
    by_id = {player.id: player for player in field}
    games, byes, times = [], [], []
    for number in range(1, rounds + 1):
        standing = [row.player for row in swiss_standings(list(by_id), games, byes)]
        seconds, result = cpu(pair_round, [by_id[player] for player in standing])
        times.append(seconds)
        for first, second in result.pairs:
            score = rng.choice([1, 0, 0.5, 1, 0])
            games.append((first, second, score))
            for player, side, opponent, got in ((first, FIRST, second, score),
                                                (second, SECOND, first, 1 - score)):
                by_id[player].score += got
                by_id[player].opponents.add(opponent)
                by_id[player].sides.append(side)
        if result.bye is not None:
            byes.append(result.bye)
            by_id[result.bye].score += 1
            by_id[result.bye].had_bye = True
        print(f"swiss round {number}, {players} players: {seconds:.3f} s CPU, "
              f"{len(result.pairs)} pairs, bye {'yes' if result.bye is not None else 'no'}")
    print(f"swiss, {players} players, {rounds} rounds: median {statistics.median(times):.3f} s, "
          f"max {max(times):.3f} s CPU per round")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--repeat", type=int, default=20, help="timed arena waves")
    parser.add_argument("--seed", type=int, default=23)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    arena(args.players, args.repeat, rng)
    swiss(args.players, args.rounds, rng)


if __name__ == "__main__":
    main()
