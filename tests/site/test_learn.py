"""Lessons and puzzles on the site (site/learn): pages, the engine's judgement through the
form, and bad input refused with nothing stored."""
import pytest
from django.urls import reverse

import games
from games.puzzles import load, position_of
from games.solver import solve

pytestmark = pytest.mark.django_db

# An action that does each Hadron step (the lesson's tests check every step can be done).
HADRON_DONE = ["c3", "c2", "c3", "b5", "e1"]


def step_url(game, number):
    return reverse("learn:step", args=[game, number])


def test_index_links_every_lesson_and_puzzle_set(client):
    page = client.get(reverse("learn:index")).content.decode()
    for name in games.names():
        assert step_url(name, 1) in page
        assert reverse("learn:puzzles", args=[name]) in page


def test_a_visitor_completes_the_hadron_lesson_and_is_offered_the_beginner(client):
    for number, action in enumerate(HADRON_DONE, start=1):
        page = client.get(step_url("hadron", number)).content.decode()
        assert "<svg" in page
        response = client.post(step_url("hadron", number), {"action": action, "moves": ""})
        assert response.status_code == 200
        assert 'verdict-done' in response.content.decode(), (number, action)
    last = response.content.decode()
    assert reverse("bots:computer") in last and "Play the computer" in last
    index = client.get(reverse("learn:index")).content.decode()
    assert "5 steps, 5 done" in index


def test_a_refused_action_answers_with_the_engines_reason_and_keeps_the_position(client):
    response = client.post(step_url("hadron", 2), {"action": "a2", "moves": ""})
    assert response.status_code == 400
    assert "Not allowed: a2 has 1 red neighbour and no blue neighbours." in \
        response.content.decode()
    assert 'verdict-done' not in response.content.decode()


def test_copolymer_forced_claims_go_on_through_the_form(client):
    url = step_url("copolymer", 3)
    again = client.post(url, {"action": "A2", "moves": ""}).content.decode()
    assert "verdict-again" in again and 'value="A2"' in again
    done = client.post(url, {"action": "C5", "moves": "A2"}).content.decode()
    assert "verdict-done" in done and "X to claim a cell" in done


def test_actions_that_are_not_part_of_the_step_are_refused(client):
    # C4 ends O's turn: it was never an 'again' of this step, so a position after it is forged.
    response = client.post(step_url("copolymer", 3), {"action": "C5", "moves": "C4"})
    assert response.status_code == 400
    assert "not a position of this step" in response.content.decode()
    assert client.session.get("lessons_done") is None


@pytest.mark.parametrize("url", ["/learn/chess/1/", "/learn/hadron/0/", "/learn/hadron/99/",
                                 "/puzzles/chess/", "/puzzles/hadron/no-such-puzzle/"])
def test_unknown_lessons_steps_and_puzzles_are_404(client, url):
    assert client.get(url).status_code == 404


def _puzzle(name, depth):
    return next(p for p in load(name) if p["depth"] == depth)


def test_puzzle_set_serves_a_puzzle_of_the_game(client):
    response = client.get(reverse("learn:puzzles", args=["tripen"]))
    assert response.status_code == 302 and "/puzzles/tripen/tripen-" in response["Location"]
    page = client.get(response["Location"]).content.decode()
    assert "to play and win" in page and "<svg" in page


def test_a_puzzle_solved_once_is_not_answered_again(client):
    puzzle = _puzzle("tripen", 1)
    url = reverse("learn:puzzle", args=["tripen", puzzle["id"]])
    state = position_of(puzzle)
    wrong = next(a for a in state.legal_actions() if a not in puzzle["moves"])
    missed = client.post(url, {"action": wrong, "moves": ""}).content.decode()
    assert "verdict-wrong" in missed
    assert client.session.get("puzzles_solved") is None
    solved = client.post(url, {"action": puzzle["moves"][0], "moves": ""}).content.decode()
    assert "verdict-solved" in solved and "top and bottom joined" in solved \
        or "left and right joined" in solved
    assert client.session["puzzles_solved"] == {"tripen": [puzzle["id"]]}
    again = client.post(url, {"action": puzzle["moves"][0], "moves": ""})
    assert again.status_code == 400 and "solved this puzzle already" in again.content.decode()
    assert client.session["puzzles_solved"] == {"tripen": [puzzle["id"]]}


def test_a_malformed_move_gets_the_engines_reason(client):
    puzzle = _puzzle("hadron", 3)
    url = reverse("learn:puzzle", args=["hadron", puzzle["id"]])
    response = client.post(url, {"action": "q77", "moves": ""})
    assert response.status_code == 400
    assert "Not allowed: &#x27;q77&#x27; is not a cell of this board." in \
        response.content.decode()


