"""Personal API tokens, bot accounts and /api/v1/ through Django's test client: every endpoint's
success and refusal paths, scopes, CSRF, and bad input answered with a JSON error that changes
nothing."""
import json

import pytest
from django.urls import URLPattern, URLResolver, get_resolver

from api import tokens
from api.models import ApiToken, BotAccount
from play import services as play_services
from play.models import Action, Game
from tests.site.played import finished, start

pytestmark = pytest.mark.django_db
# The game actions (play, resign, abort) run as the game socket's do: on the live path's
# database threads (live.lanes), each with its own connection, which sees only committed
# rows: their tests commit (a transaction test case) instead of running in one transaction.
acts = pytest.mark.django_db(transaction=True)

ALL = ["read", "play", "challenge"]


def bearer(secret):
    return {"HTTP_AUTHORIZATION": f"Bearer {secret}"}


def token_for(user, scopes=ALL, name="test"):
    return tokens.create(user, name, scopes)[1]


def call(client, method, path, secret=None, body=None, **extra):
    headers = bearer(secret) if secret else {}
    headers.update(extra)
    if body is None:
        return getattr(client, method)(path, **headers)
    data = body if isinstance(body, (str, bytes)) else json.dumps(body)
    return getattr(client, method)(path, data=data, content_type="application/json", **headers)


def refused(response, status, code):
    assert response.status_code == status, response.content
    assert response["Content-Type"].startswith("application/json")
    assert response.json()["error"] == code, response.json()
    return response.json()


# -- tokens ------------------------------------------------------------------------------------

def test_a_token_is_stored_hashed_and_shown_by_its_prefix_only(alice):
    token, secret = tokens.create(alice, "my bot", ["read"])
    assert secret.startswith("tsr_") and len(secret) > 40
    assert secret not in (token.digest, token.prefix) and secret.startswith(token.prefix)
    assert tokens.find(secret) == token
    assert tokens.find(secret + "x") is None


def test_the_tokens_page_creates_lists_and_revokes(client, alice):
    client.force_login(alice)
    made = client.post("/accounts/tokens/", {"name": "my bot", "scopes": ["read", "play"]})
    assert made.status_code == 200 and made["Cache-Control"] == "no-store"
    token = ApiToken.objects.get(user=alice)
    secret = made.context["secret"]
    assert tokens.find(secret) == token and sorted(token.scopes) == ["play", "read"]
    page = client.get("/accounts/tokens/").content.decode()
    assert token.prefix in page and secret not in page and "never" in page
    assert call(client, "get", "/api/v1/account", secret).status_code == 200
    client.post(f"/accounts/tokens/{token.pk}/revoke/")
    # Revoked: refused at once, on the very next request.
    refused(call(client, "get", "/api/v1/account", secret), 401, "bad_token")
    assert ApiToken.objects.get(pk=token.pk).is_revoked


def test_a_token_made_to_expire_stops_working_by_itself(client, alice):
    from datetime import timedelta

    from django.utils import timezone

    client.force_login(alice)
    made = client.post("/accounts/tokens/", {"name": "a month", "scopes": ["read"],
                                             "days": "30"})
    token, secret = ApiToken.objects.get(user=alice), made.context["secret"]
    assert timedelta(days=29) < token.expires_at - timezone.now() <= timedelta(days=30)
    assert call(client, "get", "/api/v1/account", secret).status_code == 200
    assert tokens.holds(token.pk)
    ApiToken.objects.filter(pk=token.pk).update(expires_at=timezone.now())
    refused(call(client, "get", "/api/v1/account", secret), 401, "bad_token")
    assert not tokens.holds(token.pk)
    assert "(expired)" in client.get("/accounts/tokens/").content.decode()
    # Unless chosen, a token lasts until it is revoked.
    client.post("/accounts/tokens/", {"name": "for good", "scopes": ["read"]})
    assert ApiToken.objects.get(name="for good").expires_at is None
    odd = client.post("/accounts/tokens/", {"name": "odd", "scopes": ["read"], "days": "7"})
    assert odd.status_code == 400 and not ApiToken.objects.filter(name="odd").exists()


def test_the_tokens_page_needs_a_csrf_token(alice):
    from django.test import Client

    strict = Client(enforce_csrf_checks=True)
    strict.force_login(alice)
    assert strict.post("/accounts/tokens/", {"name": "x", "scopes": ["read"]}).status_code == 403
    assert not ApiToken.objects.exists()


