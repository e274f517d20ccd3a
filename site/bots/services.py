"""Starting games against the computer, and the exhibition that keeps the Watch page alive."""
import logging
import random

from django.conf import settings
from django.db import transaction
from django.db.models import Q

import games
from bots import accounts
from games import bots as engine_bots
from lobby.services import lock_proposer
from play import services
from play.clock import TimeControl
from play.models import Game

logger = logging.getLogger(__name__)

# The exhibition: two computers of these levels, untimed, on each game's default board.
EXHIBITION_LEVELS = (1, 2)


class TooManyComputerGames(ValueError):
    """The account already plays settings.BOT_GAMES_PER_PLAYER games against the computer."""


def computer_games_of(user):
    """`user`'s active games against a computer."""
    bot_ids = accounts.bot_ids()
    return Game.objects.active().of_player(user).filter(
        Q(player0_id__in=bot_ids) | Q(player1_id__in=bot_ids))


def rematch_refusal(sender, game, player, **kwargs):
    """play.signals.computer_rematch: why `player` may not start a rematch against the
    computer (the cap), or None."""
    try:
        refuse_past_the_cap(player)
    except TooManyComputerGames as refusal:
        return str(refusal)
    return None


def refuse_past_the_cap(user):
    """Raise TooManyComputerGames if `user` may not start another game against the computer
    (any door that starts one calls this in its transaction: the form, a rematch). Two
    requests at once cannot both pass: a row lock on the account, as the lobby's offers
    take."""
    limit = settings.BOT_GAMES_PER_PLAYER
    lock_proposer(user)
    if computer_games_of(user).count() >= limit:
        raise TooManyComputerGames(
            f"You already play {limit} game{'s' if limit != 1 else ''} against the computer: "
            f"finish or resign one first.")


def start_computer_game(user, *, game, options, level, side, time_control, rng=random):
    """A new game of `user` against the computer of `level` (`side`: "first", "second" or
    "random" for the person); the computer is asked for its move as soon as it is to move
    (bots.moves). Rated like any game between two accounts. ValueError for bad choices;
    TooManyComputerGames when `user` already plays BOT_GAMES_PER_PLAYER of them: the workers
    that think are shared by everyone, and one account must not fill them. A level that
    thinks longer than a clock allows (Master) plays only without a realtime clock."""
    if level in engine_bots.LEVELS and engine_bots.LEVELS[level].untimed_only \
            and time_control.is_realtime:
        raise ValueError(f"{accounts.level_name(level)} plays only games without a clock")
    computer = accounts.bot_for(level)
    if side == "random":
        side = rng.choice(["first", "second"])
    if side not in ("first", "second"):
        raise ValueError(f"a side is first, second or random, not {side!r}")
    players = (user, computer) if side == "first" else (computer, user)
    with transaction.atomic():
        refuse_past_the_cap(user)
        return services.start_game(game=game, options=options, players=players,
                                   time_control=time_control, rated=True)


def is_exhibition(game):
    """A game between two computers: shown on Watch, kept out of players' archives and
    ratings."""
    return accounts.is_bot(game.player0_id) and accounts.is_bot(game.player1_id)


def exhibitions():
    """Active games between two computers."""
    bot_ids = accounts.bot_ids()
    return Game.objects.active().filter(player0_id__in=bot_ids, player1_id__in=bot_ids)


def keep_an_exhibition(now=None, rng=random):
    """Start a computer-against-computer game if none is being played (BOT_EXHIBITION, every
    sweep of every serving process; two processes at once may start two, which is harmless)."""
    if not settings.BOT_EXHIBITION:
        return None
    levels = [level for level in EXHIBITION_LEVELS if level in accounts.levels()]
    if len(levels) < 2:
        levels = accounts.levels()[:2]
    first, second = (accounts.bot_for(level) for level in levels)
    if exhibitions().exists():
        return None
    name = rng.choice(games.names())
    players = (first, second) if rng.random() < 0.5 else (second, first)
    game = services.start_game(game=name, options={}, players=players,
                               time_control=TimeControl("untimed"), rated=False)
    logger.info("started exhibition game %s (%s)", game.pk, name)
    return game


def archive_filter(bot_ids=None):
    """The archive's condition that leaves exhibitions out (a Q on Game); `bot_ids`: the
    computers' ids if read already."""
    bot_ids = accounts.bot_ids() if bot_ids is None else bot_ids
    return Q(player0_id__in=bot_ids, player1_id__in=bot_ids)
