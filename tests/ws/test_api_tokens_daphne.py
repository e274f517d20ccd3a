"""A personal API token on a real Daphne server's websockets (docs/api.md, "Which transport
does what"): a bot account plays on the game socket with its bot token, a read token watches,
and revoking the token on the tokens page closes at once its open socket and its NDJSON
streams, long before their next keep-alive."""
import asyncio
import json
import re
import urllib.parse
import urllib.request

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

import games
from tests.ws.api_client import Api
from tests.ws.live_client import WebSession
from tests.ws.messages import WAIT
from tests.ws.sockets import run
from tests.ws.test_api_streams_daphne import PASSWORD, make_tokens

CHALLENGE = {"game": "hadron", "hadron_size": 5, "time_kind": "untimed", "side": "first",
             "rated": "casual"}


@pytest.fixture(scope="module")
def server(module_site_servers):
    # A keep-alive a minute: what ends a stream within seconds is the revocation's news.
    return module_site_servers(API_STREAM_KEEPALIVE="60")


async def token_socket(server, path, secret):
    """A program's socket: the token in the header, no cookie, no Origin."""
    return await connect(server.ws_url + path, open_timeout=WAIT,
                         additional_headers={"Authorization": f"Bearer {secret}"})


async def next_of(ws, kind):
    while True:
        message = json.loads(await asyncio.wait_for(ws.recv(), WAIT))
        if message["type"] == kind:
            return message


def revoke_on_the_page(server, username, token_id):
    """The owner revokes the token on Settings -> API tokens, as a person would."""
    session = WebSession(server)
    session.log_in(username, PASSWORD)
    page = session.opener.open(server.url + "/accounts/tokens/", timeout=WAIT).read().decode()
    csrf = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)[1]
    data = urllib.parse.urlencode({"csrfmiddlewaretoken": csrf}).encode()
    with session.opener.open(urllib.request.Request(
            f"{server.url}/accounts/tokens/{token_id}/revoke/", data=data), timeout=WAIT) as done:
        assert "The token is revoked." in done.read().decode()


def legal_action(game):
    state = games.get(game["game"]).replay(game["options"], game["actions"])
    return state.legal_actions()[0]


def test_a_bot_plays_on_the_socket_and_a_revocation_closes_its_socket_and_streams(server):
    secrets = make_tokens(server, "socketfan", "socketbot")
    person, bot = Api(server, secrets["person"]), Api(server, secrets["bot"])
    challenge = person.ok("POST", "/challenges", {**CHALLENGE, "opponent": "socketbot"})
    game_id = bot.ok("POST", f"/challenges/{challenge['challenge']['id']}/accept")["game_id"]
    events, game_stream = bot.stream("/stream/event"), bot.stream(f"/stream/game/{game_id}")
    played = []

    async def scenario():
        ws = await token_socket(server, f"/ws/game/{game_id}/", secrets["bot"])
        try:
            snapshot = (await next_of(ws, "snapshot"))["game"]
            assert snapshot["you"] == 1
            await asyncio.to_thread(person.ok, "POST", f"/games/{game_id}/play",
                                    {"ply": 0, "action": "a1"})
            assert (await next_of(ws, "action"))["action"] == "a1"
            game = await asyncio.to_thread(person.ok, "GET", f"/games/{game_id}")
            reply = legal_action(game)
            await ws.send(json.dumps({"type": "play", "ply": 1, "action": reply}))
            assert (await next_of(ws, "action"))["action"] == reply
            played.extend(["a1", reply])

            await asyncio.to_thread(revoke_on_the_page, server, "socketbot",
                                    secrets["bot_token_id"])
            with pytest.raises(ConnectionClosed) as closed:
                while True:
                    await asyncio.wait_for(ws.recv(), WAIT)
            assert closed.value.rcvd.code == 4001
        finally:
            await ws.close()

    try:
        run(scenario)
        # Both streams end on the revocation's news (their keep-alive is a minute away):
        # what they said before it, then the end.
        for stream in (events, game_stream):
            while stream.next(deadline_s=WAIT) is not None:
                pass
    finally:
        events.close()
        game_stream.close()
    assert person.ok("GET", f"/games/{game_id}")["actions"] == played
    assert bot.call("GET", "/account")[0] == 401

    async def again():
        with pytest.raises(InvalidStatus) as refused:
            await token_socket(server, f"/ws/game/{game_id}/", secrets["bot"])
        assert refused.value.response.status_code == 403

    run(again)


def test_a_read_token_watches_on_the_socket_and_may_not_play(server):
    secrets = make_tokens(server, "watchfan", "watchbot")
    person = Api(server, secrets["person"])
    challenge = person.ok("POST", "/challenges", {**CHALLENGE, "opponent": "watchbot"})
    game_id = Api(server, secrets["bot"]).ok(
        "POST", f"/challenges/{challenge['challenge']['id']}/accept")["game_id"]
    reader = server.shell(
        "from django.contrib.auth import get_user_model\nfrom api import tokens\n"
        "user = get_user_model().objects.get(username='watchfan')\n"
        "print(tokens.create(user, 'reader', ['read'])[1])\n").strip().splitlines()[-1]

    async def scenario():
        ws = await token_socket(server, f"/ws/game/{game_id}/", reader)
        try:
            assert (await next_of(ws, "snapshot"))["game"]["you"] == 0
            await ws.send(json.dumps({"type": "play", "ply": 0, "action": "a1"}))
            assert (await next_of(ws, "error"))["code"] == "scope_required"
        finally:
            await ws.close()

    run(scenario)
    assert person.ok("GET", f"/games/{game_id}")["actions"] == []
