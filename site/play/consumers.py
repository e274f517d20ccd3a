"""The live game websocket, /ws/game/<id>/: a thin adapter over play.services.

Authenticate (the session or an API token, through live.auth.SessionAuthMiddleware), parse
and type-check the message (live.sockets), and hand the change to the game's lane
(live.lanes), which runs it on a database thread after every earlier change to the same game. What the change broadcasts
reaches every socket of the game, this one included, through the game's group. Players and
spectators share the group; anonymous visitors may watch but never act.

Apps above play add messages to the socket through take(), at their ready(): the chat (talk)
rides on it so, its `chat` message answered on a writer thread, outside the game's lane. A
news that carries an audience (play.broadcast.hears) reaches only the sockets it is meant for
(a player never receives the spectators' chat room during the game).

The time a message is judged at is the moment it was received (play.services), and the game's
one timer in this process lives in play.rooms.
"""
import asyncio
import logging

from django.utils import timezone

from live import budget, groups, lanes
from live import presence as ledger
from live.outbox import encoded
from live.sockets import JsonSocket, Refusal
from play import (berserk, broadcast, conditionals, positions, premoves, presence, rematch,
                  rooms, services, signals, snapshots, takeback)
from play.models import Game

logger = logging.getLogger(__name__)

MAX_ACTION = 32
# Game ids are database keys: anything longer is not one (and would overflow SQLite).
MAX_GAME_ID = 2**53
# Sockets that closed: their presence rows go together, a few writer jobs for a crowd that
# leaves at once (a restart) rather than one each.
_departures = lanes.Gathered(ledger.leave, runs=lanes.background)
# Sockets that opened: their presence rows are written together in the same way (the
# snapshot each then reads on a reader thread, beside the writer).
_arrivals = lanes.Gathered(services.arrive)
# Keep-alive sends per turn of the event loop (GameConsumer.keep_alive).
KEEP_ALIVE_TURN = 50


# message type -> (answer(game id, user, message, now=...), why a visitor is refused): the
# socket's messages that apps above play answer (take()).
_taken = {}


def take(kind, answer, login_required):
    """The game socket takes messages of type `kind`: a visitor is refused with
    `login_required` (the protocol checks the login first), else answer(game_id, user,
    message, now=received at) runs on a writer thread (outside the game's lane) and returns
    the messages for the sender alone; a Refusal reaches the sender as any."""
    _taken[kind] = (answer, login_required)
    GameConsumer.handlers = {**GameConsumer.handlers, kind: "on_taken"}


def field(message, name, kind):
    value = message.get(name)
    # bool is an int subclass: {"ply": true} is not a ply.
    if isinstance(value, bool) or not isinstance(value, kind):
        raise Refusal("bad_message", f"'{name}' must be {'an integer' if kind is int else 'text'}")
    return value


def ply_of(message):
    ply = field(message, "ply", int)
    if ply < 0:
        raise Refusal("bad_message", "'ply' cannot be negative")
    return ply


def action_of(message):
    action = field(message, "action", str)
    if not 0 < len(action) <= MAX_ACTION:
        raise Refusal("bad_message", f"'action' must be 1 to {MAX_ACTION} characters")
    return action


def premove_actions(message):
    """A premove's turn: "actions", a list of actions (or one "action")."""
    if "action" in message and "actions" not in message:
        return [action_of(message)]
    actions = message.get("actions")
    if not isinstance(actions, list) or not 0 < len(actions) <= premoves.MAX_ACTIONS:
        raise Refusal("bad_message",
                      f"'actions' must be a list of 1 to {premoves.MAX_ACTIONS} actions")
    return [action_of({"action": action}) for action in actions]


