"""The load generator of bench/live_load.py: websocket clients that play games, and statistics.

A *slot* is one table at which two players play one game after another, watched by two
spectators, each on a websocket of its own. The players send precomputed legal moves (the
`play` message of docs/protocol.md); every socket of the game hears each move back (Tessera's
`action` broadcast, or the echo room's relay of the `play` itself). A move's latency is the
time from the mover sending the frame to the matching broadcast (same game, same ply) reaching
each socket: the mover's own echo, the opponent's copy, the spectators' copies. When a game's
moves run out (the game is over), the slot's four sockets close and the slot's next game opens.

Pacing: with a think time, a slot sends its next move one think time after its previous one,
and not before the previous move has reached the player about to move (so the move is legal
when it arrives). Saturation (no think time): the next move leaves as soon as the previous
move's broadcast reaches the previous mover.

Everything is loopback, bounded in time (warm-up + measured window) and in count.
"""
import asyncio
import json
import os
import random
import statistics
import time
from collections import Counter
from dataclasses import dataclass, field

from websockets.asyncio.client import connect

try:
    # A sixth of a load generator's CPU went to parsing the broadcasts with json (profiled in
    # bench/scaling.py's workers): with several server processes the clients must not be what
    # saturates.
    from orjson import loads
except ImportError:
    from json import loads

OPEN_TIMEOUT = 60        # seconds for a handshake + first snapshot, even behind 2,000 others
BROADCAST_TIMEOUT = 10   # a move whose broadcast takes longer is given up (its game with it)
CONNECTS_AT_ONCE = 64    # handshakes in flight at a time
PROBE_EVERY = 0.1        # seconds between two probes (ping, snapshot) in the saturation run

ROLES = ("mover", "opponent", "spectator")


def hadron_games(count, seed):
    """`count` move lists of Hadron 7x7 played out at random with the rules engine, each up to
    the end of the game (a few dozen moves)."""
    import games
    engine = games.get("hadron")
    rng = random.Random(seed)
    sequences = []
    for _ in range(count):
        state, moves = engine.new(size=7), []
        while not state.is_over:
            move = rng.choice(state.legal_actions())
            state.apply(move)
            moves.append(move)
        sequences.append(moves)
    return sequences


@dataclass
class Target:
    """Where the sockets go: `kind` is "echo" or "tessera"; `servers` the base URLs
    (http://127.0.0.1:PORT) of its processes: player 0 on the first, player 1 on the last,
    spectators spread over them."""
    kind: str
    servers: list

    def socket_url(self, server, room):
        base = self.servers[server % len(self.servers)].replace("http://", "ws://")
        return f"{base}/ws/room/{room}/" if self.kind == "echo" else f"{base}/ws/game/{room}/"

    def origin(self, server):
        return self.servers[server % len(self.servers)]

    def of(self, slot):
        """Where one slot's sockets go: its own processes where it names them."""
        return Target(self.kind, slot.servers) if slot.servers else self


@dataclass
class Slot:
    rooms: list                  # game ids (Tessera) or room numbers (echo), played in turn
    moves: list                  # one move list per room
    sessions: tuple = (None, None)  # players' session cookies (none in the echo room)
    servers: list = None         # base URLs of this slot's processes, else the target's


class Window:
    """The measured window: only moves sent inside it count for latency, only echoes
    received inside it count as carried."""

    def __init__(self, start, length):
        self.start, self.end = start, start + length

    def holds(self, moment):
        return self.start <= moment < self.end


@dataclass
class Stats:
    latencies: dict = field(default_factory=lambda: {role: [] for role in ROLES})
    carried: int = 0
    sent: int = 0               # moves sent inside the window
    errors: Counter = field(default_factory=Counter)
    stuck: int = 0              # moves whose broadcast never came (BROADCAST_TIMEOUT)
    exhausted: int = 0          # slots that ran out of pre-created games
    probes: dict = field(default_factory=lambda: {"ping": [], "snapshot": []})


