"""Asking for a finished game's computer analysis and for hints, through Django's test client:
who may ask, what is stored and shown, the rate limits, and refusals that change nothing.

The jobs a request queues run after its commit in a worker; here the test runs them itself
(analysis.jobs, for real, on small games), where a worker would.
"""
import json
from contextlib import contextmanager
from datetime import timedelta

import pytest
from django.utils import timezone

import games
from analysis import estimates, jobs, services
from jobs import runner as job_runner
from analysis.models import Analysis, BoardHint, Estimate, Hint, Job
from play import services as play_services
from play.models import Game
from tests.blundered import blundered_game
from tests.site.analysed import run_analysis
from tests.site.played import finished, play_out, start

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fresh_cache")]


@pytest.fixture
def hadron(alice, bob):
    return finished("hadron", (alice, bob), {"size": 5}, seed=11)


@pytest.fixture
def queued(django_capture_on_commit_callbacks):
    """`with queued() as jobs:` collects the jobs the block queues (left to run after its
    commit, as submit does), without running them."""
    @contextmanager
    def capture():
        found = []
        with django_capture_on_commit_callbacks(execute=False) as callbacks:
            yield found
        found.extend(callback for callback in callbacks
                     if callback.__module__ == services.submit.__module__)
    return capture


def ask(client, game, **fields):
    return client.post(f"/game/{game.pk}/analysis.json", fields,
                       HTTP_ACCEPT="application/json")


def ask_hint(client, game, ply, moves=""):
    return client.post(f"/game/{game.pk}/hint.json", {"ply": ply, "moves": moves},
                       HTTP_ACCEPT="application/json")


def embedded(response):
    """The analysis the game page embeds for its script."""
    text = response.content.decode()
    start_tag = '<script id="analysis-data" type="application/json">'
    begin = text.index(start_tag) + len(start_tag)
    return json.loads(text[begin:text.index("</script>", begin)])


# -- the analysis ------------------------------------------------------------------------------

def test_a_visitor_sees_none_and_must_sign_in(client, hadron):
    answer = client.get(f"/game/{hadron.pk}/analysis.json").json()
    assert answer["status"] == "none" and answer["positions"] == [] and answer["marks"] == []
    assert answer["plies"] == hadron.ply_count
    response = ask(client, hadron)
    assert response.status_code == 403
    assert response.json()["error"] == "login_required"
    assert not Analysis.objects.exists()
    page = client.get(f"/game/{hadron.pk}/")
    assert embedded(page)["signed_in"] is False and embedded(page)["status"] == "none"


def test_request_queues_one_job_and_a_second_request_none(client, alice, carol, hadron,
                                                           queued):
    client.force_login(alice)
    with queued() as callbacks:
        response = ask(client, hadron)
    assert response.status_code == 202
    assert response.json()["status"] == "queued"
    assert len(callbacks) == 1
    # Asked again, by the same person or another: the same analysis, no second job.
    for user in (alice, carol):
        client.force_login(user)
        with queued() as callbacks:
            again = ask(client, hadron)
        assert again.status_code == 200 and again.json()["status"] == "queued"
        assert callbacks == []
    assert Analysis.objects.filter(game=hadron).count() == 1


def test_the_job_stores_every_ply_and_everyone_sees_it(client, alice, hadron):
    client.force_login(alice)
    ask(client, hadron)
    analysis = Analysis.objects.get(game=hadron)
    run_analysis(analysis.pk)
    client.logout()
    answer = client.get(f"/game/{hadron.pk}/analysis.json").json()
    assert answer["status"] == "done"
    assert [p["ply"] for p in answer["positions"]] == list(range(hadron.ply_count + 1))
    for point in answer["positions"]:
        assert 0 <= point["chances"][0] <= 1 and abs(sum(point["chances"]) - 1) < 1e-3
    # Played out to the end: the final position scores the result.
    assert answer["positions"][-1]["chances"][hadron.winner] == 1.0
    assert answer["playouts"] == estimates.BUDGETS["hadron"].playouts
    # The marks are those of the stored chances, by the documented thresholds.
    for mark in answer["marks"]:
        before, after = (answer["positions"][mark["ply"] - 1]["chances"][mark["player"]],
                         answer["positions"][mark["ply"]]["chances"][mark["player"]])
        assert mark["drop"] == pytest.approx(before - after, abs=1e-3)
        assert mark["symbol"] == ("??" if mark["drop"] >= estimates.BLUNDER else "?")
        assert mark["action"] == hadron.action_list()[mark["ply"] - 1]
    # The replay page embeds it for anyone, without asking again.
    page = embedded(client.get(f"/game/{hadron.pk}/"))
    assert page["status"] == "done" and page["positions"] == answer["positions"]
    assert page["marks"] == answer["marks"]
    # A finished analysis is never recomputed: asking again changes nothing.
    client.force_login(alice)
    assert ask(client, hadron).status_code == 200
    assert Estimate.objects.filter(analysis=analysis).count() == hadron.ply_count + 1


