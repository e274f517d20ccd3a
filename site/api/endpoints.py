"""/api/v1/: the HTTP API (django-ninja; it writes /api/v1/openapi.json from these functions).

Thin: reading goes through archive and play.snapshots, every game action through
play.services (the socket's own door), challenges through lobby.services. Errors are JSON
objects {"error": code, "message": text} (docs/api.md)."""
from asgiref.sync import sync_to_async
from django.contrib.auth import get_user_model
from django.http import HttpResponse
from django.shortcuts import get_object_or_404
from django.utils import timezone
from ninja import Body, NinjaAPI, Schema, Status
from ninja.errors import AuthenticationError, HttpError, ValidationError
from pydantic import Field, StrictInt, StrictStr

from api import streams
from api import tokens
from api.auth import (ApiError, CookieAuth, TokenAuth, caller, require, require_player,
                      unknown_token)
from api.models import Scope
from api.tokens import is_bot_account
from archive import exports, queries
from archive.forms import ArchiveFilter
from live import groups, lanes
from live.outbox import encoded
from live.sockets import Refusal
from lobby import listing as lobby_listing, services as lobby_services
from lobby.forms import ChallengeForm, ProposalForm
from play import services as play_services
from play.models import Game
from talk import services as talk_services

api = NinjaAPI(title="Tessera API", version="1", urls_namespace="api",
               auth=[TokenAuth(), CookieAuth()], docs_url="/docs")

# Each HTTP status of a play.services refusal (the code itself is the socket protocol's).
PLAY_STATUS = {"not_a_player": 403, "illegal": 422, "login_required": 401,
               "session_ended": 401, "rate_limited": 429}
LOBBY_CODES = {403: "not_allowed", 404: "not_found", 409: "conflict"}
PLAYING_LIMIT = 100


def error(request, code, message, status, retry_after=None):
    response = api.create_response(request, {"error": code, "message": message}, status=status)
    if retry_after is not None:
        response["Retry-After"] = str(retry_after)
    return response


@api.exception_handler(ApiError)
def api_error(request, exc):
    return error(request, exc.code, exc.message, exc.status, exc.retry_after)


@api.exception_handler(AuthenticationError)
def unauthenticated(request, exc):
    return error(request, "login_required",
                 "send a token (Authorization: Bearer ...) or log in", 401)


@api.exception_handler(ValidationError)
def invalid(request, exc):
    where = "; ".join(f"{'.'.join(str(p) for p in e.get('loc', ())[1:]) or 'body'}: {e.get('msg')}"
                      for e in exc.errors[:5])
    return error(request, "bad_message", where or "invalid request", 400)


@api.exception_handler(HttpError)
def http_error(request, exc):
    if exc.status_code == 400:  # ninja's "Cannot parse request body"
        return error(request, "bad_json", "the body is not valid JSON", 400)
    if exc.status_code == 403:  # ninja's SessionAuth: the cookie came without its CSRF token
        return error(request, "csrf_failed", "a request with the session cookie needs the "
                                             "CSRF token (X-CSRFToken); a token request does not",
                     403)
    return error(request, "bad_message", str(exc), exc.status_code)


@api.exception_handler(play_services.PlayError)
def play_refused(request, exc):
    return error(request, exc.code, exc.message, PLAY_STATUS.get(exc.code, 409))


# Each HTTP status of the chat's refusals (live.sockets.Refusal, the socket's codes).
CHAT_STATUS = {"login_required": 401, "bad_message": 400, "chat_rate_limited": 429,
               "chat_off": 403}


@api.exception_handler(Refusal)
def socket_refusal(request, exc):
    return error(request, exc.code, exc.message, CHAT_STATUS.get(exc.code, 409))


@api.exception_handler(lobby_services.LobbyError)
def lobby_refused(request, exc):
    return error(request, LOBBY_CODES.get(exc.status, "bad_message"), exc.message, exc.status)


# -- schemas -----------------------------------------------------------------------------------

class ErrorOut(Schema):
    error: str
    message: str


class AccountOut(Schema):
    id: int
    username: str
    bot: bool
    scopes: list[str]


