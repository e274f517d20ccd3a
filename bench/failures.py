"""Restarts and failures through the proxy, under load (issue 25): one row per fault.

    python bench/failures.py                 # 200 games, every fault
    python bench/failures.py --smoke         # 6 games, short phases (tests/bench smoke test)
    python bench/failures.py --games 20 --faults rolling,redis

As deployed: deploy/nginx-tessera.conf's nginx (tests/nginxsite.py: TLS, a self-signed
certificate) in front of two Daphne processes on PostgreSQL (DATABASE_URL) and a private
redis-server this script starts on a port of its own (so that restarting it troubles nobody
else's Redis), with a `manage.py jobs_worker` process. `--games` realtime Hadron 7x7 games (60
minutes each side, so no flag falls) move through wss://, one move every `--think` seconds,
two player pages per game. Each page behaves like static/js/socket.js and docs/protocol.md's
client: it reconnects after a cut (500 ms x 0.75-1.25, doubling; after a stopping process's
4012 close at once, within 150 ms), resends an unanswered `play`
with the same ply (answered `repeat` if it had been stored), asks for a `snapshot` when a move
has no answer within 3 s, and resends after `server_error` and after a snapshot without it
(game.js drops its pending move on a snapshot; the person plays it again).

Faults, one after the other while the games move:

* none: no fault, the same hold and catch-up: the baseline of the other rows on this machine
  (a loaded one charges clocks for its own slowness too).
* rolling: each Daphne process in turn gets SIGTERM (it drains READY_DRAIN_SECONDS, /readyz
  503), stops, and is started again; its pages reconnect through nginx to the other one.
* redis: the private redis-server is killed (its data with it: no save) and started again;
  noted: news_back_s (until a move in a game whose pages are on both processes is heard as
  news again) and pages_caught_up_s (until every open page knows the ply its game had when
  Redis came back, the games moving meanwhile).
* postgres: every backend of the database is terminated and new connections are refused
  (`ALTER DATABASE ... ALLOW_CONNECTIONS false`) for `--pg-down` seconds, then allowed again.
* worker: a jobs worker is killed (SIGKILL) while it thinks a computer's move, and while it
  runs an analysis; a new worker is started: the move must be made once, the analysis finish.

Per fault: actions acknowledged to the mover (its `action` echo, a `repeat`, or a snapshot
holding it) with the phase's sends; lost (acknowledged but not stored) and duplicated (stored
rows that are not the game's planned actions in order), compared with the `play_action` rows
afterwards; reconnect time (from the cut to the first snapshot) max and p99; catch-up (after
the phase the moves pause: how long until every page knows the ply the database has); errors
seen by code; clocks charged: the most the server charged a mover beyond the time its page
had the move (from hearing the previous action to sending), and how many moves over 1 s.

Each fault's row is printed as soon as the fault and its catch-up are over (a crash later
keeps it; a fault that fails says so in its row and the next one runs), then the whole table.

Not a test: it prints figures (`--json` for a file). Run under `nice`; figures on a loaded
machine are "loaded".
"""
import argparse
import asyncio
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
import traceback
import urllib.request
import uuid
from collections import Counter, defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path[:0] = [str(HERE), str(ROOT), str(ROOT / "tests"), str(ROOT / "site")]

FIRST_DELAY = 0.5        # static/js/socket.js FIRST_DELAY_MS
MAX_DELAY = 15.0         # MAX_DELAY_MS
RESTART_CLOSE_CODE = 4012  # a stopping process closed the socket: socket.js comes back at once,
RESTART_JITTER = 0.15      # within RESTART_JITTER_MS
ANSWER_WAIT = 3.0        # a move with no answer this long: ask for a snapshot
MINUTES = 60             # each side's clock: no flag falls during a run
DRAIN_S = 2              # READY_DRAIN_SECONDS of the Daphne processes
SPREAD_S = 5             # DRAIN_SPREAD_SECONDS: then their sockets close over this long
OVERCHARGE_S = 1.0       # a move charged this much beyond its page's time counts in the table
PERF_TO_WALL = time.time() - time.perf_counter()   # the pages' moments as the server's clock


# --- set-up (run in a child process with the servers' environment) -------------------------