def test_progress_is_visible_while_the_job_runs(client, alice, hadron):
    client.force_login(alice)
    ask(client, hadron)
    analysis = Analysis.objects.get(game=hadron)
    seen = []
    steps = estimates.analyse(hadron.engine, hadron.options, hadron.action_list(),
                              estimates.BUDGETS["hadron"], seed=hadron.pk)
    # The job's own loop, watched from outside after each stored ply: what a page polling
    # analysis.json sees meanwhile.
    Analysis.objects.filter(pk=analysis.pk).update(status=Job.RUNNING)
    for point in steps:
        Estimate.objects.create(analysis=analysis, ply=point.ply, chance0=point.chances[0],
                                mover=point.mover, forced=point.forced)
        answer = client.get(f"/game/{hadron.pk}/analysis.json").json()
        seen.append((answer["status"], len(answer["positions"])))
        if point.ply == 2:
            break
    assert seen == [("running", 1), ("running", 2), ("running", 3)]
    # The job takes over from there (a worker that stopped) and finishes.
    run_analysis(analysis.pk)
    answer = client.get(f"/game/{hadron.pk}/analysis.json").json()
    assert answer["status"] == "done"
    assert len(answer["positions"]) == hadron.ply_count + 1


def test_an_analysis_runs_in_slices_each_a_job(client, alice, hadron, settings,
                                              django_capture_on_commit_callbacks):
    """Each slice queues the next (its `then`), so between two slices a worker may take other
    jobs. With slices of no time at all, each is one position: as many jobs as positions, in
    ply order, each starting where the one before stopped."""
    settings.ANALYSIS_SLICE = 0
    client.force_login(alice)
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        assert ask(client, hadron).status_code == 202
    slices = [callback for callback in callbacks if callback.__module__ == "jobs.runner"]
    assert len(slices) == hadron.ply_count + 1
    answer = client.get(f"/game/{hadron.pk}/analysis.json").json()
    assert answer["status"] == "done"
    assert [p["ply"] for p in answer["positions"]] == list(range(hadron.ply_count + 1))
    assert Analysis.objects.get(game=hadron).slice_from == hadron.ply_count


def test_a_failed_job_may_be_asked_for_again(client, alice, bob, hadron, queued):
    client.force_login(alice)
    ask(client, hadron)
    analysis = Analysis.objects.get(game=hadron)
    Analysis.objects.filter(pk=analysis.pk).update(status=Job.FAILED, error="no worker")
    assert client.get(f"/game/{hadron.pk}/analysis.json").json()["error"] == "no worker"
    client.force_login(bob)
    with queued() as callbacks:
        response = ask(client, hadron)
    assert response.status_code == 202 and response.json()["status"] == "queued"
    assert response.json()["error"] == ""
    assert len(callbacks) == 1
    analysis.refresh_from_db()
    assert analysis.requested_by == bob


def test_a_job_lost_with_its_worker_is_taken_up_by_the_sweep(client, alice, hadron, queued,
                                                             django_capture_on_commit_callbacks):
    """Nobody asks again: the workers' sweep (jobs.runner.sweep, eager in these tests: it runs
    the job in line) queues what is still pending, and the job goes on where it stopped."""
    client.force_login(alice)
    ask(client, hadron)
    analysis = Analysis.objects.get(game=hadron)
    Analysis.objects.filter(pk=analysis.pk).update(status=Job.RUNNING)
    Estimate.objects.create(analysis=analysis, ply=0, chance0=0.123)
    with queued() as callbacks:
        assert ask(client, hadron).status_code == 200   # running: nothing new
    assert callbacks == []
    with django_capture_on_commit_callbacks(execute=True):   # and the slices after it
        job_runner.sweep()
    answer = client.get(f"/game/{hadron.pk}/analysis.json").json()
    assert answer["status"] == "done"
    assert len(answer["positions"]) == hadron.ply_count + 1
    assert answer["positions"][0]["chances"][0] == 0.123   # kept, not recomputed