def test_nobody_revokes_another_players_token(client, alice, bob):
    token, secret = tokens.create(alice, "mine", ["read"])
    client.force_login(bob)
    client.post(f"/accounts/tokens/{token.pk}/revoke/")
    assert call(client, "get", "/api/v1/account", secret).status_code == 200


def test_a_token_needs_a_scope_and_only_a_bot_gets_bot_play(client, alice):
    client.force_login(alice)
    assert client.post("/accounts/tokens/", {"name": "x", "scopes": []}).status_code == 400
    assert client.post("/accounts/tokens/", {"name": "x", "scopes": ["bot"]}).status_code == 400
    with pytest.raises(tokens.TokenError):
        tokens.create(alice, "x", ["bot"])
    assert not ApiToken.objects.exists()


def test_last_use_is_recorded(client, alice):
    token, secret = tokens.create(alice, "mine", ["read"])
    assert token.last_used_at is None
    call(client, "get", "/api/v1/account", secret)
    assert ApiToken.objects.get(pk=token.pk).last_used_at is not None


def test_a_token_over_its_rate_gets_429_with_retry_after(client, alice, settings):
    settings.API_TOKEN_RATE = "3/m"
    secret = token_for(alice)
    for _ in range(3):
        assert call(client, "get", "/api/v1/account", secret).status_code == 200
    over = call(client, "get", "/api/v1/account", secret)
    refused(over, 429, "rate_limited")
    assert 1 <= int(over["Retry-After"]) <= 60
    # Another token of the same player has its own count.
    assert call(client, "get", "/api/v1/account", token_for(alice)).status_code == 200


# -- authentication and CSRF -------------------------------------------------------------------

def test_no_credentials_or_a_bad_token_is_refused(client):
    refused(call(client, "get", "/api/v1/account"), 401, "login_required")
    refused(call(client, "get", "/api/v1/account", "tsr_nothing"), 401, "bad_token")


def test_the_token_is_never_read_from_the_url(client, alice):
    secret = token_for(alice)
    refused(client.get(f"/api/v1/account?token={secret}&access_token={secret}"),
            401, "login_required")


@acts
def test_cookie_requests_need_csrf_and_token_requests_do_not(alice, bob):
    from django.test import Client

    game = start(alice, bob)
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(alice)
    assert strict.get("/api/v1/account").json()["username"] == "alice"
    refused(call(strict, "post", f"/api/v1/games/{game.pk}/play", body={"ply": 0, "action": "a1"}),
            403, "csrf_failed")
    assert not Action.objects.exists()
    token_client = Client(enforce_csrf_checks=True)
    played = call(token_client, "post", f"/api/v1/games/{game.pk}/play", token_for(alice),
                  body={"ply": 0, "action": "a1"})
    assert played.status_code == 200 and played.json()["game"]["state"]["ply"] == 1


# -- account and games -------------------------------------------------------------------------

def test_account(client, alice):
    answer = call(client, "get", "/api/v1/account", token_for(alice, ["read"])).json()
    assert answer == {"id": alice.pk, "username": "alice", "bot": False, "scopes": ["read"]}


def test_a_players_games_with_filters_and_pages(client, alice, bob, carol):
    for seed in range(3):
        finished("hadron", (alice, bob), seed=seed)
    finished("copolymer", (carol, alice))
    finished("hadron", (bob, carol))
    secret = token_for(carol, ["read"])
    everything = call(client, "get", "/api/v1/players/alice/games", secret).json()
    assert everything["count"] == 4 and everything["page"] == 1
    assert all("alice" in g["players"] for g in everything["games"])
    hadron = call(client, "get", "/api/v1/players/alice/games?game=hadron", secret).json()
    assert hadron["count"] == 3 and {g["game"] for g in hadron["games"]} == {"hadron"}
    refused(call(client, "get", "/api/v1/players/alice/games?game=chess", secret),
            400, "bad_message")
    refused(call(client, "get", "/api/v1/players/alice/games?page=0", secret), 400, "bad_message")
    refused(call(client, "get", "/api/v1/players/alice/games?page=x", secret), 400, "bad_message")
    refused(call(client, "get", "/api/v1/players/nobody/games", secret), 404, "not_found")