class PlayerOut(Schema):
    username: str


class GameOut(Schema):
    id: int
    game: str
    options: dict
    players: list[str]
    status: str
    rated: bool
    ply: int
    winner: int | None = Field(None, description="player index (0 moved first); null: none")
    reason: str
    result: str
    url: str


class GamesOut(Schema):
    page: int
    pages: int
    count: int
    games: list[GameOut]


class PlyIn(Schema):
    # Strict, as the socket: "0" or true is not a ply.
    ply: StrictInt = Field(..., ge=0)


class PlayIn(PlyIn):
    action: StrictStr = Field(..., min_length=1, max_length=32)


class ActedOut(Schema):
    repeat: bool
    game: dict


class GameAfterOut(Schema):
    """The game after an action, as the socket's `action` message tells it."""
    id: int
    status: str
    state: dict = Field(..., description="the position, without the board data that never "
                                         "changes in a game (as the action message's)")
    clocks: dict
    result: dict | None = Field(None, description="null while the game goes on")


class ActionOut(Schema):
    repeat: bool = Field(..., description="the very same action was already stored at this "
                                          "ply (a safe resend)")
    game: GameAfterOut


class ChallengeOut(Schema):
    challenge: dict


class StartedOut(Schema):
    game_id: int
    url: str


def game_out(game):
    return {"id": game.pk, "game": game.game, "options": game.options,
            "players": [game.player0.get_username(), game.player1.get_username()],
            "status": game.status, "rated": game.rated, "ply": game.ply_count,
            "winner": game.winner, "reason": game.reason, "result": game.result_text,
            "url": game.get_absolute_url()}


# -- account and games -------------------------------------------------------------------------

@api.get("/account", response={200: AccountOut, 401: ErrorOut}, tags=["account"])
def account(request):
    """The caller's account and what this token may do."""
    who = caller(request)
    return {"id": who.user.pk, "username": who.user.get_username(),
            "bot": is_bot_account(who.user), "scopes": sorted(who.scopes)}


@api.get("/players/{username}/games", response={200: GamesOut, 400: ErrorOut, 404: ErrorOut},
         tags=["games"])
def player_games(request, username: str, game: str = "", result: str = "", reason: str = "",
                 page: int = 1):
    """A player's finished games, newest first, 25 a page; the Archive's filters (game,
    result: won/lost/first/second/draw, reason: normal/resign/time)."""
    require(request, Scope.READ, Scope.BOT)
    player = get_object_or_404(get_user_model(), username=username, is_active=True)
    form = ArchiveFilter({"player": player.get_username(), "game": game, "result": result,
                          "reason": reason})
    if not form.is_valid():
        raise ApiError("bad_message", "; ".join(f"{name}: {' '.join(messages)}"
                                                for name, messages in form.errors.items()))
    if page < 1:
        raise ApiError("bad_message", "page: must be 1 or more")
    found = queries.page_of(form.filters(), page)
    return {"page": found.number, "pages": found.paginator.num_pages,
            "count": found.paginator.count, "games": [game_out(g) for g in found.object_list]}


class PlayingOut(Schema):
    games: list[GameOut]


@api.get("/account/playing", response={200: PlayingOut}, tags=["account"])
def playing(request):
    """The caller's games in progress, the last changed first (a bot's to-do list)."""
    who = require(request, Scope.READ, Scope.PLAY, Scope.BOT)
    found = (Game.objects.of_player(who.user).active().with_players()
             .order_by("-updated_at", "-id")[:PLAYING_LIMIT])
    return {"games": [game_out(game) for game in found]}


@api.get("/games/{int:game_id}", response={200: dict, 404: ErrorOut}, tags=["games"])
def game_state(request, game_id: int):
    """The game's full state: the same snapshot as the game socket's `snapshot` message."""
    who = require(request, Scope.READ, Scope.PLAY, Scope.BOT)
    get_object_or_404(Game, pk=game_id)
    return play_services.snapshot_for(game_id, who.user)


EXPORTS = {"txt": (exports.record_text, "text/plain; charset=utf-8"),
           "json": (exports.record_json, "application/json")}