def setup_games(plan_path, result_path):
    """Players, sessions and realtime games, as bench/tessera_setup.py does for untimed ones."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tessera.settings")
    import django
    django.setup()
    from django.db import transaction
    from play.clock import TimeControl
    from play.services import start_game
    import tessera_setup

    plan = json.loads(Path(plan_path).read_text())
    with transaction.atomic():
        pairs = tessera_setup.create_players(plan["prefix"], plan["slots"])
        sessions = tessera_setup.create_sessions([u for pair in pairs for u in pair])
    slots = []
    for pair in pairs:
        with transaction.atomic():
            games = [start_game(game="hadron", options={"size": 7}, players=pair,
                                time_control=TimeControl.realtime(MINUTES)).pk
                     for _ in range(plan["games_per_slot"])]
        slots.append({"sessions": [sessions[pair[0].pk], sessions[pair[1].pk]], "games": games})
    Path(result_path).write_text(json.dumps({"slots": slots}))


# --- the pages ------------------------------------------------------------------------------

class Phase:
    """What the clients saw while one fault (and its recovery) lasted."""

    def __init__(self, name):
        self.name = name
        self.acked = []                 # (game, ply, action)
        self.reconnects = []            # seconds from the cut to the first snapshot
        # Where a reconnection's time went: (waited before the successful attempt, its
        # handshake through nginx, its snapshot after the handshake), seconds each.
        self.reconnect_parts = []
        self.not_back = 0
        self.errors = Counter()
        self.started = time.perf_counter()
        self.notes = {}


class Run:
    def __init__(self, site, phase, database_url):
        self.site, self.phase, self.database_url = site, phase, database_url
        self.paused = False
        self.stopping = False
        self.sent_first = {}            # (game, ply) -> perf time of the first send
        self.heard_first = {}           # (game, ply, side) -> perf time the page knew of ply
        self.phase_of_send = {}         # (game, ply) -> phase
        self.cuts = defaultdict(list)   # (game, side) -> [(cut, back)] of its pages
        self.pages = []
        # Pages closed with 4012 come back at once (static/js/socket.js); off: the back-off
        # as after any close, as the page did before.
        self.quick_restart = True


class Page:
    """One player's game page: a wss:// socket through nginx that reconnects like the site's."""

    def __init__(self, run, game, side, session, rng):
        self.run, self.game, self.side, self.session, self.rng = run, game, side, session, rng
        self.ws = None
        self.actions = []
        self.status = "active"
        self.changed = asyncio.Event()
        self.answers = asyncio.Queue()  # repeat / error / ack for this page's moves
        self.reader = None
        self.closed_at = None
        self.done = False
        self.news = {}                  # ply -> when its `action` broadcast arrived

    async def connect(self):
        from websockets.asyncio.client import connect
        site = self.run.site
        self.connecting_at = time.perf_counter()
        self.ws = await connect(f"{site.ws_url}/ws/game/{self.game}/", origin=site.url,
                                additional_headers={"Cookie": f"sessionid={self.session}"},
                                ssl=site.ssl_context, open_timeout=30, compression=None,
                                max_size=2 ** 22, ping_interval=None)
        self.handshaken_at = time.perf_counter()
        while True:
            message = json.loads(await asyncio.wait_for(self.ws.recv(), 30))
            if message.get("type") == "snapshot":
                self.take_snapshot(message["game"])
                break
            self.handle(message)
        self.reader = asyncio.create_task(self.read())

    async def open(self):
        """The first open, with the page's backoff if the site is restarting just then."""
        cut = time.perf_counter()
        await self.reconnect(cut, count=False)

    def take_snapshot(self, game):
        actions = list(game["actions"])
        if len(actions) >= len(self.actions):
            self.actions = actions
        self.status = game["status"]
        self.note_heard()
        self.answers.put_nowait(("snapshot", None))
        self.changed.set()

    def note_heard(self):
        now = time.perf_counter()
        for ply in range(len(self.actions)):
            self.run.heard_first.setdefault((self.game, ply, self.side), now)

    def handle(self, message):
        kind = message.get("type")
        if kind == "action":
            ply = message["ply"]
            self.news.setdefault(ply, time.perf_counter())
            if ply == len(self.actions):
                self.actions.append(message["action"])
                self.note_heard()
                if message.get("result"):
                    self.status = "finished"
                self.answers.put_nowait(("action", ply))
            elif ply > len(self.actions):
                self.send_soon({"type": "snapshot"})   # a gap: catch up
        elif kind == "repeat":
            self.answers.put_nowait(("repeat", message["ply"]))
        elif kind == "snapshot":
            self.take_snapshot(message["game"])
        elif kind == "sync" or kind == "pong":
            if message.get("ply", 0) > len(self.actions) or (
                    kind == "sync" and message.get("status") != self.status):
                self.send_soon({"type": "snapshot"})
        elif kind == "end":
            self.status = "finished"
        elif kind == "clocks" and message.get("player") == self.side:
            # A restart's gap given back to this page's player (docs/protocol.md).
            notes = self.run.phase.notes
            notes["gaps_given_back"] = notes.get("gaps_given_back", 0) + 1
        elif kind == "error":
            self.run.phase.errors[message.get("code")] += 1
            self.answers.put_nowait(("error", message.get("code")))
        self.changed.set()

    def send_soon(self, message):
        asyncio.ensure_future(self.send(message))

    async def send(self, message):
        try:
            await self.ws.send(json.dumps(message))
            return True
        except Exception:
            return False

    async def read(self):
        try:
            async for text in self.ws:
                self.handle(json.loads(text))
        except Exception:
            pass
        if self.done:
            return
        code = self.ws.close_code if self.ws is not None else None
        await self.reconnect(time.perf_counter(), restart=code == RESTART_CLOSE_CODE)

    async def reconnect(self, cut, count=True, restart=False):
        attempt, phase = 0, self.run.phase
        self.closed_at = cut
        while not self.done:
            if restart and not attempt and self.run.quick_restart:
                await asyncio.sleep(self.rng.uniform(0, RESTART_JITTER))
            elif attempt or count:
                delay = min(MAX_DELAY, FIRST_DELAY * 2 ** attempt) * self.rng.uniform(0.75, 1.25)
                await asyncio.sleep(delay)
            attempt += 1
            try:
                await self.connect()
            except Exception as error:
                self.ws = None
                status = getattr(getattr(error, "response", None), "status_code", None)
                phase.errors[f"reconnect {status or type(error).__name__}"] += 1
                if time.perf_counter() - cut > 120:
                    phase.not_back += 1
                    return
                continue
            if count:
                back = time.perf_counter()
                self.run.cuts[(self.game, self.side)].append((cut, back))
                phase.reconnects.append(back - cut)
                phase.reconnect_parts.append((self.connecting_at - cut,
                                              self.handshaken_at - self.connecting_at,
                                              back - self.handshaken_at))
            self.closed_at = None
            return

    async def close(self):
        self.done = True
        if self.reader:
            self.reader.cancel()
        if self.ws is not None:
            try:
                await asyncio.wait_for(self.ws.close(), 5)
            except Exception:
                pass