def test_the_games_in_progress(client, alice, bob, carol):
    mine = start(alice, bob)
    start(bob, carol)
    finished("hadron", (alice, carol))
    answer = call(client, "get", "/api/v1/account/playing", token_for(alice, ["play"])).json()
    assert [game["id"] for game in answer["games"]] == [mine.pk]
    assert answer["games"][0]["players"] == ["alice", "bob"]
    refused(call(client, "get", "/api/v1/account/playing", token_for(alice, ["challenge"])),
            403, "scope_required")


def test_a_game_and_its_export(client, alice, bob):
    game = finished("hadron", (alice, bob))
    secret = token_for(alice, ["read"])
    state = call(client, "get", f"/api/v1/games/{game.pk}", secret).json()
    assert state["id"] == game.pk and state["status"] == "finished"
    text = call(client, "get", f"/api/v1/games/{game.pk}/export?format=txt", secret)
    assert text["Content-Type"].startswith("text/plain")
    assert text.content.decode() == client.get(f"/game/{game.pk}/record.txt").content.decode()
    record = call(client, "get", f"/api/v1/games/{game.pk}/export?format=json", secret)
    assert json.loads(record.content)["game"] == "hadron"
    refused(call(client, "get", f"/api/v1/games/{game.pk}/export?format=gif", secret),
            400, "bad_message")
    refused(call(client, "get", "/api/v1/games/999999", secret), 404, "not_found")
    refused(call(client, "get", "/api/v1/games/999999/export", secret), 404, "not_found")


def test_reading_needs_the_read_scope(client, alice, bob):
    game = finished("hadron", (alice, bob))
    secret = token_for(alice, ["challenge"])
    refused(call(client, "get", f"/api/v1/games/{game.pk}/export", secret), 403, "scope_required")
    refused(call(client, "get", "/api/v1/players/alice/games", secret), 403, "scope_required")


# -- game actions ------------------------------------------------------------------------------

@acts
def test_play_resign_through_the_api(client, alice, bob):
    game = start(alice, bob)
    a, b = token_for(alice, ["play"]), token_for(bob, ["play"])
    assert call(client, "post", f"/api/v1/games/{game.pk}/play", a,
                body={"ply": 0, "action": "a1"}).json()["repeat"] is False
    assert call(client, "post", f"/api/v1/games/{game.pk}/play", a,
                body={"ply": 0, "action": "a1"}).json()["repeat"] is True
    refused(call(client, "post", f"/api/v1/games/{game.pk}/play", a,
                 body={"ply": 1, "action": "b2"}), 409, "not_your_turn")
    refused(call(client, "post", f"/api/v1/games/{game.pk}/play", b,
                 body={"ply": 1, "action": "a1"}), 422, "illegal")
    refused(call(client, "post", f"/api/v1/games/{game.pk}/play", b,
                 body={"ply": 5, "action": "b2"}), 409, "stale")
    assert call(client, "post", f"/api/v1/games/{game.pk}/play", b,
                body={"ply": 1, "action": "b2"}).status_code == 200
    # Both have acted: too late to abort.
    refused(call(client, "post", f"/api/v1/games/{game.pk}/abort", a, body={"ply": 2}),
            409, "not_allowed")
    refused(call(client, "post", f"/api/v1/games/{game.pk}/resign", a, body={"ply": 1}),
            409, "stale")
    ended = call(client, "post", f"/api/v1/games/{game.pk}/resign", a, body={"ply": 2}).json()
    assert ended["game"]["status"] == "finished"
    assert Game.objects.get(pk=game.pk).winner == 1
    refused(call(client, "post", f"/api/v1/games/{game.pk}/play", a,
                 body={"ply": 2, "action": "c3"}), 409, "game_over")


@acts
def test_abort_through_the_api(client, alice, bob):
    game = start(alice, bob)
    answer = call(client, "post", f"/api/v1/games/{game.pk}/abort", token_for(bob, ["play"]),
                  body={"ply": 0})
    assert answer.status_code == 200 and answer.json()["game"]["status"] == "aborted"