@pytest.mark.parametrize("name", ["hadron", "copolymer"])
def test_a_multi_move_puzzle_answers_the_defence_until_the_win(client, name):
    # Copolymer's first puzzle of five actions or more has a defence of two forced claims.
    puzzle = next(p for p in load(name) if p["depth"] >= 5)
    url = reverse("learn:puzzle", args=[name, puzzle["id"]])
    state, moves = position_of(puzzle), []
    for _ in range(puzzle["depth"]):
        action = solve(state, puzzle["depth"] - len(moves)).moves[0]
        page = client.post(url, {"action": action, "moves": " ".join(moves)}).content.decode()
        if "verdict-solved" in page:
            break
        assert "verdict-again" in page
        # The page carries the line so far: the move and the site's defence.
        moves = page.split('name="moves" value="')[1].split('"')[0].split()
        state = position_of(puzzle)
        for played in moves:
            state = state.play(played)
    assert "verdict-solved" in page
    assert client.session["puzzles_solved"] == {name: [puzzle["id"]]}


def test_a_forged_line_is_refused(client):
    puzzle = _puzzle("hadron", 3)
    url = reverse("learn:puzzle", args=["hadron", puzzle["id"]])
    state = position_of(puzzle)
    not_winning = next(a for a in state.legal_actions() if a not in puzzle["moves"])
    response = client.post(url, {"action": "a1", "moves": not_winning})
    assert response.status_code == 400 and "not a line of this puzzle" in \
        response.content.decode()


def test_home_page_leads_newcomers_to_the_hadron_lesson(client):
    page = client.get("/").content.decode()
    assert reverse("learn:index") in page and step_url("hadron", 1) in page


@pytest.mark.parametrize("name", games.names())
def test_each_rules_page_links_its_lesson_and_puzzles(client, name):
    page = client.get(reverse("rules:game", args=[name])).content.decode()
    assert step_url(name, 1) in page and reverse("learn:puzzles", args=[name]) in page


def _wrong_move(puzzle):
    state = position_of(puzzle)
    return next(a for a in state.legal_actions() if a not in puzzle["moves"])


def test_a_signed_in_solve_is_a_rated_win_against_the_puzzle(client, django_user_model):
    from learn.models import PuzzleAttempt, PuzzlePlayer, PuzzleRating
    user = django_user_model.objects.create_user("solver1", password="pw-long-enough-1")
    client.force_login(user)
    puzzle = _puzzle("tripen", 1)
    url = reverse("learn:puzzle", args=["tripen", puzzle["id"]])
    client.post(url, {"action": puzzle["moves"][0], "moves": ""})
    attempt = PuzzleAttempt.objects.get(user=user)
    assert attempt.solved and attempt.rating_before == 1500.0 < attempt.rating_after
    assert PuzzlePlayer.objects.get(user=user, game="tripen").rating > 1500.0
    assert PuzzleRating.objects.get(puzzle_id=puzzle["id"]).rating < 1500.0
    # Solved on the account: refused in a new session too, nothing stored.
    client.logout()
    client.force_login(user)
    again = client.post(url, {"action": puzzle["moves"][0], "moves": ""})
    assert again.status_code == 400
    assert PuzzleAttempt.objects.count() == 1 and PuzzleRating.objects.get().attempts == 1


def test_only_the_first_finished_attempt_is_rated(client, django_user_model):
    from learn.models import PuzzleAttempt, PuzzlePlayer
    user = django_user_model.objects.create_user("solver2", password="pw-long-enough-2")
    client.force_login(user)
    puzzle = _puzzle("tripen", 1)
    url = reverse("learn:puzzle", args=["tripen", puzzle["id"]])
    client.post(url, {"action": _wrong_move(puzzle), "moves": ""})
    lost = PuzzlePlayer.objects.get(user=user).rating
    assert lost < 1500.0
    solved = client.post(url, {"action": puzzle["moves"][0], "moves": ""}).content.decode()
    assert "verdict-solved" in solved
    assert PuzzleAttempt.objects.get(user=user).solved is False
    assert PuzzlePlayer.objects.get(user=user).rating == lost


def test_a_visitor_solves_without_a_rating(client):
    from learn.models import PuzzleAttempt, PuzzlePlayer, PuzzleRating
    puzzle = _puzzle("tripen", 1)
    url = reverse("learn:puzzle", args=["tripen", puzzle["id"]])
    page = client.post(url, {"action": puzzle["moves"][0], "moves": ""}).content.decode()
    assert "verdict-solved" in page and "sign in to have a puzzle rating" in page
    assert not (PuzzleAttempt.objects.exists() or PuzzlePlayer.objects.exists()
                or PuzzleRating.objects.exists())


