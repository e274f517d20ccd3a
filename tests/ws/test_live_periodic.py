"""The process's periodic work (live.process): what each run costs is reported (how long it
held the event loop, its longest step, its time on database threads), the keep-alive and the
heartbeat go a slice at a time spread over their period, and a socket that closed meanwhile is
not put back in its groups."""
import asyncio
import contextlib
import logging
import sys
from collections import Counter
from pathlib import Path

import pytest
from channels.layers import get_channel_layer

from live import lanes, process, registry
from ops import metrics
from tests.ws.sockets import Socket, run

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
from live_load import PERIODIC_LINE  # noqa: E402

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def own_registry(monkeypatch):
    """This process's socket registry with only this test's sockets in it: an earlier test's
    socket that was never pruned would add slices to the keep-alive."""
    monkeypatch.setattr(registry, "_entries", {})
    monkeypatch.setattr(registry, "_per_user", Counter())
    monkeypatch.setattr(registry, "_per_address", Counter())
    monkeypatch.setattr(registry, "_per_kind", Counter())


def busy(seconds):
    """Hold the thread (the event loop, or a database thread) for `seconds` of CPU."""
    import time

    until = time.perf_counter() + seconds
    while time.perf_counter() < until:
        pass


def test_a_periodic_run_reports_its_steps_on_the_loop_and_its_database_time(caplog):
    heard = []

    def hear(sender, **figures):
        heard.append(figures)
    process.periodic_ran.connect(hear, weak=False, dispatch_uid="test")

    async def work():
        busy(0.004)
        await asyncio.sleep(0)
        busy(0.002)
        await lanes.write(process.on_thread(busy), 0.003)

    async def scenario():
        await process.measured("chores", work())

    try:
        with caplog.at_level(logging.INFO, logger="live.periodic"):
            run(scenario)
    finally:
        process.periodic_ran.disconnect(dispatch_uid="test")

    [figures] = heard
    assert figures["work"] == "chores"
    # Three steps on the loop: before the sleep, before the write, after it.
    assert figures["held"] >= 0.006 and figures["longest"] >= 0.004
    assert figures["longest"] < figures["held"]
    assert figures["database"] >= 0.003
    assert figures["took"] >= figures["held"]
    # The log line is the one bench/live_load.py reads.
    [line] = [r.getMessage() for r in caplog.records if r.name == "live.periodic"]
    match = PERIODIC_LINE.search(line)
    assert match and match[1] == "chores" and int(match[4]) == 3
    # The metrics hear it too.
    assert metrics.periodic_held_seconds.labels("chores")._sum.get() >= 0.006


def test_a_periodic_coroutine_is_awaited_on_the_loop_and_named_in_full():
    """process.every also takes a coroutine function (tournaments.services.tick_live), which
    hands its own database work to the lanes; its runs are reported under its full name."""
    done = []

    async def tidy():
        done.append(await lanes.write(lambda: "written on a writer"))

    runner = process._job_runner(tidy, aside=False)
    assert runner.__name__ == f"{__name__}.{tidy.__qualname__}"
    run(runner)
    assert done == ["written on a writer"]


def test_a_failing_periodic_run_is_still_reported():
    heard = []
    process.periodic_ran.connect(lambda sender, **f: heard.append(f["work"]), weak=False,
                                 dispatch_uid="test")

    async def broken():
        await asyncio.sleep(0)
        raise ValueError("no")

    async def scenario():
        with pytest.raises(ValueError):
            await process.measured("broken", broken())
    try:
        run(scenario)
    finally:
        process.periodic_ran.disconnect(dispatch_uid="test")
    assert heard == ["broken"]


@contextlib.contextmanager
def pauses_noted(monkeypatch):
    """Within: every asyncio.sleep's seconds noted in the list given, none waited for (a turn
    of the loop instead)."""
    pauses = []
    sleep = asyncio.sleep

    async def noted_sleep(seconds, *args):
        pauses.append(seconds)
        await sleep(0)
    monkeypatch.setattr(process.asyncio, "sleep", noted_sleep)
    try:
        yield pauses
    finally:
        monkeypatch.setattr(process.asyncio, "sleep", sleep)