async def make_move(run, mover, ply, action):
    """Send `play` until the mover knows it is stored: its `action` echo, a `repeat`, or a
    snapshot holding it. Returns True once acknowledged."""
    key = (mover.game, ply)
    while not mover.done:
        while not mover.answers.empty():
            mover.answers.get_nowait()
        if mover.ws is None or mover.closed_at is not None:
            await asyncio.sleep(0.1)
            continue
        run.sent_first.setdefault(key, time.perf_counter())
        run.phase_of_send.setdefault(key, run.phase)
        if not await mover.send({"type": "play", "ply": ply, "action": action}):
            await asyncio.sleep(0.1)
            continue
        deadline = time.perf_counter() + ANSWER_WAIT
        asked = False
        while True:
            if len(mover.actions) > ply:
                if mover.actions[ply] == action:
                    run.phase_of_send[key].acked.append((mover.game, ply, action))
                    return True
                return False         # someone else's action at that ply: not ours
            left = deadline - time.perf_counter()
            if left <= 0:
                if asked or mover.closed_at is not None:
                    break            # resend (the same ply: `repeat` if it was stored)
                asked = True
                await mover.send({"type": "snapshot"})
                deadline = time.perf_counter() + ANSWER_WAIT
                continue
            try:
                kind, what = await asyncio.wait_for(mover.answers.get(), left)
            except (TimeoutError, asyncio.TimeoutError):
                continue
            if kind == "snapshot" and mover.closed_at is None and len(mover.actions) == ply:
                # A snapshot without it: not stored (a move sent into a socket a restart closed,
                # lost). game.js drops its pending move on a snapshot and the person plays it
                # again; the same ply, so `repeat` if it was stored meanwhile after all.
                break
            if kind == "repeat" and what == ply:
                run.phase_of_send[key].acked.append((mover.game, ply, action))
                if len(mover.actions) == ply:
                    mover.actions.append(action)
                return True
            if kind == "error":
                if what in ("server_error", "rate_limited"):
                    await asyncio.sleep(0.5)
                    break            # resend
                if what == "stale":
                    continue         # a snapshot follows
                return False
    return False


async def play_slot(run, slot, moves, think, rng):
    sessions = slot["sessions"]
    for game, planned in zip(slot["games"], moves):
        if run.stopping:
            return
        pages = [Page(run, game, side, sessions[side], rng) for side in (0, 1)]
        run.pages = [p for p in run.pages if not p.done] + pages
        await asyncio.gather(*(p.open() for p in pages))
        try:
            await asyncio.sleep(rng.uniform(0, think))
            for ply, action in enumerate(planned):
                mover = pages[ply % 2]
                while len(mover.actions) < ply:       # the page must know the position
                    mover.changed.clear()
                    try:
                        await asyncio.wait_for(mover.changed.wait(), 1)
                    except (TimeoutError, asyncio.TimeoutError):
                        pass
                    if run.stopping:
                        return
                await asyncio.sleep(think * rng.uniform(0.8, 1.2))
                while run.paused and not run.stopping:
                    await asyncio.sleep(0.1)
                if run.stopping:
                    return
                if len(mover.actions) > ply:
                    continue
                if not await make_move(run, mover, ply, action):
                    return
        finally:
            for page in pages:
                await page.close()


# --- faults -------------------------------------------------------------------------------

