"""Lessons: for each game a few short steps on a real board, each a position and a task, and
the engine judging every action the learner makes.

    >>> import games
    >>> from games.lessons import lesson, judge
    >>> step = lesson("hadron")[1]
    >>> judge(step, step.start(), "a2").status
    'illegal'

`judge(step, position, action)` answers with a Verdict:

* `illegal`: the engine refused the action; the words are its own reason, the position stays;
* `again`: legal and on the way, the same learner acts again (Copolymer's forced claims,
  Colorful's second stone); the position goes on from `state`;
* `wrong`: legal, but it does not do the task; the words say why, and the step starts over;
* `done`: the task is done; the words say why it counts.

The words come from the engine: its reasons for refused actions, its prompts ("O claims again:
B2 touched two enemy cells"), its results ("Red wins: top and bottom joined"), its counts of
neighbours and scores, and for the steps that ask for a forced win, `games.solver`.  The
positions are replays of actions (or, where a lesson needs a position no short game reaches,
the game's own `setup`), so every one is a position of the real rules.  The last step of each
lesson hands over to a game against the Beginner level (LEVEL_AFTER), which the site offers.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from . import get
from .base import IllegalAction, State
from .hadron import _neighbour_counts
from .solver import Solver, seat_winner

# The computer level the site offers after a lesson's last step.
LEVEL_AFTER = 1


@dataclass(frozen=True)
class Verdict:
    status: str        # "illegal", "wrong", "again" or "done"
    words: str
    state: State       # the position to show next: the same one, the one reached, or the start


@dataclass(frozen=True)
class Step:
    key: str
    title: str
    task: str
    start: Callable[[], State]
    # (position before the action, position after it, actions played in the step so far,
    # this one included) -> (status, words) for a legal action.
    goal: Callable[[State, State, int], tuple[str, str]]


def judge(step: Step, state: State, action: str) -> Verdict:
    """The engine's answer to the learner's `action` in `state`, a position of this step."""
    try:
        after = state.play(action)
    except IllegalAction as error:
        return Verdict("illegal", f"Not allowed: {error}.", state)
    start = step.start()
    status, words = step.goal(state, after, after.ply - start.ply)
    return Verdict(status, words, start if status == "wrong" else after)


def lesson(game: str) -> list[Step]:
    """The steps of a game's lesson, in order."""
    return LESSONS[get(game).name]()


# -- goals shared by several games -----------------------------------------------------------

def _any_legal(words: Callable[[State, State], str]):
    """A step whose task is any legal action: only the engine can refuse it."""
    return lambda before, after, played: ("done", words(before, after))


def _forced_win(bound: int):
    """Done when the learner's action keeps a forced win within `bound` actions and hands the
    turn over (or ends the game won); again while the same learner is still to act and the
    win is kept; wrong, with the defence that saves the opponent, otherwise."""
    def goal(before, after, played):
        seat, action = before.person_to_move, after.actions[-1]
        who = before.side_name(before.to_move)
        if after.is_over:
            if seat_winner(after) == seat:
                return "done", f"{after.outcome()}."
            return "wrong", f"{action} ends the game, but {after.outcome()}."
        solver = Solver(before)
        left = bound - played
        if left <= 0:
            return "wrong", f"{action} does not win at once: {after.prompt()}. Try again."
        if solver.wins(after, left):
            if after.person_to_move == seat:
                return "again", f"Good: you still win. {after.prompt()}."
            line = _spoken(after, _line_from(solver, after, left))
            return "done", (f"{action} wins by force: whatever {after.side_name(after.to_move)} "
                            f"plays, {who} wins, e.g. {line}.")
        defence = _defence(solver, after, left)
        return "wrong", (f"{action} lets the win slip: {defence} Try again.")
    return goal


def _spoken(state, line):
    """A line of actions with who plays each: 'Blue a4, Red c2'."""
    words = []
    for action in line:
        words.append(f"{state.side_name(state.to_move)} {action}")
        state = state.play(action)
    return ", ".join(words)


