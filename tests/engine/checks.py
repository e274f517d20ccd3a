"""Checks shared by the engine tests of several games (import them with
`from tests.engine.checks import ...`)."""
import json

from games import IllegalAction


def accepted_by_play(state, candidates):
    """The actions among `candidates` that state.play() accepts, in the engine's own spelling
    (the last action of the new state): the legal set must be exactly these."""
    accepted = set()
    for action in candidates:
        try:
            accepted.add(state.play(action).actions[-1])
        except IllegalAction:
            pass
    return accepted


def play_leaving_the_old_state(state, action):
    """state.play(action), checking that the old state is left exactly as it was."""
    before = json.dumps(state.to_dict())
    child = state.play(action)
    assert json.dumps(state.to_dict()) == before
    return child
