"""Puzzles mined from games: positions where the side to move had a forced win and the player
in the game did not play a move that wins.

    python -m games.puzzles generate tripen --count 200 [--seed 1] [--out FILE]
    python -m games.puzzles check tripen [--sample 20]
    python -m games.puzzles agree hadron --size 5 --positions 50

A puzzle is kept only when `games.solver` proves the win within the game's bound (BOUNDS)
and the solver's certificate for it passes `games.solver.verify`, the independent walk
through `play()`: every listed first move wins in the puzzle's number of actions, and every
other legal move does not.  The games are played here by the computer players of
`games.bots`, seeded, so a run with the same arguments writes the same puzzles (the levels
used never reach their time caps).  The shipped sets are in `data/<game>.json`.

Why a forced win in the shortest number of actions: once a win in one exists, almost any move
still wins in three (the opponent must stop the first threat, and often cannot), and a puzzle
whose answers are "anything" teaches nothing; lichess keeps mates in the fewest moves alike.
"""

from __future__ import annotations

import json
import random
from functools import lru_cache
from pathlib import Path
from typing import Any

from .. import get
from ..bots import player
from ..solver import KEYS, Solver, proof, seat_winner, solve, verify

DATA = Path(__file__).with_name("data")

# The longest forced win searched for, in actions, per game, sized so that a position takes
# well under a second on the default boards.  Copolymer and Colorful end only when the board is
# full, so their forced wins are endgames with at most this many empty cells.
BOUNDS = {"copolymer": 9, "colorful": 7, "hadron": 7, "tripen": 3}

# Who plays the mined games: the weaker players blunder, the stronger punish; each game draws
# a pair at random (seeded).
PLAYERS = ("random", "greedy", "mcts1", "mcts2")

# At most this many puzzles from one game, so that a set comes from many games.
PER_GAME = 2


def can_end_within(state, bound: int) -> bool:
    """Whether the game might end within `bound` actions: Copolymer and Colorful end only on a
    full board.  A shortcut only: the solver would find no win otherwise, more slowly."""
    if state.game.name in ("copolymer", "colorful"):
        return len(state.empty.cells) <= bound
    return True


def themes(state, depth: int, moves: list[str]) -> list[str]:
    """What the puzzle is about, in the game's words, where it can be named."""
    name = state.game.name
    out = []
    if name == "tripen":
        out.append("finish the chain" if depth == 1 else "double threat")
    elif name == "hadron":
        out.append("last placement" if depth == 1 else "leave no placement")
    elif name == "copolymer":
        out.append("last cell" if depth == 1 else "endgame count")
        forced = [m for m in moves
                  if state.play(m).person_to_move == state.person_to_move]
        if forced and depth > 1:
            out.append("forced claim")
    elif name == "colorful":
        out.append("last stone" if depth == 1 else "last stones")
    if len(moves) == 1:
        out.append("only move")
    return out


def mine_game(game_name: str, options: dict[str, Any], seed: int,
              per_game: int = PER_GAME, prefix: str | None = None) -> list[dict[str, Any]]:
    """Play one seeded computer game and return its puzzles (re-checked), with ids
    `<prefix>-<ply>` (default `<game>-<seed>`, the shipped sets')."""
    game, rng = get(game_name), random.Random(seed)
    specs = (rng.choice(PLAYERS), rng.choice(PLAYERS))
    seats = [player(spec, seed=rng.randrange(2**32)) for spec in specs]
    state = game.new(**options)
    actions = []
    while not state.is_over:
        action = seats[state.person_to_move].choose(state)
        actions.append(action)
        state = state.play(action)
    source = {"seed": seed, "players": list(specs),
              "winner": None if seat_winner(state) is None else specs[seat_winner(state)]}
    return mine_line(game_name, options, actions, source, prefix or f"{game_name}-{seed}", rng,
                     per_game)


