"""A socket message's game and user follow it into the database thread that stores its
action (ops.context), so log lines written there name them, and the action is counted with
its commit latency."""
import logging

import pytest

from prometheus_client import REGISTRY

from ops import context
from ops.logs import ContextFilter
from play.signals import game_changed
from tests.ws.sockets import Socket, run

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_lane_thread_knows_the_messages_game_and_user(users, new_game):
    alice, bob = users("alice", "bob")
    game = new_game([alice, bob], "hadron", {"size": 5})
    seen, lines = [], []

    def heard(sender, game, event, **kwargs):
        if event == "action":
            seen.append((context.game_id.get(), context.user_id.get()))
            logging.getLogger("tests.ops").warning("stored")

    class Lines(logging.Handler):
        def emit(self, record):
            lines.append((record.game_id, record.user_id))

    handler = Lines()
    handler.addFilter(ContextFilter())
    logging.getLogger("tests.ops").addHandler(handler)
    game_changed.connect(heard)
    commits = REGISTRY.get_sample_value("tessera_action_commit_seconds_count")
    stored = REGISTRY.get_sample_value("tessera_actions_stored_total")
    try:
        tab = Socket(game.pk, alice)

        async def scenario():
            await tab.open()
            await tab.send(type="play", ply=0, action="c3")
            await tab.expect("action")
            await tab.close()
        run(scenario)
    finally:
        game_changed.disconnect(heard)
        logging.getLogger("tests.ops").removeHandler(handler)
    assert seen == [(game.pk, alice.pk)]
    assert lines == [(game.pk, alice.pk)]
    assert REGISTRY.get_sample_value("tessera_actions_stored_total") == stored + 1
    assert REGISTRY.get_sample_value("tessera_action_commit_seconds_count") == commits + 1