@api.get("/games/{int:game_id}/export", response={200: str, 400: ErrorOut, 404: ErrorOut},
         tags=["games"])
def game_export(request, game_id: int, format: str = "txt"):
    """The game's record in the Archive's formats: `txt` (the engine's text record) or
    `json`."""
    require(request, Scope.READ, Scope.BOT)
    if format not in EXPORTS:
        raise ApiError("bad_message", "format: txt or json")
    game = get_object_or_404(Game.objects.with_players(), pk=game_id)
    write, content_type = EXPORTS[format]
    return HttpResponse(write(game, request.build_absolute_uri(game.get_absolute_url())),
                        content_type=content_type)


# -- game actions (play.services, as the socket) ----------------------------------------------

# The token's way in for the game actions: async views (below), which find the token without
# leaving the event loop (api.auth.TokenAuth); the cookie's way in stays the same.
ON_LOOP = [TokenAuth(on_loop=True), CookieAuth()]


def acted(game_id, user, messages):
    return {"repeat": any(m.get("type") == "repeat" for m in messages or ()),
            "game": play_services.snapshot_for(game_id, user)}


def existing(game_id):
    if not Game.objects.filter(pk=game_id).exists():
        raise ApiError("not_found", "No such game.", 404)


def action_job(who, service, game_id, *args, now):
    """(a writer thread, in the game's lane) The API's game action: the token still holds
    (one read: a revoked or expired token fails at once, as on the socket), the caller may
    act (require_player, with the bot mark read now), then the socket's own service, then
    the answer: the game as it stands after the action (play.services.acted_game)."""
    if who.token is not None:
        bot = tokens.standing(who.token.pk)
        if bot is None:
            tokens.forget(who.token.pk)
            raise unknown_token()
    else:
        bot = is_bot_account(who.user)
    require_player(who, bot=bot)
    try:
        messages, game = play_services.acted(service, game_id, who.user, *args, now=now)
    except Game.DoesNotExist:
        raise ApiError("not_found", "No such game.", 404)
    return {"repeat": any(m.get("type") == "repeat" for m in messages), "game": game}


async def act(request, service, game_id, *args):
    """Run `service` as the game socket runs its actions: in the game's lane (live.lanes:
    after this process's earlier changes to the game, socket or API, on a writer thread with
    its kept connection), judged at the moment the request arrived. The answer is written
    here, as the socket's messages are (live.outbox.encoded), not checked again against
    ActionOut by ninja: action_job makes exactly that shape (tests/ws/test_api_door.py)."""
    now = timezone.now()
    who = caller(request)
    # A token's action is a program's: behind people's changes on the writers (live.lanes);
    # a person's end of a game behind the people's moves, as on the socket.
    if who.token is not None:
        in_lane = lanes.program_in_lane
    elif service in play_services.ENDINGS:
        in_lane = lanes.ending_in_lane
    else:
        in_lane = lanes.in_lane
    answer = await in_lane(("game", game_id), action_job, who, service, game_id, *args,
                           now=now)
    return HttpResponse(encoded(answer), content_type="application/json")


@api.post("/games/{int:game_id}/play", response={200: ActionOut, 403: ErrorOut, 404: ErrorOut,
                                                409: ErrorOut, 422: ErrorOut}, tags=["play"],
          auth=ON_LOOP)
async def play(request, game_id: int, body: PlayIn):
    """Make one action at `ply` (the socket's `play`: same checks, same codes). The answer's
    `game` is the game after it, as the socket's `action` message tells it (docs/api.md)."""
    return await act(request, play_services.play, game_id, body.ply, body.action)


@api.post("/games/{int:game_id}/resign", response={200: ActionOut, 403: ErrorOut,
                                                  404: ErrorOut, 409: ErrorOut}, tags=["play"],
          auth=ON_LOOP)
async def resign(request, game_id: int, body: PlyIn):
    return await act(request, play_services.resign, game_id, body.ply)