def test_the_keep_alive_and_heartbeat_spread_their_slices_over_the_time_given(
        users, new_game, monkeypatch, own_registry):
    alice, bob, carol = users("alice", "bob", "carol")
    game = new_game([alice, bob])
    tabs = [Socket(game.pk, user) for user in (alice, bob, carol)]
    monkeypatch.setattr(process, "SLICE", 1)

    async def scenario():
        for tab in tabs:
            await tab.open()
        with pauses_noted(monkeypatch) as pauses:
            await process._keep_alive(spread=3.0)
            keep_alive_pauses = list(pauses)
            pauses.clear()
            await process.beat(spread=1.5)
        # Three slices of one socket: two pauses of a third of the time each.
        assert keep_alive_pauses == [1.0, 1.0]
        # The heartbeat's rows: sliced for SQLite's one writer, one job on PostgreSQL.
        assert pauses == ([0.5, 0.5] if process._one_writer() else [])
        for tab in tabs:
            assert (await tab.expect("sync"))["ply"] == 0
            await tab.close()

    run(scenario)


def test_the_keep_alive_trickles_a_game_at_a_time(users, new_game, monkeypatch,
                                                  own_registry):
    """About one slice a TICK over the time given, a game's sockets together in one: their
    ply read and their `sync` sent once for them, the next game's a pause later."""
    from play import snapshots

    alice, bob, carol = users("alice", "bob", "carol")
    games = [new_game([alice, bob]), new_game([bob, carol]), new_game([carol, alice])]
    tabs = [Socket(game.pk, user) for game in games for user in game_users(game)]
    monkeypatch.setattr(process, "TICK", 1.0)
    reads = []
    plies_of = snapshots.plies_of

    def noted_plies_of(game_ids):
        reads.append(sorted(game_ids))
        return plies_of(game_ids)
    monkeypatch.setattr(snapshots, "plies_of", noted_plies_of)

    async def scenario():
        for tab in tabs:
            await tab.open()
        with pauses_noted(monkeypatch) as pauses:
            # Six sockets of three games over three seconds: three slices of a game each.
            await process._keep_alive(spread=3.0)
        assert sorted(reads) == [[game.pk] for game in games]
        assert [p for p in pauses if p] == [1.0, 1.0]
        for tab in tabs:
            assert (await tab.expect("sync"))["ply"] == 0
            await tab.close()

    run(scenario)


def game_users(game):
    return [game.player0, game.player1]


def test_a_paced_periodic_work_starts_a_period_after_its_last_start(monkeypatch):
    """The heartbeat and the keep-alive trickle over their whole period: the next run is due
    a period after the last one began, not a period after it ended."""
    pauses = []
    sleep = asyncio.sleep

    async def noted_sleep(seconds, *args):
        pauses.append(seconds)
        if len(pauses) == 2:
            raise asyncio.CancelledError
        await sleep(0)

    async def work():
        busy(0.02)

    async def scenario():
        monkeypatch.setattr(process.asyncio, "sleep", noted_sleep)
        try:
            with pytest.raises(asyncio.CancelledError):
                await process._repeat(1.0, work, "paced", paced=True)
        finally:
            monkeypatch.setattr(process.asyncio, "sleep", sleep)

    run(scenario)
    first, after_run = pauses
    assert 0 <= first <= 1.0
    # What the run took (at least 20 ms) comes off the period.
    assert after_run <= 0.98