class Deployment:
    def __init__(self, args, scratch):
        self.args, self.scratch = args, scratch
        self.redis = None
        self.workers = []

    def start_redis(self):
        self.redis = subprocess.Popen(
            ["redis-server", "--port", str(self.args.redis_port), "--bind", "127.0.0.1",
             "--save", "", "--appendonly", "no"],
            stdout=open(self.scratch / "redis.log", "ab"), stderr=subprocess.STDOUT,
            preexec_fn=die_with_parent)
        import redis
        client = redis.Redis(port=self.args.redis_port)
        deadline = time.monotonic() + 20
        while True:
            try:
                client.ping()
                return
            except redis.exceptions.ConnectionError:
                if time.monotonic() > deadline or self.redis.poll() is not None:
                    raise RuntimeError("redis-server did not start: "
                                       + (self.scratch / "redis.log").read_text()[-2000:])
                time.sleep(0.1)

    def stop_redis(self, kill=False):
        if self.redis and self.redis.poll() is None:
            self.redis.kill() if kill else self.redis.terminate()
            self.redis.wait(timeout=20)

    def start_worker(self, env):
        from siteservers import WORKER_ENV, start_jobs_worker
        worker = start_jobs_worker({**env, **WORKER_ENV},
                                   self.scratch / f"worker{len(self.workers)}.log")
        self.workers.append(worker)
        return worker

    def stop_workers(self):
        from siteservers import stop_process
        for worker in self.workers:
            stop_process(worker)


def bench_db(database_url, patience=60):
    """The bench's own connection to the database, tried again for `patience` seconds: on a
    shared PostgreSQL server its connections may be all taken for a moment ("too many
    clients"), which must not end the run."""
    import psycopg
    deadline = time.monotonic() + patience
    while True:
        try:
            return psycopg.connect(database_url)
        except psycopg.OperationalError:
            if time.monotonic() > deadline:
                raise
            time.sleep(1)


def stored(database_url, game_ids):
    """{game: [(ply, action, remaining0, remaining1), ...]} from play_action, in ply order."""
    with bench_db(database_url) as db:
        rows = db.execute("SELECT game_id, ply, action, remaining0_ms, remaining1_ms "
                          "FROM play_action WHERE game_id = ANY(%s) ORDER BY game_id, ply",
                          [list(game_ids)]).fetchall()
        plies = dict(db.execute("SELECT id, ply_count FROM play_game WHERE id = ANY(%s)",
                                [list(game_ids)]).fetchall())
    by_game = defaultdict(list)
    for game, ply, action, r0, r1 in rows:
        by_game[game].append((ply, action, r0, r1))
    return by_game, plies


async def catch_up(run, database_url, limit):
    """Pause the moves; the seconds until every open page knows the ply the database has (None
    if some page did not within `limit`), and how many pages were behind at the start."""
    run.paused = True
    await asyncio.sleep(ANSWER_WAIT + 1)     # moves in flight answered
    pages = [p for p in run.pages if not p.done]
    _, plies = await asyncio.to_thread(stored, database_url, {p.game for p in pages})
    started = time.perf_counter()
    behind_at_start = sum(1 for p in pages if len(p.actions) != plies.get(p.game, 0))
    while True:
        behind = [p for p in pages if not p.done and len(p.actions) != plies.get(p.game, 0)]
        if not behind:
            run.paused = False
            return time.perf_counter() - started, behind_at_start, 0
        if time.perf_counter() - started > limit:
            run.paused = False
            return None, behind_at_start, len(behind)
        await asyncio.sleep(0.1)


async def rolling_restart(run, servers, settle):
    """docs/operations.md's procedure: SIGTERM one process, start it again, wait until it is
    ready, then `settle` seconds more (nginx's fail_timeout: until then nginx still skips a
    process it saw refusing), then the next."""
    notes = {}
    for index, server in enumerate(servers):
        cut = time.perf_counter()
        await asyncio.to_thread(server.stop)   # SIGTERM: drains DRAIN_S, then stops
        notes[f"stop{index}_s"] = round(time.perf_counter() - cut, 1)
        await asyncio.to_thread(server.start)
        await asyncio.sleep(settle)
        # Some plain HTTP through nginx, as a live site always has: nginx counts a process it
        # saw refusing as down until one of its requests *completes* there, and an upgraded
        # websocket never completes; with sockets alone it answers 502 (no live upstreams)
        # for another fail_timeout when the next process stops.
        for _ in range(4):
            await asyncio.to_thread(http_get, run.site, "/healthz")
    return notes


def http_get(site, path):
    try:
        with urllib.request.urlopen(site.url + path, timeout=20,
                                    context=site.ssl_context) as response:
            return response.status
    except OSError as error:
        return error


async def open_beside(run, game, sessions, rng):
    """The two pages of the news probe's game, on different processes (nginx's round robin)."""
    from nginxsite import UPSTREAM_HEADER
    first = Page(run, game, 0, sessions[0], rng)
    await first.open()
    for _ in range(8):
        second = Page(run, game, 1, sessions[1], rng)
        await second.open()
        if (second.ws.response.headers[UPSTREAM_HEADER]
                != first.ws.response.headers[UPSTREAM_HEADER]):
            return [first, second]
        await second.close()
    raise RuntimeError("nginx sent every probe socket to one process")


async def news_probe(probe, planned, since, limit):
    """After `since`: moves in the probe game every 0.25 s, each mover learning the position
    from a snapshot (the database, not the channel layer), until the other page, on the other
    process, hears one of them as news. Seconds from `since` to that news (None: not within
    `limit`)."""
    while time.perf_counter() - since < limit:
        for mover, other in (probe, probe[::-1]):
            await mover.send({"type": "snapshot"})
            await asyncio.sleep(0.25)
            ply = len(mover.actions)
            if ply >= len(planned) or ply % 2 != mover.side:
                continue
            await mover.send({"type": "play", "ply": ply, "action": planned[ply]})
            await asyncio.sleep(0.25)
            heard = [t for p, t in other.news.items() if t > since and p >= ply]
            if heard:
                return min(heard) - since
    return None