def test_a_signed_in_player_is_served_the_puzzle_nearest_their_rating(client,
                                                                      django_user_model):
    from learn.models import PuzzlePlayer, PuzzleRating
    user = django_user_model.objects.create_user("solver3", password="pw-long-enough-3")
    PuzzlePlayer.objects.create(user=user, game="hadron", rating=1900.0)
    far, near = load("hadron")[0]["id"], load("hadron")[7]["id"]
    PuzzleRating.objects.create(puzzle_id=far, game="hadron", rating=1700.0)
    PuzzleRating.objects.create(puzzle_id=near, game="hadron", rating=1880.0)
    client.force_login(user)
    response = client.get(reverse("learn:puzzles", args=["hadron"]))
    assert response["Location"] == reverse("learn:puzzle", args=["hadron", near])


def test_the_home_page_shows_the_days_puzzle_the_same_all_day(client):
    import datetime
    from learn.services import daily
    today = daily(datetime.date(2026, 11, 26))
    assert today == daily(datetime.date(2026, 11, 26))
    days = [daily(datetime.date(2026, 11, 26) + datetime.timedelta(days=k)) for k in range(8)]
    assert {p["game"] for p in days} == set(games.names())
    assert len({p["id"] for p in days}) == 8
    from django.utils import timezone
    shown = daily(timezone.localdate())
    page = client.get("/").content.decode()
    assert reverse("learn:puzzle", args=[shown["game"], shown["id"]]) in page


def test_lesson_progress_is_kept_on_the_account_across_sessions(client, django_user_model):
    from learn.models import LessonStepDone
    user = django_user_model.objects.create_user("learner1", password="pw-long-enough-4")
    client.force_login(user)
    client.post(step_url("hadron", 1), {"action": "c3", "moves": ""})
    client.post(step_url("hadron", 2), {"action": "a1", "moves": ""})      # wrong: not kept
    assert list(LessonStepDone.objects.values_list("game", "step")) == [("hadron", "first-tile")]
    client.logout()
    assert "5 steps, 1 done" not in client.get(reverse("learn:index")).content.decode()
    client.force_login(user)
    assert "5 steps, 1 done" in client.get(reverse("learn:index")).content.decode()


# -- picks judged without a page load (static/js/board-form.js): the same views, in JSON --------

def pick(client, url, action, moves=""):
    return client.post(url, {"action": action, "moves": moves}, HTTP_ACCEPT="application/json")


def test_a_pick_in_a_lesson_is_judged_in_json_by_the_same_view(client):
    url = step_url("hadron", 2)
    refused = pick(client, url, "a2")
    assert refused.status_code == 400
    assert refused.json()["status"] == "illegal"
    assert refused.json()["words"] == "Not allowed: a2 has 1 red neighbour and no blue neighbours."
    assert refused.json()["playing"] and refused.json()["after"] is None
    done = pick(client, url, HADRON_DONE[1])
    assert done.status_code == 200 and done.json()["status"] == "done"
    assert not done.json()["playing"] and done.json()["position"]["actions"][-1] == "c2"
    assert step_url("hadron", 3) in done.json()["after"]      # "Next step", as the page has
    assert client.session["lessons_done"] == {"hadron": [2]}
    last = pick(client, step_url("hadron", 5), HADRON_DONE[4]).json()
    assert "computer-form" in last["after"]                   # the hand-over to the Beginner


def test_a_puzzle_solved_by_picks_in_json_is_recorded_and_not_answered_again(client):
    puzzle = _puzzle("hadron", 3)
    url = reverse("learn:puzzle", args=["hadron", puzzle["id"]])
    state, moves = position_of(puzzle), ""
    while True:
        answer = pick(client, url, solve(state, puzzle["depth"] - (state.ply - puzzle["ply"]))
                      .moves[0], moves).json()
        if answer["status"] == "solved":
            break
        assert answer["status"] == "again" and answer["playing"]
        moves = answer["moves"]
        state = position_of(puzzle)
        for action in moves.split():
            state = state.play(action)
    assert "Every winning first move" in answer["after"] and not answer["playing"]
    assert client.session["puzzles_solved"] == {"hadron": [puzzle["id"]]}
    again = pick(client, url, puzzle["moves"][0])
    assert again.status_code == 400 and "solved this puzzle already" in again.json()["message"]
    forged = pick(client, reverse("learn:puzzle", args=["hadron", _puzzle("hadron", 1)["id"]]),
                  "a1", "b2 c3 d4")
    assert forged.status_code == 400 and forged.json()["error"] == "bad_request"