def test_refusals_change_nothing(client, alice, bob, queued):
    client.force_login(alice)
    missing = client.post("/game/999999/analysis.json", HTTP_ACCEPT="application/json")
    assert missing.status_code == 404 and missing.json()["error"] == "not_found"
    live = play_out(start(alice, bob, "copolymer", {"size": 4}), seed=3, stop_at=4)
    aborted = start(alice, bob, "hadron", {"size": 5})
    play_services.abort(aborted.pk, alice, 0)
    with queued() as callbacks:
        response = ask(client, live)
    assert response.status_code == 400 and response.json()["error"] == "not_finished"
    with queued() as more:
        response = ask(client, aborted)
    assert response.status_code == 400 and response.json()["error"] == "not_finished"
    assert "aborted" in response.json()["message"]
    assert callbacks == [] and more == [] and not Analysis.objects.exists()
    assert client.get(f"/game/{live.pk}/analysis.json").json()["status"] == "none"
    assert client.get("/game/999999/analysis.json").status_code == 404
    assert client.put(f"/game/{live.pk}/analysis.json").status_code == 405


def test_rate_limit_per_person(client, alice, bob, carol):
    played = [finished("hadron", (alice, bob), {"size": 5}, seed=seed) for seed in range(7)]
    client.force_login(carol)
    limit = services.ANALYSES[0]
    for game in played[:limit]:
        assert ask(client, game).status_code == 202
    # Asking again for one already queued costs nothing and is not refused.
    assert ask(client, played[0]).status_code == 200
    refused = ask(client, played[limit])
    assert refused.status_code == 429
    body = refused.json()
    assert body["error"] == "rate_limited" and body["retry_after"] > 0
    assert int(refused["Retry-After"]) == body["retry_after"]
    assert "5 analyses per hour" in body["message"]
    assert not Analysis.objects.filter(game=played[limit]).exists()
    # Someone else is not held back by carol's requests.
    client.force_login(alice)
    assert ask(client, played[limit]).status_code == 202
    # An hour later carol may ask again.
    Analysis.objects.filter(requested_by=carol).update(
        created_at=timezone.now() - services.ANALYSES[1] - timedelta(seconds=1))
    client.force_login(carol)
    assert ask(client, played[limit + 1]).status_code == 202


# -- hints -------------------------------------------------------------------------------------

def test_hint_in_explore_mode(client, alice, carol, hadron, queued):
    ply = hadron.ply_count // 2
    state = hadron.engine.replay(hadron.options, hadron.action_list()[:ply])
    line = [state.legal_actions()[0]]
    moves = ",".join(line)
    query = {"ply": ply, "moves": moves}
    assert client.get(f"/game/{hadron.pk}/hint.json", query).json()["status"] == "none"
    assert ask_hint(client, hadron, ply, moves).status_code == 403
    client.force_login(alice)
    with queued() as callbacks:
        response = ask_hint(client, hadron, ply, moves)
    assert response.status_code == 202 and len(callbacks) == 1
    assert response.json() == {"status": "queued", "ply": ply, "moves": line, "action": None,
                               "error": ""}
    hint = Hint.objects.get(game=hadron)
    jobs.hint({"hint": hint.pk})
    answer = client.get(f"/game/{hadron.pk}/hint.json", query).json()
    assert answer["status"] == "done"
    assert answer["action"] in state.play(line[0]).legal_actions()
    # Asked again (by anyone): answered at once, nothing queued.
    client.force_login(carol)
    with queued() as callbacks:
        again = ask_hint(client, hadron, ply, moves)
    assert again.status_code == 200 and again.json()["action"] == answer["action"]
    assert callbacks == [] and Hint.objects.count() == 1
    # The same position written otherwise (upper case, blanks) is the same hint.
    shouted = f" {moves.upper()} "
    assert client.get(f"/game/{hadron.pk}/hint.json",
                      {"ply": ply, "moves": shouted}).json()["action"] == answer["action"]
    assert ask_hint(client, hadron, ply, shouted).json()["moves"] == line
    assert Hint.objects.count() == 1


