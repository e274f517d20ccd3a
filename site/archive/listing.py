"""What one row of the Archive shows about a finished game."""
from dataclasses import dataclass

from django.urls import reverse

REASON_LABELS = {"normal": "played out", "resign": "resignation", "time": "on time",
                 "abort": "aborted"}


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


def board_text(game):
    """The board in a few words: "7×7" (Hadron's squares), "Long 5" (Colorful), "size 5"."""
    size, variant = game.options.get("size"), game.options.get("board")
    if variant:
        return f"{variant.capitalize()} {size}"
    if game.engine.name == "hadron":
        return f"{size}×{size}"
    return f"size {size}"


def seats(game):
    return [Seat(seat.username, seat.side, seat.side_name, game.winner == seat.index)
            for seat in game.seats()]


def row(game):
    return Row(
        game=game, title=game.title, board=board_text(game), seats=seats(game),
        result=game.result_text, reason=REASON_LABELS.get(game.reason, game.reason),
        thumbnail=reverse("archive:position_svg", args=[game.pk, game.ply_count]) + "?labels=0",
        url=game.get_absolute_url(),
    )
