"""The short way in for the API's game actions made with a token (api.door), through the
site's real ASGI application: the same checks, codes and answer as through Django, a token
revoked behind the server's back refused at the very next action although this process
keeps a copy of it, and the body limit."""
import json

import pytest
from asgiref.sync import sync_to_async
from channels.testing import HttpCommunicator
from django.utils import timezone

from api import tokens
from api.door import takes
from api.models import ApiToken, BotAccount
from play.models import Action
from tests.ws.sockets import application, run

pytestmark = pytest.mark.django_db(transaction=True)


async def post(path, secret, body):
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    answer = await HttpCommunicator(
        application(), "POST", path, body=data,
        headers=[(b"authorization", f"Bearer {secret}".encode()),
                 (b"content-type", b"application/json"),
                 (b"content-length", str(len(data)).encode())]).get_response(timeout=10)
    return answer["status"], dict(answer["headers"]), json.loads(answer["body"])


def test_the_door_takes_only_token_posts_of_the_game_actions():
    def scope(method="POST", path="/api/v1/games/7/play", header=b"Bearer tsr_x"):
        return {"type": "http", "method": method, "path": path,
                "headers": [(b"authorization", header)] if header else []}

    assert takes(scope()) and takes(scope(path="/api/v1/games/7/resign"))
    assert takes(scope(path="/api/v1/games/7/abort", header=b"bearer tsr_x"))
    for other in (scope(method="GET"), scope(path="/api/v1/games/7/chat"),
                  scope(path="/api/v1/games/7/play/"), scope(path="/api/v1/account"),
                  scope(header=None), scope(header=b"Basic eDp5")):
        assert not takes(other), other


def test_a_bot_plays_and_resigns_through_the_door(users, new_game):
    alice, bob = users("alice", "bob")
    BotAccount.objects.create(user=alice)
    game = new_game([alice, bob], "hadron", {"size": 5})
    _, secret = tokens.create(alice, "bot", ["bot"])
    _, persons = tokens.create(bob, "play", ["play"])
    path = f"/api/v1/games/{game.pk}"

    async def scenario():
        status, headers, answer = await post(f"{path}/play", secret, {"ply": 0, "action": "a1"})
        assert status == 200, answer
        assert answer["repeat"] is False and answer["game"]["id"] == game.pk
        assert answer["game"]["status"] == "active" and answer["game"]["state"]["ply"] == 1
        assert answer["game"]["result"] is None and "remaining_ms" in answer["game"]["clocks"]
        # The security headers Django's middleware gives every answer.
        assert headers[b"X-Content-Type-Options"] == b"nosniff"
        status, _, answer = await post(f"{path}/play", secret, {"ply": 0, "action": "a1"})
        assert status == 200 and answer["repeat"] is True
        status, _, answer = await post(f"{path}/play", secret, {"ply": 1, "action": "b2"})
        assert (status, answer["error"]) == (409, "not_your_turn")
        status, _, answer = await post(f"{path}/play", persons, {"ply": 1, "action": "a1"})
        assert (status, answer["error"]) == (422, "illegal")
        status, _, answer = await post(f"{path}/play", secret, {"ply": "1", "action": "b2"})
        assert (status, answer["error"]) == (400, "bad_message")
        status, _, answer = await post(f"{path}/play", secret, b"{not json")
        assert (status, answer["error"]) == (400, "bad_json")
        status, _, answer = await post("/api/v1/games/999999/play", secret,
                                       {"ply": 0, "action": "a1"})
        assert (status, answer["error"]) == (404, "not_found")
        status, _, answer = await post(f"{path}/resign", persons, {"ply": 1})
        assert status == 200 and answer["game"]["status"] == "finished"
        assert answer["game"]["result"]["winner"] == 0

    run(scenario)
    assert list(Action.objects.values_list("ply", "action")) == [(0, "a1")]


def test_a_token_revoked_behind_the_servers_back_fails_at_the_next_action(users, new_game):
    """The door keeps a copy of the token in the process (api.tokens.kept), and the action's
    own job reads whether it still holds: no news of the revocation is needed."""
    alice, bob = users("alice", "bob")
    game = new_game([alice, bob], "hadron", {"size": 5})
    token, secret = tokens.create(alice, "player", ["play"])
    _, bobs = tokens.create(bob, "player", ["play"])
    path = f"/api/v1/games/{game.pk}/play"

    def revoke_behind_the_servers_back():
        ApiToken.objects.filter(pk=token.pk).update(revoked_at=timezone.now())

    async def scenario():
        assert (await post(path, secret, {"ply": 0, "action": "a1"}))[0] == 200
        assert tokens.kept(secret)[1] is not None
        assert (await post(path, bobs, {"ply": 1, "action": "b2"}))[0] == 200
        await sync_to_async(revoke_behind_the_servers_back)()
        status, _, answer = await post(path, secret, {"ply": 2, "action": "c3"})
        assert (status, answer["error"]) == (401, "bad_token")
        assert tokens.kept(secret)[1] is None

    run(scenario)
    assert Action.objects.filter(game=game).count() == 2


def test_a_read_token_and_an_oversized_body_are_refused_at_the_door(users, new_game, settings):
    alice, bob = users("alice", "bob")
    game = new_game([alice, bob], "hadron", {"size": 5})
    _, reader = tokens.create(alice, "read", ["read"])
    _, player = tokens.create(alice, "play", ["play"])
    path = f"/api/v1/games/{game.pk}/play"

    async def scenario():
        status, _, answer = await post(path, reader, {"ply": 0, "action": "a1"})
        assert (status, answer["error"]) == (403, "scope_required")
        big = json.dumps({"ply": 0, "action": "a1", "pad": "x" * 20_000}).encode()
        status, _, answer = await post(path, player, big)
        assert (status, answer["error"]) == (413, "too_large")
        status, _, answer = await post(path, "tsr_nobody", {"ply": 0, "action": "a1"})
        assert (status, answer["error"]) == (401, "bad_token")

    run(scenario)
    assert not Action.objects.exists()
