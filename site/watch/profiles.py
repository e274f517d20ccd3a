"""A player's games for their profile page: those in progress and the finished ones (a page
at a time, newest first), each seen from the player's side: opponent, result, reason."""
from dataclasses import dataclass

from django.core.paginator import Paginator

from play.labels import reason_text
from play.models import Game
from ratings.display import badge, prefetch

PER_PAGE = 20


@dataclass
class Entry:
    game: Game
    opponent: object  # the other player (a User)
    result: str  # "won" | "lost" | "draw" | "aborted" | "" (in progress)
    reason: str  # how it ended, in words
    to_move: object = None  # in progress: the player to move (a User) or None
    opponent_rating: dict | None = None  # a badge, as the opponent's rating stands now
    change: int | None = None  # a rated game that ended: what it did to the player's rating

    @property
    def options_text(self):
        return self.game.options_text

    @property
    def result_label(self):
        return self.result.capitalize()


def games_of(player):
    return Game.objects.of_player(player).with_players().prefetch_related("rating_changes")


def result_for(game, me):
    if game.status == Game.ABORTED:
        return "aborted"
    if game.winner is None:
        return "draw"
    return "won" if game.winner == me else "lost"


def reason_of(game):
    """How a finished game ended: the engine's own words for a game played out (the part of
    the result text after the winner), else the kind of ending."""
    if game.reason == "normal" and game.result_text:
        return game.result_text.split(" — ", 1)[-1]
    return reason_text(game.reason)


def entry(game, player):
    me = game.player_index(player)
    opponent = game.players()[1 - me]
    common = {"game": game, "opponent": opponent,
              "opponent_rating": badge(opponent, game.game)}
    if game.is_active:
        mover = game.player_to_move()
        to_move = None if mover is None else game.players()[mover]
        return Entry(**common, result="", reason="", to_move=to_move)
    mine = next((c for c in game.rating_changes.all() if c.player_index == me), None)
    return Entry(**common, result=result_for(game, me), reason=reason_of(game),
                 change=mine.change if mine else None)


def in_progress(player):
    found = list(games_of(player).active().order_by("-updated_at", "-pk"))
    prefetch([game.players()[1 - game.player_index(player)] for game in found])
    return [entry(game, player) for game in found]


def finished_page(player, number):
    """One page of the player's ended games (finished or aborted), newest first."""
    found = games_of(player).exclude(status=Game.ACTIVE).order_by("-finished_at", "-pk")
    page = Paginator(found, PER_PAGE).get_page(number)
    games = list(page.object_list)
    prefetch([game.players()[1 - game.player_index(player)] for game in games])
    page.object_list = [entry(game, player) for game in games]
    return page