def condition_lines(message):
    """Conditional moves: "lines", a list of lines, each a list of turns, each a list of
    actions; their shape and sizes are checked here, their legality by the engine
    (play.conditionals)."""
    lines = message.get("lines")
    if not isinstance(lines, list) or not lines:
        raise Refusal("bad_message", "'lines' must be a list of lines")
    if len(lines) > conditionals.MAX_LINES:
        raise Refusal("too_large", f"at most {conditionals.MAX_LINES} lines")
    for line in lines:
        flat = isinstance(line, list) and all(isinstance(action, str) for action in line)
        if not flat and (not isinstance(line, list) or not all(
                isinstance(turn, list) and all(isinstance(action, str) for action in turn)
                for turn in line)):
            raise Refusal("bad_message", "each line is a list of turns, each turn a list of "
                                         "actions (text), or a list of actions")
    return lines


def arrived(game_id, user, cookie_user_id):
    """(reader) What a socket reads once its presence row is written: its snapshot, and why
    the logged-in user of a cookie may not play here (None: they may), in one job: each hop to
    a database thread wakes a thread and costs the event loop a turn, and a game that starts
    opens four sockets."""
    game, snapshot = services.game_and_snapshot(game_id, user)
    why = signals.why_plays_elsewhere(cookie_user_id) if cookie_user_id is not None else None
    # A player whose page a restart closed is given their clock's time back once the page has
    # its snapshot (GameConsumer.connect).
    seat = snapshot["you"]
    restarted = seat is not None and game.server_closed_at(seat) is not None
    return snapshot, why, restarted


