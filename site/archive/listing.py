"""What one row of the Archive shows about a finished game."""
from dataclasses import dataclass

from django.urls import reverse

from play.labels import reason_text


@dataclass
class Seat:
    name: str
    side: int
    side_name: str
    won: bool


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


def seats(game):
    return [Seat(seat.username, seat.side, seat.side_name, game.winner == seat.index)
            for seat in game.seats()]


def row(game):
    return Row(
        game=game, title=game.title, board=game.options_text, seats=seats(game),
        result=game.result_text, reason=reason_text(game.reason),
        thumbnail=reverse("archive:position_svg", args=[game.pk, game.ply_count]) + "?labels=0",
        url=game.get_absolute_url(),
    )
