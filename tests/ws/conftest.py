"""Fixtures of the websocket tests (helpers live in tests/ws/sockets.py and live_client.py)."""
import pytest

from play.clock import TimeControl
from play.services import start_game
# Re-exported for test modules that import the helpers from here; prefer
# `from tests.ws.sockets import ...` (a module named conftest exists in several folders).
from tests.ws.sockets import WAIT, Socket, application, headers_for  # noqa: F401


@pytest.fixture(autouse=True)
def fresh_channel_layer(settings):
    """A new in-memory channel layer for each test, even when REDIS_URL is set: every test runs
    its own event loop, and a layer cached from another loop holds locks bound to that one.
    (Redis, across processes, is tests/scale's business.) Changing the setting makes Channels
    drop its cached layer."""
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}


@pytest.fixture
def users(django_user_model):
    def make(*names):
        return [django_user_model.objects.create_user(name) for name in names]
    return make


@pytest.fixture
def new_game():
    def make(players, game="hadron", options=None, time_control=None):
        return start_game(game=game, options=options or {}, players=tuple(players),
                          time_control=time_control or TimeControl.untimed())
    return make
