"""Games started and played through play's services, as the live site plays them: the engine
picks random legal actions for whoever is to move, so the records are the ones real games
leave behind. Shared by the site tests (import `from tests.site.played import ...`)."""
import random
from datetime import datetime, timezone

from play import services
from play.clock import TimeControl
from play.models import Game


def start(first, second, game="hadron", options=None, tc=None):
    """A game in progress between `first` (moves first) and `second`, untimed unless `tc`."""
    return services.start_game(game=game, options=options or {}, players=(first, second),
                               time_control=tc or TimeControl.untimed())


def play_out(game, seed=0, stop_at=None):
    """Play random legal actions for whoever is to move until the game ends (or has
    `stop_at` actions). Returns the game reloaded."""
    rng = random.Random(seed)
    while True:
        game = services.load(game.pk)
        state = game.state()
        if state.is_over or (stop_at is not None and state.ply >= stop_at):
            return game
        mover = game.players()[game.player_of(state.to_move)]
        services.play(game.pk, mover, state.ply, rng.choice(state.legal_actions()))


def finished(name, players, options=None, seed=0, when=None, resign_at=None):
    """A game played to its end, or resigned by the player to move once it has `resign_at`
    actions; finished on `when` (a date: noon UTC) for ordering and date filters."""
    game = play_out(start(*players, name, options), seed, stop_at=resign_at)
    if resign_at is not None:
        mover = game.players()[game.player_of(game.state().to_move)]
        services.resign(game.pk, mover, game.ply_count)
    if when is not None:
        if not isinstance(when, datetime):
            when = datetime(when.year, when.month, when.day, 12, tzinfo=timezone.utc)
        Game.objects.filter(pk=game.pk).update(finished_at=when)
    return services.load(game.pk)
