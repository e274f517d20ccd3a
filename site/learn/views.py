"""Lessons and puzzles, served as pages with a form (the engine judges every action)."""
import random

from django.http import Http404, JsonResponse
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.urls import reverse

import games
from boards.playable import playable
from bots.forms import ComputerForm
from learn import rated, services
from learn.forms import ActionForm
from learn.models import LessonStepDone
from learn.services import BadInput


def _wants_json(request):
    """A pick sent by the board's script (static/js/board-form.js): the same judgement,
    answered in JSON so the page changes in place; the form posts a page without it."""
    return request.method == "POST" and "application/json" in request.headers.get("Accept", "")


def _judged(request, context, after, status):
    """The JSON answer to a pick: the verdict, the position now, the actions kept in the form
    and, once the step is done or the puzzle solved, what the page shows next."""
    verdict = context.get("verdict") or context.get("result")
    board = context["board"]
    words = verdict.words if verdict else " ".join(
        error for errors in context["form"].errors.values() for error in errors)
    return JsonResponse({
        "status": verdict.status if verdict else "illegal", "words": words,
        "position": board["position"], "playing": board["playing"],
        "moves": context["form"]["moves"].value() or "",
        "after": None if board["playing"] else render_to_string(after, context, request),
    }, status=status)


def _done(request, key, game):
    """What this browser has done (the session: visitors too), per game."""
    return set(request.session.get(key, {}).get(game, []))


def _steps_done(request, game, steps) -> set[int]:
    """The step numbers done in this session or, signed in, ever on the account."""
    done = _done(request, "lessons_done", game)
    if request.user.is_authenticated:
        keys = set(LessonStepDone.objects.filter(user=request.user, game=game)
                   .values_list("step", flat=True))
        done |= {n for n, step in enumerate(steps, start=1) if step.key in keys}
    return done


def _note(request, key, game, item):
    done = request.session.get(key, {})
    if item not in done.get(game, []):
        done[game] = done.get(game, []) + [item]
        request.session[key] = done


def index(request):
    rows = []
    for name in games.names():
        steps = services.lesson(name)
        rows.append({"game": games.get(name), "steps": len(steps),
                     "done": len(_steps_done(request, name, steps)),
                     "puzzles": len(services.puzzle_ids(name)),
                     "solved": len(_done(request, "puzzles_solved", name))})
    return render(request, "learn/index.html", {"rows": rows})


def step(request, game, number):
    try:
        steps = services.lesson(game)
    except BadInput as error:
        raise Http404(str(error))
    if not 1 <= number <= len(steps):
        raise Http404(f"the lesson has steps 1 to {len(steps)}")
    current = steps[number - 1]
    state, moves, verdict, status = current.start(), [], None, 200
    form = ActionForm()
    if request.method == "POST":
        form = ActionForm(request.POST)
        if not form.is_valid():
            status = 400
        else:
            try:
                state = services.step_position(current, form.cleaned_data["moves"])
            except BadInput as error:
                return _refused(request, str(error))
            moves = form.cleaned_data["moves"]
            verdict = services.lessons.judge(current, state, form.cleaned_data["action"])
            state = verdict.state
            moves = moves + [state.actions[-1]] if verdict.status == "again" else []
            if verdict.status == "illegal":
                moves, status = form.cleaned_data["moves"], 400
            if verdict.status == "done":
                _note(request, "lessons_done", game, number)
                if request.user.is_authenticated:
                    LessonStepDone.objects.get_or_create(user=request.user, game=game,
                                                         step=current.key)
            form = ActionForm(initial={"moves": " ".join(moves)})
    context = {"game": games.get(game), "step": current, "number": number,
               "count": len(steps),
               "board": playable(state, current.title, verdict is None or verdict.status != "done"),
               "prompt": state.prompt(), "verdict": verdict, "form": form,
               "next": number + 1 if number < len(steps) else None}
    if number == len(steps):
        # The last step hands over to a game against the Beginner, through the same form.
        context["computer_form"] = ComputerForm(
            initial={"game": game, "level": services.lessons.LEVEL_AFTER})
    if _wants_json(request):
        return _judged(request, context, "learn/_step_done.html", status)
    return render(request, "learn/step.html", context, status=status)


def _refused(request, message):
    if _wants_json(request):
        return JsonResponse({"error": "bad_request", "message": message}, status=400)
    return render(request, "learn/refused.html", {"message": message}, status=400)


def next_puzzle(request, game):
    """The first puzzle of the game this browser has not solved, in an order of its own."""
    if game not in games.names():
        raise Http404(f"there is no game {game!r}")
    ids = services.puzzle_ids(game)
    solved = _done(request, "puzzles_solved", game)
    if request.user.is_authenticated:
        left = [i for i in rated.nearest(request.user, game, ids) if i not in solved]
    else:
        order = ids[:]
        random.Random(request.session.session_key or "visitor").shuffle(order)
        left = [i for i in order if i not in solved]
    return redirect(reverse("learn:puzzle", args=[game, (left or ids)[0]]))


def puzzle(request, game, puzzle_id):
    try:
        chosen = services.find_puzzle(game, puzzle_id)
    except BadInput as error:
        raise Http404(str(error))
    user = request.user if request.user.is_authenticated else None
    solved = puzzle_id in _done(request, "puzzles_solved", game) or (
        user is not None and puzzle_id in rated.solved_by(user, game))
    trial, result, status = services.attempt(chosen, []), None, 200
    form = ActionForm()
    if request.method == "POST":
        if solved:
            return _refused(request, "you have solved this puzzle already; nothing was changed")
        form = ActionForm(request.POST)
        if not form.is_valid():
            status = 400
        else:
            try:
                trial = services.attempt(chosen, form.cleaned_data["moves"])
            except BadInput as error:
                return _refused(request, str(error))
            result = services.answer(trial, form.cleaned_data["action"])
            trial = result.attempt if result.status in ("again", "solved") else \
                services.attempt(chosen, [])
            if result.status == "illegal":
                trial, status = services.attempt(chosen, form.cleaned_data["moves"]), 400
            if result.status == "solved":
                _note(request, "puzzles_solved", game, puzzle_id)
                solved = True
            if user is not None and result.status in ("solved", "wrong"):
                rated.record(user, chosen, solved=result.status == "solved")
            form = ActionForm(initial={"moves": " ".join(trial.moves)})
    context = {"game": games.get(game), "puzzle": chosen,
               "board": playable(trial.state, "puzzle", not solved),
               "prompt": trial.state.prompt(), "result": result, "form": form,
               "solved": solved, "side": chosen["side"],
               "puzzle_rating": round(rated.puzzle_rating(puzzle_id).rating),
               "my_rating": user and round(rated.player_rating(user, game).rating)}
    if _wants_json(request):
        return _judged(request, context, "learn/_puzzle_solved.html", status)
    return render(request, "learn/puzzle.html", context, status=status)