async def redis_restart(run, deployment, probe, planned, limit, down):
    deployment.stop_redis(kill=True)
    await asyncio.sleep(down)
    await asyncio.to_thread(deployment.start_redis)
    back = time.perf_counter()
    _, plies = await asyncio.to_thread(stored, run.database_url,
                                       {p.game for p in run.pages if not p.done})
    news, caught_up = await asyncio.gather(news_probe(probe, planned, back, limit),
                                           pages_reach(run, plies, back, limit))
    return {"news_back_s": None if news is None else round(news, 2),
            "pages_caught_up_s": None if caught_up is None else round(caught_up, 2)}


async def pages_reach(run, plies, since, limit):
    """Seconds from `since` until every open page knows at least the ply its game had in the
    database at `since` (`plies`), the games moving meanwhile (None: not within `limit`)."""
    while time.perf_counter() - since < limit:
        if all(len(p.actions) >= plies.get(p.game, 0) for p in run.pages if not p.done):
            return time.perf_counter() - since
        await asyncio.sleep(0.05)
    return None


async def worker_kills(deployment, env, site, job_wait):
    """Kill a worker while it thinks a computer's move, and while it analyses a game."""
    return await asyncio.to_thread(worker_kills_sync, deployment, env, site, job_wait)


def worker_kills_sync(deployment, env, site, job_wait):
    import redis as redis_client
    from games import bots as engine_bots
    from tests.blundered import STORE_GAME, blundered_game
    from tests.ws.bot_client import computer_form, start_against_computer
    from tests.ws.live_client import WebSession
    server = site.servers[0]
    notes = {}
    password = "failures-bench-pass-" + uuid.uuid4().hex[:6]
    name = "fw" + uuid.uuid4().hex[:8]
    server.create_user(name, password)
    session = WebSession(site)
    session.log_in(name, password)
    layer = redis_client.Redis.from_url(env["REDIS_URL"])
    ns = f"{env['REDIS_PREFIX']}:jobs"

    def held():
        return any(layer.scard(key) for key in layer.scan_iter(f"{ns}:__acks__.*.jobs"))

    def kill_when_held(what):
        deadline = time.monotonic() + 30
        while not held():
            if time.monotonic() > deadline:
                notes[f"{what}_not_taken"] = True
                break
            time.sleep(0.02)
        worker = deployment.workers[-1]
        worker.send_signal(signal.SIGKILL)
        worker.wait()
        deployment.start_worker(env)

    # A computer's move: the top level on the largest Tripen board thinks for seconds.
    path = start_against_computer(session, **computer_form(
        "tripen", {"size": 13}, level=engine_bots.CLOCK_TOP_LEVEL, side="second", minutes=1))
    game_id = int(path.strip("/").split("/")[-1])
    kill_when_held("move")
    killed_at = time.monotonic()
    with server_db(env) as db:
        while True:
            rows = db.execute("SELECT player FROM play_action WHERE game_id = %s ORDER BY ply",
                              [game_id]).fetchall()
            if rows or time.monotonic() - killed_at > job_wait:
                break
            time.sleep(0.2)
    notes["move"] = "made once" if [r[0] for r in rows] == [0] else f"rows {rows}"
    notes["move_after_kill_s"] = round(time.monotonic() - killed_at, 1)

    # An analysis, killed after it began.
    players = [f"fa{uuid.uuid4().hex[:6]}" for _ in range(2)]
    for player in players:
        server.create_user(player, password)
    actions, _ = blundered_game("hadron", {"size": 5})
    pk = int(server.shell(STORE_GAME.format(names=tuple(players), game="hadron",
                                            options={"size": 5}, actions=actions)).split()[-1])
    asked = session.post_json(f"/game/{pk}/analysis.json")
    kill_when_held("analysis")
    killed_at = time.monotonic()

    def analysis_now():
        try:
            with urllib.request.urlopen(f"{site.url}/game/{pk}/analysis.json", timeout=20,
                                        context=site.ssl_context) as response:
                return json.loads(response.read())
        except OSError as error:     # timeouts included: noted, asked again
            notes[f"analysis.json {type(error).__name__}"] = notes.get(
                f"analysis.json {type(error).__name__}", 0) + 1
            return None

    answer = None
    while answer is None and time.monotonic() - killed_at < job_wait:
        answer = analysis_now()
    at_kill = len(answer["positions"]) if answer else 0
    while time.monotonic() - killed_at < job_wait:
        answer = analysis_now() or answer
        if answer and answer["status"] == "done":
            break
        time.sleep(0.3)
    positions = len(answer["positions"]) if answer else 0
    status = answer["status"] if answer else None
    notes["analysis"] = ("finished" if status == "done" and positions == len(actions) + 1 else
                         f"{status} after {job_wait:g} s, asked {asked.get('status')}")
    notes["analysis_after_kill_s"] = round(time.monotonic() - killed_at, 1)
    # A new worker took the job over if positions came after the kill (on a busy machine the
    # workers' SCHED_IDLE may keep it from finishing within job_wait).
    notes["positions_after_kill"] = positions - at_kill
    return notes


