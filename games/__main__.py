"""The engine from the command line.

    python -m games list
    python -m games random hadron --size 7 --seed 1      # a random game: board and record
    python -m games random colorful --board long --size 6
    python -m games replay game.txt --ply 20              # a text or JSON record; - for stdin
"""

from __future__ import annotations

import argparse
import random
import sys

from . import get, names, records


def main(argv=None) -> int:
    """Run one command; the exit status is 1 for a bad game, option or record."""
    args = _parser().parse_args(argv)
    try:
        return args.command(args)
    except ValueError as error:   # IllegalAction too: bad options, records or actions
        print(f"error: {error}", file=sys.stderr)
        return 1


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m games", description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(required=True, metavar="command")

    listing = commands.add_parser("list", help="the games and their options")
    listing.set_defaults(command=list_games)

    rand = commands.add_parser("random", help="play a random game and print it")
    rand.add_argument("game", help=" | ".join(names()))
    rand.add_argument("--size", type=int, help="board size (default: the game's)")
    rand.add_argument("--board", help="board shape, for games that have several (colorful)")
    rand.add_argument("--seed", type=int, help="random seed, for a repeatable game")
    rand.add_argument("--json", action="store_true", help="print the record as JSON")
    rand.set_defaults(command=random_game)

    replay = commands.add_parser("replay", help="replay a record and print the board")
    replay.add_argument("file", help="a text or JSON record, or - for standard input")
    replay.add_argument("--ply", type=int, help="stop after this many actions")
    replay.set_defaults(command=replay_record)
    return parser


def list_games(args) -> int:
    """One line per game: its facts and options."""
    for name in names():
        game = get(name)
        options = ", ".join(
            f"{key} {'/'.join(map(str, values))} (default {game.defaults[key]})"
            for key, values in game.option_choices().items()
        )
        print(f"{name:<10} {game.title} by {game.designer} ({game.year}); "
              f"{' vs '.join(game.sides)}; {options}")
    return 0


def random_game(args) -> int:
    """Play uniformly random legal actions to the end; print the board and the record."""
    game = get(args.game)
    options = {key: value for key, value in (("size", args.size), ("board", args.board))
               if value is not None}
    state = game.new(**options)
    rng = random.Random(args.seed)
    while not state.is_over:
        state = state.play(rng.choice(state.legal_actions()))
    print(state.text())
    print()
    print(records.to_json(state, indent=1) if args.json else records.to_text(state).rstrip("\n"))
    return 0


def replay_record(args) -> int:
    """Replay a record, to its end or to --ply, and print the board there."""
    if args.file == "-":
        text = sys.stdin.read()
    else:
        with open(args.file, encoding="utf-8") as handle:
            text = handle.read()
    record = records.parse(text)
    state, total = record.state, len(record.actions)
    if args.ply is not None:
        if not 0 <= args.ply <= total:
            raise ValueError(f"--ply must be between 0 and {total}, the record's length")
        state = record.game.replay(record.options, record.actions[:args.ply])
    players = " vs ".join(
        f"{side} {name}" for side, name in zip(record.game.sides, record.players) if name
    )
    print(f"{record.game.title} {records.options_text(record.options)}"
          + (f", {players}" if players else ""))
    print(state.text())
    print(f"after {state.ply} of {total} actions: {state.result_text() or state.prompt()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
