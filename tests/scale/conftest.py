"""Scale-out fixtures: several Daphne processes sharing one PostgreSQL database and Redis.

These tests run only when the environment names a PostgreSQL server (DATABASE_URL) and a Redis
server (REDIS_URL), as in the second run of .ci/run; otherwise they are skipped. When the
environment is present, nothing here catches errors: an unreachable server fails the tests.
"""
import os
from pathlib import Path

import pytest

from siteservers import fresh_postgres_database

DATABASE_URL = os.environ.get("DATABASE_URL", "")
REDIS_URL = os.environ.get("REDIS_URL", "")


def scale_environment_missing():
    if not DATABASE_URL.startswith(("postgres://", "postgresql://")):
        return "DATABASE_URL is not a PostgreSQL URL"
    if not REDIS_URL.startswith(("redis://", "rediss://")):
        return "REDIS_URL is not a Redis URL"
    return None


def pytest_collection_modifyitems(config, items):
    here = Path(__file__).parent
    missing = scale_environment_missing()
    for item in items:
        if here in Path(item.fspath).parents:
            item.add_marker(pytest.mark.scale)
            if missing:
                item.add_marker(pytest.mark.skip(reason=f"scale-out test: {missing}"))


@pytest.fixture(scope="session")
def scale_database_url():
    """A fresh PostgreSQL database on DATABASE_URL's server, dropped afterwards.
    (DATABASE_URL's own database is left to pytest-django, which makes test_<name> from it.)"""
    with fresh_postgres_database(DATABASE_URL, "tessera_scale") as (url, _, _):
        yield url


@pytest.fixture(scope="session")
def scale_servers(shared_site_servers, scale_database_url):
    """Two Daphne processes on one PostgreSQL database and one Redis channel layer (the
    servers' environment passes REDIS_URL through)."""
    servers = [
        shared_site_servers(scale_database_url),
        shared_site_servers(scale_database_url, migrate_first=False),
    ]
    yield servers
    # Stop them here, before their database is dropped.
    for server in servers:
        server.stop()
