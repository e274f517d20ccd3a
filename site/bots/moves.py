"""A computer player's turn: the news of a change (play.signals.game_changed) says a computer is
to move, so a `bot_move` job is submitted with the position; a worker thinks (position in,
action out, games.bots.choose); the answer is played through play.services.play, the door a
person's move takes, in the game's lane (the embedded pool) or under the game's row lock (a
Redis worker), and broadcast by play.broadcast like any move.

Exactly once: the job names the ply and the takebacks it thought about; an answer that arrives
after the game moved on, was taken back or ended is refused as stale and changes nothing, and a
second answer for a ply already played is a `repeat` (services.play). Lost jobs (a killed
worker): at scale Dramatiq redelivers them (jobs.broker); in the embedded pool the sweep
finds them: `waiting_games` lists the active games where a computer is to move, and
jobs.sweep submits them again unless their job is in work.

What a computer does not do: it never resigns, never offers or accepts a takeback, never
offers or answers a rematch, never claims a win when its opponent leaves, and never aborts.
A takeback proposed to it stands until its next move lapses it (play.takeback); it simply
plays on (docs/protocol.md).
"""
import logging
import time
import zlib
from datetime import datetime
from datetime import timezone as dt_timezone

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db.models import Q
from django.dispatch import receiver
from django.utils import timezone

import games
from bots import accounts
from jobs.runner import in_work, job, submit
from games import bots as engine_bots
from play.models import Game
from play.signals import game_changed

logger = logging.getLogger(__name__)

# On a clock, a computer spends about this share of its remaining time on one action (plus
# most of the increment), never less than MIN_THINK.
SHARE_OF_CLOCK = 1 / 30
SHARE_OF_INCREMENT = 0.8
MIN_THINK = 0.05
# The sweep for games waiting on a computer reads them in pages of this many.
WAITING_BATCH = 500


def thinking_time(game, seat, level):
    """Seconds the computer in `seat` may think in `game`: None (the level's own cap, in CPU
    seconds) without a realtime clock; on one, wall-clock seconds from its remaining time and
    the increment, never more than the level's cap. The level's number of simulations still
    ends the search sooner when it is reached."""
    if not game.time_control.is_realtime or game.remaining_ms is None:
        return None
    # What is left now: a job asked again by the sweep comes later in the turn.
    left = game.remaining_at(timezone.now())[seat] / 1000
    budget = left * SHARE_OF_CLOCK + game.increments()[seat] * SHARE_OF_INCREMENT
    return round(max(MIN_THINK, min(budget, left / 4, engine_bots.LEVELS[level].cap)), 3)


def turn_of(game):
    """The payload of the job for `game`'s turn if a computer is to move in it, else None."""
    if not game.is_active:
        return None
    seat = game.player_to_move()
    if seat is None:
        return None
    player_id = (game.player0_id, game.player1_id)[seat]
    level = accounts.level_of(player_id)
    if level is None:
        return None
    state = game.state()
    opponent = (game.player0_id, game.player1_id)[1 - seat]
    other = accounts.level_of(opponent)
    return {
        "game": game.pk, "ply": game.ply_count, "takebacks": game.takebacks,
        "engine": game.game, "options": game.options, "actions": list(state.actions),
        "player": player_id, "level": level,
        "seed": zlib.crc32(f"{game.pk}:{game.ply_count}:{game.takebacks}".encode()),
        "time_limit": thinking_time(game, seat, level),
        # Computer-against-computer games (the exhibition) are paced for the people watching
        # them: an action never comes sooner than BOT_EXHIBITION_PACE seconds after the last.
        "pace": settings.BOT_EXHIBITION_PACE if other is not None else 0,
        # Whose turn on the workers it takes (jobs.runner, fair share): the person playing it.
        "owner": f"user:{opponent}" if other is None else "exhibition",
    }


def job_key(payload):
    return f"{payload['game']}:{payload['takebacks']}:{payload['ply']}"


def game_lane(payload):
    return ("game", payload["game"])


def waiting_games():
    """Payloads for every active game where a computer is to move (the sweep's list)."""
    bot_ids = accounts.bot_ids()
    if not bot_ids:
        return []
    found = []
    games = Game.objects.active().filter(Q(player0_id__in=bot_ids) | Q(player1_id__in=bot_ids))
    # Page through all of them by id: whose turn it is is the engine's to say (Colorful's two
    # stones, Copolymer's claims, Tripen's swap), not a column, so no query can pick the ones
    # a computer is to move in, and a first page alone never reaches a lost job beyond it.
    after = 0
    while True:
        page = list(games.filter(pk__gt=after).order_by("pk")[:WAITING_BATCH])
        for game in page:
            # A game whose job is in work needs no payload: building one may replay the game.
            if in_work("bot_move", f"{game.pk}:{game.takebacks}:{game.ply_count}"):
                continue
            payload = turn_of(game)
            if payload is not None:
                found.append(payload)
        if len(page) < WAITING_BATCH:
            return found
        after = page[-1].pk


def moment(epoch):
    return None if epoch is None else datetime.fromtimestamp(epoch, tz=dt_timezone.utc)


def play_answer(payload, result):
    """Play the computer's answer, if the game is still where it was asked (then-step of the
    job: in the game's lane, or under its row lock in a Redis worker)."""
    from play import services

    player = get_user_model()(pk=payload["player"])
    # Its clock is charged from the worker's pick-up to its answer, as a person's from the
    # turn's start to the server's receipt (play.services): never the time its job queued.
    picked, answered = (moment(result.get(name)) for name in ("picked_at", "answered_at"))
    try:
        services.play(payload["game"], player, payload["ply"], result["action"],
                      takebacks=payload["takebacks"], now=answered, thinking_since=picked)
    except services.PlayError as refusal:
        # Stale (the game moved on, was taken back or ended): the answer is for nothing.
        logger.info("computer's answer in game %s at ply %s not played: %s",
                    payload["game"], payload["ply"], refusal.message)


def job_owner(payload):
    return payload.get("owner") or "computers"


@job("bot_move", key=job_key, then=play_answer, lane=game_lane, pending=waiting_games,
     owner=job_owner)
def think(payload):
    """Position in, action out: in a worker process, never the server's loop. With the moments
    it began and ended (wall clock, seconds): the computer's clock runs between them."""
    picked_at = time.time()
    started = time.monotonic()
    state = games.get(payload["engine"]).replay(payload["options"], payload["actions"])
    # On a realtime clock the budget is wall-clock time: a worker at idle priority that gets
    # little CPU must still answer before its clock runs out.
    clock = time.monotonic if payload["time_limit"] is not None else time.process_time
    action = engine_bots.choose(state, level=payload["level"], seed=payload["seed"],
                                time_limit=payload["time_limit"], clock=clock)
    rest = payload.get("pace", 0) - (time.monotonic() - started)
    if rest > 0:
        time.sleep(rest)
    answered_at = time.time()
    return {"action": action, "picked_at": picked_at, "answered_at": answered_at}


@receiver(game_changed)
def on_game_changed(sender, game, event, **extra):
    """After every start and action: if a computer is to move now, ask it (cheap for games
    between people: two lookups in a per-process dict)."""
    if event == "ended":
        return
    if accounts.level_of(game.player0_id) is None and accounts.level_of(game.player1_id) is None:
        return
    payload = turn_of(game)
    if payload is not None:
        submit("bot_move", payload)