def _line_from(solver, state, depth):
    from .solver import _line
    return _line(solver, state, depth)


def _defence(solver, state, depth) -> str:
    """In words, how the opponent escapes after the learner's action."""
    if state.person_to_move == solver.seat:
        return "you can no longer force the win from here."
    for reply in state.legal_actions():
        child = state.play(reply)
        if not solver.wins(child, depth - 1):
            if child.is_over:
                return f"{reply} and {child.outcome()}."
            return f"{state.side_name(state.to_move)} answers {reply} and you can no longer force the win."
    return "the opponent holds out."


# -- Hadron ----------------------------------------------------------------------------------

def _hadron_setup(tiles: dict[str, int], to_move: int):
    game = get("hadron")
    return lambda: game.state_class.setup(game, {"size": 5}, tiles, to_move)


def _hadron_counts(before, after):
    cell = after.actions[-1]
    i = before.board.by_name[cell]
    return before.near[0][i], before.near[1][i]


def _neighbours_in_words(red: int, blue: int) -> str:
    return "no neighbours" if red == blue == 0 else _neighbour_counts(red, blue)


def _hadron_touching(red_blue: tuple[int, int]):
    def goal(before, after, played):
        red, blue = _hadron_counts(before, after)
        cell = after.actions[-1]
        if (red, blue) == red_blue:
            return "done", f"{cell} has {_neighbours_in_words(red, blue)}: as many of each."
        return "wrong", (f"{cell} is legal ({_neighbours_in_words(red, blue)}: as many of each), "
                         f"but the task is {red_blue[0]} of each. Try again.")
    return goal


def _hadron_lesson():
    game = get("hadron")
    return [
        Step("first-tile", "Place a tile",
             "Red moves first. Place a tile anywhere: on an empty board no cell has a neighbour.",
             lambda: game.new(size=5),
             _any_legal(lambda b, a: f"Red placed on {a.actions[-1]}: it had no red and no blue "
                                     f"neighbours, as many of each. {a.prompt()}.")),
        Step("one-and-one", "As many red as blue",
             "A tile may only go where its neighbours hold as many red tiles as blue ones. "
             "Place a tile touching one red and one blue tile.",
             _hadron_setup({"b2": 0, "c3": 1}, 0), _hadron_touching((1, 1))),
        Step("two-and-two", "Two of each",
             "Two red and two blue neighbours is as many of each too. Find the cell that "
             "touches two of each and place there.",
             _hadron_setup({"b3": 0, "c2": 1, "d3": 0, "c4": 1}, 0), _hadron_touching((2, 2))),
        Step("last-placement", "The last to place wins",
             "The player to move with no legal placement loses. Place the tile that leaves Blue "
             "no placement at all.",
             lambda: game.replay({"size": 5}, "d3 c2 b1 e4 b2 d4 e3 c3 a3 d1".split()),
             _forced_win(1)),
        Step("look-ahead", "Look ahead",
             "Place a tile after which, whatever Blue does, you place last.",
             lambda: game.replay({"size": 5}, "c3 b2 c5 a1 d2 e5 b4 a3 d4 c1 b3 e3".split()),
             _forced_win(3)),
    ]


# -- Copolymer -------------------------------------------------------------------------------

def _rule_sheet_example():
    """The rule sheet's figure 2a (side 3): X on A1 A3 B1 D2 E5, O on C1 C2 C3 D4, O to move."""
    game = get("copolymer")
    claims = {**{c: 0 for c in "A1 A3 B1 D2 E5".split()}, **{c: 1 for c in "C1 C2 C3 D4".split()}}
    return game.state_class.setup(game, {"size": 3}, claims, 1)


def _claims_again(before, after, played):
    cell = after.actions[-1]
    if after.person_to_move == before.person_to_move:
        return "done", f"{after.prompt()}: you must claim again."
    enemies = before.enemy_neighbours(before.board.by_name[cell], before.mover)
    return "wrong", (f"{cell} touched {_count(enemies, 'X cell')}, so the turn passed to X. "
                     "Claim a cell touching two or more. Try again.")


