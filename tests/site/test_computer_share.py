"""One account must not hurt the others through the computer players (issue 21, items 1, 2 and
26): a cap on active games against the computer, the computer's clock charged only for the time
a worker thought (never the time its job waited in the queue), the workers serving each
player's jobs in turn, the sweep that retries lost jobs reaching every game, however many there
are, and the pool's workers started with the server. Jobs run in line (JOBS_MODE=eager) except
where a test starts the pool itself."""
import asyncio
import time
from concurrent.futures import Future
from datetime import timedelta

import pytest
from django.utils import timezone

from bots import accounts, moves
from bots import services as bot_services
from jobs import pool
from jobs import runner as jobs
from play import lapses, services
from play.clock import TimeControl
from play.models import Game
from tests.site.played import start

pytestmark = pytest.mark.django_db

URL = "/play/computer/"


def form(**extra):
    fields = {"computer-game": "hadron", "computer-level": 1, "computer-side": "first",
              "computer-time_kind": "untimed", "computer-hadron_size": 5}
    fields.update({f"computer-{name}": value for name, value in extra.items()})
    return fields


# -- the cap ----------------------------------------------------------------------------------

def test_a_player_has_at_most_the_cap_of_computer_games_at_once(client, settings, alice, bob):
    settings.BOT_GAMES_PER_PLAYER = 3
    client.force_login(alice)
    for _ in range(3):
        assert client.post(URL, form()).status_code == 302
    refused = client.post(URL, form(level=2))
    assert refused.status_code == 409
    assert "You already play 3 games against the computer" in refused.content.decode()
    assert bot_services.computer_games_of(alice).count() == 3 == Game.objects.count()
    # Games between people do not count, and another account has its own three.
    start(alice, bob)
    client.force_login(bob)
    assert client.post(URL, form()).status_code == 302
    # A game that ends frees its place.
    ended = bot_services.computer_games_of(alice).first()
    services.resign(ended.pk, alice, ended.ply_count)
    client.force_login(alice)
    assert client.post(URL, form()).status_code == 302
    assert bot_services.computer_games_of(alice).count() == 3


def test_the_service_itself_refuses_past_the_cap(settings, alice):
    settings.BOT_GAMES_PER_PLAYER = 1
    choice = {"game": "hadron", "options": {}, "level": 1, "side": "first",
              "time_control": TimeControl.untimed()}
    bot_services.start_computer_game(alice, **choice)
    with pytest.raises(bot_services.TooManyComputerGames):
        bot_services.start_computer_game(alice, **choice)
    assert Game.objects.count() == 1


# -- the computer's clock ---------------------------------------------------------------------

def realtime_game(alice, minutes=1):
    computer = accounts.bot_for(1)
    game = services.start_game(game="hadron", options={"size": 5}, players=(alice, computer),
                               time_control=TimeControl.realtime(minutes, 0))
    return game, computer


def test_the_computers_clock_stands_while_its_job_waits_and_runs_while_it_thinks(alice):
    game, computer = realtime_game(alice)
    services.play(game.pk, alice, 0, "c3")  # commit hooks not run: the job waits
    game = services.load(game.pk)
    # Its clock stands: nothing can lapse, however long the queue.
    assert game.running == 1 and game.turn_started_at is None and game.expires_at is None
    left = game.remaining1_ms
    much_later = timezone.now() + timedelta(minutes=5)
    assert lapses.lapse(game, much_later) is None
    # Its answer comes after the job waited 5 minutes and a worker thought 0.8 s of them.
    payload = moves.turn_of(game)
    result = moves.think(payload)
    picked = much_later.timestamp()
    moves.play_answer(payload, dict(result, picked_at=picked, answered_at=picked + 0.8))
    game = services.load(game.pk)
    assert game.ply_count == 2 and game.is_active
    assert game.remaining1_ms == left - 800
    # The person's clock runs from the answer on.
    assert game.running == 0 and game.turn_started_at is not None


def test_a_computer_moving_first_does_not_start_its_clock_at_the_start(alice):
    computer = accounts.bot_for(1)
    game = services.start_game(game="hadron", options={"size": 5}, players=(computer, alice),
                               time_control=TimeControl.realtime(1, 0))
    assert game.turn_started_at is None and game.expires_at is None
    person_first, _ = realtime_game(alice)
    assert person_first.turn_started_at is not None and person_first.expires_at is not None


def test_an_answer_without_its_moments_costs_the_computer_nothing(alice):
    game, computer = realtime_game(alice)
    services.play(game.pk, alice, 0, "c3")
    left = services.load(game.pk).remaining1_ms
    moves.play_answer(moves.turn_of(services.load(game.pk)), {"action": "a1"})
    game = services.load(game.pk)
    assert game.ply_count == 2 and game.remaining1_ms == left


