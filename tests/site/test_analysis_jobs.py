"""The analysis and hint jobs run for real (the engine's search, the database), on small games
of each of the four games, as a worker runs them: what they store, ply by ply, and that a job
taken over half-way finishes the same analysis."""
import random

import pytest

import games
from analysis import estimates, jobs
from analysis.models import Analysis, Estimate, Hint, Job, hint_key
from tests.site.analysed import run_analysis
from tests.site.played import finished

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fresh_cache")]

SMALL = [("colorful", {"size": 3}), ("copolymer", {"size": 4}), ("hadron", {"size": 5}),
         ("tripen", {"size": 5})]


def analysed(game, user):
    analysis = Analysis.objects.create(game=game, requested_by=user,
                                       playouts=estimates.BUDGETS[game.game].playouts)
    run_analysis(analysis.pk)
    analysis.refresh_from_db()
    return analysis


def chances(analysis):
    return list(analysis.estimates.values_list("ply", "chance0", "mover", "forced"))


def swap_seed():
    """A seed for which tests.site.played's random play swaps in Tripen (pie rule)."""
    for seed in range(200):
        rng, state = random.Random(seed), games.get("tripen").new(size=5)
        state = state.play(rng.choice(state.legal_actions()))
        if rng.choice(state.legal_actions()) == "swap":
            return seed
    raise AssertionError("no seed swaps")


@pytest.mark.parametrize("name, options", SMALL, ids=[name for name, _ in SMALL])
def test_analysis_of_a_played_out_game(alice, bob, name, options):
    game = finished(name, (alice, bob), options, seed=4)
    analysis = analysed(game, alice)
    assert analysis.status == Job.DONE and analysis.error == ""
    rows = chances(analysis)
    assert [ply for ply, *_ in rows] == list(range(game.ply_count + 1))
    assert all(0.0 <= chance0 <= 1.0 for _, chance0, *_ in rows)
    # The mover of each action, as the engine says who was to move (players, not sides).
    state = game.engine.new(**game.options)
    for (ply, _, mover, forced), action in zip(rows[1:], game.action_list()):
        assert mover == state.person_to_move
        assert forced == (len(state.legal_actions()) == 1)
        state = state.play(action)
    assert rows[0][2] is None
    # The final position scores the result.
    final = rows[-1][1]
    assert final == (0.5 if game.winner is None else 1.0 - game.winner)


def test_the_seats_stay_with_the_players_after_tripens_swap(alice, bob):
    game = finished("tripen", (alice, bob), {"size": 5}, seed=swap_seed())
    assert game.swapped and game.action_list()[1] == "swap"
    rows = chances(analysed(game, alice))
    # The swap was played by players[1]; the winner (a player index) ends with chance 1.
    assert rows[2][2] == 1
    assert rows[-1][1] == 1.0 - game.winner


def test_a_resigned_game_ends_on_an_estimate(alice, bob):
    game = finished("copolymer", (alice, bob), {"size": 4}, seed=2, resign_at=6)
    rows = chances(analysed(game, bob))
    assert len(rows) == 7 and 0.0 < rows[-1][1] < 1.0


def test_a_job_taken_over_half_way_finishes_the_same_analysis(alice, bob):
    game = finished("hadron", (alice, bob), {"size": 5}, seed=8)
    whole = chances(analysed(game, alice))
    analysis = Analysis.objects.get(game=game)
    half = game.ply_count // 2
    Estimate.objects.filter(analysis=analysis, ply__gt=half).delete()
    Analysis.objects.filter(pk=analysis.pk).update(status=Job.RUNNING)
    run_analysis(analysis.pk)
    analysis.refresh_from_db()
    # Seeded per ply: the same estimates, unless a time cap cut a search short.
    again = chances(analysis)
    assert analysis.status == Job.DONE
    assert [row[0] for row in again] == [row[0] for row in whole]
    assert again[: half + 1] == whole[: half + 1]


def test_a_job_for_a_game_gone_or_done_does_nothing(alice, bob):
    run_analysis(987654)
    jobs.hint({"hint": 987654})
    game = finished("hadron", (alice, bob), {"size": 5}, seed=3)
    analysis = analysed(game, alice)
    Estimate.objects.filter(analysis=analysis).update(chance0=0.25)
    run_analysis(analysis.pk)       # delivered twice: nothing recomputed
    assert set(analysis.estimates.values_list("chance0", flat=True)) == {0.25}


@pytest.mark.parametrize("name, options", SMALL, ids=[name for name, _ in SMALL])
def test_hint_of_an_explored_position(alice, bob, name, options):
    game = finished(name, (alice, bob), options, seed=6, resign_at=4)
    state = game.engine.replay(game.options, game.action_list()[:3])
    line = [random.Random(1).choice(state.legal_actions())]
    explored = state.play(line[0])
    hint = Hint.objects.create(game=game, requested_by=alice, ply=3, moves=",".join(line),
                               key=hint_key(3, line))
    jobs.hint({"hint": hint.pk})
    hint.refresh_from_db()
    assert hint.status == Job.DONE
    assert hint.action in explored.legal_actions()

