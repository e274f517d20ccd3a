"""How the site names the games and their board options, for every page that lists games or
offers (the lobby's seeks and challenges, the Watch list, profiles, the filters)."""
import games


def game_titles() -> list[tuple[str, str]]:
    """(engine name, title) of every game, in the registry's order: choices for a form."""
    return [(name, games.get(name).title) for name in games.names()]


def options_text(game: str, options: dict) -> str:
    """Board options the way players talk about them ("5×5", "hexhex side 5", "long board
    side 4"): the engine's Game.option_label, the one wording of every page and export. A
    function of the engine name and options, so an offer that is not a game yet reads the
    same as the game it becomes."""
    return games.get(game).option_label(options)


# How a finished game ended, in a word or two, for every list that shows it.
REASON_TEXT = {"normal": "played out", "resign": "resignation", "time": "on time",
               "abort": "aborted", "no_start": "no first move", "left": "opponent left",
               "idle": "left untouched"}


def reason_text(reason: str) -> str:
    return REASON_TEXT.get(reason, reason)