def server_db(env):
    return bench_db(env["DATABASE_URL"])


# --- verification ---------------------------------------------------------------------------

class Sent:
    """A copy of what a Run or a Phase holds (dicts, lists, counters), to read on a thread."""

    def __init__(self, of):
        for name, value in vars(of).items():
            setattr(self, name, value.copy() if hasattr(value, "copy") else value)
        self.original = of


def verify(run, phase, database_url, moves_of):
    """The row of `phase`, from the play_action rows as they are once it has ended (a later
    fault cannot change what it stored, nor add to what it sent)."""
    by_game, _ = stored(database_url, list(moves_of))
    with bench_db(database_url) as db:
        stored_at = {(g, ply): at for g, ply, at in db.execute(
            "SELECT game_id, ply, extract(epoch from created_at)::float FROM play_action "
            "WHERE game_id = ANY(%s)", [list(moves_of)]).fetchall()}
    delays = []
    rows = {(g, ply): (action, r0, r1) for g, items in by_game.items()
            for ply, action, r0, r1 in items}
    duplicated = 0
    for game, planned in moves_of.items():
        for ply, action, _, _ in by_game.get(game, []):
            if (ply >= len(planned) or planned[ply] != action) and \
                    run.phase_of_send.get((game, ply)) is phase.original:
                duplicated += 1
    lost = sum(1 for g, ply, action in phase.acked if rows.get((g, ply), (None,))[0] != action)
    parts = {}
    for index, name in enumerate(("wait", "handshake", "snapshot")):
        samples = [p[index] for p in phase.reconnect_parts]
        if samples:
            parts[f"{name}_p99/max_s"] = (f"{percentile(samples, 0.99):.2f}/"
                                          f"{max(samples):.2f}")
    over = []
    kinds = Counter()
    for (g, ply), sent_phase in run.phase_of_send.items():
        if sent_phase is not phase.original or ply < 2 or (g, ply) not in rows or \
                (g, ply - 1) not in rows:
            continue
        side = ply % 2
        before, after = rows[(g, ply - 1)][1 + side], rows[(g, ply)][1 + side]
        heard = run.heard_first.get((g, ply - 1, side))
        sent = run.sent_first.get((g, ply))
        if before is None or after is None or heard is None or sent is None:
            continue
        over.append((before - after) / 1000 - (sent - heard))
        if over[-1] > OVERCHARGE_S:
            # Which overcharged moves had their mover's page cut (closed, back) between
            # hearing the previous action and sending this one.
            cut = any(heard - 10 < c < sent for c, _ in run.cuts.get((g, side), ()))
            other = any(heard - 10 < c < sent for c, _ in run.cuts.get((g, 1 - side), ()))
            kinds[("mover cut" if cut else "mover not cut") +
                  (", opponent cut" if other else "")] += 1
            if (g, ply - 1) in stored_at and (g, ply) in stored_at:
                # Where it went: the previous action's news reaching the page, and this one
                # from the page's send to its row.
                delays.append((heard + PERF_TO_WALL - stored_at[(g, ply - 1)],
                               stored_at[(g, ply)] - (sent + PERF_TO_WALL), over[-1]))
    return {
        "acked": len(phase.acked), "lost": lost, "duplicated": duplicated,
        "reconnects": len(phase.reconnects), "not_back": phase.not_back,
        "reconnect_max": max(phase.reconnects, default=None),
        "reconnect_p99": percentile(phase.reconnects, 0.99),
        "errors": dict(phase.errors),
        "overcharge_max": max(over, default=None),
        "overcharged": sum(1 for o in over if o > OVERCHARGE_S),
        **parts, **({"overcharged_by": dict(kinds)} if kinds else {}),
        **({"overcharged_news_delay_max_s": round(max(d[0] for d in delays), 2),
            "overcharged_store_delay_max_s": round(max(d[1] for d in delays), 2),
            # The server's slowness, not a gap: over half of the charge beyond the page's
            # time is the news's way to the page and the move's way to its row.
            "overcharged_mostly_news_or_store": sum(1 for n, st, o in delays if n + st > o / 2),
            # What is left once those are taken off: the gap a restart made, charged.
            "gap_charged_over_1s": sum(1 for n, st, o in delays
                                       if o - max(n, 0) - max(st, 0) > OVERCHARGE_S),
            "gap_charged_max_s": round(max(o - max(n, 0) - max(st, 0) for n, st, o in delays),
                                       2)}
           if delays else {}),
        **phase.notes}


def percentile(samples, q):
    if not samples:
        return None
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


# --- the run --------------------------------------------------------------------------------

