"""live.lanes: the writers take a person's change to a game, then other writes a person waits
for (a chat line, an arrival), then a program's change (a token's action), and all before
background work (presence rows, the heartbeat), whatever order they came in; in
arrival order within each; a game's own changes keep their order in its lane; and nothing
waits longer than its kind's allowance behind later arrivals."""
import asyncio
import threading

import pytest

from live import lanes
from tests.ws.sockets import run

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def one_writer(settings):
    """One writer thread (SQLite's, and LIVE_DB_WRITERS=1): the order it takes jobs in is
    the order they run in."""
    settings.LIVE_DB_WRITERS = 1
    lanes.shutdown()
    yield
    lanes.shutdown()


def held_writer(scenario_body):
    """Run `scenario_body(ran)` while the writer is held by a first job, then free it; `ran`:
    the names of the jobs in the order the writer ran them."""
    ran = []
    writer_free = threading.Event()

    async def scenario():
        blocker = asyncio.ensure_future(lanes.write(writer_free.wait, 5))
        await asyncio.sleep(0.05)
        waiting = await scenario_body(ran)
        writer_free.set()
        await asyncio.gather(blocker, *waiting)

    run(scenario)
    return ran


def test_people_first_then_programs_then_background():
    async def body(ran):
        queued = []
        for name, runs in (("presence", lanes.background),
                           ("bot 1", lambda fn: lanes.program_in_lane(("game", -1), fn)),
                           ("heartbeat", lanes.background),
                           ("bot 2", lambda fn: lanes.program_in_lane(("game", -2), fn)),
                           ("person 1", lambda fn: lanes.in_lane(("game", -3), fn)),
                           ("chat", lanes.write),
                           ("person 2", lambda fn: lanes.in_lane(("game", -4), fn))):
            queued.append(asyncio.ensure_future(runs(lambda name=name: ran.append(name))))
            await asyncio.sleep(0.01)  # each queued in turn (ensure_future starts them later)
        return queued

    assert held_writer(body) == ["person 1", "person 2", "chat", "bot 1", "bot 2", "presence",
                                 "heartbeat"]


def test_a_games_end_waits_behind_the_moves_beside_it_not_behind_later_ones(monkeypatch):
    """A resignation (ending_in_lane) costs the writer several moves: the moves of other
    games queued within a quarter of a second after it go first; a move queued later does
    not."""
    now = [1000.0]
    monkeypatch.setattr(lanes, "_clock", lambda: now[0])

    async def body(ran):
        queued = []
        for name, runs, at in (("resign", lanes.ending_in_lane, 1000.0),
                               ("move, 0.1 s later", lanes.in_lane, 1000.1),
                               ("move, 0.5 s later", lanes.in_lane, 1000.5)):
            now[0] = at
            game = -20 - len(queued)
            queued.append(asyncio.ensure_future(
                runs(("game", game), lambda name=name: ran.append(name))))
            await asyncio.sleep(0.01)
        return queued

    assert held_writer(body) == ["move, 0.1 s later", "resign", "move, 0.5 s later"]


def test_a_games_end_keeps_its_place_among_its_own_games_changes():
    async def body(ran):
        queued = []
        for name, in_lane in (("move", lanes.in_lane), ("resign", lanes.ending_in_lane),
                              ("move after", lanes.in_lane)):
            queued.append(asyncio.ensure_future(
                in_lane(("game", -30), lambda name=name: ran.append(name))))
            await asyncio.sleep(0.01)
        return queued

    assert held_writer(body) == ["move", "resign", "move after"]


def test_a_games_changes_keep_their_order_whoever_makes_them():
    async def body(ran):
        queued = []
        for name, in_lane in (("bot's move", lanes.program_in_lane),
                              ("person's resign", lanes.in_lane)):
            queued.append(asyncio.ensure_future(
                in_lane(("game", -5), lambda name=name: ran.append(name))))
            await asyncio.sleep(0.01)
        return queued

    assert held_writer(body) == ["bot's move", "person's resign"]


def test_gathered_background_writes_wait_behind_changes():
    gathered = lanes.Gathered(None, runs=lanes.background)

    async def body(ran):
        gathered.fn = lambda items: ran.extend(items)
        queued = [asyncio.ensure_future(gathered.add("leave"))]
        await asyncio.sleep(0.01)
        queued.append(asyncio.ensure_future(lanes.in_lane(("game", -6),
                                                          lambda: ran.append("move"))))
        await asyncio.sleep(0.01)
        queued.append(asyncio.ensure_future(lanes.background(lambda: ran.append("after"))))
        return queued

    assert held_writer(body) == ["move", "leave", "after"]


