"""The game page without JavaScript: the position drawn by the server and the move list as
links (?ply=K), so a game reads in any browser; game.js replaces both with the live board and
its own list. `{% position_picture game ply %}`, `{% move_list game ply %}`,
`{% shown_position game ply players as shown %}`.

The picture and the move list are drawn once per position and kept in Django's cache, keyed
by the game's stored history (archive.positions.stamp: id, creation, takebacks), its length
and the ply shown: a finished game's never change, a game in progress gets new keys as it
moves or takes back, so no page ever shows a kept drawing of another history."""
from django import template
from django.core.cache import cache
from django.template.loader import render_to_string
from django.utils.safestring import mark_safe

from archive import positions
from boards import svg
from games import records
from play.snapshots import by_condition_of

register = template.Library()

# The words static/js/movelist.js puts on the same mark.
BY_CONDITION_TITLE = ("Played by a conditional move: the player left this reply in advance "
                      "and the server played it when the opponent's move matched")


# Part of the kept drawings' keys: change it when the picture or the move list changes.
DRAWING_VERSION = 1


def kept(kind, game, ply, draw):
    """The drawing `kind` of `game` at `ply`: from the cache, or drawn by `draw()` and kept."""
    key = f"replay:{kind}:{DRAWING_VERSION}:{positions.stamp(game)}:{game.ply_count}:{ply}"
    drawing = cache.get(key)
    if drawing is None:
        drawing = draw()
        cache.set(key, drawing, positions.TIMEOUT)
    return mark_safe(drawing)


@register.simple_tag
def position_picture(game, ply):
    """The position after `ply` actions as inline SVG, with why the game ended marked on it
    (the words are the page's, under the board: shown_position's caption)."""
    def draw():
        position = positions.state_at(game, ply).to_dict()
        title = f"{game.title} ({game.options_text}), position after {ply} actions"
        return svg.render(position["board"], title=title, ending=position["ending"])
    return kept("picture", game, ply, draw)


@register.simple_tag
def shown_position(game, ply, players):
    """What the page says about the position after `ply` actions, as game.js says it once it
    runs: the player cards with that position's tallies ("12 cells"), why the game ended if it
    did there, and, away from the latest position, where the board stands ("After action 3 of
    20 · Blue to move")."""
    state = positions.state_at(game, ply).to_dict()
    away = None
    if ply < game.ply_count:
        where = "Start of the game" if ply == 0 else f"After action {ply} of {game.ply_count}"
        said = state["result"] if state["is_over"] else state["prompt"]
        away = f"{where} · {said}" if said else where
    return {
        "players": [{**player, "tally": state["tallies"][player["side"]]} for player in players],
        "caption": state["ending"]["caption"] if state["ending"] else "",
        "away": away,
    }


@register.simple_tag
def move_list(game, ply):
    """The actions by turn (as records group them), each a link to the position after it; those
    a conditional move played are marked (play.conditionals)."""
    return kept("moves", game, ply,
                lambda: render_to_string("archive/_move_list.html", turns_of(game, ply)))


def turns_of(game, ply):
    state = positions.state_at(game, game.ply_count)
    start = game.engine.new(**game.options)
    sides, current = [], start
    for action in state.actions:   # the side that made each action
        sides.append(current.to_move)
        current = current.play(action)
    marked = set(by_condition_of(game))
    turns, index = [], 0
    for number, actions in enumerate(records.turns(state), start=1):
        side = sides[index]
        links = [{"action": action, "ply": index + k + 1, "by_condition": index + k + 1 in marked}
                 for k, action in enumerate(actions)]
        turns.append({"number": number, "side": side, "actions": links})
        index += len(actions)
    return {"turns": turns, "shown": ply, "by_condition_title": BY_CONDITION_TITLE}