async def scenario(args, site, servers, deployment, env, slots, moves_by_slot, moves_of):
    """The faults one after the other while the games move; each fault's row is printed as
    soon as the fault and its catch-up are over (a crash later keeps it). Returns the rows."""
    run = Run(site, Phase("warm-up"), env["DATABASE_URL"])
    run.quick_restart = not args.backoff_on_restart
    rng = random.Random(5)
    probe_slot, probe_moves = slots[-1], moves_by_slot[-1][0]
    slots, moves_by_slot = slots[:-1], moves_by_slot[:-1]
    probe = await open_beside(run, probe_slot["games"][0], probe_slot["sessions"], rng)
    tasks = [asyncio.create_task(play_slot(run, slot, moves, args.think, rng))
             for slot, moves in zip(slots, moves_by_slot)]
    results = {}
    await asyncio.sleep(args.warmup)
    print_header()
    for fault in args.faults:
        phase = Phase(fault)
        run.phase = phase
        print(f"  {fault} ...", file=sys.stderr, flush=True)
        try:
            if fault == "rolling":
                phase.notes.update(await rolling_restart(run, servers, args.settle))
            elif fault == "redis":
                phase.notes.update(await redis_restart(run, deployment, probe, probe_moves,
                                                       args.catch_up, args.redis_down))
            elif fault == "postgres":
                from siteservers import database_away
                phase.notes["backends_terminated"] = await asyncio.to_thread(
                    database_away, env["DATABASE_URL"], args.pg_down)
            elif fault == "worker":
                phase.notes.update(await worker_kills(deployment, env, site, args.job_wait))
        except Exception as error:
            # The row says so (the smoke test fails on it), and the next faults still run.
            traceback.print_exc()
            phase.notes["failed"] = f"{type(error).__name__}: {error}"
        try:
            await asyncio.sleep(args.hold)
            took, behind, still = await catch_up(run, env["DATABASE_URL"], args.catch_up)
            phase.notes.update(catch_up_s=None if took is None else round(took, 1),
                               behind=behind, not_caught_up=still)
            # Measured on a copy: the games move on meanwhile, on the loop.
            results[fault] = await asyncio.to_thread(verify, Sent(run), Sent(phase),
                                                     env["DATABASE_URL"], moves_of)
        except Exception as error:
            traceback.print_exc()
            results[fault] = {"failed": f"{type(error).__name__}: {error}", **phase.notes}
        print_row(fault, results[fault])
    run.stopping = True
    run.paused = False
    await asyncio.wait(tasks, timeout=ANSWER_WAIT * 3)
    for task in tasks:
        task.cancel()
    for page in run.pages + probe:
        await page.close()
    return results