def in_a_games_lane(game, program=False):
    runs = lanes.program_in_lane if program else lanes.in_lane
    return lambda fn: runs(("game", game), fn)


@pytest.mark.parametrize("arrivals, order", [
    pytest.param(
        (("heartbeat", lanes.background, 1000.0),
         ("bot", in_a_games_lane(-7, program=True), 1001.0),
         ("person, soon after", in_a_games_lane(-8), 1002.0),
         ("person, 6 s later", in_a_games_lane(-9), 1007.0),
         ("person, 11 s later", in_a_games_lane(-10), 1011.0)),
        # The bot (due 1006) before the person of 1007; the heartbeat (due 1010) before 1011's.
        ["person, soon after", "bot", "person, 6 s later", "heartbeat", "person, 11 s later"],
        id="a job that waited its allowance goes before later people"),
    pytest.param(
        # An arrival or an arena wave's game (write()) waits behind the moves that come
        # within a quarter of a second after it, not behind later ones.
        (("arrival", lanes.write, 1000.0),
         ("move, 0.1 s later", in_a_games_lane(-11), 1000.1),
         ("move, 0.5 s later", in_a_games_lane(-12), 1000.5)),
        ["move, 0.1 s later", "arrival", "move, 0.5 s later"],
        id="other writes let a quarter second of games' changes pass"),
])
def test_nothing_waits_longer_than_its_allowance_behind_later_arrivals(monkeypatch, arrivals,
                                                                        order):
    """`arrivals`: (name, how it is queued, when), each queued at its time on the queue's
    clock, moved by hand: no timing in the test."""
    now = [arrivals[0][2]]  # the held writer's first job came then too
    monkeypatch.setattr(lanes, "_clock", lambda: now[0])

    async def body(ran):
        queued = []
        for name, runs, at in arrivals:
            now[0] = at
            queued.append(asyncio.ensure_future(runs(lambda name=name: ran.append(name))))
            await asyncio.sleep(0.01)
        return queued

    assert held_writer(body) == order


# -- a person's news out before the writers start a program's job -----------------------------

def test_a_programs_job_waits_for_a_persons_news_to_leave(monkeypatch):
    """The bot's action was queued first; the person's change goes first (above), and the
    writer starts the bot's only once the loop has resumed the person's change and had its
    turns to send the news: a writer running a bot's job would hold the interpreter lock the
    loop needs at each of those turns."""
    monkeypatch.setattr(lanes, "NEWS_WAIT", 60.0)  # the allowance never the reason here

    async def body(ran):
        async def person():
            await lanes.in_lane(("game", -13), lambda: ran.append("person"))
            ran.append("person's news out")

        bot = asyncio.ensure_future(
            lanes.program_in_lane(("game", -14), lambda: ran.append("bot")))
        await asyncio.sleep(0.01)
        return [bot, asyncio.ensure_future(person())]

    assert held_writer(body) == ["person", "person's news out", "bot"]


@pytest.fixture
def news_never_leaves(monkeypatch):
    """Every person's change's news stays on its way out (as on a loop that never comes back
    to it)."""
    monkeypatch.setattr(lanes._News, "release", lambda news, turns=0: None)


def test_people_are_not_held_behind_a_persons_news(monkeypatch, news_never_leaves):
    monkeypatch.setattr(lanes, "NEWS_WAIT", 60.0)

    async def body(ran):
        queued = []
        for name, runs in (("person 1", in_a_games_lane(-15)), ("person 2", in_a_games_lane(-16)),
                           ("chat", lanes.write)):
            queued.append(asyncio.ensure_future(runs(lambda name=name: ran.append(name))))
            await asyncio.sleep(0.01)
        return queued

    assert held_writer(body) == ["person 1", "person 2", "chat"]


