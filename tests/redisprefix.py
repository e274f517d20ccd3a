"""A pytest plugin (pyproject.toml's addopts: `-p tests.redisprefix`): each test process keys
its Redis under a prefix of its own.

With REDIS_URL set, the test process itself uses Redis: its channel layer (groups named
"game-1", "lobby"), the rate limits' cache, the snapshot budget and the jobs' queue are all
keyed under REDIS_PREFIX (site/tessera/settings.py, jobs.broker.namespace). pytest-xdist's
workers each have a test database of their own (test_test_gw0, test_test_gw1) in which game 1
is a different game: under one prefix, news of one worker's game 1 reached the other's
sockets. The servers the tests start get a prefix of their own database
(siteservers.server_env) and are not affected.

A plugin, not conftest.py: pytest-django reads the settings before any conftest.py is loaded.
"""
import os

import pytest


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(early_config):
    # The process id: unique among the workers of a run and among runs sharing one Redis (the
    # keys expire: the channel layer's, the cache's and the budget's).
    os.environ["REDIS_PREFIX"] = f"tessera-tests-{os.getpid()}"
