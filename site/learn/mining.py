"""Puzzles mined from this site's archive (`manage.py make_puzzles`): every finished game with a
result is replayed through the engine, and a position becomes a puzzle when the player to move
had a forced win within the game's bound and played an action that does not win within it
(games.puzzles.mine_line, the same search as the shipped set). A kept puzzle's certificate
passes games.solver.verify, and the whole puzzle is re-checked by games.puzzles.check (the
solver again, the certificate again, its line played to the win) before it is stored, as the
tests do for the shipped set. When the archive is thin the command tops a game up with the
computer games games.puzzles plays itself (seeded)."""
from __future__ import annotations

import random
from dataclasses import dataclass

from django.db import transaction

import games
from games import puzzles
from learn.models import MinedGame, MinedPuzzle
from play.models import Action, Game


@dataclass
class Mined:
    games: int = 0       # games read
    puzzles: int = 0     # puzzles stored
    refused: int = 0     # games whose proof failed the independent check: nothing stored


def _known_positions(game_name: str) -> set:
    """The positions of the puzzles already served, shipped or mined: a position is kept once."""
    known = {puzzles.position_key(puzzles.position_of(p)) for p in puzzles.load(game_name)}
    for data in MinedPuzzle.objects.filter(game=game_name).values_list("data", flat=True):
        known.add(puzzles.position_key(puzzles.position_of(data)))
    return known


def _store(found: list[dict], known: set, source_game=None) -> int:
    """Re-check and store the puzzles of one game (raises what games.puzzles.check raises)."""
    fresh = []
    for puzzle in found:
        key = puzzles.position_key(puzzles.position_of(puzzle))
        if key in known:
            continue
        puzzles.check(puzzle)
        known.add(key)
        fresh.append(puzzle)
    for puzzle in fresh:
        MinedPuzzle.objects.update_or_create(
            puzzle_id=puzzle["id"],
            defaults={"game": puzzle["game"], "data": puzzle, "source_game": source_game})
    return len(fresh)


def mine_archive(game_name: str, *, per_game: int = puzzles.PER_GAME, stdout=None) -> Mined:
    """Mine the finished games of `game_name` not mined before (each is marked, with or
    without puzzles, so a rerun reads only the games that ended since)."""
    done = Mined()
    known = _known_positions(game_name)
    finished = (Game.objects.filter(game=game_name).exclude(status=Game.ACTIVE)
                .exclude(reason__in=Game.NO_RESULT)
                .exclude(pk__in=MinedGame.objects.values("source_game"))
                .select_related("player0", "player1").order_by("id"))
    for game in finished.iterator(chunk_size=200):
        actions = list(Action.objects.filter(game=game).order_by("ply")
                       .values_list("action", flat=True))
        source = {"game_id": game.pk, "url": game.get_absolute_url(),
                  "players": [game.player0.username, game.player1.username]}
        done.games += 1
        stored = 0
        try:
            found = puzzles.mine_line(game_name, games.get(game_name).normalize_options(
                **game.options), actions, source, f"{game_name}-g{game.pk}",
                random.Random(game.pk), per_game)
            with transaction.atomic():
                stored = _store(found, known, source_game=game)
                MinedGame.objects.create(source_game=game, puzzles=stored)
        except AssertionError as error:  # games.solver.CertificateError among them
            # A proof that does not hold is a solver defect: nothing of this game is stored,
            # and the game is left unmarked so that a fixed solver mines it again.
            done.refused += 1
            if stdout:
                stdout.write(f"game {game.pk}: not stored, the re-check failed: {error}")
            continue
        done.puzzles += stored
    return done


def first_fresh_seed(game_name: str) -> int:
    """The first seed no puzzle came from: after the shipped set's games (the same seeds
    would replay the same games, whose positions are all known) and the computer games mined
    here before."""
    shipped = puzzles.shipped(game_name)
    seeds = [shipped["seed"] + shipped["games"]]
    for source in MinedPuzzle.objects.filter(game=game_name, source_game=None).values_list(
            "data__source__seed", flat=True):
        if source is not None:
            seeds.append(int(source) + 1)
    return max(seeds)


def top_up(game_name: str, count: int, *, seed: int | None = None, stdout=None) -> Mined:
    """Computer games (seeded from `seed`, by default the first fresh one) until the game has
    `count` mined puzzles."""
    done = Mined()
    seed = first_fresh_seed(game_name) if seed is None else seed
    known = _known_positions(game_name)
    options = games.get(game_name).normalize_options()
    have = MinedPuzzle.objects.filter(game=game_name).count()
    while have < count:
        # Ids of their own ("-c"): the shipped sets' seeds name other games' puzzles.
        found = puzzles.mine_game(game_name, options, seed + done.games,
                                  prefix=f"{game_name}-c{seed + done.games}")
        done.games += 1
        with transaction.atomic():
            stored = _store(found[:count - have], known)
        done.puzzles += stored
        have += stored
        if stdout and done.games % 10 == 0:
            stdout.write(f"{game_name}: {done.games} computer games, {have} puzzles")
    return done