def test_hint_refusals_change_nothing(client, alice, bob, hadron, queued):
    client.force_login(alice)
    ply = 2
    state = hadron.engine.replay(hadron.options, hadron.action_list()[:ply])
    taken = hadron.action_list()[0]
    with queued() as callbacks:
        illegal = ask_hint(client, hadron, ply, taken)
        over = ask_hint(client, hadron, hadron.ply_count)
        beyond = ask_hint(client, hadron, hadron.ply_count + 1)
        garbled = ask_hint(client, hadron, "two")
    live = play_out(start(alice, bob, "hadron", {"size": 5}), seed=5, stop_at=3)
    with queued() as more:
        not_finished = ask_hint(client, live, 1)
    assert illegal.status_code == 400 and illegal.json()["error"] == "illegal"
    assert illegal.json()["action"] == taken and illegal.json()["index"] == 0
    assert over.status_code == 400 and over.json()["error"] == "position_over"
    assert beyond.status_code == 400 and beyond.json()["error"] == "bad_request"
    assert garbled.status_code == 400 and garbled.json()["error"] == "bad_request"
    assert not_finished.status_code == 400 and not_finished.json()["error"] == "not_finished"
    assert callbacks == [] and more == [] and not Hint.objects.exists()
    # Reading a hint of a position that cannot be reached says why, too.
    read = client.get(f"/game/{hadron.pk}/hint.json", {"ply": ply, "moves": taken})
    assert read.status_code == 400 and read.json()["error"] == "illegal"
    assert state.legal_actions()  # the position at `ply` itself may be hinted
    assert ask_hint(client, hadron, ply).status_code == 202


def line_from(state, count):
    """`count` legal actions from `state` (the first legal one each time)."""
    line = []
    for _ in range(count):
        action = state.legal_actions()[0]
        line.append(action)
        state = state.play(action)
    return line


def test_a_hint_is_for_the_games_own_line_and_a_few_actions_beyond(client, alice, hadron):
    client.force_login(alice)
    start_state = hadron.engine.replay(hadron.options, [])
    far = ",".join(line_from(start_state, services.HINT_EXPLORED_ACTIONS + 1))
    near = ",".join(line_from(start_state, services.HINT_EXPLORED_ACTIONS))
    refused = ask_hint(client, hadron, 0, far)
    assert refused.status_code == 400 and refused.json()["error"] == "too_far"
    assert not Hint.objects.exists()
    assert ask_hint(client, hadron, 0, near).status_code == 202


def test_no_hint_for_the_position_of_a_game_the_asker_is_playing(client, alice, carol, hadron):
    """Exploring from ply 0 of any finished game with the moves of one's live game asked the
    engine about the live position: refused, for the players of that game only."""
    live = play_out(start(alice, carol, "hadron", {"size": 5}), seed=7, stop_at=2)
    moves = ",".join(live.action_list())
    client.force_login(alice)
    refused = ask_hint(client, hadron, 0, moves)
    assert refused.status_code == 400 and refused.json()["error"] == "in_play"
    client.force_login(carol)
    assert ask_hint(client, hadron, 0, moves).json()["error"] == "in_play"
    assert not Hint.objects.exists()
    # Someone not playing that game may ask.
    client.force_login(hadron.player1)
    assert ask_hint(client, hadron, 0, moves).status_code == 202


def test_hint_rate_limit(client, alice, hadron):
    client.force_login(alice)
    limit = services.HINTS[0]
    for ply in range(limit):
        assert ask_hint(client, hadron, ply).status_code == 202
    refused = ask_hint(client, hadron, limit)
    assert refused.status_code == 429 and refused.json()["error"] == "rate_limited"
    assert "6 hints per minute" in refused.json()["message"]
    assert Hint.objects.count() == limit
    # The same position again is no new hint: not refused.
    assert ask_hint(client, hadron, 0).status_code == 200


# -- marks -------------------------------------------------------------------------------------

def point(ply, chance0, mover, forced=False):
    return estimates.Point(ply, (chance0, 1 - chance0), mover, forced)


def test_marks_follow_the_thresholds():
    points = [point(0, 0.5, None), point(1, 0.45, 0), point(2, 0.62, 1),  # 17 points: "?"
              point(3, 0.25, 0),                                           # 37 points: "??"
              point(4, 0.9, 1, forced=True),                               # forced: never
              point(5, 0.8, 0)]                                            # 10 points: none
    marks = estimates.marks(points, ["a1", "b2", "c3", "d4", "e5"])
    assert [(m.ply, m.player, m.action, m.symbol) for m in marks] == [
        (2, 1, "b2", "?"), (3, 0, "c3", "??")]
    assert marks[0].drop == pytest.approx(0.17)
    # A gap (a ply not computed yet) marks nothing across it.
    assert estimates.marks([points[0], points[2]], ["a1", "b2"]) == []