def test_chat_through_the_api(client, alice, bob, carol, settings):
    """The socket's `chat`, through talk.services: a player writes in the players' room, a
    spectator in the spectators'; a read token, a bad text and a burst are refused with the
    socket's codes, and store nothing."""
    from talk import services as talk_services
    from talk.models import ChatLine

    game = start(alice, bob)
    path = f"/api/v1/games/{game.pk}/chat"
    answer = call(client, "post", path, token_for(alice, ["play"]), body={"text": " good luck "})
    assert answer.status_code == 200, answer.content
    assert [line["text"] for line in answer.json()["game"]["chat"]] == ["good luck"]
    call(client, "post", path, token_for(carol, ["play"]), body={"text": "go bob"})
    assert dict(ChatLine.objects.values_list("text", "room")) == {
        "good luck": talk_services.PLAYERS, "go bob": talk_services.SPECTATORS}
    refused(call(client, "post", path, token_for(bob, ["read"]), body={"text": "hi"}),
            403, "scope_required")
    for text in ("", "two\nlines", "x" * 141):
        refused(call(client, "post", path, token_for(bob, ["play"]), body={"text": text}),
                400, "bad_message")
    refused(call(client, "post", path, token_for(bob, ["play"]), body={"text": 3}),
            400, "bad_message")
    bobs = token_for(bob, ["play"])
    for number in range(talk_services.BURST):
        assert call(client, "post", path, bobs, body={"text": f"line {number}"}).status_code == 200
    refused(call(client, "post", path, bobs, body={"text": "one more"}), 429,
            "chat_rate_limited")
    assert ChatLine.objects.count() == 2 + talk_services.BURST
    refused(call(client, "post", "/api/v1/games/999999/chat", bobs, body={"text": "hi"}),
            404, "not_found")


@acts
def test_a_read_token_cannot_play(client, alice, bob):
    game = start(alice, bob)
    refused(call(client, "post", f"/api/v1/games/{game.pk}/play", token_for(alice, ["read"]),
                 body={"ply": 0, "action": "a1"}), 403, "scope_required")
    assert not Action.objects.exists()


def test_no_token_reads_another_players_premove(client, alice, bob, carol):
    """A game's state through the API is the caller's own snapshot: a player's queued premove
    is theirs alone, whatever the other players' or spectators' tokens' scopes."""
    from play import premoves
    from play.clock import TimeControl

    game = start(alice, bob, tc=TimeControl.realtime(5))
    play_services.play(game.pk, alice, 0, "a1")
    premoves.queue(game.pk, alice, 1, ["c3"])
    path = f"/api/v1/games/{game.pk}"
    assert call(client, "get", path, token_for(alice, ["read"])).json()["premove"] == {
        "ply": 1, "actions": ["c3"]}
    for user in (bob, carol):
        seen = call(client, "get", path, token_for(user, ["read", "play", "challenge"]))
        assert seen.status_code == 200 and seen.json()["premove"] is None, seen.json()


@acts
def test_nobody_acts_in_another_players_game(client, alice, bob, carol):
    game = start(alice, bob)
    secret = token_for(carol, ["play"])
    for action, body in (("play", {"ply": 0, "action": "a1"}), ("resign", {"ply": 0}),
                         ("abort", {"ply": 0})):
        refused(call(client, "post", f"/api/v1/games/{game.pk}/{action}", secret, body=body),
                403, "not_a_player")
    game = Game.objects.get(pk=game.pk)
    assert game.status == "active" and game.ply_count == 0


@acts
@pytest.mark.parametrize("body, code", [
    ("{not json", "bad_json"),
    ("[1, 2]", "bad_message"),
    ({"ply": "0", "action": "a1"}, "bad_message"),
    ({"ply": -1, "action": "a1"}, "bad_message"),
    ({"ply": 0, "action": ""}, "bad_message"),
    ({"ply": 0, "action": "a" * 33}, "bad_message"),
    ({"action": "a1"}, "bad_message"),
])
def test_bad_bodies_are_refused_and_change_nothing(client, alice, bob, body, code):
    game = start(alice, bob)
    refused(call(client, "post", f"/api/v1/games/{game.pk}/play", token_for(alice), body=body),
            400, code)
    assert not Action.objects.exists()


@acts
def test_an_oversized_body_is_refused(client, alice, bob):
    game = start(alice, bob)
    body = json.dumps({"ply": 0, "action": "a1", "pad": "x" * 20_000})
    refused(call(client, "post", f"/api/v1/games/{game.pk}/play", token_for(alice), body=body),
            413, "too_large")
    assert not Action.objects.exists()