def test_a_socket_that_closed_is_not_put_back_in_its_groups(users, new_game, own_registry):
    alice, bob = users("alice", "bob")
    game = new_game([alice, bob])
    a = Socket(game.pk, alice)

    async def scenario():
        await a.open()
        [socket] = registry.open_sockets()
        layer = get_channel_layer()
        await a.close()
        await asyncio.sleep(0.1)
        assert socket.channel_name not in layer.groups.get(f"game-{game.pk}", {})
        # A keep-alive that took its slice before the socket closed renews what is left.
        await registry.renew_groups([socket])
        assert socket.channel_name not in layer.groups.get(f"game-{game.pk}", {})

    run(scenario)


def test_a_periodic_job_with_nothing_due_leaves_the_writer_alone(monkeypatch):
    """process.every(..., due=check): the check on a reader thread, the job on a writer only
    when the check says there is work (the sweeps held SQLite's one writer every two seconds
    for nothing)."""
    threads = []

    def job(now):
        import threading
        threads.append(("job", threading.current_thread().name))

    def due_when(answer):
        def due(now):
            import threading
            threads.append(("due", threading.current_thread().name))
            return answer
        return due

    async def scenario():
        await process._job_runner(job, False, due_when(False))()
        assert [what for what, _ in threads] == ["due"]
        await process._job_runner(job, False, due_when(True))()
        assert [what for what, _ in threads] == ["due", "due", "job"]

    run(scenario)
    assert all(name.startswith(lanes.READER_PREFIX) for what, name in threads if what == "due")
    assert [name.startswith("live-write") for what, name in threads if what == "job"] == [True]


def test_the_sweeps_look_finds_what_they_would_change(users, new_game):
    """Each sweep's look (its `due`) says yes when the sweep has work (a game whose time is
    up or whose expires_at is missing, a presence row nobody refreshes) and no on a quiet
    site."""
    from datetime import timedelta

    from django.utils import timezone

    from live import presence as ledger
    from lobby import presence as lobby_presence
    from play import sweeper
    from play.clock import TimeControl
    from play.models import Game

    now = timezone.now()
    assert not sweeper.anything_due(now)
    assert not ledger.anything_gone(now)
    assert not lobby_presence.any_abandoned_seek(now)

    alice, bob = users("alice", "bob")
    game = new_game([alice, bob], time_control=TimeControl.realtime(30, 0))
    assert not sweeper.anything_due(now)
    Game.objects.filter(pk=game.pk).update(expires_at=now - timedelta(seconds=5))
    assert sweeper.anything_due(now)
    Game.objects.filter(pk=game.pk).update(expires_at=None)   # an older game's: filled in
    assert sweeper.anything_due(now)

    ledger.arrive("game", "gone-socket", alice.pk, game.pk, now=now - timedelta(hours=1))
    assert ledger.anything_gone(now)
    ledger.sweep(now)
    assert not ledger.anything_gone(now)


def test_the_heartbeat_refreshes_every_open_sockets_row_and_no_other(users, new_game,
                                                                     own_registry):
    """Sliced (SQLite) or in one statement (PostgreSQL): each open socket's row is seen now,
    another process's row is left be."""
    from datetime import timedelta

    from django.utils import timezone

    from live.models import Presence

    alice, bob = users("alice", "bob")
    game = new_game([alice, bob])
    tabs = [Socket(game.pk, user) for user in (alice, bob)]
    long_ago = timezone.now() - timedelta(hours=1)

    def age_rows():
        Presence.objects.update(seen_at=long_ago)
        Presence.objects.create(kind="game", channel_name="elsewhere!1", user=alice,
                                game_id=game.pk, opened_at=long_ago, seen_at=long_ago)

    def seen():
        return dict(Presence.objects.values_list("channel_name", "seen_at"))

    async def scenario():
        for tab in tabs:
            await tab.open()
        await lanes.write(age_rows)
        await process.beat(spread=0)
        rows = await lanes.read(seen)
        assert rows.pop("elsewhere!1") == long_ago
        assert len(rows) == 2 and all(when > long_ago for when in rows.values())
        for tab in tabs:
            await tab.close()

    run(scenario)


