"""Benchmark: bot accounts playing through the HTTP API beside the same bots playing over the
game socket (their tokens on its handshake), and what either does to people's moves on the same
server process (issue 27's "Measured").

    python bench/api_bots.py                        # 100 games (200 bots), 20 s measured per phase
    python bench/api_bots.py --games 50 --duration 30
    python bench/api_bots.py --smoke --json out.json   # tiny (tests/bench/test_api_bots_smoke.py)
    python bench/api_bots.py --games 20 --base /tmp/base --repeat 3   # /tmp/base's tree, then
                                                    # this one, in turn, 3 times; medians
    python bench/api_bots.py --games 20 --profile /tmp/prof   # py-spy of each phase's window
    python bench/api_bots.py --cost 600 --base /tmp/base --repeat 3   # server CPU per action

One Daphne server (tests/siteservers.py: a scratch SQLite file, the in-memory channel layer:
the embedded default). Three phases of `--duration` seconds after `--warmup`, each on games
of its own (Hadron 7x7, untimed, moves drawn at random beforehand by the engine,
bench/loadgen.hadron_games):

1. people alone: `--people` games between people on their cookie sockets, a move every
   `--people-think` seconds per game, each watched by two spectators (bench/loadgen.run_load,
   the live benchmark's own load);
2. the same people, plus `--games` games between bot accounts (two bots a game, each with its
   own `bot` token) through the API: each bot acts once a second (`--rate`), POST
   /api/v1/games/{id}/play on a kept-alive connection of its own; its round trip is the POST
   until its answer;
3. the same people, plus the same bot load over the game socket, each bot on a socket opened
   with its token: its round trip is the `play` frame until its own `action` comes back.

It prints, per phase, the bots' action round trip (p50/p99), the people's move latency (from
the mover's frame to its `action` reaching the opponent and the spectators: p50/p99), the
server's CPU and the load's (this process's: the bots' clients and the people's sockets share
it, so a load that costs its client more delays the people's figures too); then the API/socket ratio of the bots' p99 (issue 27's target: at most 1.5) and
the people's p99 with the API load against without. It is not a test: on a shared machine,
compare the figures of one run only.

With `--base DIR`, each round runs the three phases on DIR's tree (another checkout, with its
own server, database and data), then on this one; `--repeat N` rounds, then the medians of
each figure per tree and phase, and their ratios (this tree / base). `--profile DIR` records
the server with py-spy (50 Hz, `--gil`: CPU only) over each phase's measured window, in
speedscope files named by tree and phase.

`--cost N` measures instead what one bot action costs the server: N actions one at a time
(each answered before the next leaves) over COST_GAMES games, through the API, then over the
socket, and the server's CPU over each divided by N, less what the server spends idle over
as long (measured for IDLE_SECONDS before; the phases are not run). One at a time, nothing
queues, so the figure depends less on the machine's load than the phases' do.
"""
import argparse
import asyncio
import json
import os
import random
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(HERE)]
os.environ.setdefault("SECRET_KEY", "api-bots-benchmark-only-key-never-used-by-a-site-0123456789")

from websockets.asyncio.client import connect  # noqa: E402

import loadgen  # noqa: E402
from siteservers import SiteServer, free_port, migrate, server_env  # noqa: E402

TICKS = os.sysconf("SC_CLK_TCK")
COST_GAMES = 10
IDLE_SECONDS = 4
OPEN_TIMEOUT = 60
ANSWER_TIMEOUT = 10


class Window:
    """The measured seconds: actions sent inside it count. It opens with the people's
    (open_now, when run_load samples the server at its start); until then the bots warm up."""

    def __init__(self, duration):
        self.duration = duration
        self.start = self.end = float("inf")
        self.next_at = {}  # game id -> when its next action leaves

    def open_now(self):
        if self.start == float("inf"):
            self.start = time.perf_counter()
            self.end = self.start + self.duration

    def holds(self, moment):
        return self.start <= moment < self.end


class Bots:
    """What the bots of one phase measured."""

    def __init__(self):
        self.round_trips = []
        self.errors = Counter()


