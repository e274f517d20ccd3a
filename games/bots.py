"""Computer opponents: a uniformly random player, a one-ply greedy player and Monte Carlo tree
search at levels 1..TOP_LEVEL, over the engine's public API only (games.mcts says how it
searches).

    >>> import games
    >>> from games.bots import choose
    >>> state = games.get("copolymer").new()
    >>> choose(state, level=1, seed=7) == choose(state, level=1, seed=7)
    True

A level is a budget of simulations (playouts) with a cap on thinking time per action: the
budget sets the strength, the cap only guards the machine.  The cap is CPU seconds of this
process unless `choose` is given another clock (see games.mcts): the site passes the wall
clock for a computer on a realtime clock, whose answer must come in time.  With the
same seed a level plays the same action in the same position unless the cap cuts the search
short (then it depends on the machine's speed).  A turn of several actions is asked for one
action at a time: `choose` answers for whoever is to move, whether or not they moved just
before.
"""

from __future__ import annotations

import random
from time import process_time
from typing import NamedTuple

from .mcts import immediate_wins, rewards, search


class Level(NamedTuple):
    """One level: its simulations per action and its cap in CPU seconds per action (a pair,
    so `simulations, cap = LEVELS[level]` reads it), with its name and a line for the site."""
    simulations: int
    cap: float
    name: str = ""
    description: str = ""
    # The search's MCTS-solver and the tree kept between the player's moves (games.mcts).
    # No level keeps its tree: the site plays each computer move as a job of its own
    # (games.bots.choose, a fresh player), so a level that kept one in the arena was measured
    # as the site never plays it; and without it the top level did as well or better there
    # (Tripen 7x7, Hadron 11x11: docs/measurements.md, issue 28).  `mcts4-keep` keeps it.
    solver: bool = False
    reuse: bool = False
    # Whether the level only fits a game without a realtime clock (its cap is too long).
    untimed_only: bool = False
    # UCB's exploration constant (games.mcts.search's `exploration`).
    exploration: float = 0.4
    # Children grown best first as AMAF ranks them (games.mcts.search's `widen`).
    widen: bool = False
    # Per game, settings that replace the two above: {game name: {"exploration": .., ..}}.
    tuned: dict | None = None
    # Positions of the exact endgame search tried before the tree search, in a game that has
    # one (games.endgame; games.mcts.search's `endgame`); 0: none.
    endgame: int = 0
    # Per game, simulations that replace `simulations`: {game name: simulations}.
    budgets: dict | None = None

    def budget(self, game: str) -> int:
        """The simulations this level's search of `game` runs at most."""
        return (self.budgets or {}).get(game, self.simulations)

    def search_settings(self, game: str) -> dict:
        """The exploration, widening and endgame budget this level searches `game` with."""
        return {"exploration": self.exploration, "widen": self.widen, "endgame": self.endgame,
                **(self.tuned or {}).get(game, {})}


# The top levels explore less than the others: with RAVE's estimates steering the search, 0.15
# beat 0.4 in self-play at equal budgets on every game (docs/measurements.md, issue 28).
TOP_EXPLORATION = 0.15
# Where a position offers many actions (Tripen's 260 tokens, Colorful's and Copolymer's cells
# and colours), the top levels search by RAVE alone (no exploration term, as Fuego) and grow
# each node's children in AMAF's order: they beat the search before them at equal budgets
# there, and lost on Hadron, whose few actions a node tries all at once anyway.  On Colorful a
# little exploration kept more of the gain at the level's full budget (0.72 against the old
# top level where none scored 0.62; docs/measurements.md, issue 28).
WIDE = {"exploration": 0.0, "widen": True}
TOP_TUNED = {"tripen": WIDE, "colorful": {**WIDE, "exploration": 0.05}, "copolymer": WIDE}

# The top levels' exact endgame search (Hadron's), in positions: about 1.2 s of the Strong
# level's 1.62 s search and 3.4 s of Master's 4.5 s on this project's 2-core machine (4 µs a
# position).  Of the 124 positions after Red's first placement and Blue's reply on the 5x5
# board (every one a win for Red), they decide 103 and 118 (docs/measurements.md, issue 28).
STRONG_ENDGAME = 300_000
MASTER_ENDGAME = 900_000

