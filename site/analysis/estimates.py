"""The engine's judgement of a game, for the analysis and the hints: functions of the engine's
states only (no Django), so they are tested and benchmarked on their own, and the jobs
(analysis.jobs) store what they return.

Winning chances come from `games.bots.winning_chances`: the Monte Carlo search's estimate of
each player's chance to win, a pair that sums to 1 (the result itself once the game is over).
A mark says the mover's chance dropped by at least a threshold with one action:

* "?"  a mistake: at least MISTAKE (15 points of winning chance);
* "??" a blunder: at least BLUNDER (30 points).

The search is noisy at the budgets a whole game can afford (BUDGETS): a few points either way
between two neighbouring positions are noise, so the thresholds are well above it (lichess's,
on its own scale, are 5, 10 and 15 points, from a far steadier engine). A forced action (the
only legal one) is never marked.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

from games.bots import choose, winning_chances

MISTAKE, BLUNDER = 0.15, 0.30


@dataclass(frozen=True)
class Budget:
    """What one position of an analysis may cost: simulations, and a cap on seconds."""
    playouts: int
    seconds: float


# Per game kind, chosen with bench/analysis_time.py so that a game of typical length on the
# default board is analysed in 10-30 s of one core (docs/design.md gives the figures); more
# simulations make the estimates steadier, and so the marks fewer false alarms.
BUDGETS = {
    "colorful": Budget(playouts=2000, seconds=1.0),
    "copolymer": Budget(playouts=3000, seconds=1.0),
    "hadron": Budget(playouts=6000, seconds=1.0),
    "tripen": Budget(playouts=1500, seconds=1.0),
}
# A whole game's cap: on the larger boards (longer games, longer simulations) each position
# gets its share of it, so no analysis keeps a worker much longer than this.
GAME_SECONDS = 45.0

# A hint is one search at the computer players' level 4 (4,000 simulations), capped in time.
HINT_LEVEL = 4
HINT_SECONDS = 3.0


@dataclass(frozen=True)
class Point:
    """The analysis of one position: after `ply` actions, each player's chance (by player
    index: 0 moved first); `mover`, the player whose action led here (None at the start);
    `forced`, whether that action was the only legal one."""
    ply: int
    chances: tuple[float, float]
    mover: int | None
    forced: bool


@dataclass(frozen=True)
class Mark:
    """An action after which its player's chance dropped by `drop` (0..1)."""
    ply: int           # the position after the action: the board shows it as the last one
    player: int
    action: str
    drop: float
    symbol: str        # "?" or "??"


def seed_of(seed: int, ply: int) -> int:
    """The seed of one position's search: the same analysis repeats exactly (unless a time
    cap cut a search), and neighbouring positions use unrelated streams."""
    return seed * 1_000_003 + ply


def analyse(engine, options: dict, actions: list[str], budget: Budget, seed: int = 0,
            start: int = 0) -> Iterator[Point]:
    """The game `engine` with `options` played by `actions` (the stored record), position by
    position from ply `start` to the end: one Point each, as soon as it is computed (a
    worker that stopped half-way starts again where it stopped)."""
    seconds = min(budget.seconds, GAME_SECONDS / (len(actions) + 1))
    before, state = None, engine.new(**options)
    for action in actions[:start]:
        before, state = state, state.play(action)
    for ply in range(start, len(actions) + 1):
        chances = winning_chances(state, budget.playouts, seed_of(seed, ply), seconds)
        yield Point(ply, (round(chances[0], 4), round(chances[1], 4)),
                    None if before is None else before.person_to_move,
                    before is not None and len(before.legal_actions()) == 1)
        if ply < len(actions):
            before, state = state, state.play(actions[ply])


def marks(points: list[Point], actions: list[str]) -> list[Mark]:
    """The actions after which their player's chance dropped by MISTAKE or more, in ply
    order. `points` are an analysis's positions in ply order (those computed so far)."""
    found = []
    for previous, point in zip(points, points[1:]):
        if point.ply != previous.ply + 1 or point.mover is None or point.forced:
            continue
        drop = previous.chances[point.mover] - point.chances[point.mover]
        if drop >= MISTAKE:
            found.append(Mark(point.ply, point.mover, actions[point.ply - 1], round(drop, 4),
                              "??" if drop >= BLUNDER else "?"))
    return found


def preferred_action(state, seed: int = 0) -> str:
    """The action the engine would play for whoever is to move in `state` (not over)."""
    return choose(state, HINT_LEVEL, seed, HINT_SECONDS)