@api.post("/games/{int:game_id}/abort", response={200: ActionOut, 403: ErrorOut,
                                                 404: ErrorOut, 409: ErrorOut}, tags=["play"],
          auth=ON_LOOP)
async def abort(request, game_id: int, body: PlyIn):
    return await act(request, play_services.abort, game_id, body.ply)


class ChatIn(Schema):
    # Its length and characters are the chat's own checks (talk.services.clean_text).
    text: StrictStr


@api.post("/games/{int:game_id}/chat", response={200: ActedOut, 400: ErrorOut, 403: ErrorOut,
                                                404: ErrorOut, 429: ErrorOut}, tags=["play"])
def chat(request, game_id: int, body: ChatIn):
    """Write a line in the game's chat (the socket's `chat`: the players' room for a player,
    the spectators' for anyone else; same checks, same codes). The line reaches the game's
    sockets and streams as a `chat` message; the answer's snapshot has it in its `chat`."""
    who = caller(request)
    require_player(who, bot=is_bot_account(who.user))
    existing(game_id)
    return acted(game_id, who.user, talk_services.add_line(
        game_id, who.user, talk_services.clean_text(body.text)))


# -- challenges (lobby.services) ---------------------------------------------------------------

def challenger(request):
    who = require(request, Scope.CHALLENGE, Scope.BOT)
    if is_bot_account(who.user) and who.token is None:
        raise ApiError("bot_account", "a bot account acts through the API with a token", 403)
    return who


def form_errors(form):
    return ApiError("bad_message", "; ".join(f"{name}: {' '.join(messages)}"
                                             for name, messages in form.errors.items()))


class SeekOut(Schema):
    seek: dict


def seek_out(seek):
    """The lobby's seek, with its status (open, taken, cancelled, expired)."""
    return {**lobby_listing.seek_dict(seek), "status": seek.status}


@api.get("/seeks", response={200: dict}, tags=["seeks"])
def seeks(request):
    """The open seeks, as the Play page lists them (`out_of_range`: outside the seek's rating
    range for the caller, who cannot take it)."""
    who = challenger(request)
    return {"seeks": lobby_listing.for_viewer(lobby_listing.seek_dicts(), who.user)}


@api.post("/seeks", response={201: SeekOut, 400: ErrorOut, 409: ErrorOut}, tags=["seeks"])
def seek_create(request, fields: dict = Body(...)):
    """Open a seek: the Play page's fields (`game`, `time_kind`, `minutes`, `increment`,
    `days`, `side`, `rated`, `rating_range`, `<game>_<option>`). A real-time seek stays open
    while its owner has a lobby socket (docs/lobby-protocol.md; a program opens it with its
    token), as on the Play page."""
    who = challenger(request)
    form = ProposalForm({k: str(v) for k, v in fields.items()})
    if not form.is_valid():
        raise form_errors(form)
    made = lobby_services.create_seek(who.user, **form.seek())
    return Status(201, {"seek": seek_out(made)})


@api.post("/seeks/{int:seek_id}/accept",
          response={200: StartedOut, 400: ErrorOut, 403: ErrorOut, 404: ErrorOut,
                    409: ErrorOut}, tags=["seeks"])
def seek_accept(request, seek_id: int):
    """Take a seek: the game starts (`{game_id, url}`)."""
    who = challenger(request)
    game = lobby_services.accept_seek(who.user, seek_id)
    return {"game_id": game.pk, "url": game.get_absolute_url()}


@api.post("/seeks/{int:seek_id}/cancel",
          response={200: SeekOut, 403: ErrorOut, 404: ErrorOut, 409: ErrorOut}, tags=["seeks"])
def seek_cancel(request, seek_id: int):
    who = challenger(request)
    return {"seek": seek_out(lobby_services.cancel_seek(who.user, seek_id))}


@api.get("/challenges", response={200: dict}, tags=["challenges"])
def challenges(request):
    """The caller's pending challenges, made and received."""
    who = challenger(request)
    return {"challenges": lobby_listing.challenge_dicts(who.user)}


@api.post("/challenges", response={201: ChallengeOut, 400: ErrorOut, 409: ErrorOut},
          tags=["challenges"])