# The Strong level's simulations per game where 10,000 leave much of its cap unused.  On
# Colorful hexhex 5 its 10,000 took 0.9 s an action of its 1.62 s search and scored 0.73
# against the old top level over 120 games; with 15,000 (1.05 s an action) it scored 0.77 over
# 109 (docs/measurements.md, issue 28).  On the larger boards the cap ends most searches first.
# Master keeps three times Strong's simulations there: its 30,000 took 2.2 s an action of its
# 4.5 s search.
STRONG_BUDGETS = {"colorful": 15_000}
MASTER_BUDGETS = {"colorful": 45_000}

# A level's cap bounds its whole action, and freeing the searched tree (every node's position)
# comes after its last simulation: 0.17-0.22 s after Master's search on Hadron 11x11, when
# Master's actions had run to 5.1 s; with 6% kept for it, Strong's still ran to 1.77 s of its
# 1.7 on Hadron 11x11 with three processes on two cores (docs/measurements.md, issue 28).  So
# the search's simulations stop this share of the cap early.
TREE_FREE_SHARE = 0.1

# Each level searches ten times more than the one below; the Strong level's cap keeps it under
# 2 s of CPU a move (docs/measurements.md has the arena's figures): 1.8 s, a search of 1.62 s
# and the tree's freeing.  Master thinks up to 5 s a move, so it is offered only where no
# clock runs.
LEVELS = {
    1: Level(10, 1.0, "Beginner", "Takes a win in one move; otherwise barely looks ahead."),
    2: Level(100, 1.0, "Casual", "Looks a little ahead; leaves chances for a careful player."),
    3: Level(1000, 1.8, "Club", "A solid player that punishes loose moves."),
    4: Level(10000, 1.8, "Strong", "A deep search that proves wins, about two seconds a move.",
             solver=True, exploration=TOP_EXPLORATION, tuned=TOP_TUNED,
             endgame=STRONG_ENDGAME, budgets=STRONG_BUDGETS),
    5: Level(30000, 5.0, "Master", "The deepest search, up to five seconds a move: untimed "
             "and correspondence games only.", solver=True, untimed_only=True,
             exploration=TOP_EXPLORATION, tuned=TOP_TUNED, endgame=MASTER_ENDGAME,
             budgets=MASTER_BUDGETS),
}
TOP_LEVEL = max(LEVELS)
# The strongest level that fits a realtime clock.
CLOCK_TOP_LEVEL = max(level for level, spec in LEVELS.items() if not spec.untimed_only)


def level_name(level: int) -> str:
    """The level's name for the site: 'Beginner' .. 'Strong'."""
    return LEVELS[level].name


def level_description(level: int) -> str:
    """One line about how the level plays, for the site."""
    return LEVELS[level].description


def choose(state, level: int = 3, seed: int | None = None, time_limit: float | None = None,
           clock=process_time) -> str:
    """The action the level-`level` search plays in `state` (not over), in the engine's
    notation.  `time_limit` caps the seconds spent (default: the level's cap), counted by
    `clock` (default: CPU seconds; a player on a real clock passes time.monotonic)."""
    return MctsPlayer(level, seed, time_limit, clock=clock).choose(state)


class Player:
    """A computer player: choose(state) is an action for the seat to move.  One rng per
    player, so a seeded player's whole game is repeatable."""

    name = "player"

    def __init__(self, seed: int | None = None):
        self.rng = random.Random(seed)
        self.last = None      # the last search's figures, for players that search

    def choose(self, state) -> str:
        raise NotImplementedError

    def __repr__(self) -> str:
        return self.name


class RandomPlayer(Player):
    """Any legal action, uniformly."""

    name = "random"

    def choose(self, state) -> str:
        _check(state)
        return self.rng.choice(state.legal_actions())


