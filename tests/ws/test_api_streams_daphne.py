"""The API's NDJSON streams on a real Daphne server (docs/api.md): the event stream hears a
challenge, its answer and the game's start; the game stream gives the snapshot, then each
action, and ends after the game's end; a token revoked behind the server's back (no news of
it: tests/ws/test_api_tokens_daphne.py has the tokens page's revocation, which ends a stream at
once) ends an open stream at the next keep-alive; a client that goes away leaves the server serving."""
import json

import pytest

from tests.ws.api_client import Api

PASSWORD = "api-streams-pass-5521"
CHALLENGE = {"game": "hadron", "hadron_size": 5, "time_kind": "untimed", "side": "first",
             "rated": "casual"}


@pytest.fixture(scope="module")
def server(module_site_servers):
    # A keep-alive a second: a revocation is heard within one.
    return module_site_servers(API_STREAM_KEEPALIVE="1")


def make_tokens(server, person, bot):
    """{"person": secret, "bot": secret, "bot_token_id": id}: a person with the play,
    challenge and read scopes; a bot account with the bot scope."""
    server.create_users([person, bot], PASSWORD)
    out = server.shell(
        "import json\nfrom django.contrib.auth import get_user_model\nfrom api import tokens\n"
        "User = get_user_model()\n"
        f"p, b = User.objects.get(username={person!r}), User.objects.get(username={bot!r})\n"
        "tokens.upgrade_to_bot(b)\n"
        "pt, ps = tokens.create(p, 'person', ['read', 'play', 'challenge'])\n"
        "bt, bs = tokens.create(b, 'engine', ['bot'])\n"
        "print(json.dumps({'person': ps, 'bot': bs, 'bot_token_id': bt.pk}))\n")
    return json.loads(out.strip().splitlines()[-1])


def revoke(server, token_id):
    server.shell("from django.utils import timezone\nfrom api.models import ApiToken\n"
                 f"ApiToken.objects.filter(pk={token_id}).update(revoked_at=timezone.now())\n")


def test_the_event_and_game_streams_follow_a_challenge_and_its_game(server):
    secrets = make_tokens(server, "streamer", "streambot")
    person, bot = Api(server, secrets["person"]), Api(server, secrets["bot"])
    events = bot.stream("/stream/event")
    try:
        assert events.status == 200 and events.content_type == "application/x-ndjson"
        person.ok("POST", "/challenges", {**CHALLENGE, "opponent": "streambot"})
        added = events.until(lambda line: line["type"] == "challenge_added")
        assert added["challenge"]["from"] == "streamer"
        started = bot.ok("POST", f"/challenges/{added['challenge']['id']}/accept")
        game_id = started["game_id"]
        # The game's first `turn` and the challenge's removal, in either order.
        heard = [events.next(), events.next()]
        assert {line["type"] for line in heard} == {"turn", "challenge_removed"}, heard
        turn = next(line for line in heard if line["type"] == "turn")
        assert (turn["game_id"], turn["over"]) == (game_id, False)

        game = bot.stream(f"/stream/game/{game_id}")
        try:
            first = game.next()
            assert first["type"] == "snapshot" and first["game"]["id"] == game_id
            person.ok("POST", f"/games/{game_id}/play", {"ply": 0, "action": "a1"})
            action = game.until(lambda line: line["type"] == "action")
            assert (action["ply"], action["action"]) == (0, "a1")
            bot.ok("POST", f"/games/{game_id}/resign", {"ply": 1})
            assert game.until(lambda line: line["type"] == "end")["result"]["winner"] == 0
            assert game.next() is None  # the game stream ends with its game
        finally:
            game.close()
        over = events.until(lambda line: line["type"] == "turn" and line["over"])
        assert over["game_id"] == game_id
        # A game already over: its snapshot, and the end of the stream.
        again = bot.stream(f"/stream/game/{game_id}")
        assert again.next()["game"]["status"] != "active"
        assert again.next() is None
        again.close()
    finally:
        events.close()


def test_a_revoked_token_ends_an_open_stream(server):
    secrets = make_tokens(server, "revoker", "revokedbot")
    bot = Api(server, secrets["bot"])
    events = bot.stream("/stream/event")
    try:
        assert events.status == 200
        assert events.next(deadline_s=5, keep_alive=True) == ""  # open, and keeping alive
        revoke(server, secrets["bot_token_id"])
        assert events.next(deadline_s=5) is None
    finally:
        events.close()
    assert bot.call("GET", "/account")[0] == 401


def test_a_client_that_goes_leaves_the_server_serving(server):
    secrets = make_tokens(server, "leaver", "leaverbot")
    person = Api(server, secrets["person"])
    for _ in range(3):
        gone = Api(server, secrets["bot"]).stream("/stream/event")
        assert gone.status == 200
        gone.close()
    # News for the channel the closed streams had: nobody there, nothing breaks.
    person.ok("POST", "/challenges", {**CHALLENGE, "opponent": "leaverbot"})
    events = Api(server, secrets["bot"]).stream("/stream/event")
    try:
        assert events.until(lambda line: line["type"] == "challenge_added")
    finally:
        events.close()
    assert "Traceback" not in server.log()


def test_streams_refuse_as_every_endpoint(server):
    secrets = make_tokens(server, "refused", "refusedbot")
    for path, code, status in (("/stream/game/999999", "not_found", 404),):
        refused = Api(server, secrets["bot"]).stream(path)
        assert refused.status == status
        refused.close()
    bad = Api(server, "tsr_not-a-token").stream("/stream/event")
    assert bad.status == 401
    bad.close()