def test_unknown_endpoints_and_wrong_methods_answer_json(client, alice):
    secret = token_for(alice)
    refused(call(client, "get", "/api/v1/nothing-here", secret), 404, "not_found")
    refused(call(client, "get", "/api/v2/account", secret), 404, "not_found")
    wrong = call(client, "delete", "/api/v1/account", secret)
    refused(wrong, 405, "method_not_allowed")
    refused(call(client, "get", "/api/v1/games/1/play", secret), 405, "method_not_allowed")


# -- seeks -------------------------------------------------------------------------------------

SEEK = {"game": "hadron", "hadron_size": 5, "time_kind": "untimed", "side": "first",
        "rated": "casual"}


def test_seeks_open_list_take_and_cancel(client, alice, bob, carol):
    from lobby.models import Seek

    a, b, c = (token_for(user, ["challenge"]) for user in (alice, bob, carol))
    made = call(client, "post", "/api/v1/seeks", a, body=SEEK)
    assert made.status_code == 201, made.content
    seek_id = made.json()["seek"]["id"]
    listed = call(client, "get", "/api/v1/seeks", b).json()["seeks"]
    assert [(s["id"], s["owner"], s["out_of_range"]) for s in listed] == [(seek_id, "alice", False)]
    refused(call(client, "post", f"/api/v1/seeks/{seek_id}/accept", a), 400, "bad_message")
    refused(call(client, "post", f"/api/v1/seeks/{seek_id}/cancel", b), 403, "not_allowed")
    started = call(client, "post", f"/api/v1/seeks/{seek_id}/accept", b).json()
    game = Game.objects.get(pk=started["game_id"])
    assert (game.player0, game.player1, game.rated) == (alice, bob, False)
    refused(call(client, "post", f"/api/v1/seeks/{seek_id}/accept", c), 409, "conflict")
    refused(call(client, "post", f"/api/v1/seeks/{seek_id}/cancel", a), 409, "conflict")
    refused(call(client, "post", "/api/v1/seeks/999999/accept", c), 404, "not_found")

    second = call(client, "post", "/api/v1/seeks", a, body=SEEK).json()["seek"]["id"]
    cancelled = call(client, "post", f"/api/v1/seeks/{second}/cancel", a)
    assert cancelled.status_code == 200 and cancelled.json()["seek"]["status"] == "cancelled"
    assert Seek.objects.filter(status=Seek.Status.OPEN).count() == 0


def test_seeks_need_their_scope_and_valid_fields(client, alice, bob, settings):
    from lobby.models import Seek

    refused(call(client, "post", "/api/v1/seeks", token_for(alice, ["read", "play"]),
                 body=SEEK), 403, "scope_required")
    refused(call(client, "get", "/api/v1/seeks", token_for(alice, ["read"])), 403,
            "scope_required")
    refused(call(client, "post", "/api/v1/seeks", token_for(alice, ["challenge"]),
                 body={**SEEK, "game": "chess"}), 400, "bad_message")
    refused(call(client, "post", "/api/v1/seeks", token_for(alice, ["challenge"]),
                 body="{oops"), 400, "bad_json")
    # A bot account's rated seek, with the operator's BOT_ACCOUNTS_RATED off.
    settings.BOT_ACCOUNTS_RATED = False
    BotAccount.objects.create(user=bob)
    refused(call(client, "post", "/api/v1/seeks", token_for(bob, ["bot"]),
                 body={**SEEK, "rated": "rated"}), 400, "bad_message")
    assert not Seek.objects.exists()
    assert call(client, "post", "/api/v1/seeks", token_for(bob, ["bot"]),
                body=SEEK).status_code == 201


# -- challenges --------------------------------------------------------------------------------

CHALLENGE = {"opponent": "bob", "game": "hadron", "hadron_size": 5, "time_kind": "untimed",
             "side": "first", "rated": "casual"}