def die_with_parent():
    from siteservers import die_with_parent as die
    die()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200, help="games moving at once (200)")
    parser.add_argument("--think", type=float, default=3.0, help="seconds between a game's moves (3)")
    parser.add_argument("--warmup", type=float, default=10.0)
    parser.add_argument("--hold", type=float, default=10.0, help="seconds of load after each fault")
    parser.add_argument("--catch-up", type=float, default=40.0, help="seconds pages may take to catch up")
    parser.add_argument("--pg-down", type=float, default=3.0, help="seconds PostgreSQL refuses (3)")
    parser.add_argument("--redis-down", type=float, default=1.0, help="seconds Redis is away (1)")
    parser.add_argument("--settle", type=float, default=10.0,
                        help="seconds between a restarted process being ready and the next "
                             "SIGTERM (nginx's fail_timeout, 10)")
    parser.add_argument("--job-wait", type=float, default=90.0,
                        help="seconds the computer's move and the analysis may take after "
                             "their worker is killed (90)")
    parser.add_argument("--faults", default="none,rolling,redis,postgres,worker",
                        help="none: a phase without a fault, the baseline of the others' "
                             "figures on this machine")
    parser.add_argument("--port-base", type=int, default=8600, help="8600: Daphne +1/+2, nginx +10/+11, redis +20")
    parser.add_argument("--backoff-on-restart", action="store_true",
                        help="pages closed with 4012 back off as after any close (the page "
                             "before it came back at once)")
    parser.add_argument("--spread", type=float, default=SPREAD_S,
                        help=f"DRAIN_SPREAD_SECONDS of the Daphne processes ({SPREAD_S:g})")
    parser.add_argument("--smoke", action="store_true", help="tiny shape for the smoke test")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--keep", action="store_true", help="keep the logs and say where")
    args = parser.parse_args(argv)
    if args.smoke:
        args.games, args.think, args.warmup, args.hold, args.pg_down = 4, 1.0, 3.0, 4.0, 1.0
        args.catch_up, args.settle = 40.0, 2.0
    args.faults = [f for f in args.faults.split(",") if f]
    args.redis_port = args.port_base + 20

    database_url = os.environ.get("DATABASE_URL", "")
    if not database_url.startswith(("postgres://", "postgresql://")):
        sys.exit("DATABASE_URL must name a PostgreSQL database (its backends are terminated)")
    os.environ.setdefault("SECRET_KEY", "failures-bench-" + uuid.uuid4().hex + uuid.uuid4().hex)

    import loadgen
    import nginxsite
    import siteservers
    ports = iter([args.port_base + 10, args.port_base + 11])
    nginxsite.free_port = lambda: next(ports)
    scratch = Path(tempfile.mkdtemp(prefix="tessera-failures-"))
    deployment = Deployment(args, scratch)
    servers, site = [], None
    try:
        deployment.start_redis()
        os.environ["REDIS_URL"] = f"redis://127.0.0.1:{args.redis_port}/0"
        env = siteservers.server_env(database_url, **nginxsite.BEHIND_NGINX,
                                     READY_DRAIN_SECONDS=str(DRAIN_S),
                                     DRAIN_SPREAD_SECONDS=str(args.spread))
        # Production keep-alives (30 s sync), not the tests' quick ones.
        for name in ("LIVE_HEARTBEAT", "LIVE_KEEPALIVE", "LIVE_SWEEP"):
            env.pop(name)
        # Every page comes from 127.0.0.1 through nginx: one address's caps would be all of
        # them (as bench/live_load.py lifts them).
        # The games are made before the run, each slot's next one started only when the last
        # ends: no "first move not made in time" abort for them meanwhile.
        env.update(PLAY_FIRST_MOVE_SECONDS="100000")
        env.update(LIVE_SOCKETS_PER_ADDRESS="100000", LIVE_SOCKETS_PER_USER="1000",
                   LIVE_SNAPSHOT_BURST="1000000", LIVE_SNAPSHOT_PER_SECOND="1000000")
        siteservers.migrate(env)
        per_slot = 4
        # One slot more: the news probe's game (redis).
        plan = {"prefix": "f" + uuid.uuid4().hex[:6], "slots": args.games + 1,
                "games_per_slot": per_slot}
        (scratch / "plan.json").write_text(json.dumps(plan))
        subprocess.run([sys.executable, __file__, "--setup", str(scratch / "plan.json"),
                        str(scratch / "games.json")], cwd=ROOT, env=env, check=True, timeout=900)
        slots = json.loads((scratch / "games.json").read_text())["slots"]
        sequences = loadgen.hadron_games(len(slots) * per_slot, seed=3)
        moves_by_slot = [sequences[i * per_slot:(i + 1) * per_slot] for i in range(len(slots))]
        moves_of = {g: m for slot, ms in zip(slots, moves_by_slot) for g, m in zip(slot["games"], ms)}
        servers = [siteservers.SiteServer(env, args.port_base + 1 + i, scratch / f"daphne{i}.log")
                   for i in range(2)]
        for server in servers:
            server.start()
        (scratch / "nginx").mkdir()
        site = nginxsite.NginxSite(scratch / "nginx", servers).start()
        deployment.start_worker(servers[0].env)
        started = time.monotonic()
        # Not asyncio.run: at its end it waits for every task left to be cancelled, and a page
        # task stuck in its socket's closing once kept a finished run from ever printing.
        loop = asyncio.new_event_loop()
        results = loop.run_until_complete(scenario(args, site, servers, deployment,
                                                   servers[0].env, slots, moves_by_slot,
                                                   moves_of))
        print(f"\n{args.games} games through nginx (2 Daphne, PostgreSQL, private Redis), 1 move / "
              f"{args.think:g} s per game; {time.monotonic() - started:.0f} s")
        print_table(results)
        if args.json:
            args.json.write_text(json.dumps(results, indent=1))
        return results
    finally:
        if site:
            site.stop()
        for server in servers:
            server.stop()
        deployment.stop_workers()
        deployment.stop_redis()
        if args.keep:
            print(f"logs in {scratch}")


def seconds(value):
    return "-" if value is None else f"{value:.2f}"


def print_table(results):
    print_header()
    for fault, row in results.items():
        print_row(fault, row)


def print_header():
    print(f"| fault | acked | lost | duplicated | reconnects (not back) | reconnect max / p99 s | "
          f"catch-up s (pages behind) | errors by code | clocks charged > {OVERCHARGE_S:g} s (max s) | notes |")
    print("|---|---|---|---|---|---|---|---|---|---|", flush=True)


def print_row(fault, r):
    if "acked" not in r:
        print(f"| {fault} | not measured: {r} |", flush=True)
        return
    notes = {k: v for k, v in r.items() if k not in {
        "acked", "lost", "duplicated", "reconnects", "not_back", "reconnect_max",
        "reconnect_p99", "errors", "overcharge_max", "overcharged", "catch_up_s", "behind",
        "not_caught_up"}}
    catch = (f"{seconds(r['catch_up_s'])} ({r['behind']})" if r.get("not_caught_up") == 0
             else f"NOT: {r.get('not_caught_up')} of {r.get('behind')}")
    errors = ", ".join(f"{k} {v}" for k, v in sorted(r["errors"].items())) or "none"
    print(f"| {fault} | {r['acked']} | {r['lost']} | {r['duplicated']} | {r['reconnects']} "
          f"({r['not_back']}) | {seconds(r['reconnect_max'])} / {seconds(r['reconnect_p99'])} | "
          f"{catch} | {errors} | {r['overcharged']} ({seconds(r['overcharge_max'])}) | "
          f"{', '.join(f'{k} {v}' for k, v in notes.items())} |", flush=True)


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--setup":
        setup_games(sys.argv[2], sys.argv[3])
    else:
        try:
            main()
        except KeyboardInterrupt:
            sys.exit(130)