# -- setting up: people with sessions, bot accounts with tokens --------------------------------

def set_up(server, prefix, slots, games_per_slot):
    """bench/tessera_setup.py's users, sessions and games, in the server's database."""
    tmp = Path(tempfile.mkdtemp(prefix="api-bots-plan-"))
    plan, result = tmp / "plan.json", tmp / "result.json"
    plan.write_text(json.dumps({"prefix": prefix, "slots": slots,
                                "games_per_slot": games_per_slot}))
    env = {**server.env, "PYTHONPATH": os.pathsep.join([str(server.root / "site"),
                                                         str(server.root)])}
    subprocess.run([sys.executable, str(HERE / "tessera_setup.py"), str(plan), str(result)],
                   cwd=server.root, env=env, check=True, timeout=900)
    return json.loads(result.read_text())


def bot_tokens(server, prefix, slots):
    """Turn the slots' players into bot accounts, a `bot` token each: [[secret0, secret1], ...].
    (Their games exist already, which the settings page would refuse: benchmark data.)"""
    code = ("import json\nfrom django.contrib.auth import get_user_model\n"
            "from api import tokens\nfrom api.models import BotAccount\n"
            f"users = {{u.username: u for u in get_user_model().objects.filter("
            f"username__startswith={prefix + 's'!r})}}\n"
            "BotAccount.objects.bulk_create([BotAccount(user=u) for u in users.values()])\n"
            f"print(json.dumps([[tokens.create(users[f'{prefix}s{{slot}}p{{side}}'], 'bench', "
            f"['bot'])[1] for side in (0, 1)] for slot in range({slots})]))\n")
    return json.loads(server.shell(code).strip().splitlines()[-1])


# -- an API bot: HTTP/1.1 on one kept-alive connection -----------------------------------------

class HttpBot:
    def __init__(self, server, secret):
        self.host, self.port, self.secret = "127.0.0.1", server.port, secret
        self.reader = self.writer = None

    async def open(self):
        self.reader, self.writer = await asyncio.open_connection(self.host, self.port)

    async def post(self, path, body):
        data = json.dumps(body).encode()
        self.writer.write(
            (f"POST {path} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\n"
             f"Authorization: Bearer {self.secret}\r\nContent-Type: application/json\r\n"
             f"Content-Length: {len(data)}\r\n\r\n").encode() + data)
        await self.writer.drain()
        # The head in one read, not a readline per header: this client shares its process
        # (and its CPU) with the people's sockets it measures beside.
        status_line, *headers = (await self.reader.readuntil(b"\r\n\r\n")).split(b"\r\n")
        status = int(status_line.split()[1])
        length, chunked, close = 0, False, False
        for header in headers:
            name, _, value = header.decode("latin1").partition(":")
            name, value = name.strip().lower(), value.strip().lower()
            if name == "content-length":
                length = int(value)
            elif name == "transfer-encoding":
                chunked = value == "chunked"
            elif name == "connection":
                close = value == "close"
        if chunked:
            while size := int((await self.reader.readline()).split(b";")[0], 16):
                await self.reader.readexactly(size + 2)
            await self.reader.readline()
        else:
            await self.reader.readexactly(length)
        if close:
            await self.close()
            await self.open()
        return status

    async def close(self):
        if self.writer:
            self.writer.close()


async def api_game(bots, game_id, moves, interval, window, measured):
    """Two bots play `moves` through the API, one action every `interval` seconds."""
    for ply, move in enumerate(moves):
        await asyncio.sleep(max(0.0, window.next_at.get(game_id, 0) - time.perf_counter()))
        sent = time.perf_counter()
        if sent >= window.end:
            return False
        window.next_at[game_id] = sent + interval
        try:
            status = await asyncio.wait_for(
                bots[ply % 2].post(f"/api/v1/games/{game_id}/play", {"ply": ply, "action": move}),
                ANSWER_TIMEOUT)
        except Exception as error:
            measured.errors[type(error).__name__] += 1
            return False
        if status != 200:
            measured.errors[status] += 1
            return False
        if window.holds(sent):
            measured.round_trips.append(time.perf_counter() - sent)
    return True


