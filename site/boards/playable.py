"""A position for a page that plays its board through a form (templates/includes/
board_form.html, static/js/board-form.js): lessons, puzzles, the analysis board.

The page carries the server's picture (the board without JavaScript) and the engine's
to_dict(), which the browser draws with the play page's board module of the board's kind."""
from django.utils.safestring import mark_safe

from boards import svg


def playable(state, title: str, playing: bool) -> dict:
    """`playing`: the viewer may act here (never once the game is over)."""
    data = state.to_dict()
    # The ending's marks, not its caption: the page's own words say how it ended.
    ending = data["ending"] and {**data["ending"], "caption": None}
    return {"picture": mark_safe(svg.render(data["board"], title=title, ending=ending)),
            "position": data, "module": f"js/boards/{data['board']['kind']}.js",
            "playing": playing and not state.is_over, "title": title}
