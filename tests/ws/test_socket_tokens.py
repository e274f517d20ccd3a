"""A personal API token on the websocket handshake (`Authorization: Bearer ...`, live.auth):
the socket acts within the token's scopes (a read token watches, a play token plays, a bot
account plays with its bot token though its cookie cannot), the cookie beside it is not read,
a bad token is refused at the handshake, and a revoked token closes its open sockets at once.
Through the real ASGI application and the channel layer."""
import pytest
from asgiref.sync import sync_to_async

from api import tokens
from talk.models import ChatLine
from tests.ws.messages import WAIT
from tests.ws.sockets import HOST, ORIGIN, PageSocket, Socket, headers_for, run
from tests.ws.test_session_sockets import close_code

pytestmark = pytest.mark.django_db(transaction=True)


def with_token(secret, origin=False):
    """A program's handshake: the token, no cookie and (as most programs) no Origin."""
    headers = [HOST, (b"authorization", f"Bearer {secret}".encode())]
    return headers + [ORIGIN] if origin else headers


def stored(game):
    game.refresh_from_db()
    return list(game.action_rows.order_by("ply").values_list("action", flat=True))


def test_a_read_token_watches_but_does_not_play_or_chat(users, new_game):
    alice, bob = users("alice", "bob")
    game = new_game([alice, bob], "hadron", {"size": 5})
    _, secret = tokens.create(alice, "watcher", ["read"])

    async def scenario():
        tab = Socket(game.pk, headers=with_token(secret))
        snapshot = await tab.open()
        assert snapshot["you"] == 0  # alice's own seat, seen through her token
        for message in ({"type": "play", "ply": 0, "action": "a1"},
                        {"type": "resign", "ply": 0}, {"type": "chat", "text": "hello"}):
            await tab.send(**message)
            refusal = await tab.expect("error")
            assert refusal["code"] == "scope_required", message
        await tab.close()

    run(scenario)
    assert stored(game) == [] and game.is_active
    assert not ChatLine.objects.exists()


def test_a_play_token_plays_on_the_socket(users, new_game):
    alice, bob = users("alice", "bob")
    game = new_game([alice, bob], "hadron", {"size": 5})
    _, secret = tokens.create(alice, "player", ["play"])

    async def scenario():
        tab = Socket(game.pk, headers=with_token(secret))
        await tab.open()
        await tab.send(type="play", ply=0, action="a1")
        action = await tab.expect("action")
        assert (action["ply"], action["action"]) == (0, "a1")
        await tab.send(type="chat", text="good luck")
        assert (await tab.expect("chat"))["text"] == "good luck"
        await tab.close()

    run(scenario)
    assert stored(game) == ["a1"]


def test_a_bot_account_plays_through_its_token_but_not_its_cookie(users, new_game):
    alice, bot = users("alice", "botty")
    tokens.upgrade_to_bot(bot)
    game = new_game([bot, alice], "hadron", {"size": 5})
    _, secret = tokens.create(bot, "engine", ["bot"])
    _, read_only = tokens.create(bot, "viewer", ["read"])
    cookie = headers_for(bot)

    async def scenario():
        by_cookie = Socket(game.pk, headers=cookie)
        await by_cookie.open()
        await by_cookie.send(type="play", ply=0, action="a1")
        assert (await by_cookie.expect("error"))["code"] == "bot_account"
        viewer = Socket(game.pk, headers=with_token(read_only))
        await viewer.open()
        await viewer.send(type="play", ply=0, action="a1")
        assert (await viewer.expect("error"))["code"] == "scope_required"
        engine = Socket(game.pk, headers=with_token(secret, origin=True))
        assert (await engine.open())["you"] == 0
        await engine.send(type="play", ply=0, action="a1")
        assert (await engine.expect("action"))["action"] == "a1"
        for tab in (by_cookie, viewer, engine):
            await tab.close()

    run(scenario)
    assert stored(game) == ["a1"]


def test_the_token_not_the_cookie_says_who_is_on_the_socket(users, new_game):
    """A handshake with both: the cookie is not read (a token socket is a program's; a page
    on another origin could not add the header anyway)."""
    alice, bob, carol = users("alice", "bob", "carol")
    game = new_game([alice, bob], "hadron", {"size": 5})
    _, carols = tokens.create(carol, "carol's", ["play"])
    alices_cookie = [h for h in headers_for(alice) if h[0] == b"cookie"]

    async def scenario():
        tab = Socket(game.pk, headers=with_token(carols) + alices_cookie)
        assert (await tab.open())["you"] is None  # carol watches; alice's seat is not hers
        await tab.send(type="play", ply=0, action="a1")
        assert (await tab.expect("error"))["code"] == "not_a_player"
        await tab.close()

    run(scenario)
    assert stored(game) == []