class GreedyPlayer(Player):
    """One ply: a winning action if there is one; otherwise a random action after which the
    opponent cannot win at once (an action after which the same seat moves again counts as
    safe); otherwise any.  Actions are tried in random order and the first safe one is taken,
    so a move costs one pass over the legal actions in the common case."""

    name = "greedy"

    def choose(self, state) -> str:
        _check(state)
        wins = immediate_wins(state)
        if wins:
            return self.rng.choice(wins)
        actions = state.legal_actions()
        self.rng.shuffle(actions)
        for action in actions:
            if not loses_at_once(state, action):
                return action
        return actions[0]


def loses_at_once(state, action: str) -> bool:
    """Whether after `action` the game is lost for the mover's seat (or drawn), or the other
    seat is to move and has an immediate win."""
    seat = state.person_to_move
    child = state.clone()
    child.apply_action(action)
    if child.is_over:
        return rewards(child)[seat] < 1.0
    return child.person_to_move != seat and bool(immediate_wins(child))


class MctsPlayer(Player):
    """Monte Carlo tree search (UCT with RAVE) at a level of LEVELS.  `solver` and `reuse`
    default to the level's; `simulations` replaces the level's budget in every game (the
    arena's equal budgets), `budgets` the level's budgets per game (Level.budgets).  A player that
    reuses keeps its last search's tree for its next move."""

    def __init__(self, level: int = 3, seed: int | None = None, time_limit: float | None = None,
                 rave: float = 500.0, clock=process_time, solver: bool | None = None,
                 reuse: bool | None = None, simulations: int | None = None,
                 exploration: float | None = None, widen: bool | None = None,
                 endgame: int | None = None, hold_collector: bool = True,
                 budgets: dict | None = None):
        if level not in LEVELS:
            raise ValueError(f"level must be one of {', '.join(map(str, LEVELS))}, not {level!r}")
        super().__init__(seed)
        spec = LEVELS[level] if budgets is None else LEVELS[level]._replace(budgets=budgets)
        self.level, self.rave, self.spec = level, rave, spec
        # Given here, they hold for every game; else the level's, per game (choose).
        self.exploration, self.widen, self.endgame = exploration, widen, endgame
        self.hold_collector = hold_collector
        self.simulations = simulations
        self.time_limit = spec.cap if time_limit is None else time_limit
        self.clock = clock
        self.solver = spec.solver if solver is None else solver
        self.reuse = spec.reuse if reuse is None else reuse
        self.tree = None
        self.name = f"mcts{level}" + ("" if rave else "-uct")

    def choose(self, state) -> str:
        _check(state)
        tuned = self.settings(state.game.name)
        self.last = search(state, self.budget(state.game.name), self.rng, self.search_limit,
                           rave=self.rave, clock=self.clock, solver=self.solver,
                           tree=self.tree if self.reuse else None,
                           hold_collector=self.hold_collector, keep_tree=self.reuse,
                           **tuned)
        if self.reuse and self.last.tree is not None:
            self.tree = self.last.tree
        return self.last.action

    def budget(self, game: str) -> int:
        """The simulations this player's search of `game` runs at most."""
        return self.spec.budget(game) if self.simulations is None else self.simulations

    @property
    def search_limit(self) -> float:
        """The seconds the search may take: the time limit less what freeing its tree takes."""
        return self.time_limit * (1 - TREE_FREE_SHARE)

    def settings(self, game: str) -> dict:
        """The exploration, widening and endgame budget this player searches `game` with."""
        tuned = self.spec.search_settings(game)
        for setting in ("exploration", "widen", "endgame"):
            value = getattr(self, setting)
            if value is not None:
                tuned[setting] = value
        return tuned