def test_challenge_accept(client, alice, bob):
    a, b = token_for(alice, ["challenge"]), token_for(bob, ["challenge"])
    made = call(client, "post", "/api/v1/challenges", a, body=CHALLENGE)
    assert made.status_code == 201, made.content
    challenge_id = call(client, "get", "/api/v1/challenges", b).json()["challenges"][0]["id"]
    refused(call(client, "post", f"/api/v1/challenges/{challenge_id}/accept", a), 403,
            "not_allowed")
    started = call(client, "post", f"/api/v1/challenges/{challenge_id}/accept", b).json()
    game = Game.objects.get(pk=started["game_id"])
    assert game.players() == (alice, bob)
    refused(call(client, "post", f"/api/v1/challenges/{challenge_id}/decline", b), 409, "conflict")


def test_challenge_decline_and_cancel(client, alice, bob):
    a, b = token_for(alice, ["challenge"]), token_for(bob, ["challenge"])
    first = call(client, "post", "/api/v1/challenges", a, body=CHALLENGE).json()["challenge"]
    assert call(client, "post", f"/api/v1/challenges/{first['id']}/decline", b).status_code == 200
    second = call(client, "post", "/api/v1/challenges", a, body=CHALLENGE).json()["challenge"]
    refused(call(client, "post", f"/api/v1/challenges/{second['id']}/cancel", b), 403,
            "not_allowed")
    assert call(client, "post", f"/api/v1/challenges/{second['id']}/cancel", a).status_code == 200
    refused(call(client, "post", "/api/v1/challenges/999999/accept", b), 404, "not_found")
    assert not Game.objects.exists()


def test_challenges_need_their_scope_and_valid_fields(client, alice, bob):
    refused(call(client, "post", "/api/v1/challenges", token_for(alice, ["read", "play"]),
                 body=CHALLENGE), 403, "scope_required")
    refused(call(client, "post", "/api/v1/challenges", token_for(alice, ["challenge"]),
                 body={**CHALLENGE, "opponent": "nobody"}), 400, "bad_message")
    refused(call(client, "post", "/api/v1/challenges", token_for(alice, ["challenge"]),
                 body={**CHALLENGE, "opponent": "alice"}), 400, "bad_message")
    from lobby.models import Challenge
    assert not Challenge.objects.exists()


# -- bot accounts ------------------------------------------------------------------------------

@acts
def test_a_fresh_account_becomes_a_bot_for_good(client, alice, bob):
    client.force_login(alice)
    refused_upgrade = client.post("/accounts/bot/", {})
    assert refused_upgrade.status_code == 400 and not BotAccount.objects.exists()
    client.post("/accounts/bot/", {"confirm": "on"})
    assert tokens.is_bot_account(alice)
    secret = token_for(alice, ["bot"])
    assert call(client, "get", "/api/v1/account", secret).json()["bot"] is True
    # It plays with a bot play token, never with its cookie.
    game = start(alice, bob)
    refused(call(client, "post", f"/api/v1/games/{game.pk}/play",
                 body={"ply": 0, "action": "a1"}), 403, "bot_account")
    refused(call(client, "post", f"/api/v1/games/{game.pk}/play", token_for(alice, ["play"]),
                 body={"ply": 0, "action": "a1"}), 403, "scope_required")
    assert call(client, "post", f"/api/v1/games/{game.pk}/play", secret,
                body={"ply": 0, "action": "a1"}).status_code == 200


def test_an_account_that_played_cannot_become_a_bot(client, alice, bob):
    finished("hadron", (alice, bob))
    client.force_login(alice)
    client.post("/accounts/bot/", {"confirm": "on"})
    assert not tokens.is_bot_account(alice)


def test_bot_accounts_are_kept_off_the_leaderboards(alice, bob):
    from ratings import leaderboard
    from ratings.models import Rating

    for user in (alice, bob):
        Rating.objects.create(user=user, game="hadron", games=50, rating=1600, deviation=50)
    BotAccount.objects.create(user=alice)
    assert [row.user for row in leaderboard.candidates("hadron")] == [bob]


def test_a_bot_account_has_the_bot_mark_beside_its_name_everywhere(client, alice, bob):
    """The computer players' mark (tests/site/test_computer_players.py), without a level."""
    client.force_login(bob)
    client.post("/accounts/bot/", {"confirm": "on"})
    done = finished("hadron", (alice, bob), seed=3)
    live = start(alice, bob)
    mark = '<span class="computer-mark" title="bot account">BOT</span>'
    client.force_login(alice)
    for page in (done.get_absolute_url(), live.get_absolute_url(), "/watch/", "/archive/",
                 f"/u/{alice.username}/", f"/u/{bob.username}/", "/"):
        text = client.get(page).content.decode()
        assert mark in text, page
        assert text.count("computer-mark\"") == text.count(mark), page  # alice has none
    # The pages' scripts draw it from the badge the JSON carries (static/js/ratings.js).
    players = play_services.snapshot_for(live.pk)["players"]
    assert [p["rating"].get("bot") for p in players] == [None, True]