def _ends_turn(before, after, played):
    cell = after.actions[-1]
    if after.is_over or after.person_to_move != before.person_to_move:
        enemies = before.enemy_neighbours(before.board.by_name[cell], before.mover)
        return "done", (f"{cell} touched {_count(enemies, 'X cell')}: your turn ends. "
                        f"{after.prompt()}.")
    return "again", f"{after.prompt()}: claim again, and end with a cell touching at most one."


def _count(n: int, noun: str) -> str:
    from .copolymer import NUMBER_WORDS
    return f"{NUMBER_WORDS[n]} {noun}{'' if n == 1 else 's'}"


def _copolymer_lesson():
    game = get("copolymer")
    return [
        Step("first-claim", "Claim a cell",
             "X moves first. Claim any cell.",
             lambda: game.new(size=4),
             _any_legal(lambda b, a: f"X claimed {a.actions[-1]}; it touches no O cell, so the "
                                     f"turn passes. {a.prompt()}.")),
        Step("claim-again", "A claim that obliges another",
             "A claim touching two or more enemy cells obliges you to claim again. As O, make "
             "such a claim.",
             _rule_sheet_example, _claims_again),
        Step("finish-the-turn", "Claim the cell you must",
             "O has claimed B2 and must go on. Claim until your turn ends: it ends with a "
             "claim that touches at most one X cell.",
             lambda: _rule_sheet_example().play("B2"), _ends_turn),
        Step("count-three", "The bigger count wins",
             "The game ends when every cell is claimed, and more cells win. Three are left: "
             "claim so that you end with more.",
             lambda: game.replay({"size": 4}, (
                 "F6 F7 B5 E7 F5 B2 D2 E5 E6 G5 A4 B4 F3 C5 C4 B1 E4 C6 G6 B3 G7 D3 D7 D4 C3 "
                 "E3 E2 D5 A3 A1 A2 G4 D6 F4").split()),
             _forced_win(3)),
        Step("count-five", "Count ahead",
             "Five cells are left. Find a claim that wins whatever X does.",
             lambda: game.replay({"size": 4}, (
                 "F3 G4 C4 E3 A1 E4 D4 C5 G5 C2 D5 F5 G6 E2 A3 D1 B4 C1 F7 F4 B1 G7 D7 D2 F6 "
                 "A2 E6 E5 B2 D3 B3 B5").split()),
             _forced_win(5)),
    ]


# -- Tripen ----------------------------------------------------------------------------------

def _tripen(actions: str):
    return lambda: get("tripen").replay({"size": 5}, actions.split())


def _in_cell(cell: str):
    def goal(before, after, played):
        action = after.actions[-1]
        if action.split("/")[0] == cell:
            return "done", (f"{action} fills the other half of {cell}: a cell holds two tokens, "
                            "the two halves of one cut.")
        return "wrong", f"{action} is legal, but the task is the free half of {cell}. Try again."
    return goal


def _swapped(before, after, played):
    if after.actions[-1] == "swap":
        return "done", ("You swapped: Red's token is yours and you play Red from now on; the "
                        f"other player takes Blue and moves next. {after.prompt()}.")
    return "wrong", ("You placed a token; the pie rule's swap is allowed only now, as Blue's "
                     "first action. Try again.")


def _joins(before, after, played):
    b, action = before.board, after.actions[-1]
    node, mine = b.by_node_name[action], before.mover + 1
    joined = [b.node_names[o] for o in b.joins[node] if before.colour[o] == mine]
    if joined:
        return "done", (f"{action} shares a side with {', '.join(joined)}: they are one chain "
                        "now.")
    return "wrong", (f"{action} shares no side with a red token: a chain needs outlines "
                     "that share a segment. Try again.")