def test_the_jobs_of_one_period_are_looked_at_together_in_one_reader_job(monkeypatch):
    """process.every(..., due=check) jobs of one period: one reader job asks all their checks
    (one hop, where each sweep had its own: most of an idle server's CPU), then each job whose
    check says yes runs on a writer, as a task of its own; a job still under way is not
    started again."""
    import threading

    seen = []
    reads = []
    real_read = lanes.read

    async def counted_read(fn, *args, **kwargs):
        reads.append(fn)
        return await real_read(fn, *args, **kwargs)
    monkeypatch.setattr(lanes, "read", counted_read)
    release = threading.Event()

    def check(name, answer):
        def due(now):
            seen.append((name, threading.current_thread().name))
            return answer
        return due

    def job(name, wait=False):
        def work(now):
            seen.append((name, threading.current_thread().name))
            if wait:
                release.wait(10)
        work.__qualname__ = name
        return work

    slow = job("slow", wait=True)
    entries = [(job("quiet"), False, check("quiet?", False)),
               (job("busy"), False, check("busy?", True)),
               (slow, True, check("slow?", True)),   # aside: the writer stays free
               (job("broken"), False, lambda now: 1 / 0)]
    runner = process._looked_together(entries)

    async def scenario():
        before = set(process._state["tasks"])
        await runner()
        assert len(reads) == 1
        started = [task for task in process._state["tasks"] if task not in before]
        assert len(started) == 2   # busy and slow: the quiet one and the broken check's not
        await started[0]           # busy
        await runner()             # busy again; slow is still under way: not started again
        again = [task for task in process._state["tasks"]
                 if task not in before and task not in started]
        assert len(again) == 1
        await again[0]
        assert not started[1].done()
        release.set()
        await started[1]

    run(scenario)
    checks = [(name, thread) for name, thread in seen if name.endswith("?")]
    assert [name for name, _ in checks] == ["quiet?", "busy?", "slow?"] * 2
    assert len({thread for _, thread in checks[:3]}) == 1
    assert all(thread.startswith(lanes.READER_PREFIX) for _, thread in checks)
    jobs = [(name, thread) for name, thread in seen if not name.endswith("?")]
    assert sorted(name for name, _ in jobs) == ["busy", "busy", "slow"]
    assert [thread.startswith("live-aside" if name == "slow" else "live-write")
            for name, thread in jobs] == [True] * 3


def test_a_game_whose_time_is_up_ends_through_the_sweeps_looked_at_together(users, new_game):
    """The site's own sweeps (their process.every registrations) in one look: a game whose time
    ran out with nobody on it ends, and the presence row nobody refreshes goes."""
    from datetime import timedelta

    from django.db.models import F

    from live import presence as ledger
    from live.models import Presence
    from play.clock import TimeControl
    from play.models import Game

    entries = [(job, aside, due) for seconds, job, aside, due in process._jobs
               if due is not None and seconds == process.settings.LIVE_SWEEP]
    assert len(entries) == 3
    alice, bob = users("alice", "bob")
    game = new_game([alice, bob], time_control=TimeControl.realtime(1, 0))
    hour = timedelta(hours=1)
    Game.objects.filter(pk=game.pk).update(turn_started_at=F("turn_started_at") - hour,
                                           expires_at=F("expires_at") - hour)
    ledger.arrive("game", "gone-socket", alice.pk, game.pk,
                  now=process.timezone.now() - hour)

    async def scenario():
        before = set(process._state["tasks"])
        await process._looked_together(entries)()
        await asyncio.gather(*[task for task in process._state["tasks"] if task not in before])

    run(scenario)
    assert Game.objects.get(pk=game.pk).status != Game.ACTIVE
    assert not Presence.objects.filter(channel_name="gone-socket").exists()