def test_the_operator_keeps_bot_accounts_out_of_rated_games(client, alice, bob, settings):
    from lobby.models import Challenge

    BotAccount.objects.create(user=bob)
    rated = {**CHALLENGE, "rated": "rated"}
    settings.BOT_ACCOUNTS_RATED = False
    refused(call(client, "post", "/api/v1/challenges", token_for(alice, ["challenge"]),
                 body=rated), 400, "bad_message")
    assert not Challenge.objects.exists()
    made = call(client, "post", "/api/v1/challenges", token_for(alice, ["challenge"]),
                body=CHALLENGE)
    assert made.status_code == 201 and made.json()["challenge"]["rated"] is False
    settings.BOT_ACCOUNTS_RATED = True
    Challenge.objects.all().delete()
    assert call(client, "post", "/api/v1/challenges", token_for(alice, ["challenge"]),
                body=rated).status_code == 201


def test_the_operator_keeps_bot_accounts_out_of_rated_seeks(alice, bob, carol, settings):
    """BOT_ACCOUNTS_RATED off: a bot account can neither make a rated seek nor take one (nor
    can anyone take a bot account's rated seek made before it was turned off); casual seeks
    go through, and with the setting on everything does."""
    from lobby import services as lobby_services
    from lobby.models import Seek
    from play.clock import TimeControl

    def seek(owner, rated):
        return lobby_services.create_seek(owner, game="hadron", options={"size": 5},
                                          time_control=TimeControl.untimed(), side="first",
                                          rated=rated)

    BotAccount.objects.create(user=bob)
    bots_rated_seek = seek(bob, rated=True)  # made while the setting was on
    people_rated_seek = seek(alice, rated=True)
    settings.BOT_ACCOUNTS_RATED = False
    with pytest.raises(lobby_services.LobbyError, match="casual"):
        seek(bob, rated=True)
    with pytest.raises(lobby_services.LobbyError, match="casual"):
        lobby_services.accept_seek(bob, people_rated_seek.pk)
    with pytest.raises(lobby_services.LobbyError, match="casual"):
        lobby_services.accept_seek(carol, bots_rated_seek.pk)
    assert Seek.objects.filter(status=Seek.Status.OPEN).count() == 2
    assert not Game.objects.exists()
    casual = seek(bob, rated=False)
    assert not lobby_services.accept_seek(carol, casual.pk).rated
    settings.BOT_ACCOUNTS_RATED = True
    assert lobby_services.accept_seek(bob, people_rated_seek.pk).rated
    assert seek(bob, rated=True).rated


# -- the description ---------------------------------------------------------------------------

def django_api_paths():
    """The /api/v1/ routes Django resolves, in OpenAPI's spelling ({name} for a parameter)."""
    import re

    found = set()

    def walk(patterns, prefix):
        for pattern in patterns:
            route = prefix + str(pattern.pattern)
            if isinstance(pattern, URLResolver):
                walk(pattern.url_patterns, route)
            elif isinstance(pattern, URLPattern) and route.startswith("api/v1/"):
                found.add("/" + re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", route))

    walk(get_resolver().url_patterns, "")
    return found


def test_the_openapi_description_matches_the_routes(client):
    described = client.get("/api/v1/openapi.json")
    assert described.status_code == 200
    document = described.json()
    assert document["openapi"].startswith("3.")
    # ninja's own: the description, its page, and the API's root (a 404 unless DEBUG).
    served = django_api_paths() - {"/api/v1/openapi.json", "/api/v1/docs", "/api/v1/"}
    assert set(document["paths"]) == served
    from openapi_spec_validator import validate
    validate(document)


def test_the_docs_page_is_served(client):
    page = client.get("/api/v1/docs")
    assert page.status_code == 200 and b"openapi.json" in page.content
    # Served from the site's own static files: the CSP allows no other origin.
    assert b"/static/ninja/swagger-ui-bundle" in page.content and b"cdn" not in page.content