def stored_game(first, second, name, options, actions):
    """A game between `first` and `second` played by `actions` through play's services."""
    game = start(first, second, name, options)
    for ply, action in enumerate(actions):
        mover = game.players()[game.player_of(game.state().to_move)]
        play_services.play(game.pk, mover, ply, action)
        game = play_services.load(game.pk)
    return game


def test_a_thrown_away_win_is_marked_a_blunder(client, alice, bob):
    actions, ply = blundered_game("hadron", {"size": 5})
    game = stored_game(alice, bob, "hadron", {"size": 5}, actions)
    assert game.status == "finished" and game.ply_count == ply + 1
    client.force_login(alice)
    ask(client, game)
    run_analysis(Analysis.objects.get(game=game).pk)
    answer = client.get(f"/game/{game.pk}/analysis.json").json()
    mover = game.engine.replay(game.options, actions[:ply - 1]).person_to_move
    assert {"ply": ply, "player": mover, "action": actions[ply - 1], "drop": 1.0,
            "symbol": "??"} in answer["marks"]
    assert answer["positions"][ply - 1]["chances"][mover] == 1.0
    assert answer["positions"][ply]["chances"][mover] == 0.0


# -- hints on the analysis board: no game behind the position ------------------------------------

def ask_board_hint(client, game, **fields):
    return client.post(f"/analysis-board/{game}/hint.json", fields, HTTP_ACCEPT="application/json")


def test_a_hint_for_a_set_up_position_needs_no_game(client, alice, carol, queued):
    fields = {"size": "5", "setup": "c3/0:0,B2/3:1", "turn": "0", "moves": "A1/0"}
    url = "/analysis-board/tripen/hint.json"
    assert client.get(url, fields).json()["status"] == "none"
    assert ask_board_hint(client, "tripen", **fields).status_code == 403
    client.force_login(alice)
    with queued() as callbacks:
        response = ask_board_hint(client, "tripen", **fields)
    assert response.status_code == 202 and len(callbacks) == 1
    assert response.json()["setup"] == {"setup": "b2/3:1,c3/0:0", "turn": "0"}
    assert response.json()["moves"] == ["a1/0"] and response.json()["action"] is None
    assert not Game.objects.exists()
    hint = BoardHint.objects.get()
    jobs.board_hint({"board_hint": hint.pk})
    done = client.get(url, fields).json()
    assert done["status"] == "done"
    state = games.get("tripen").replay({"size": 5}, ["c3/0", "b2/3", "a1/0"])
    assert done["action"] in state.legal_actions()
    # Asked again, by anyone, the same position written otherwise: answered at once.
    client.force_login(carol)
    with queued() as callbacks:
        again = ask_board_hint(client, "tripen", **{**fields, "setup": "B2/3:1,c3/0:0"})
    assert again.status_code == 200 and again.json()["action"] == done["action"]
    assert callbacks == [] and BoardHint.objects.count() == 1


def test_board_hint_refusals_change_nothing(client, alice, bob, queued):
    client.force_login(alice)
    live = play_out(start(alice, bob, "hadron", {"size": 5}), seed=7, stop_at=2)
    with queued() as callbacks:
        overlap = ask_board_hint(client, "tripen", size="5", setup="c3/0:0,c3/1:1", turn="0")
        counts = ask_board_hint(client, "hadron", setup="c3:0", turn="0")
        illegal = ask_board_hint(client, "hadron", moves="c3,c3")
        unknown = ask_board_hint(client, "chess")
        in_play = ask_board_hint(client, "hadron", size="5", moves=",".join(live.action_list()))
    assert overlap.status_code == 400 and overlap.json()["error"] == "illegal"
    assert "overlaps the token already there" in overlap.json()["message"]
    assert counts.status_code == 400 and "Red has 1 and Blue 0" in counts.json()["message"]
    assert illegal.json()["error"] == "illegal" and illegal.json()["index"] == 1
    assert unknown.status_code == 404
    assert in_play.status_code == 400 and in_play.json()["error"] == "in_play"
    assert callbacks == [] and not BoardHint.objects.exists()


def test_board_hints_and_game_hints_share_one_rate_limit(client, alice, hadron):
    client.force_login(alice)
    count, _ = services.HINTS
    ask_hint(client, hadron, 1)
    state = games.get("hadron").new(size=5)
    for action in state.legal_actions()[:count - 1]:
        assert ask_board_hint(client, "hadron", size="5", moves=action).status_code == 202
    refused = ask_board_hint(client, "hadron", size="5", moves="e5")
    assert refused.status_code == 429 and refused.json()["error"] == "rate_limited"
    assert ask_hint(client, hadron, 2).status_code == 429