def percentiles(samples):
    """p50, p90, p99, max of `samples` (seconds), in milliseconds; None without samples."""
    if not samples:
        return None
    ordered = sorted(samples)

    def at(q):
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000
    return {"p50": at(0.50), "p90": at(0.90), "p99": at(0.99), "max": ordered[-1] * 1000,
            "n": len(ordered)}


class RoomSocket:
    """One websocket on one room: a reader task that notes when each ply's broadcast arrives,
    counts errors and answers probes."""

    def __init__(self, game, player, server):
        self.game, self.player, self.server = game, player, server
        self.ws = None
        self.reader = None
        self.replies = {}   # reply type -> future (probes)

    async def open(self, target, room, session):
        headers = {"Cookie": f"sessionid={session}"} if session else None
        self.ws = await connect(target.socket_url(self.server, room), origin=target.origin(self.server),
                                additional_headers=headers, open_timeout=OPEN_TIMEOUT,
                                compression=None, max_size=2 ** 22, ping_interval=None)
        while True:  # the first snapshot says the socket has joined the room's group
            message = loads(await asyncio.wait_for(self.ws.recv(), OPEN_TIMEOUT))
            if message.get("type") == "snapshot":
                break
            if message.get("type") == "error":
                self.game.stats.errors[message.get("code")] += 1
        self.reader = asyncio.create_task(self.read())

    async def read(self):
        try:
            async for text in self.ws:
                arrived = time.perf_counter()
                message = loads(text)
                kind = message.get("type")
                if kind in ("action", "play") and "ply" in message:
                    self.game.heard(self, message["ply"], arrived)
                elif kind == "error":
                    self.game.stats.errors[message.get("code")] += 1
                waiting = self.replies.pop(kind, None)
                if waiting and not waiting.done():
                    waiting.set_result(arrived)
        except Exception:
            pass  # closed: the slot notices through its timeouts

    async def request(self, kind):
        """Send {"type": kind} and wait for the reply of the same type (pong for ping): the
        round trip in seconds."""
        reply = asyncio.get_running_loop().create_future()
        self.replies["pong" if kind == "ping" else kind] = reply
        started = time.perf_counter()
        await self.ws.send(json.dumps({"type": kind}))
        return await asyncio.wait_for(reply, BROADCAST_TIMEOUT) - started

    async def close(self):
        if self.reader:
            self.reader.cancel()
        if self.ws:
            try:
                await asyncio.wait_for(self.ws.close(), 5)
            except Exception:
                pass


class LiveGame:
    """One game (room) in play: its four sockets, when each move was sent, what each socket
    has heard."""

    def __init__(self, stats, window):
        self.stats, self.window = stats, window
        self.sent_at = {}
        self.heard_by = {}          # socket -> plies heard (count, plies arrive in order)
        self.progress = asyncio.Event()

    def heard(self, socket, ply, arrived):
        self.heard_by[socket] = max(self.heard_by.get(socket, 0), ply + 1)
        sent = self.sent_at.get(ply)
        if socket.player is None:
            role = "spectator"
        else:
            role = "mover" if socket.player == ply % 2 else "opponent"
        if sent is not None and self.window.holds(sent):
            self.stats.latencies[role].append(arrived - sent)
        if role == "mover" and self.window.holds(arrived):
            self.stats.carried += 1
        self.progress.set()

    async def until(self, condition):
        deadline = time.perf_counter() + BROADCAST_TIMEOUT
        while not condition():
            self.progress.clear()
            left = deadline - time.perf_counter()
            if left <= 0:
                return False
            try:
                await asyncio.wait_for(self.progress.wait(), left)
            except TimeoutError:
                pass
        return True


async def open_sockets(target, room, sessions, game, gate, spectators=2):
    """Player 0 on the first server, player 1 on the last, spectators spread over them."""
    last = len(target.servers) - 1
    sockets = [RoomSocket(game, 0, 0), RoomSocket(game, 1, last)]
    sockets += [RoomSocket(game, None, i) for i in range(spectators)]
    async with gate:
        await asyncio.gather(*(s.open(target, room, sessions[s.player] if s.player is not None else None)
                               for s in sockets))
    return sockets