# -- the retry sweep --------------------------------------------------------------------------

def test_the_sweep_finds_a_lost_job_beyond_the_first_page_of_games(alice, bob):
    computer = accounts.bot_for(1)
    # More games against the computer than a page holds, where the person is to move, ...
    Game.objects.bulk_create([
        Game(game="hadron", options={"size": 5}, player0=person, player1=computer)
        for person in [alice, bob] * ((moves.WAITING_BATCH + 2) // 2)])
    # ... and after them one where the computer is to move and its job was lost.
    stuck = Game.objects.create(game="hadron", options={"size": 5}, player0=computer,
                                player1=alice)
    assert Game.objects.active().filter(pk__lt=stuck.pk).count() > moves.WAITING_BATCH
    assert [payload["game"] for payload in moves.waiting_games()] == [stuck.pk]


# -- fair share of the workers ----------------------------------------------------------------

class Executor:
    """Stands for the pool's ProcessPoolExecutor: records what it is given, in order; the test
    ends the jobs."""
    _broken = False
    _processes = {}

    def __init__(self):
        self.given = []

    def submit(self, fn, *args):
        future = Future()
        self.given.append((args, future))
        return future

    def shutdown(self, **options):
        pass

    def games(self):
        return [args[1]["game"] for args, _ in self.given]


@pytest.fixture
def fake_pool(settings, monkeypatch):
    settings.JOBS_WORKERS = 2
    executor = Executor()
    monkeypatch.setattr(pool, "_new_executor", lambda: executor)
    loop = asyncio.new_event_loop()
    pool.start(loop)
    yield executor
    pool.stop()
    loop.close()


def move(game, owner):
    return {"game": game, "takebacks": 0, "ply": 0, "owner": owner}


def test_the_pool_serves_each_players_jobs_in_turn(fake_pool):
    kind = jobs.kind_of("bot_move")
    for game in range(1, 7):  # one account's games (and what else it queued) ...
        pool.enqueue(kind, move(game, "user:1"))
    pool.enqueue(kind, move(100, "user:2"))  # ... then another player's first move
    # The workers are given one job each at a time; the rest wait in line, still "in work"
    # (the sweep does not queue them twice).
    assert fake_pool.games() == [1, 2]
    assert {"bot_move:100:0:0", "bot_move:6:0:0"} <= pool.working()
    pool.enqueue(kind, move(6, "user:1"))
    # The other player's move takes the first worker that frees up, not the last.
    fake_pool.given[0][1].set_result({"action": "a1"})
    assert fake_pool.games() == [1, 2, 100]
    for ended in range(1, 5):
        fake_pool.given[ended][1].set_result({"action": "a1"})
    assert fake_pool.games() == [1, 2, 100, 3, 4, 5, 6]
    assert "bot_move:1:0:0" not in pool.working()


def test_a_failed_job_frees_its_worker_for_the_next(fake_pool):
    kind = jobs.kind_of("bot_move")
    for game in (1, 2, 3):
        pool.enqueue(kind, move(game, f"user:{game}"))
    fake_pool.given[0][1].set_exception(RuntimeError("the engine failed"))
    assert fake_pool.games() == [1, 2, 3]


# -- workers started with the server ----------------------------------------------------------

def test_the_pools_workers_start_with_the_server_not_on_the_first_job(settings):
    settings.JOBS_WORKERS = 2
    settings.JOBS_WORKERS_AT_START = True
    loop = asyncio.new_event_loop()
    pool.start(loop)
    try:
        executor = pool._state["executor"]
        deadline = time.monotonic() + 30
        while len(executor._processes or {}) < 2 and time.monotonic() < deadline:
            time.sleep(0.1)
        # No job was given, and both workers are there, setting Django up already.
        assert pool.working() == set()
        workers = list(executor._processes.values())
        assert len(workers) == 2 and all(worker.is_alive() for worker in workers)
    finally:
        pool.stop()
        loop.close()


def test_the_line_serves_owners_in_turn_those_with_less_running_first():
    line = jobs.FairQueue()
    for item in ("a1", "a2", "a3"):
        line.push("a", item)
    line.push("b", "b1")
    line.push("c", "c1")
    assert line.pop() == ("a", "a1")
    assert line.pop({"a": 1}) == ("b", "b1")
    assert line.pop({"a": 1, "b": 1, "c": 1}) == ("c", "c1")
    assert [line.pop(), line.pop(), line.pop()] == [("a", "a2"), ("a", "a3"), None]
    assert len(line) == 0