# -- a socket bot: the game socket, its token on the handshake ---------------------------------

class SocketBot:
    def __init__(self, server, secret):
        self.server, self.secret = server, secret
        self.ws = self.task = None
        self.waiting = {}  # ply -> future of its action's arrival

    async def open(self, game_id):
        self.ws = await connect(f"{self.server.ws_url}/ws/game/{game_id}/", compression=None,
                                additional_headers={"Authorization": f"Bearer {self.secret}"},
                                open_timeout=OPEN_TIMEOUT, ping_interval=None, max_size=2 ** 22)
        while True:
            message = json.loads(await asyncio.wait_for(self.ws.recv(), OPEN_TIMEOUT))
            if message["type"] == "snapshot":
                break
        self.task = asyncio.create_task(self.read())

    async def read(self):
        try:
            async for text in self.ws:
                message = json.loads(text)
                kind = message.get("type")
                if kind == "action":  # both bots hear it: the mover waits for its ply's
                    found = [self.waiting.pop(message["ply"], None)]
                elif kind == "error":  # the refused action's (one at a time per bot)
                    found, self.waiting = list(self.waiting.values()), {}
                else:
                    continue
                for future in found:
                    if future is not None and not future.done():
                        future.set_result(message)
        except Exception:
            pass

    async def play(self, ply, action):
        heard = asyncio.get_running_loop().create_future()
        self.waiting[ply] = heard
        await self.ws.send(json.dumps({"type": "play", "ply": ply, "action": action}))
        return await asyncio.wait_for(heard, ANSWER_TIMEOUT)

    async def close(self):
        if self.task:
            self.task.cancel()
        if self.ws:
            await self.ws.close()


async def socket_game(bots, game_id, moves, interval, window, measured):
    for ply, move in enumerate(moves):
        await asyncio.sleep(max(0.0, window.next_at.get(game_id, 0) - time.perf_counter()))
        sent = time.perf_counter()
        if sent >= window.end:
            return False
        window.next_at[game_id] = sent + interval
        try:
            answer = await bots[ply % 2].play(ply, move)
        except Exception as error:
            measured.errors[type(error).__name__] += 1
            return False
        if answer["type"] == "error":
            measured.errors[answer.get("code")] += 1
            return False
        if window.holds(sent):
            measured.round_trips.append(time.perf_counter() - sent)
    return True


async def bot_slot(server, kind, secrets, rooms, moves, interval, window, measured, gate,
                   opened):
    """Two bots play the slot's games one after another until the window ends; `opened`
    is released once their first game's connections are open."""
    for index, (room, game_moves) in enumerate(zip(rooms, moves)):
        if time.perf_counter() >= window.end:
            return
        bots = [(HttpBot if kind == "api" else SocketBot)(server, secret) for secret in secrets]
        try:
            try:
                async with gate:
                    await asyncio.gather(*(bot.open() if kind == "api" else bot.open(room)
                                           for bot in bots))
            except Exception as error:
                measured.errors[f"open: {type(error).__name__}"] += 1
                if index == 0:
                    opened.release()
                return
            if index == 0:
                # The first action somewhere in the first interval: the games' actions spread.
                window.next_at[room] = time.perf_counter() + random.uniform(0, interval)
                opened.release()
            play = api_game if kind == "api" else socket_game
            if not await play(bots, room, game_moves, interval, window, measured):
                return
        finally:
            await asyncio.gather(*(bot.close() for bot in bots), return_exceptions=True)


# -- the phases --------------------------------------------------------------------------------