def test_the_sweeps_checks_written_once_ask_what_their_querysets_ask(users, new_game):
    """The three checks run as statements written once (live.sql); in each situation they
    answer as the ORM's querysets of what the sweeps change (each situation's answer noted
    too, so that a check that always agreed by saying no would fail)."""
    from datetime import timedelta

    from django.utils import timezone

    from live import presence as ledger
    from live.models import Presence
    from lobby import presence as lobby_presence
    from lobby.models import Seek
    from play import sweeper
    from play.clock import TimeControl
    from play.models import Game, Vacation
    from tests.site.test_lobby import make_seek

    now = timezone.now()
    second, hour = timedelta(seconds=1), timedelta(hours=1)

    def answers():
        orm = (ledger._gone(now).exists(),
               sweeper.due_games(now).exists() or sweeper.due_vacations(now).exists(),
               lobby_presence._abandoned(now).exists())
        written = (ledger.anything_gone(now), sweeper.anything_due(now),
                   lobby_presence.any_abandoned_seek(now))
        assert written == orm
        return written

    assert answers() == (False, False, False)
    alice, bob, carol = users("alice", "bob", "carol")
    # Presence: a fresh row, a row within its grace: nothing gone; a stale one, a grace over.
    ledger.arrive("game", "fresh", alice.pk, None, now=now)
    ledger.arrive("game", "leaving", alice.pk, None, now=now - hour)
    Presence.objects.filter(channel_name="leaving").update(counts_until=now + hour)
    assert answers()[0] is False
    ledger.arrive("game", "stale", alice.pk, None, now=now - hour)
    assert answers()[0] is True
    Presence.objects.filter(channel_name="stale").update(seen_at=now, counts_until=now - second)
    assert answers()[0] is True
    Presence.objects.filter(channel_name="stale").delete()
    # Games: time up within the grace, or in a game over: nothing due; past it, or unknown.
    game = new_game([alice, bob], time_control=TimeControl.realtime(30, 0))
    Game.objects.filter(pk=game.pk).update(expires_at=now - sweeper.GRACE + second)
    assert answers()[1] is False
    over = new_game([alice, carol], time_control=TimeControl.realtime(30, 0))
    Game.objects.filter(pk=over.pk).update(status=Game.FINISHED, expires_at=now - hour)
    assert answers()[1] is False
    Game.objects.filter(pk=game.pk).update(expires_at=now - sweeper.GRACE)
    assert answers()[1] is True
    Game.objects.filter(pk=game.pk).update(expires_at=None)
    assert answers()[1] is True
    Game.objects.filter(pk=game.pk).update(expires_at=now + hour)
    # Vacations: one running, one ended: nothing due; one whose allowance ran out.
    Vacation.objects.create(user=bob, started_at=now - hour, ends_by=now + hour)
    Vacation.objects.create(user=carol, started_at=now - hour, ends_by=now - second,
                            ended_at=now - second)
    assert answers()[1] is False
    Vacation.objects.create(user=alice, started_at=now - hour, ends_by=now)
    assert answers()[1] is True
    Vacation.objects.update(ended_at=now)
    # Seeks: a new one, a correspondence one, one whose owner is in the lobby (or within the
    # grace): none abandoned; an old real-time one whose owner left, or whose grace is over.
    fresh = make_seek(alice)
    make_seek(bob, time_kind="correspondence")
    Seek.objects.exclude(pk=fresh.pk).update(created_at=now - hour)
    assert answers()[2] is False
    Seek.objects.filter(pk=fresh.pk).update(created_at=now - hour)
    assert answers()[2] is True
    ledger.arrive(Presence.LOBBY, "lobby-tab", alice.pk, now=now)
    assert answers()[2] is False
    Presence.objects.filter(channel_name="lobby-tab").update(seen_at=now - hour,
                                                             counts_until=now + second)
    assert answers()[2] is False
    Presence.objects.filter(channel_name="lobby-tab").update(counts_until=now - second)
    assert answers() == (True, False, True)
    Seek.objects.update(status=Seek.Status.EXPIRED)
    assert answers()[2] is False