def test_a_stopping_pool_holds_nothing(monkeypatch, news_never_leaves):
    """A person's news never out, the writer waits at most NEWS_WAIT (an hour here) before
    the next job; the pool's stop signal ends that wait, else its thread held up the
    interpreter's exit, which joins it."""
    monkeypatch.setattr(lanes, "NEWS_WAIT", 3600.0)

    async def scenario():
        await lanes.in_lane(("game", -20), lambda: None)
        await asyncio.sleep(0.05)  # the writer waits for the news, with nothing queued

    run(scenario)
    writer = lanes.pool("write")
    threads = list(writer._threads)
    lanes.shutdown()
    for thread in threads:
        thread.join(60)
    assert not any(thread.is_alive() for thread in threads)


def test_a_program_waits_for_a_persons_news_no_longer_than_its_allowance(monkeypatch,
                                                                          news_never_leaves):
    monkeypatch.setattr(lanes, "NEWS_WAIT", 0.05)

    async def body(ran):
        queued = []
        for name, runs in (("bot", in_a_games_lane(-17, program=True)),
                           ("person", in_a_games_lane(-18)),
                           ("heartbeat", lanes.background)):
            queued.append(asyncio.ensure_future(runs(lambda name=name: ran.append(name))))
            await asyncio.sleep(0.01)
        return queued

    assert held_writer(body) == ["person", "bot", "heartbeat"]


@pytest.fixture
def held_clock(monkeypatch, news_never_leaves):
    """The clock the writers' holds are counted by, turned by the test; NEWS_WAIT an hour
    of it (a hold that lasted NEWS_WAIT by the real clock would hang the test)."""
    monkeypatch.setattr(lanes, "NEWS_WAIT", 3600.0)
    now = [0.0]
    monkeypatch.setattr(lanes, "_held_clock", lambda: now[0])
    return now


def people_after_a_held_bot(moments):
    """A bot's action queued behind a writer held by background work, then a person's change
    for each of `moments`: `moments[i](clock)` runs before the i-th is queued (the first while
    the writer is still busy, the others while it holds for the news of the one before).
    Returns the order the writer ran them in."""
    writer_free = threading.Event()
    ran = []

    async def scenario():
        blocker = asyncio.ensure_future(lanes.background(writer_free.wait, 5))
        await asyncio.sleep(0.05)
        queued = [blocker, asyncio.ensure_future(lanes.program_in_lane(
            ("game", -21), lambda: ran.append("bot")))]
        for number, moment in enumerate(moments, 1):
            await asyncio.sleep(0.05)
            moment()
            queued.append(asyncio.ensure_future(lanes.in_lane(
                ("game", -21 - number), lambda name=f"person {number}": ran.append(name))))
            if number == 1:
                await asyncio.sleep(0.05)
                writer_free.set()
        await asyncio.wait_for(asyncio.gather(*queued), 30)

    run(scenario)
    return ran


def test_a_program_is_held_for_people_s_news_no_longer_than_its_allowance_in_all(held_clock):
    """The allowance bounds a job's holds for news since it was queued, all of them, not each:
    held 40 minutes for a first person's news, then an hour in all, the bot's action starts
    once the second person's change has, without a further hour for its news. Held up to
    NEWS_WAIT per person's change, a bot queued behind a few of them waited for each (the
    socket bots' p99: 58 -> 155 ms)."""
    def an_hour():
        held_clock[0] = 3600.0

    assert people_after_a_held_bot([lambda: None, an_hour]) == ["person 1", "person 2", "bot"]


def test_a_program_that_waited_for_other_work_is_still_held_for_people_s_news(held_clock):
    """What counts is the time held for news, not the time queued: a bot's action that
    waited an hour behind other work still lets a person's news out (held until a second
    person's change ends that hold), and is held no longer than its allowance after."""
    def an_hour():
        held_clock[0] += 3600.0

    assert people_after_a_held_bot([an_hour, lambda: None, an_hour]) == [
        "person 1", "person 2", "person 3", "bot"]


def test_a_caller_cancelled_mid_change_leaves_the_change_to_finish():
    """Its socket closed while the writer ran its change: the transaction is not cut, and the
    game's next change waits for it in order."""
    writer_free = threading.Event()
    ran = []

    async def scenario():
        caller = asyncio.ensure_future(lanes.in_lane(
            ("game", -19), lambda: (writer_free.wait(5), ran.append("change"))))
        await asyncio.sleep(0.05)
        caller.cancel()
        with pytest.raises(asyncio.CancelledError):
            await caller
        writer_free.set()
        await lanes.in_lane(("game", -19), lambda: ran.append("next"))

    run(scenario)
    assert ran == ["change", "next"]