def _tripen_lesson():
    game = get("tripen")
    return [
        Step("first-token", "Place a token",
             "A token is half a hexagon: choose a cell and a pose. Red moves first: place one.",
             lambda: game.new(size=5),
             _any_legal(lambda b, a: f"Red placed {a.actions[-1]}, half of the cell; the other "
                                     f"half stays free. {a.prompt()}.")),
        Step("pie-rule", "The pie rule",
             "Red has placed the first token. As Blue you may swap instead of placing: "
             "Red's token becomes yours. Swap.",
             _tripen("c3/2"), _swapped),
        Step("share-a-cell", "Two halves",
             "A token may not overlap another. Place a token in the free half of c3.",
             _tripen("c3/2 a5/0"), _in_cell("c3")),
        Step("join", "Join your tokens",
             "Tokens of one colour join when their outlines share a side. Place a red token "
             "that joins your token on c3.",
             _tripen("c3/2 a5/0"), _joins),
        Step("finish-the-chain", "Join top and bottom",
             "Red wins by joining the top border to the bottom one. Finish the chain.",
             _tripen("c1/2 a1/2 c2/2 a2/2 c3/2 a3/2 c4/2 a4/2"), _forced_win(1)),
        Step("double-threat", "Two threats",
             "Make a move that threatens to finish in two ways, so that Blue cannot stop both.",
             _tripen("c1/2 a1/2 c2/2 a2/2 c3/2 a3/2"), _forced_win(3)),
    ]


# -- Colorful Connection ---------------------------------------------------------------------

def _colorful(actions: str):
    return lambda: get("colorful").replay({"size": 3}, actions.split())


def _turn_done(before, after, played):
    if after.is_over or after.person_to_move != before.person_to_move:
        return "done", f"Both stones are down: one of each colour. {after.prompt()}."
    return "again", f"{after.prompt()}."


def _best_score(state, side):
    scores = state.board_dict()["scores"][side]
    return scores[0] if scores else 0


def _scores_more(before, after, played):
    side, action = before.mover, after.actions[-1]
    old, new = _best_score(before, side), _best_score(after, side)
    if new > old:
        return "done", (f"{action}: your best group now scores {new}, up from {old} "
                        f"({after.tallies()[side]}).")
    return "wrong", (f"{action}: your best group still scores {old} "
                     f"({after.tallies()[side]}). Try again.")


def _colorful_lesson():
    game = get("colorful")
    return [
        Step("first-stone", "One stone to start",
             "Player 1 owns red and pink stones, and opens with one stone of either colour. "
             "Place it.",
             lambda: game.new(size=3),
             _any_legal(lambda b, a: f"{a.actions[-1]} is down. {a.prompt()}.")),
        Step("two-stones", "Two stones a turn",
             "Every later turn is two stones, one of each of your colours. As Player 2, "
             "place a blue and a green stone.",
             _colorful("R@C3"), _turn_done),
        Step("red-scores", "Red scores the blue it touches",
             "A red group scores the stones of the blue groups it touches, plus one for each "
             "board side it reaches. Place your red stone so that your best group scores more.",
             _colorful("R@C3 B@B2 G@A1 R@E3 P@A3 B@D4 G@E5 P@C1"), _scores_more),
        Step("green-scores", "Green scores the pink it touches",
             "Green groups score the pink groups they touch in the same way. As Player 2, place "
             "your green stone so that your best group scores more.",
             _colorful("P@C3 B@E3 G@C5 R@D4 P@B1 B@A3 G@B3 R@A2 P@E5 B@D2"), _scores_more),
        Step("last-stones", "The last stones",
             "The game ends when the board is full; the best group decides. Four cells are "
             "left: place your stones so that you win.",
             _colorful("P@B1 B@D4 G@C1 P@D3 R@B2 B@A1 G@B4 P@B3 R@C4 B@E5 G@A3 P@A2 R@D5 "
                       "G@C5 B@C2"),
             _forced_win(4)),
    ]


LESSONS = {"copolymer": _copolymer_lesson, "colorful": _colorful_lesson,
           "hadron": _hadron_lesson, "tripen": _tripen_lesson}
