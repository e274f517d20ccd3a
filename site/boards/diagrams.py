"""Which boards the site draws for a game, built from the engine's option choices: one
diagram per board a game can be played on."""
import random
from dataclasses import dataclass
from functools import lru_cache

from django.utils.safestring import mark_safe

import games
from boards import svg

@dataclass(frozen=True)
class Diagram:
    key: str        # unique within the game, e.g. "size-5" or "long-4"
    short: str      # for a size picker: "5", "long 4"
    caption: str    # "hexhex side 5, 61 cells"
    svg: str        # safe markup
    is_default: bool


def board_options(game):
    """Every valid combination of the game's board options, in the engine's order."""
    choices = game.option_choices()
    combos = [{}]
    for option, values in choices.items():
        combos = [dict(combo, **{option: value}) for combo in combos for value in values]
    valid = []
    for combo in combos:
        try:
            valid.append(game.normalize_options(**combo))
        except ValueError:
            continue  # e.g. a long Colorful board only comes in sides 4..6
    return valid


def caption(game, options, board):
    """"hexhex side 5, 61 cells": the engine's label of the board and its size."""
    return f"{game.option_label(options)}, {len(board['cells'])} cells"


def short(options):
    size = str(options["size"])
    return f"long {size}" if options.get("board") == "long" else size


def key(options):
    prefix = options.get("board", "size")
    return f"{prefix}-{options['size']}"


@lru_cache(maxsize=None)
def diagrams(name):
    """One empty-board diagram for every board of the game `name` (cached: empty boards
    never change while the process runs)."""
    game = games.get(name)
    default = game.normalize_options()
    result = []
    for options in board_options(game):
        board = game.new(**options).to_dict()["board"]
        text = caption(game, options, board)
        result.append(
            Diagram(
                key=key(options),
                short=short(options),
                caption=text,
                svg=mark_safe(svg.render(board, title=f"{game.title}: {text}")),
                is_default=options == default,
            )
        )
    return tuple(result)


def thumbnail(state, title):
    """A drawing of a position without coordinates, for cards and lists."""
    return mark_safe(svg.render(state.to_dict()["board"], labels=False, title=title))


@lru_cache(maxsize=None)
def sample(name, fill=0.4):
    """A thumbnail of a game in progress on the default board: seeded random legal actions
    until about `fill` of the cells are taken (the same picture on every run)."""
    game = games.get(name)
    state = game.new()
    chooser = random.Random(name)
    target = int(len(state.to_dict()["board"]["cells"]) * fill)
    for _ in range(target):
        legal = [action for action in state.legal_actions() if action != "swap"]
        if state.is_over or not legal:
            break
        state = state.play(chooser.choice(legal))
    return thumbnail(state, f"{game.title}, a game in progress")