def challenge_create(request, fields: dict = Body(...)):
    """Challenge a player: the Play page's fields (`opponent`, `game`, `time_kind`,
    `minutes`, `increment`, `days`, `side`, `rated`, `<game>_<option>`)."""
    who = challenger(request)
    form = ChallengeForm({k: str(v) for k, v in fields.items()}, challenger=who.user)
    if not form.is_valid():
        raise form_errors(form)
    made = lobby_services.create_challenge(who.user, **form.proposal())
    return Status(201, {"challenge": lobby_listing.challenge_dict(made)})


@api.post("/challenges/{int:challenge_id}/accept",
          response={200: StartedOut, 403: ErrorOut, 404: ErrorOut, 409: ErrorOut},
          tags=["challenges"])
def challenge_accept(request, challenge_id: int):
    who = challenger(request)
    game = lobby_services.accept_challenge(who.user, challenge_id)
    return {"game_id": game.pk, "url": game.get_absolute_url()}


@api.post("/challenges/{int:challenge_id}/decline",
          response={200: ChallengeOut, 403: ErrorOut, 404: ErrorOut, 409: ErrorOut},
          tags=["challenges"])
def challenge_decline(request, challenge_id: int):
    who = challenger(request)
    made = lobby_services.decline_challenge(who.user, challenge_id)
    return {"challenge": lobby_listing.challenge_dict(made)}


@api.post("/challenges/{int:challenge_id}/cancel",
          response={200: ChallengeOut, 403: ErrorOut, 404: ErrorOut, 409: ErrorOut},
          tags=["challenges"])
def challenge_cancel(request, challenge_id: int):
    who = challenger(request)
    made = lobby_services.withdraw_challenge(who.user, challenge_id)
    return {"challenge": lobby_listing.challenge_dict(made)}


# -- streams (api.streams: NDJSON, fed by the channel layer) ------------------------------------

def opening_events(user):
    """What the event stream says first: the pending challenges, then a `turn` for each game
    in progress (as lichess's stream/event sends the current ones)."""
    from dashboard.turns import turn_event

    lines = [{"type": "challenge_added", "challenge": challenge}
             for challenge in lobby_listing.challenge_dicts(user)]
    for game in Game.objects.of_player(user).active().with_players().order_by("pk"):
        index = 0 if game.player0_id == user.pk else 1
        lines.append(turn_event(game, index))
    return lines


@api.get("/stream/event", response={200: str, 401: ErrorOut, 403: ErrorOut},
         tags=["streams"])
async def event_stream(request):
    """The caller's events, one JSON object a line (NDJSON), for as long as the client stays:
    first the pending challenges and a `turn` for each game in progress, then as they come
    `challenge_added`, `challenge_removed`, `game_started` and `turn` (`your_turn`, `over`:
    a game started, moved or ended), as the lobby socket's (docs/lobby-protocol.md). An
    empty line every API_STREAM_KEEPALIVE seconds of quiet."""
    who = require(request, Scope.READ, Scope.PLAY, Scope.CHALLENGE, Scope.BOT)
    return streams.ndjson(streams.relay(who, [groups.user(who.user.pk)],
                                        lambda: (opening_events(who.user), False)))


@api.get("/stream/game/{int:game_id}", response={200: str, 401: ErrorOut, 403: ErrorOut,
                                                404: ErrorOut}, tags=["streams"])
async def game_stream(request, game_id: int):
    """The game as NDJSON: first its `snapshot` (as GET /games/{id}), then every message its
    sockets get (`action`, `end`, `chat`, ... docs/protocol.md); the stream ends after the
    game's last message (`end`, or the `action` that finished it), at once for a game already
    over."""
    who = require(request, Scope.READ, Scope.PLAY, Scope.BOT)
    await sync_to_async(existing)(game_id)

    def opening():
        snapshot = play_services.snapshot_for(game_id, who.user)
        return [{"type": "snapshot", "game": snapshot}], snapshot.get("status") != "active"

    return streams.ndjson(streams.relay(who, [groups.game(game_id)], opening,
                                        last_one=streams.game_over))
