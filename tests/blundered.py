"""Games with a blunder the analysis must mark, made with the engine alone (no Django), so site,
scale and browser tests can store them: random legal actions until the player to move could
win at once, then an action that lets the opponent win at once instead, then that win.

The engine's search scores both positions exactly (an immediate win is played without a
search: a chance of 1), so the blunder's drop is 1.0 whatever the budget or the machine.
"""
import random

import games
from games.mcts import immediate_wins

# Shell code (SiteServer.shell) that stores a game played by two existing users in a server's
# database and prints its id: .format(names=(first, second), game=, options=, actions=).
STORE_GAME = """
from django.contrib.auth import get_user_model
from play import services
from play.clock import TimeControl
User = get_user_model()
players = tuple(User.objects.get(username=name) for name in {names!r})
game = services.start_game(game={game!r}, options={options!r}, players=players,
                           time_control=TimeControl.untimed())
for ply, action in enumerate({actions!r}):
    game = services.load(game.pk)
    mover = game.players()[game.player_of(game.state().to_move)]
    services.play(game.pk, mover, ply, action)
print(game.pk)
"""


def blundered_game(name, options, seeds=range(500)):
    """(actions, ply): a whole game's actions in which action number `ply` (the position after
    it is ply `ply`) threw away an immediate win and handed the opponent one, which the
    opponent then played."""
    engine = games.get(name)
    for seed in seeds:
        rng, state = random.Random(seed), engine.new(**options)
        while not state.is_over:
            found = throw_away(state)
            if found is not None:
                blunder = state.play(found)
                win = sorted(immediate_wins(blunder))[0]
                return [*state.actions, found, win], state.ply + 1
            state = state.play(rng.choice(state.legal_actions()))
    raise AssertionError(f"no {name} game with a blunder in these seeds")


def throw_away(state):
    """An action that passes up the mover's immediate win and gives the opponent one."""
    if not immediate_wins(state):
        return None
    mover = state.person_to_move
    for action in sorted(state.legal_actions()):
        after = state.play(action)
        if not after.is_over and after.person_to_move != mover and immediate_wins(after):
            return action
    return None
