"""What one row of the Archive shows about a finished game."""
from dataclasses import dataclass

from django.core.exceptions import ObjectDoesNotExist
from django.urls import reverse

from play.labels import reason_text
from ratings.display import badge, marked


@dataclass
class Seat:
    name: str
    side: int
    side_name: str
    won: bool
    rating: dict  # a badge: after the game if it was rated, else as it stands now
    change: int | None = None  # what the game did to the rating (rated games)


@dataclass
class Row:
    game: object
    title: str
    board: str
    seats: list
    result: str
    reason: str
    thumbnail: str
    url: str
    event: object = None  # the tournament it was played in


def seats(game):
    """The players, with their ratings: a rated game's rows (prefetched as rating_changes)
    say what it did to them."""
    changes = {change.player_index: change for change in game.rating_changes.all()}
    shown = []
    for seat in game.seats():
        change = changes.get(seat.index)
        rating = (marked(seat.player.pk, {"rating": change.after,
                                           "provisional": change.provisional}) if change
                  else badge(seat.player, game.game))
        shown.append(Seat(seat.username, seat.side, seat.side_name, game.winner == seat.index,
                          rating, change.change if change else None))
    return shown


def row(game):
    return Row(
        game=game, title=game.title, board=game.options_text, seats=seats(game),
        result=game.result_text, reason=reason_text(game.reason),
        thumbnail=reverse("archive:position_svg", args=[game.pk, game.ply_count]) + "?labels=0",
        url=game.get_absolute_url(), event=event_of(game),
    )


def event_of(game):
    """The tournament the game was played in (queries.page_of reads it with the game), or
    None."""
    try:
        return game.pairing.tournament
    except ObjectDoesNotExist:
        return None
