"""Lessons and puzzles for the site: which step or puzzle a request means, and the engine's
judgement of an action in it (games.lessons, games.puzzles, games.solver do the judging).

Everything a browser sends is untrusted: the actions already played in a step or a puzzle
come back in a form field, so they are replayed here and must be the step's own ('again'
verdicts) or the puzzle's (winning moves of the solver and the defences this module chose).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

import games
from games import IllegalAction, lessons, puzzles
from games.solver import Solver, defence, seat_winner
from learn.models import MinedPuzzle


class BadInput(ValueError):
    """A request that names no step or puzzle, or a position that is not part of it."""


MAX_MOVES = 24


def lesson(game: str):
    try:
        return lessons.lesson(game)
    except ValueError:
        raise BadInput(f"there is no game {game!r}") from None


def step_position(step, moves: list[str]):
    """The step's start with `moves` replayed; each must have been an 'again' in the step."""
    state = step.start()
    for action in moves[:MAX_MOVES + 1]:
        verdict = lessons.judge(step, state, action)
        if verdict.status != "again":
            raise BadInput("those actions are not a position of this step; start it again")
        state = verdict.state
    return state


@lru_cache(maxsize=None)
def _shipped(game: str) -> dict:
    return {p["id"]: p for p in puzzles.load(game)}


def puzzle_ids(game: str) -> list[str]:
    """The shipped puzzles, then those `make_puzzles` mined from this site's games (their ids
    only: a puzzle is read when it is served)."""
    mined = MinedPuzzle.objects.filter(game=game).order_by("id").values_list("puzzle_id",
                                                                            flat=True)
    return list(_shipped(game)) + [i for i in mined if i not in _shipped(game)]


def find_puzzle(game: str, puzzle_id: str):
    if game not in games.names():
        raise BadInput(f"there is no game {game!r}")
    puzzle = _shipped(game).get(puzzle_id)
    if puzzle is None:
        puzzle = (MinedPuzzle.objects.filter(game=game, puzzle_id=puzzle_id)
                  .values_list("data", flat=True).first())
    if puzzle is None:
        raise BadInput(f"there is no puzzle {puzzle_id!r} of {games.get(game).title}")
    return puzzle


@dataclass
class Attempt:
    """A puzzle being solved: its position, the actions played since, and the solver."""
    puzzle: dict
    start: object
    state: object
    moves: list[str] = field(default_factory=list)

    def __post_init__(self):
        self.solver = Solver(self.start)

    @property
    def left(self) -> int:
        """Actions left in the puzzle's bound."""
        return self.puzzle["depth"] - len(self.moves)


def attempt(puzzle: dict, moves: list[str]) -> Attempt:
    """The puzzle's position with `moves` replayed: the solver's side's actions must keep the
    forced win, the other side's must be the defence this site answers with."""
    start = puzzles.position_of(puzzle)
    trial = Attempt(puzzle, start, start)
    if len(moves) >= puzzle["depth"]:
        raise BadInput("more actions than the puzzle has; start it again")
    for action in moves:
        state = trial.state
        try:
            child = state.play(action)
        except IllegalAction:
            raise BadInput("those actions are not a line of this puzzle; start it again") from None
        ours = state.person_to_move == trial.solver.seat
        if ours and not trial.solver.wins(child, trial.left - 1) or (
                not ours and action != defence(trial.solver, state, trial.left)):
            raise BadInput("those actions are not a line of this puzzle; start it again")
        trial.state = child
        trial.moves.append(action)
    if trial.state.is_over or trial.state.person_to_move != trial.solver.seat:
        raise BadInput("those actions are not a line of this puzzle; start it again")
    return trial


@dataclass
class Answer:
    status: str          # "illegal", "wrong", "again", "solved"
    words: str
    attempt: Attempt


def answer(trial: Attempt, action: str) -> Answer:
    """The engine's and the solver's judgement of the solver side's `action`."""
    state, solver, seat = trial.state, trial.solver, trial.solver.seat
    try:
        child = state.play(action)
    except IllegalAction as error:
        return Answer("illegal", f"Not allowed: {error}.", trial)
    action = child.actions[-1]
    if child.is_over:
        if seat_winner(child) == seat:
            return _moved(trial, [action], "solved", f"Solved: {child.outcome()}.")
        return Answer("wrong", f"{action} ends the game, but {child.outcome()}.", trial)
    left = trial.left - 1
    if not solver.wins(child, left):
        return Answer("wrong", f"{action} does not win in time: {_escape(solver, child, left)}",
                      trial)
    if child.person_to_move == seat:
        return _moved(trial, [action], "again", f"Good. {child.prompt()}.")
    # The other side defends as best it can, for as many actions as its turn lasts.
    who, replies, after = child.side_name(child.to_move), [], child
    while not after.is_over and after.person_to_move != seat:
        reply = defence(solver, after, left)
        replies.append(reply)
        after, left = after.play(reply), left - 1
    answered = f"{who} answers {' '.join(replies)}"
    if after.is_over:
        return _moved(trial, [action, *replies], "solved",
                      f"Solved: {answered}, and {after.outcome()}.")
    return _moved(trial, [action, *replies], "again", f"Good. {answered}. {after.prompt()}.")


def _moved(trial, actions, status, words):
    moved = Attempt(trial.puzzle, trial.start, trial.state, trial.moves + actions)
    for action in actions:
        moved.state = moved.state.play(action)
    return Answer(status, words, moved)


def _escape(solver, state, left) -> str:
    """How the other side gets away, in words."""
    if state.person_to_move == solver.seat:
        return "no way on wins within the puzzle's length."
    for reply in state.legal_actions():
        if not solver.wins(state.play(reply), left - 1):
            return f"{state.side_name(state.to_move)} answers {reply} and holds out."
    return "the other side holds out."


def daily(day) -> dict:
    """The day's puzzle (a `datetime.date`): the same for everyone all day, each game's in turn."""
    names = games.names()
    name = names[day.toordinal() % len(names)]
    ids = puzzle_ids(name)
    return find_puzzle(name, ids[(day.toordinal() // len(names)) % len(ids)])