async def play_slot(target, slot, stats, window, think, phase, gate, first):
    """Play the slot's games one after another until the window ends. `first` is the first
    game's already opened (LiveGame, sockets)."""
    game, sockets = first
    target = target.of(slot)
    # The first move leaves `phase` seconds from now, so that the slots' moves spread evenly.
    last_sent = time.perf_counter() + phase - think if think else 0.0
    for index, room in enumerate(slot.rooms):
        if index > 0:
            if time.perf_counter() >= window.end:
                return
            game = LiveGame(stats, window)
            try:
                sockets = await open_sockets(target, room, slot.sessions, game, gate)
            except Exception:
                stats.errors["connect_failed"] += 1
                return
        players = sockets[:2]
        try:
            for ply, move in enumerate(slot.moves[index]):
                mover = players[ply % 2]
                if think:
                    # The move must have reached the player about to move, then think.
                    if not await game.until(lambda: game.heard_by.get(mover, 0) >= ply):
                        stats.stuck += 1
                        break
                    await asyncio.sleep(max(0.0, last_sent + think - time.perf_counter()))
                else:
                    previous = players[(ply - 1) % 2]
                    if not await game.until(lambda: game.heard_by.get(previous, 0) >= ply):
                        stats.stuck += 1
                        break
                if time.perf_counter() >= window.end:
                    return
                last_sent = time.perf_counter()
                game.sent_at[ply] = last_sent
                if window.holds(last_sent):
                    stats.sent += 1
                await mover.ws.send(json.dumps({"type": "play", "ply": ply, "action": move}))
            else:
                # The game is over: let the last move reach everyone before leaving.
                total = len(slot.moves[index])
                await game.until(lambda: all(game.heard_by.get(s, 0) >= total for s in sockets))
        finally:
            await asyncio.gather(*(s.close() for s in sockets))
    if time.perf_counter() < window.end:
        stats.exhausted += 1


async def probe(socket, kind, stats, window):
    """Round trips of `kind` (ping or snapshot) every PROBE_EVERY seconds while the window
    lasts."""
    while time.perf_counter() < window.end:
        tick = time.perf_counter()
        try:
            took = await socket.request(kind)
        except Exception:
            stats.errors[f"{kind}_lost"] += 1
            took = None
        if took is not None and window.holds(tick):
            stats.probes[kind].append(took)
        await asyncio.sleep(max(0.0, tick + PROBE_EVERY - time.perf_counter()))


async def run_load(target, slots, think, warmup, duration, sample_servers, probe_room=None,
                   connected=None, start=None):
    """Play `slots` against `target`: connect every slot's first game, then `warmup` seconds,
    then `duration` measured seconds. `think`: seconds between two moves of a game (0: no
    think time). `sample_servers()` -> (cpu seconds, rss bytes) of the servers, taken at the
    window's edges. `connected()`, if given, is called once every first game's sockets are
    in (the warm-up starts then). `start`, if given, is awaited after that and returns the
    time.perf_counter() moment the warm-up starts: several load generator processes of one
    machine share a window that way (the clock is the machine's monotonic clock, the same in
    every process). Returns (Stats, measurements dict)."""
    stats = Stats()
    gate = asyncio.Semaphore(CONNECTS_AT_ONCE)
    # A window far in the future while connecting: nothing counts yet.
    window = Window(time.perf_counter() + 10 ** 6, duration)
    firsts = []
    for slot in slots:
        game = LiveGame(stats, window)
        firsts.append((game, open_sockets(target.of(slot), slot.rooms[0], slot.sessions, game, gate)))
    opened = await asyncio.gather(*(coroutine for _, coroutine in firsts))
    probes = []
    if probe_room is not None:
        probe_game = LiveGame(stats, window)
        probes = [RoomSocket(probe_game, None, 0), RoomSocket(probe_game, None, 0)]
        await asyncio.gather(*(s.open(target, probe_room, None) for s in probes))

    if connected is not None:
        connected()
    window.start = (await start() if start is not None else time.perf_counter()) + warmup
    window.end = window.start + duration
    rng = random.Random(7)
    tasks = [asyncio.create_task(play_slot(target, slot, stats, window, think,
                                           rng.uniform(0, think) if think else 0, gate, (game, sockets)))
             for slot, (game, _), sockets in zip(slots, firsts, opened)]
    if probes:
        tasks += [asyncio.create_task(probe(probes[0], "ping", stats, window)),
                  asyncio.create_task(probe(probes[1], "snapshot", stats, window))]

    await asyncio.sleep(max(0.0, window.start - time.perf_counter()))
    cpu_before, _ = sample_servers()
    own_before = os.times()
    await asyncio.sleep(max(0.0, window.end - time.perf_counter()))
    cpu_after, rss = sample_servers()
    own_after = os.times()

    await asyncio.wait(tasks, timeout=BROADCAST_TIMEOUT + 5)
    for task in tasks:
        task.cancel()
    await asyncio.gather(*(s.close() for s in probes))
    measured = {
        "server_cpu_s": cpu_after - cpu_before,
        "server_rss": rss,
        "loadgen_cpu_share": ((own_after.user + own_after.system) - (own_before.user + own_before.system)) / duration,
    }
    return stats, measured