class GameConsumer(JsonSocket):
    # Room for a tree of conditional moves (play.conditionals); every other message is small.
    max_frame = 8192
    handlers = {"play": "on_play", "resign": "on_resign", "abort": "on_abort",
                "claim_victory": "on_claim_victory", "rematch": "on_rematch",
                "decline_rematch": "on_decline_rematch", "snapshot": "on_snapshot",
                "takeback": "on_takeback", "accept_takeback": "on_accept_takeback",
                "decline_takeback": "on_decline_takeback",
                "premove": "on_premove", "premove_cancel": "on_premove_cancel",
                "conditions": "on_conditions", "conditions_clear": "on_conditions_clear",
                "berserk": "on_berserk"}
    unknown_text = "see docs/protocol.md for the messages a game socket takes"
    # Whether this socket is one of the players': known from its first snapshot (the seat of
    # a socket never changes). Until then it hears only the chat news meant for everyone.
    is_player = None
    # Which player's socket this is (player index; None: a spectator's): news for one seat
    # (a premove) reaches only that player's sockets.
    seat = None
    # Why this socket may not play, if it may not: (code, message). A bot account's cookie
    # (play.signals.plays_elsewhere: it plays through the API), or an API token without the
    # scope to play (live.auth.TokenGrant: a read token watches only).
    cannot_play = None

    async def connect(self):
        self.game_id = int(self.scope["url_route"]["kwargs"]["game_id"])
        self.user = self.scope.get("user")
        token = self.token()
        # An API token watches with a read scope (as GET /api/v1/games/{id}), or not at all.
        if self.game_id > MAX_GAME_ID or (token is not None and not token.reads) \
                or not self.admitted():
            await self.refuse()
            return
        # Every connection costs a snapshot: over the address's or the account's budget
        # (live.budget), the handshake is refused (HTTP 403) like any over a limit.
        if await budget.take_snapshot(self.address(), self.user_id()):
            await self.refuse()
            return
        # The group first, then the snapshot: news sent meanwhile waits in this consumer's
        # queue until connect() returns, so nothing falls between the two.
        await self.join(groups.game(self.game_id))
        # Counted first, so the snapshot counts this socket too; the row is written with the
        # other sockets arriving meanwhile (a restart's crowd: a few writer jobs), the
        # snapshot read on a reader, so other games' moves never queue behind the reads.
        snapshot, restarted = None, False
        if self.channel_name in await _arrivals.add((self.game_id, self.channel_name,
                                                     self.user)):
            # A bot account's cookie watches and chats here; it plays through the API, or on
            # this socket with its token (play.signals): asked in the same reader job.
            cookie_user = self.user_id() if token is None else None
            try:
                snapshot, why, restarted = await lanes.read(arrived, self.game_id, self.user,
                                                            cookie_user)
            except Game.DoesNotExist:   # deleted since its row was written
                await _departures.add(self.channel_name)
        if snapshot is None:
            await self.leave_groups()
            self.joined_groups = None   # nothing for disconnect() to undo
            await self.refuse()
            return
        if token is not None:
            if not token.plays:
                self.cannot_play = ("scope_required", token.why_not)
        elif why:
            self.cannot_play = ("bot_account", why)
        await self.accept()
        rooms.enter(self.game_id, self)
        await self.send_snapshot(snapshot)
        if restarted and self.cannot_play is None:
            # Back from a restart: the clock ran until the page had its snapshot, so the time
            # this server took to serve it counts as the gap. In the game's lane, awaited here:
            # nothing the page sends is handled before it (Channels hands a consumer its
            # messages once connect() returns).
            try:
                await lanes.in_lane(("game", self.game_id), services.back_after_restart,
                                    self.game_id, self.seat, timezone.now())
            except Exception:
                # The gap is then charged, as before; the page plays on.
                logger.exception("could not give back a restart's gap in game %s", self.game_id)

    async def disconnect(self, code):
        if getattr(self, "joined_groups", None) is None:
            return
        rooms.leave(self.game_id, self)
        await _departures.add(self.channel_name)
        rooms.presence_changed(self.game_id)

    # -- from the client ---------------------------------------------------------------------

    def logged_in(self, why):
        if not getattr(self.user, "is_authenticated", False):
            raise Refusal("login_required", why)
        return self.user

    def player(self):
        user = self.logged_in("log in to play; visitors can only watch")
        if self.cannot_play:
            raise Refusal(*self.cannot_play)
        return user

    async def act(self, service, user, *args, **kwargs):
        """Run a change in the game's lane; the sender alone hears what it returns. A socket
        opened with a token is a program's: its changes wait behind people's on the writers
        (live.lanes), as through the API; a person's change that ends the game waits behind
        the people's moves (services.ENDINGS)."""
        if self.token() is not None:
            in_lane = lanes.program_in_lane
        elif service in services.ENDINGS:
            in_lane = lanes.ending_in_lane  # behind the moves waiting beside it
        else:
            in_lane = lanes.in_lane
        messages = await in_lane(("game", self.game_id), self.checked(service), self.game_id,
                                 user, *args, **kwargs)
        signals.change_answered.send(sender=GameConsumer)
        for message in messages:
            await self.send_json(message)

    # Arguments are checked in the protocol's order: logged in first, then the fields. A move
    # is judged at the moment its message arrived, not when its turn in the lane came.

    async def on_play(self, message):
        await self.act(services.play, self.player(), ply_of(message), action_of(message),
                       now=self.received_at)

    async def on_resign(self, message):
        await self.act(services.resign, self.player(), ply_of(message), now=self.received_at)

    async def on_abort(self, message):
        await self.act(services.abort, self.player(), ply_of(message), now=self.received_at)

    async def on_claim_victory(self, message):
        await self.act(services.claim_victory, self.player(), ply_of(message),
                       now=self.received_at)

    async def on_rematch(self, message):
        await self.act(rematch.offer, self.player())

    async def on_decline_rematch(self, message):
        await self.act(rematch.decline, self.player())

    async def on_takeback(self, message):
        await self.act(takeback.propose, self.player(), ply_of(message), now=self.received_at)

    async def on_accept_takeback(self, message):
        await self.act(takeback.accept, self.player(), ply_of(message), now=self.received_at)

    async def on_decline_takeback(self, message):
        await self.act(takeback.decline, self.player(), now=self.received_at)

    async def on_berserk(self, message):
        await self.act(berserk.go_berserk, self.player(), ply_of(message),
                       now=self.received_at)

    async def on_premove(self, message):
        await self.act(premoves.queue, self.player(), ply_of(message),
                       premove_actions(message), now=self.received_at)

    async def on_premove_cancel(self, message):
        await self.act(premoves.cancel, self.player(), now=self.received_at)

    async def on_conditions(self, message):
        await self.act(conditionals.save, self.player(), ply_of(message),
                       condition_lines(message), now=self.received_at)

    async def on_conditions_clear(self, message):
        await self.act(conditionals.clear, self.player(), now=self.received_at)

    async def on_taken(self, message):
        answer, login_required = _taken[message["type"]]
        author = self.logged_in(login_required)
        token = self.token()
        if token is not None and not token.plays:  # a read token only watches
            raise Refusal("scope_required", token.why_not)
        for reply in await lanes.write(self.checked(answer), self.game_id, author, message,
                                       now=self.received_at):
            await self.send_json(reply)

    async def on_snapshot(self, message):
        wait = await budget.take_snapshot(self.address(), self.user_id())
        if wait:
            raise Refusal("rate_limited", "too many snapshots from your address or account: "
                                          f"try again in {budget.wait_text(wait)}")
        await self.send_snapshot(await lanes.read(services.snapshot_for, self.game_id, self.user))

    async def refused(self, refusal):
        if getattr(refusal, "snapshot", False):
            # The refusal is already told; the fresh snapshot only if the budget allows it.
            try:
                await self.on_snapshot({})
            except Refusal:
                pass

    def pong_fields(self):
        return {"ply": rooms.ply_of(self.game_id)}

    # -- to the client -----------------------------------------------------------------------

    async def send_snapshot(self, snapshot):
        # The position's JSON text is made once per ply (play.positions.Position).
        await self.send(text_data=positions.message_text("snapshot", snapshot))
        self.is_player = snapshot["you"] is not None
        self.seat = snapshot["you"]
        rooms.learn(self.game_id, snapshot["state"]["ply"], snapshot["clocks"]["expires_at"])

    async def live_event(self, event):
        if "audience" in event and not broadcast.hears(event["audience"], self.is_player):
            return
        if "seat" in event and event["seat"] != self.seat:
            return
        await super().live_event(event)

    async def heard(self, event):
        if "ply" in event:
            rooms.learn(self.game_id, event["ply"], event["expires_at"],
                        exact=event.get("rewound", False))
        if "stored" in event:
            positions.heard(self.game_id, event["stored"])

    # -- the process's bookkeeping (live.registry) ---------------------------------------------

    @classmethod
    async def keep_alive(cls, sockets):
        """Tell every open socket the game's ply and status, read from the database (not from
        the channel layer, which may have lost the socket's group): a page that is behind
        asks for a snapshot."""
        by_game = {}
        for socket in sockets:
            by_game.setdefault(socket.game_id, []).append(socket)
        plies = await lanes.read(snapshots.plies_of, list(by_game))
        sent = 0
        for game_id, members in by_game.items():
            if game_id not in plies:
                continue
            ply, status = plies[game_id]
            rooms.learn(game_id, ply, exact=True)  # the database's count: after a takeback too
            # One text for the game's sockets, encoded once (as a broadcast is).
            text = encoded({"type": "sync", "ply": ply, "status": status})
            for socket in members:
                if sent and sent % KEEP_ALIVE_TURN == 0:
                    # A slice's sends are a turn of the loop each KEEP_ALIVE_TURN sockets:
                    # 200 sends in one step held the loop for tens of ms under load, and the
                    # moves that arrived meanwhile waited behind them.
                    await asyncio.sleep(0)
                sent += 1
                try:
                    await socket.send(text_data=text)
                except Exception:
                    logger.debug("keep-alive to a closing socket failed", exc_info=True)

    def kept_with(self):
        return self.game_id   # one read and one `sync` text for the game's sockets

    @classmethod
    async def restarting(cls, sockets, closing):
        """A restart closes these sockets: their players' clocks are not charged until their
        pages are back (play.services.closed_for_restart, back_after_restart), unless a page
        of theirs that the stop does not close stays on the game."""
        seats = [(socket.game_id, socket.seat) for socket in sockets
                 if socket.seat is not None and socket.cannot_play is None]
        if seats:
            await lanes.write(services.closed_for_restart, seats, closing)

    @classmethod
    def still_here(cls, channel_names):
        ledger.still_here(channel_names)

    def forgotten(self):
        rooms.leave(self.game_id, self)

    @classmethod
    def lost(cls, channel_names):
        game_ids = ledger.leave(channel_names)
        if game_ids:
            presence.announce(game_ids)
