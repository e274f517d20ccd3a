"""Lesson steps (games.lessons): every step can be done and, unless any action does it, failed;
the engine judges and its words say why."""
import pytest

import games
from games.lessons import judge, lesson
from games.solver import brute_force

STEPS = [(name, step) for name in games.names() for step in lesson(name)]
IDS = [f"{name}-{step.key}" for name, step in STEPS]
# Steps whose task is any legal action (or legal actions until the turn ends): only the
# engine can refuse one.
ANY_LEGAL = {"first-tile", "first-claim", "first-token", "first-stone", "two-stones",
             "finish-the-turn"}


def outcomes(step, state, depth=4):
    """Every verdict reachable from `state` by legal actions, following 'again' up to depth."""
    found = {}
    for action in state.legal_actions():
        verdict = judge(step, state, action)
        found.setdefault(verdict.status, []).append((action, verdict))
        if verdict.status == "again" and depth > 1:
            for status, items in outcomes(step, verdict.state, depth - 1).items():
                found.setdefault(status, []).extend(items)
    return found


@pytest.mark.parametrize("name", games.names())
def test_each_game_has_five_to_ten_steps(name):
    steps = lesson(name)
    assert 5 <= len(steps) <= 10
    assert len({s.key for s in steps}) == len(steps)
    assert all(s.title and s.task for s in steps)


@pytest.mark.parametrize("name,step", STEPS, ids=IDS)
def test_step_can_be_done_and_failed(name, step):
    start = step.start()
    assert not start.is_over and start.legal_actions()
    found = outcomes(step, start)
    assert found.get("done"), "no action does the task"
    if step.key not in ANY_LEGAL:
        assert found.get("wrong"), "every action does the task"
    for action, verdict in found.get("wrong", []):
        assert verdict.words.endswith("Try again.")
        assert verdict.state.actions == start.actions      # the step starts over


@pytest.mark.parametrize("name,step", STEPS, ids=IDS)
def test_a_refused_action_is_answered_with_the_engines_reason(name, step):
    start = step.start()
    verdict = judge(step, start, "z99")
    assert verdict.status == "illegal" and verdict.state is start
    with pytest.raises(games.IllegalAction) as refused:
        start.play("z99")
    assert verdict.words == f"Not allowed: {refused.value}."


def _step(name, key):
    return next(s for s in lesson(name) if s.key == key)


def test_hadron_tile_beside_a_lone_red_tile_is_refused_with_its_neighbour_counts():
    step = _step("hadron", "one-and-one")
    verdict = judge(step, step.start(), "a2")
    assert verdict.status == "illegal"
    assert verdict.words == "Not allowed: a2 has 1 red neighbour and no blue neighbours."
    assert judge(step, step.start(), "c2").status == "done"


def test_copolymer_forced_claims_follow_the_rule_sheet():
    # The rule sheet's sequence: O claims B2 (must go on), A2 (must go on), C5 (turn ends).
    step = _step("copolymer", "claim-again")
    verdict = judge(step, step.start(), "B2")
    assert verdict.status == "done"
    assert "O claims again: B2 touched two enemy cells" in verdict.words
    wrong = judge(step, step.start(), "C5")
    assert wrong.status == "wrong" and "turn passed to X" in wrong.words
    finish = _step("copolymer", "finish-the-turn")
    again = judge(finish, finish.start(), "A2")
    assert again.status == "again" and "A2 touched two enemy cells" in again.words
    done = judge(finish, again.state, "C5")
    assert done.status == "done" and "X to claim a cell" in done.words


def test_tripen_pie_rule_and_overlap():
    pie = _step("tripen", "pie-rule")
    assert judge(pie, pie.start(), "swap").status == "done"
    assert judge(pie, pie.start(), "d4/0").status == "wrong"
    half = _step("tripen", "share-a-cell")
    refused = judge(half, half.start(), "c3/1")
    assert refused.status == "illegal" and "overlaps the token already there" in refused.words
    assert judge(half, half.start(), "c3/5").status == "done"


def test_colorful_second_stone_must_be_the_other_colour():
    step = _step("colorful", "two-stones")
    first = judge(step, step.start(), "B@A1")
    assert first.status == "again"
    second = judge(step, first.state, "B@A2")
    assert second.status == "illegal" and "blue already placed this turn" in second.words
    assert judge(step, first.state, "G@A2").status == "done"


@pytest.mark.parametrize("name,key,depth", [
    ("hadron", "last-placement", 1), ("hadron", "look-ahead", 3),
    ("copolymer", "count-three", 3), ("copolymer", "count-five", 5),
    ("tripen", "finish-the-chain", 1), ("tripen", "double-threat", 3),
    ("colorful", "last-stones", 4)])
def test_winning_steps_accept_exactly_the_first_moves_that_win(name, key, depth):
    step = _step(name, key)
    start = step.start()
    winning = set(brute_force(start, depth)) if name != "tripen" or depth == 1 else None
    if winning is None:      # Tripen 5x5 in three: too slow by brute force; the solver is
        from games.solver import winning_moves   # tested against it in test_solver
        winning = set(winning_moves(start, depth))
    assert winning and winning != set(start.legal_actions())
    for action in start.legal_actions():
        verdict = judge(step, start, action)
        assert (verdict.status in ("done", "again")) == (action in winning), action