def cpu_seconds(server):
    fields = Path(f"/proc/{server.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


async def phase(server, people, bots, args):
    """People's games (loadgen.run_load) and, with `bots` = (kind, setup, secrets), the bots'
    games beside them, over the same window."""
    target = loadgen.Target("tessera", [server.url])
    measured = Bots()
    tasks = []
    window = Window(args.duration)
    if bots is not None:
        kind, setup, secrets = bots
        gate = asyncio.Semaphore(loadgen.CONNECTS_AT_ONCE)
        opened = asyncio.Semaphore(0)
        interval = 1 / (2 * args.rate)  # two bots a game, each acting `rate` times a second
        shapes = loadgen.hadron_games(args.games * args.games_per_slot, seed=11)
        for index, (slot, pair) in enumerate(zip(setup["slots"], secrets)):
            moves = shapes[index * args.games_per_slot:(index + 1) * args.games_per_slot]
            tasks.append(asyncio.create_task(bot_slot(server, kind, pair, slot["games"], moves,
                                                      interval, window, measured, gate, opened)))
        # The bots connect and start playing first, then the people come: a handshake the
        # server has not answered within Daphne's 5 s is dropped, and the people's must not.
        for _ in tasks:
            await asyncio.wait_for(opened.acquire(), OPEN_TIMEOUT)
    cpu = {}

    def sample():
        window.open_now()  # run_load samples at its window's start, then at its end
        if "before" not in cpu and args.profile:
            profile(server, args, bots[0] if bots else "people")
        cpu.setdefault("before", cpu_seconds(server))
        cpu.setdefault("load_before", time.process_time())
        return cpu_seconds(server), 0

    stats, _ = await loadgen.run_load(target, people, args.people_think, args.warmup,
                                      args.duration, sample)
    if tasks:
        await asyncio.wait(tasks, timeout=ANSWER_TIMEOUT + 5)
        for task in tasks:
            task.cancel()
    return {"bots": measured, "people": stats, "cpu_s": cpu_seconds(server) - cpu["before"],
            # This process's (the load's) CPU over the window and the wait for the bots.
            "load_cpu_s": time.process_time() - cpu["load_before"]}


def profile(server, args, kind, seconds=None):
    """py-spy over the measured window (`seconds`, else --duration), in the background (CPU
    only: --gil)."""
    path = Path(args.profile) / f"{args.tree}-{kind}-{args.round}.speedscope.json"
    spy = shutil.which("py-spy") or str(Path(sys.executable).parent / "py-spy")
    return subprocess.Popen([spy, "record", "--pid", str(server.process.pid), "--rate", "50",
                             "--gil", "--duration", str(int(seconds or args.duration)),
                             "--format", "speedscope", "--nonblocking", "-o", str(path)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


async def cost(server, kind, setup, secrets, actions, args):
    """Server CPU ms per bot action through `kind`'s door, actions one at a time, round robin
    over the slots' games (each slot's games one after another)."""
    shapes = iter(loadgen.hadron_games(len(setup["slots"]) * args.games_per_slot, seed=5))
    # per slot: [bots, room, moves, ply, its rooms not played yet, its bots' secrets]
    games = [[None, None, [], 0, list(slot["games"]), pair]
             for slot, pair in zip(setup["slots"], secrets)]

    async def next_game(game):
        if game[0]:
            await asyncio.gather(*(bot.close() for bot in game[0]))
        room = game[4].pop(0)
        bots = [(HttpBot if kind == "api" else SocketBot)(server, secret) for secret in game[5]]
        await asyncio.gather(*(bot.open() if kind == "api" else bot.open(room) for bot in bots))
        game[:4] = [bots, room, next(shapes), 0]

    for game in games:
        await next_game(game)
    # What the server spends with nobody acting (its periodic work: sweeps, heartbeat,
    # keep-alives), taken off: on a loaded machine the actions take longer, and that work's
    # share per action would grow with the load.
    idle_from, idle_start = time.perf_counter(), cpu_seconds(server)
    await asyncio.sleep(IDLE_SECONDS)
    idle_rate = (cpu_seconds(server) - idle_start) / (time.perf_counter() - idle_from)
    errors, done = Counter(), 0
    spy = profile(server, args, f"cost-{kind}", 600) if args.profile else None
    start, began = cpu_seconds(server), time.perf_counter()
    while done < actions:
        for game in games:
            if game[3] >= len(game[2]):
                await next_game(game)
            bots, room, moves, ply = game[:4]
            if kind == "api":
                status = await bots[ply % 2].post(f"/api/v1/games/{room}/play",
                                                  {"ply": ply, "action": moves[ply]})
            else:
                answer = await bots[ply % 2].play(ply, moves[ply])
                status = 200 if answer["type"] == "action" else answer.get("code")
            if status != 200:
                errors[status] += 1
            game[3] += 1
            done += 1
    used, took = cpu_seconds(server) - start, time.perf_counter() - began
    if spy is not None:
        spy.send_signal(signal.SIGINT)  # py-spy writes its file when interrupted
        await asyncio.to_thread(spy.wait, 60)
    for game in games:
        await asyncio.gather(*(bot.close() for bot in game[0]))
    return {"ms_per_action": 1000 * (used - idle_rate * took) / done,
            "gross_ms_per_action": 1000 * used / done, "idle_cpu_per_s": idle_rate,
            "seconds": took, "actions": done, "errors": dict(errors)}


def people_slots(setup, think, seed):
    shapes = loadgen.hadron_games(sum(len(s["games"]) for s in setup["slots"]), seed=seed)
    slots, taken = [], 0
    for slot in setup["slots"]:
        count = len(slot["games"])
        slots.append(loadgen.Slot(rooms=slot["games"], moves=shapes[taken:taken + count],
                                  sessions=tuple(slot["sessions"])))
        taken += count
    return slots


def figures(result, duration):
    people = result["people"].latencies
    heard = people["opponent"] + people["spectator"]
    bots = result["bots"]
    return {"bots": loadgen.percentiles(bots.round_trips), "bot_errors": dict(bots.errors),
            "bot_actions_per_s": len(bots.round_trips) / duration,
            "people": loadgen.percentiles(heard),
            "people_errors": dict(result["people"].errors), "cpu_s": result["cpu_s"],
            "load_cpu_s": result["load_cpu_s"]}


def ms(summary, key):
    return f"{summary[key]:8.1f}" if summary else "       -"


def print_table(rows, args):
    print(f"{args.games} bot games ({2 * args.games} bots, {args.rate:g} action/s each) and "
          f"{args.people} people's games (a move every {args.people_think:g} s each, 2 "
          f"spectators), {args.warmup:g} s warm-up + {args.duration:g} s measured per phase; "
          "one Daphne, SQLite, in-memory layer")
    print(f"{'phase':<22}{'bot act/s':>10}{'bot p50':>9}{'bot p99':>9}"
          f"{'people n':>9}{'ppl p50':>9}{'ppl p99':>9}{'cpu s':>7}{'load s':>7}  errors")
    for name, row in rows.items():
        errors = {**row["bot_errors"], **row["people_errors"]}
        print(f"{name:<22}{row['bot_actions_per_s']:>10.1f}{ms(row['bots'], 'p50')}"
              f"{ms(row['bots'], 'p99')}{(row['people'] or {}).get('n', 0):>9}"
              f"{ms(row['people'], 'p50')}{ms(row['people'], 'p99')}{row['cpu_s']:>7.1f}"
              f"{row['load_cpu_s']:>7.1f}  {errors or ''}")
    api, socket, alone = rows["+ API bots"], rows["+ socket bots"], rows["people alone"]
    if api["bots"] and socket["bots"]:
        ratio = api["bots"]["p99"] / socket["bots"]["p99"]
        print(f"bots' round trip p99, API / socket: {ratio:.2f} (target: at most 1.5)")
    if api["people"] and alone["people"]:
        print(f"people's move p99, with the API bots / alone: "
              f"{api['people']['p99'] / alone['people']['p99']:.2f}; with the socket bots / "
              f"alone: {socket['people']['p99'] / alone['people']['p99']:.2f}")


async def run(args, root=ROOT):
    """The three phases on the tree at `root`: {phase: figures}."""
    tmp = Path(tempfile.mkdtemp(prefix="api-bots-"))
    env = server_env(f"sqlite:///{tmp / 'db.sqlite3'}",
                     # The load comes from one address and is meant to be carried, not refused.
                     API_TOKEN_RATE="1000000/m", LIVE_SOCKETS_PER_ADDRESS="100000",
                     LIVE_SOCKETS_PER_USER="1000", LIVE_RATE_BURST="100000",
                     LIVE_RATE_PER_SECOND="100000", LIVE_FLOOD_CLOSE="100000",
                     LIVE_SNAPSHOT_PER_SECOND="1000000")
    env["PYTHONPATH"] = os.pathsep.join([str(root / "site"), str(root)])
    migrate(env, root)
    server = SiteServer(env, free_port(), tmp / "daphne.log", root=root).start()
    try:
        # Enough games that no slot runs out within a phase (a random 7x7 game: 20 moves and
        # more), the bots' time before the people connect included.
        span = args.warmup + args.duration + 10
        args.games_per_slot = 2 + int(span * 2 * args.rate / 20)
        if args.cost:
            args.games_per_slot = 2 + args.cost // (COST_GAMES * 10)
            bot_setup = set_up(server, "bot", COST_GAMES * 2, args.games_per_slot)["slots"]
            bot_secrets = bot_tokens(server, "bot", COST_GAMES * 2)
            rows = {}
            for index, kind in enumerate(("api", "socket")):
                part = slice(index * COST_GAMES, (index + 1) * COST_GAMES)
                rows[kind] = await cost(server, kind, {"slots": bot_setup[part]},
                                        bot_secrets[part], args.cost, args)
                row = rows[kind]
                print(f"{kind}: {row['ms_per_action']:.2f} ms of server CPU per action, idle "
                      f"work taken off ({row['gross_ms_per_action']:.2f} with it: "
                      f"{row['actions']} actions in {row['seconds']:.1f} s, idle "
                      f"{1000 * row['idle_cpu_per_s']:.0f} ms/s; errors {row['errors']})",
                      flush=True)
            return rows
        people_games = 2 + int(span / args.people_think / 30)
        # One setup of each (a process each: seconds on a busy machine), split by phase.
        phases = (("people alone", None), ("+ API bots", "api"), ("+ socket bots", "socket"))
        people_setup = set_up(server, "pp", args.people * len(phases), people_games)["slots"]
        bot_setup = set_up(server, "bot", args.games * 2, args.games_per_slot)["slots"]
        bot_secrets = bot_tokens(server, "bot", args.games * 2)
        bots = {kind: ({"slots": bot_setup[index * args.games:(index + 1) * args.games]},
                       bot_secrets[index * args.games:(index + 1) * args.games])
                for index, kind in enumerate(("api", "socket"))}
        rows = {}
        for index, (name, kind) in enumerate(phases):
            setup = {"slots": people_setup[index * args.people:(index + 1) * args.people]}
            people = people_slots(setup, args.people_think, seed=index)
            load = None if kind is None else (kind, *bots[kind])
            rows[name] = figures(await phase(server, people, load, args), args.duration)
        print_table(rows, args)
        return rows
    finally:
        server.stop()
        shutil.rmtree(tmp, ignore_errors=True)


FIGURES = (("bot act/s", lambda row: row["bot_actions_per_s"] or None),
           ("bot p50", lambda row: (row["bots"] or {}).get("p50")),
           ("bot p99", lambda row: (row["bots"] or {}).get("p99")),
           ("ppl p50", lambda row: (row["people"] or {}).get("p50")),
           ("ppl p99", lambda row: (row["people"] or {}).get("p99")),
           ("cpu s", lambda row: row["cpu_s"]),
           ("load cpu s", lambda row: row.get("load_cpu_s")),
           ("cpu ms/bot act", lambda row: 1000 * row["cpu_s"] / row["bot_actions_per_s"]
            / row["duration"] if row["bot_actions_per_s"] else None))


def median(values):
    values = [value for value in values if value is not None]
    return statistics.median(values) if values else None


def print_medians(runs, args):
    """Per tree and phase, the median of each figure over the rounds; then this tree's
    medians over the base's."""
    print(f"\nmedians of {args.repeat} round(s), trees in turn (base, this) each round:")
    print(f"{'tree':<6}{'phase':<16}" + "".join(f"{name:>15}" for name, _ in FIGURES))
    medians = {}
    for tree, rounds in runs.items():
        for phase_name in rounds[0]:
            rows = [{**r[phase_name], "duration": args.duration} for r in rounds]
            medians[tree, phase_name] = [median(get(row) for row in rows) for _, get in FIGURES]
            print(f"{tree:<6}{phase_name:<16}" + "".join(
                f"{value:>15.1f}" if value is not None else f"{'-':>15}"
                for value in medians[tree, phase_name]))
    for tree in runs:
        api, socket = medians[tree, "+ API bots"], medians[tree, "+ socket bots"]
        alone = medians[tree, "people alone"]
        if api[2] and socket[2] and alone[4]:
            print(f"{tree}: bots' p99 API / socket {api[2] / socket[2]:.2f}; people's p99 with "
                  f"API bots / alone {api[4] / alone[4]:.2f}, with socket bots / alone "
                  f"{socket[4] / alone[4]:.2f}")
    if "base" in runs:
        for phase_name in runs["this"][0]:
            ratios = [f"{a / b:.2f}" if a and b else "-" for a, b in
                      zip(medians["this", phase_name], medians["base", phase_name])]
            print(f"this / base, {phase_name:<14}" + "".join(f"{r:>15}" for r in ratios))


async def run_all(args):
    trees = ([("base", args.base)] if args.base else []) + [("this", ROOT)]
    runs = {tree: [] for tree, _ in trees}
    for args.round in range(args.repeat):
        for args.tree, root in trees:
            print(f"\n-- round {args.round + 1}/{args.repeat}, {args.tree} ({root})", flush=True)
            runs[args.tree].append(await run(args, root))
    if args.json:
        Path(args.json).write_text(json.dumps(runs if args.base or args.repeat > 1
                                              else runs["this"][0], indent=1))
    if args.cost:
        print(f"\nserver CPU ms per bot action, median of {args.repeat} round(s):")
        for tree, rounds in runs.items():
            api, socket = (median(r[kind]["ms_per_action"] for r in rounds)
                           for kind in ("api", "socket"))
            print(f"{tree:<6} API {api:.2f}  socket {socket:.2f}  API / socket {api / socket:.2f}"
                  f"  (each round, API: {[round(r['api']['ms_per_action'], 2) for r in rounds]},"
                  f" socket: {[round(r['socket']['ms_per_action'], 2) for r in rounds]})")
    elif args.base or args.repeat > 1:
        print_medians(runs, args)


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100, help="bot games (two bots each)")
    parser.add_argument("--rate", type=float, default=1.0, help="actions a second per bot")
    parser.add_argument("--people", type=int, default=10, help="people's games")
    parser.add_argument("--people-think", type=float, default=1.0,
                        help="seconds between two moves of a people's game")
    parser.add_argument("--warmup", type=float, default=3.0)
    parser.add_argument("--duration", type=float, default=20.0)
    parser.add_argument("--json", help="write the figures to this file")
    parser.add_argument("--smoke", action="store_true", help="a tiny shape, for the test")
    parser.add_argument("--base", type=Path, default=None,
                        help="another checkout to measure first in each round (its rows: "
                             "tree 'base'), e.g. main's")
    parser.add_argument("--repeat", type=int, default=1, help="rounds (medians when above 1)")
    parser.add_argument("--profile", help="write py-spy profiles of each phase here")
    parser.add_argument("--cost", type=int, default=0,
                        help="instead of the phases: N actions one at a time per door, the "
                             "server's CPU per action")
    args = parser.parse_args(argv)
    args.base = args.base.resolve() if args.base else None
    args.tree, args.round = "this", 0
    if args.profile:
        Path(args.profile).mkdir(parents=True, exist_ok=True)
    if args.smoke:
        args.games, args.people, args.warmup, args.duration = 2, 1, 1.0, 3.0
    return args


if __name__ == "__main__":
    asyncio.run(run_all(parse_args()))
