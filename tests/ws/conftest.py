"""Fixtures of the websocket tests (helpers live in tests/ws/sockets.py, messages.py and
live_client.py: import them from there, never from a module named conftest, since several
folders have one)."""
import pytest

from play.clock import TimeControl
from play.services import start_game


@pytest.fixture(autouse=True)
def fresh_channel_layer(settings):
    """A new in-memory channel layer for each test, even when REDIS_URL is set: every test runs
    its own event loop, and a layer cached from another loop holds locks bound to that one.
    (Redis, across processes, is tests/scale's business.) Changing the setting makes Channels
    drop its cached layer."""
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "live.layers.LocalChannelLayer"}}


@pytest.fixture(autouse=True)
def fresh_snapshot_budget(monkeypatch):
    """Snapshot budgets (live.budget) in this process's memory, full for each test: the
    test sockets all come from one unknown address, and users' ids are reused between tests."""
    from live import budget

    monkeypatch.setattr(budget, "shared", lambda: False)
    budget.local.clear()


@pytest.fixture
def no_lobby_grace(settings):
    """A real-time seek closes as soon as its owner's last lobby socket does (no wait for a
    reload to bring them back)."""
    settings.LOBBY_PRESENCE_GRACE = 0


@pytest.fixture
def new_game():
    def make(players, game="hadron", options=None, time_control=None):
        return start_game(game=game, options=options or {}, players=tuple(players),
                          time_control=time_control or TimeControl.untimed())
    return make
