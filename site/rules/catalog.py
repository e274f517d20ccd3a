"""The four games as the site introduces them: name, title and a one-line pitch for the home
page and the rules index. The rules themselves are in templates/rules/<name>.html."""
from dataclasses import dataclass


@dataclass(frozen=True)
class Guide:
    name: str          # the engine's registry name, also the URL slug
    title: str
    credit: str
    pitch: str


GUIDES = {
    guide.name: guide
    for guide in (
        Guide(
            "copolymer",
            "Copolymer",
            "Mark Steere, 2006",
            "Claim hexagons on a hexhex board. Claim a cell touching two or more enemy cells "
            "and you must claim again. Most cells wins.",
        ),
        Guide(
            "hadron",
            "Hadron",
            "Mark Steere, 2022",
            "Place tiles on a square board, each touching as many red tiles as blue ones. "
            "Whoever makes the last placement wins.",
        ),
        Guide(
            "tripen",
            "Tripen",
            "Mark Steere, 2013",
            "Lay pentagon tokens, half a hexagon each, and join your two borders with a chain "
            "of your colour. The pie rule keeps the first move honest.",
        ),
        Guide(
            "colorful",
            "Colorful Connection",
            "Nick Bentley, 2009 (working title)",
            "Four colours, two each: grow groups that touch many enemy stones and the board's "
            "sides. Your best groups decide the game.",
        ),
    )
}