async def open_idle(target, rooms, per_room, sample_servers, settle=1.0):
    """Open `per_room` spectator sockets on each room, with nothing sent. Returns the servers'
    (cpu, rss) before and after (after `settle` seconds, for the presence news), then closes
    them all."""
    stats = Stats()
    window = Window(0, 0)
    gate = asyncio.Semaphore(CONNECTS_AT_ONCE)
    await asyncio.sleep(settle)
    before = sample_servers()
    groups = await asyncio.gather(*(open_spectators(target, room, per_room, stats, window, gate)
                                    for room in rooms))
    await asyncio.sleep(settle)
    after = sample_servers()
    sockets = [s for group in groups for s in group]
    opened = sum(1 for s in sockets if s.ws is not None)
    await asyncio.gather(*(s.close() for s in sockets))
    return {"sockets": opened, "cpu_s": after[0] - before[0], "rss_delta": after[1] - before[1],
            "server_rss": after[1], "errors": stats.errors}


async def open_spectators(target, room, count, stats, window, gate):
    game = LiveGame(stats, window)
    sockets = [RoomSocket(game, None, i) for i in range(count)]

    async def one(socket):
        async with gate:
            try:
                await socket.open(target, room, None)
            except Exception:
                socket.ws = None
                stats.errors["connect_failed"] += 1
    await asyncio.gather(*(one(s) for s in sockets))
    return sockets


def summary(stats, measured, offered, duration):
    """The row's figures from one run."""
    return {
        "offered": offered,
        "carried": stats.carried / duration,
        "sent": stats.sent / duration,
        "latency": {role: percentiles(stats.latencies[role]) for role in ROLES},
        "cpu_ms_per_move": measured["server_cpu_s"] * 1000 / stats.carried if stats.carried else None,
        "rss_mb": measured["server_rss"] / 2 ** 20,
        "loadgen_cpu": measured["loadgen_cpu_share"],
        "errors": dict(stats.errors),
        "stuck": stats.stuck,
        "exhausted": stats.exhausted,
        "probes": {kind: percentiles(samples) for kind, samples in stats.probes.items()},
    }


def median_summary(summaries):
    """Field by field median of several summaries of the same run (--repeat)."""
    first = summaries[0]
    if len(summaries) == 1:
        return first

    def merge(values):
        values = [v for v in values if v is not None]
        if not values:
            return None
        if isinstance(values[0], dict):
            keys = set().union(*values)
            return {k: merge([v.get(k) for v in values]) for k in keys}
        if isinstance(values[0], (int, float)):
            return statistics.median(values)
        return values[0]
    merged = merge(summaries)
    # Errors are totals over all repeats, not medians.
    merged["errors"] = dict(sum((Counter(s["errors"]) for s in summaries), Counter()))
    return merged