# The variants a player's name may add to a level, for the arena: without RAVE; as the search
# was before the solver, the kept tree, the top levels' exploration, widening and endgame
# search, the collector held off and the Strong level's budgets per game (commit a6a705f:
# what the new top level is measured against; its faster playouts it shares); with only one
# of the first two; the level as it is but keeping its tree between its moves (its solver and
# settings stay: what the tree alone is worth); without it, as the level itself now plays
# (the name earlier measurements used).
VARIANTS = {"": {}, "uct": {"rave": 0.0},
            "old": {"solver": False, "reuse": False, "exploration": 0.4, "widen": False,
                    "endgame": 0, "hold_collector": False, "budgets": {}},
            "solver": {"solver": True, "reuse": False}, "reuse": {"solver": False, "reuse": True},
            "keep": {"reuse": True}, "nokeep": {"reuse": False}}


# What a player's name may set after a comma, for the arena's comparisons at equal thinking
# time: `sims` its simulations a move (each player its own: a budget calibrated to the same
# CPU time for each search), `c` UCB's exploration constant, `rave` RAVE's parameter, `widen`
# 1 or 0 the widening on or off (a level's own settings are per game: Level.tuned), `endgame`
# the exact endgame search's budget of positions (0: off), `collector` 1 the cyclic collector
# running during the search, as before this issue, or 0 held off, as the levels search (what
# the pause alone is worth in a match: docs/measurements.md, issue 28).
SETTINGS = {"sims": ("simulations", int), "c": ("exploration", float), "rave": ("rave", float),
            "widen": ("widen", lambda value: {"0": False, "1": True}[value]),
            "endgame": ("endgame", int),
            "collector": ("hold_collector", lambda value: {"0": True, "1": False}[value])}


def player(spec: str, seed: int | None = None, simulations: int | None = None) -> Player:
    """A player by name: 'random', 'greedy', 'mcts3' (a level), 'mcts3-uct' (without RAVE),
    'mcts4-old' (without the solver and the kept tree), 'mcts4-solver', 'mcts4-reuse' (one
    of them), 'mcts4-keep' (the level keeping its tree between its moves), any of these with
    settings after commas ('mcts4-old,sims=3000,c=0.2': see SETTINGS).  `simulations`
    replaces a search's budget (the arena's equal budgets) unless the name sets its own."""
    if spec == "random":
        return RandomPlayer(seed)
    if spec == "greedy":
        return GreedyPlayer(seed)
    if spec.startswith("mcts"):
        name, *settings = spec.split(",")
        level, _, variant = name[4:].partition("-")
        options = dict(VARIANTS.get(variant, {}))
        if simulations is not None:
            options["simulations"] = simulations
        try:
            for setting in settings:
                key, _, value = setting.partition("=")
                option, kind = SETTINGS[key]
                options[option] = kind(value)
        except (KeyError, ValueError):
            level = ""   # an unknown or unreadable setting: no such player
        if level.isdigit() and variant in VARIANTS:
            return MctsPlayer(int(level), seed, **options)
    raise ValueError(f"no player {spec!r}: random, greedy, mcts1..mcts{TOP_LEVEL}, "
                     f"with -uct, -old, -solver, -reuse, -keep or -nokeep, "
                     f"and settings ,sims=N ,c=X ,rave=X ,widen=0|1 ,endgame=N ,collector=0|1")


def _check(state) -> None:
    if state.is_over:
        raise ValueError("the game is over: there is nothing to choose")


def winning_chances(state, playouts: int = 2000, seed: int | None = None,
                    time_limit: float | None = None) -> tuple[float, float]:
    """The search's estimate of each seat's chance to win from `state` (seat 0: the player
    who moved first), as a pair that sums to 1: for the site's analysis of a game.  A game
    that is over scores its result (a draw 1/2 each).  A forced action (the only legal one)
    is played and the position after it assessed, since the search plays it unsearched.
    `time_limit` is in CPU seconds, as for the levels."""
    while not state.is_over:
        # The whole budget: a settled answer is no reason to stop estimating the position.
        result = search(state, playouts, random.Random(seed), time_limit, settle=False,
                        keep_tree=False)
        if result.playouts or result.value == 1.0:
            chance = result.value if result.mean is None else result.mean
            return (chance, 1.0 - chance) if state.person_to_move == 0 else (1.0 - chance, chance)
        state = state.clone()
        state.apply_action(result.action)
    return rewards(state)