def mine_line(game_name: str, options: dict[str, Any], actions: list[str],
              source: dict[str, Any], prefix: str, rng: random.Random,
              per_game: int = PER_GAME) -> list[dict[str, Any]]:
    """The puzzles of one finished game's line of actions, played by anyone (computers, or the
    people of the site's archive): positions where the seat to move had a forced win within
    the game's bound and the action played does not win within it.  Each kept puzzle's
    certificate passes `verify` (CertificateError otherwise, and nothing is returned); its id
    is `<prefix>-<ply>`."""
    bound = BOUNDS[game_name]
    state = get(game_name).new(**options)
    found = []
    for action in actions:
        if state.is_over:
            break
        if can_end_within(state, bound):
            solver = Solver(state)
            solution = solve(state, bound, solver)
            answers = frozenset(solution.moves)
            # A player who misses the same win twice makes one puzzle, not two.
            if solution.wins and not solver.wins(state.play(action), bound - 1) \
                    and answers not in {f[1] for f in found}:
                found.append((state, answers, solution, state.play(action).actions[-1]))
        state = state.play(action)
    kept = []
    for position, _, solution, played in rng.sample(found, min(per_game, len(found))):
        verify(position, solution.depth, solution.moves, proof(position, solution.depth))
        kept.append(_puzzle(position, solution, played, prefix, source))
    return sorted(kept, key=lambda p: p["ply"])


def _puzzle(state, solution, played, prefix, source) -> dict[str, Any]:
    game = state.game
    return {
        "id": f"{prefix}-{state.ply}",
        "game": game.name,
        "options": dict(state.options),
        "actions": list(state.actions),
        "ply": state.ply,
        "side": state.side_name(state.to_move),
        "depth": solution.depth,
        "moves": sorted(solution.moves),
        "line": solution.line,
        "played": played,
        "themes": themes(state, solution.depth, solution.moves),
        "source": source,
    }


def generate(game_name: str, count: int, seed: int = 1, options: dict | None = None,
             progress=None) -> dict[str, Any]:
    """At least `count` puzzles from seeded games seed, seed + 1, ...; a position reached
    twice is kept once."""
    game = get(game_name)
    options = game.normalize_options(**(options or {}))
    puzzles, seen, games_played = [], set(), 0
    while len(puzzles) < count:
        for puzzle in mine_game(game_name, options, seed + games_played):
            key = position_key(position_of(puzzle))
            if key not in seen:
                seen.add(key)
                puzzles.append(puzzle)
        games_played += 1
        if progress:
            progress(games_played, len(puzzles))
    return {"game": game_name, "options": options, "bound": BOUNDS[game_name],
            "seed": seed, "games": games_played, "puzzles": puzzles}


def position_key(state):
    """What decides the rest of the game from `state` (a position reached twice is one)."""
    return KEYS[state.game.name](state)


def position_of(puzzle: dict[str, Any]):
    """The puzzle's position, replayed through the engine from its game's first action."""
    return get(puzzle["game"]).replay(puzzle["options"], puzzle["actions"])


def check(puzzle: dict[str, Any]) -> None:
    """Re-check a puzzle as the generator did: the solver finds the same shortest win and the
    same winning moves, its certificate passes the independent walk, and the puzzle's line
    played through the engine ends in the win.  AssertionError (a CertificateError for a
    proof that fails) says what is wrong."""
    state = position_of(puzzle)
    assert state.side_name(state.to_move) == puzzle["side"], "the side to move differs"
    solution = solve(state, BOUNDS[puzzle["game"]])
    assert solution.depth == puzzle["depth"], (
        f"{puzzle['id']}: shortest win {solution.depth}, the puzzle says {puzzle['depth']}")
    verify(state, puzzle["depth"], puzzle["moves"], proof(state, puzzle["depth"]))
    end = state
    for action in puzzle["line"]:
        end = end.play(action)
    assert end.is_over and seat_winner(end) == state.person_to_move, (
        f"{puzzle['id']}: the line {' '.join(puzzle['line'])} does not end in the win")


@lru_cache(maxsize=None)
def _shipped(game_name: str) -> dict[str, Any]:
    with open(DATA / f"{game_name}.json", encoding="utf-8") as handle:
        return json.load(handle)


def shipped(game_name: str) -> dict[str, Any]:
    """The shipped set's header: its board, bound, first seed and number of games played."""
    return {k: v for k, v in _shipped(get(game_name).name).items() if k != "puzzles"}


def load(game_name: str) -> list[dict[str, Any]]:
    """The shipped puzzles of a game (copies: callers may change them)."""
    return json.loads(json.dumps(_shipped(get(game_name).name)["puzzles"]))
