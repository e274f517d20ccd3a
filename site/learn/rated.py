"""Puzzle ratings for signed-in players: the first finished attempt at a puzzle is a rated
game between the player and the puzzle (Glicko-2 with the site's constants), and the next
puzzle is the unsolved one whose rating is nearest the player's."""
from django.db import transaction

from learn.models import PuzzleAttempt, PuzzlePlayer, PuzzleRating
from ratings.glicko2 import rate
from ratings.policy import START, TAU, bounded


def player_rating(user, game):
    found = PuzzlePlayer.objects.filter(user=user, game=game).first()
    return found.glicko if found else START


def puzzle_rating(puzzle_id):
    found = PuzzleRating.objects.filter(puzzle_id=puzzle_id).first()
    return found.glicko if found else START


def solved_by(user, game) -> set[str]:
    return set(PuzzleAttempt.objects.filter(user=user, game=game, solved=True)
               .values_list("puzzle_id", flat=True))


def attempted_by(user, game) -> set[str]:
    return set(PuzzleAttempt.objects.filter(user=user, game=game)
               .values_list("puzzle_id", flat=True))


def record(user, puzzle: dict, solved: bool):
    """Rate the player's first finished attempt at the puzzle; None if it was rated before.
    Returns the PuzzleAttempt."""
    game, puzzle_id = puzzle["game"], puzzle["id"]
    with transaction.atomic():
        player, _ = PuzzlePlayer.objects.select_for_update().get_or_create(user=user, game=game)
        if PuzzleAttempt.objects.filter(user=user, puzzle_id=puzzle_id).exists():
            return None
        rated, _ = PuzzleRating.objects.select_for_update().get_or_create(
            puzzle_id=puzzle_id, defaults={"game": game})
        before, against = player.glicko, rated.glicko
        score = 1.0 if solved else 0.0
        player.set_glicko(bounded(rate(before, [(against, score)], tau=TAU)))
        rated.set_glicko(bounded(rate(against, [(before, 1.0 - score)], tau=TAU)))
        rated.attempts += 1
        player.save()
        rated.save()
        return PuzzleAttempt.objects.create(
            user=user, puzzle_id=puzzle_id, game=game, solved=solved,
            rating_before=before.rating, rating_after=player.rating)


def nearest(user, game, ids: list[str]) -> list[str]:
    """The puzzles the player has not attempted, nearest their rating first (a puzzle nobody
    has attempted has the starting rating)."""
    mine = player_rating(user, game).rating
    done = attempted_by(user, game)
    ratings = dict(PuzzleRating.objects.filter(game=game).values_list("puzzle_id", "rating"))
    left = [i for i in ids if i not in done]
    return sorted(left, key=lambda i: (abs(ratings.get(i, START.rating) - mine), ids.index(i)))