def test_a_token_in_the_url_is_not_read(users, new_game):
    """Tokens travel in the header only: one in the query string leaves a visitor."""
    alice, bob = users("alice", "bob")
    game = new_game([alice, bob], "hadron", {"size": 5})
    _, secret = tokens.create(alice, "player", ["play"])

    async def scenario():
        tab = PageSocket(f"/ws/game/{game.pk}/?token={secret}&access_token={secret}",
                         headers=[ORIGIN, HOST])
        assert (await tab.open())["game"]["you"] is None
        await tab.send(type="play", ply=0, action="a1")
        assert (await tab.expect("error"))["code"] == "login_required"
        await tab.close()

    run(scenario)
    assert stored(game) == []


@pytest.mark.parametrize("header", [b"Bearer tsr_not-a-token", b"Bearer ", b"Basic YTpi"])
def test_a_bad_token_is_refused_at_the_handshake(users, new_game, header):
    alice, bob = users("alice", "bob")
    game = new_game([alice, bob], "hadron", {"size": 5})

    async def scenario():
        tab = Socket(game.pk, headers=[ORIGIN, HOST, (b"authorization", header)])
        assert not await tab.connect()

    run(scenario)


def test_a_revoked_or_expired_token_is_refused_and_a_challenge_token_does_not_watch(
        users, new_game):
    from django.utils import timezone

    from api.models import ApiToken

    alice, bob = users("alice", "bob")
    game = new_game([alice, bob], "hadron", {"size": 5})
    revoked, revoked_secret = tokens.create(alice, "old", ["read"])
    tokens.revoke(alice, revoked.pk)
    expired, expired_secret = tokens.create(alice, "a month", ["read"], days=30)
    ApiToken.objects.filter(pk=expired.pk).update(expires_at=timezone.now())
    _, challenges_only = tokens.create(alice, "challenges", ["challenge"])

    async def scenario():
        for secret in (revoked_secret, expired_secret, challenges_only):
            assert not await Socket(game.pk, headers=with_token(secret)).connect()
        # The challenge token still hears its account's news on the lobby socket, as the
        # event stream does.
        lobby = PageSocket("/ws/lobby/", headers=with_token(challenges_only))
        assert (await lobby.open())["type"] == "snapshot"
        await lobby.close()

    run(scenario)


def test_revoking_a_token_closes_its_open_sockets_at_once(users, new_game):
    alice, bob = users("alice", "bob")
    game = new_game([alice, bob], "hadron", {"size": 5})
    token, secret = tokens.create(alice, "player", ["play"])
    _, other = tokens.create(alice, "other", ["play"])

    async def scenario():
        tab, kept = Socket(game.pk, headers=with_token(secret)), Socket(
            game.pk, headers=with_token(other))
        lobby = PageSocket("/ws/lobby/", headers=with_token(secret))
        await tab.open()
        await kept.open()
        await lobby.open()
        assert await sync_to_async(tokens.revoke)(alice, token.pk)
        assert await close_code(tab) == 4001
        assert await close_code(lobby) == 4001
        assert await close_code(kept, timeout=0.5) is None
        await kept.close()

    run(scenario)


def test_an_action_checks_the_token_again_whose_revocation_news_never_came(users, new_game):
    alice, bob = users("alice", "bob")
    game = new_game([alice, bob], "hadron", {"size": 5})
    token, secret = tokens.create(alice, "player", ["play"])

    def revoke_behind_the_sockets_back():
        from django.utils import timezone

        from api.models import ApiToken
        ApiToken.objects.filter(pk=token.pk).update(revoked_at=timezone.now())

    async def scenario():
        tab = Socket(game.pk, headers=with_token(secret))
        await tab.open()
        await sync_to_async(revoke_behind_the_sockets_back)()
        await tab.send(type="play", ply=0, action="a1")
        error = await tab.receive(WAIT)
        assert (error["type"], error["code"]) == ("error", "bad_token")
        assert await close_code(tab) == 4001

    run(scenario)
    assert stored(game) == []
