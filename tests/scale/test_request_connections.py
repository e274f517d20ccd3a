"""Each HTTP request's database connection ends with the request. Under ASGI Django runs a
request's synchronous code on a thread made for that request; a connection it kept open there
(persistent, CONN_MAX_AGE, as the live path's database threads keep theirs) was never used
again and stayed open on PostgreSQL until the garbage collector came by: with 200 games
through two processes (bench/failures.py) PostgreSQL ran out of connections ("too many
clients") and the pages answered 500."""
import time
import urllib.error
import urllib.request

import pytest

from siteservers import fresh_postgres_database
from tests.ws.messages import WAIT

REQUESTS = 100
# The process's own database threads (live.lanes: readers, writers, aside) and its single
# sync thread may open theirs meanwhile: fewer than this.
ITS_OWN = 10


@pytest.fixture
def own_database(scale_database_url):
    """A database that only the server under test connects to: its backends are the server's."""
    with fresh_postgres_database(scale_database_url, "tessera_requests") as database:
        yield database


def backends(admin, name):
    return admin.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = %s",
                         [name]).fetchone()[0]


def ask(server):
    """A page that reads the database (a game that does not exist: 404)."""
    try:
        urllib.request.urlopen(f"{server.url}/game/999999/analysis.json", timeout=WAIT).read()
    except urllib.error.HTTPError as error:
        assert error.code == 404, error


def test_http_requests_leave_no_database_connection_open(site_servers, own_database):
    url, name, admin = own_database
    server = site_servers(url)
    ask(server)
    before = backends(admin, name)
    for _ in range(REQUESTS):
        ask(server)
    # The last request's connection closes just after its answer went out.
    deadline = time.monotonic() + WAIT
    while backends(admin, name) - before >= ITS_OWN and time.monotonic() < deadline:
        time.sleep(0.1)
    assert backends(admin, name) - before < ITS_OWN, (before, backends(admin, name))
