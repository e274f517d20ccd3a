"""A log-out on one server process closes the sockets of that session on the other
(live.sessions: the account's channel-layer group, through Redis)."""
import asyncio
import re
import urllib.parse
import urllib.request

import pytest

from tests.ws.live_client import LiveSocket, WebSession
from tests.ws.messages import WAIT

pytestmark = pytest.mark.scale

PASSWORD = "scale-session-pass-5581"


def log_out(session):
    """The header's log-out button: a form post with the CSRF token."""
    page = session.opener.open(session.server.url + "/", timeout=WAIT).read().decode()
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)[1]
    data = urllib.parse.urlencode({"csrfmiddlewaretoken": token}).encode()
    session.opener.open(session.server.url + "/accounts/logout/", data, timeout=WAIT).read()


def test_a_log_out_on_one_server_closes_the_sessions_socket_on_the_other(scale_servers):
    first, second = scale_servers
    first.create_users(["quitter", "stayer"], PASSWORD)
    path = first.manage("startgame", "hadron", "quitter", "stayer",
                        "--option", "size=5").stdout.strip()
    web = WebSession(first)
    web.log_in("quitter", PASSWORD)
    closed = {}

    async def scenario():
        tab = LiveSocket(second, path, session=web.cookie("sessionid"), name="quitter")
        game = await tab.open()
        assert game["you"] == 0
        await asyncio.get_running_loop().run_in_executor(None, log_out, web)
        await asyncio.wait_for(tab.ws.wait_closed(), WAIT)
        closed["code"] = tab.ws.close_code

    asyncio.run(scenario())
    assert closed["code"] == 4001
