"""live.lanes.shutdown: each database thread closes its persistent connection as it ends.
Left open, a stopped server's connections stayed on the database server until the garbage
collector came by: the PostgreSQL pass could not drop its test database ("4 other sessions",
the in-process site's reader and writer threads)."""
import pytest
from asgiref.sync import async_to_sync
from django.db import DEFAULT_DB_ALIAS, connection, connections

from live import lanes
from tests.ws.messages import WAIT

pytestmark = pytest.mark.django_db(transaction=True)


def opened_connection():
    """On a database thread: its connection, opened."""
    here = connections[DEFAULT_DB_ALIAS]
    here.ensure_connection()
    return here


def test_the_threads_close_their_connections_when_they_stop():
    if connection.vendor == "sqlite" and connection.is_in_memory_db():
        pytest.skip("Django never closes the connections of an in-memory SQLite database "
                    "(the embedded defaults' test database): the PostgreSQL pass runs this")

    async def scenario():
        return [await lanes.read(opened_connection), await lanes.write(opened_connection),
                await lanes.aside(opened_connection)]

    held = async_to_sync(scenario)()
    assert all(wrapper.connection is not None for wrapper in held)
    lanes.shutdown(wait=WAIT)
    assert [wrapper.connection for wrapper in held] == [None] * len(held)
