"""When nobody acts (play.lapses, play.sweeper): time, a first move not made, an opponent who
left, an untimed game left alone, an outage of the whole site; and the work of one move."""
import os
import socket
import subprocess
from datetime import timedelta

import pytest
from django.utils import timezone

from live import presence as ledger
from live import process
from live.models import Outage, ServerProcess
from play import presence, services, sweeper
from play.clock import TimeControl
from play.models import Game
from play.services import PlayError
from tests.site.played import start

pytestmark = pytest.mark.django_db


def refresh(game):
    return Game.objects.get(pk=game.pk)


def back(game, **ago):
    """Pretend the running turn (and the game's last change) began `ago` earlier."""
    moment = timezone.now() - timedelta(**ago)
    Game.objects.filter(pk=game.pk).update(turn_started_at=moment, updated_at=moment)
    refresh(game).save(update_fields=["expires_at"])  # what the sweeper looks for


def first_moves(game, alice, bob):
    services.play(game.pk, alice, 0, "c3")
    services.play(game.pk, bob, 1, "a1")


def timed(game):
    """The snapshot once the game's room (or the sweeper) has checked its time: reads alone
    never end a game (live.lanes), the expiry does, in the game's lane."""
    services.expire(game.pk)
    return services.snapshot_for(game.pk)


# -- a first move not made ---------------------------------------------------------------------

def test_a_realtime_game_whose_first_player_never_moves_is_aborted_not_lost(alice, bob):
    game = start(alice, bob, tc=TimeControl.realtime(1, 0))
    back(game, seconds=29)
    assert timed(game)["status"] == "active"
    back(game, seconds=31)
    snapshot = timed(game)
    assert snapshot["status"] == "aborted"
    assert snapshot["result"] == {"winner": None, "reason": "no_start",
                                  "text": "alice did not make a first move — aborted"}


def test_the_second_player_has_the_same_time_for_their_first_move(alice, bob):
    game = start(alice, bob, tc=TimeControl.realtime(5, 0))
    services.play(game.pk, alice, 0, "c3")
    back(game, seconds=31)
    sweeper.sweep(timezone.now())
    game = refresh(game)
    assert (game.status, game.reason, game.winner) == ("aborted", "no_start", None)
    assert game.result_text == "bob did not make a first move — aborted"


def test_after_both_first_moves_time_is_lost_on_the_clock_only(alice, bob):
    game = start(alice, bob, tc=TimeControl.realtime(1, 0))
    first_moves(game, alice, bob)
    back(game, seconds=45)
    assert timed(game)["status"] == "active"
    back(game, seconds=61)
    assert timed(game)["result"]["reason"] == "time"


def test_a_correspondence_first_move_missed_aborts(alice, bob):
    game = start(alice, bob, tc=TimeControl.correspondence(2))
    back(game, days=2, seconds=1)
    snapshot = timed(game)
    assert (snapshot["status"], snapshot["result"]["reason"]) == ("aborted", "no_start")


def test_the_first_move_limit_is_in_the_clocks(alice, bob):
    game = start(alice, bob, tc=TimeControl.realtime(10, 0))
    game = refresh(game)
    clocks = services.snapshot_for(game.pk)["clocks"]
    assert clocks["expires_at"] == (game.turn_started_at + timedelta(seconds=30)).isoformat()
    assert game.expires_at == game.turn_started_at + timedelta(seconds=30)


# -- untimed games left alone ------------------------------------------------------------------

def test_an_untimed_game_left_alone_ends_without_a_result(alice, bob):
    game = start(alice, bob)
    services.play(game.pk, alice, 0, "c3")
    assert refresh(game).expires_at > timezone.now() + timedelta(days=29)
    back(game, days=29)
    sweeper.sweep(timezone.now())
    assert refresh(game).is_active
    back(game, days=30, seconds=2)
    sweeper.sweep(timezone.now())
    game = refresh(game)
    assert (game.status, game.reason, game.winner) == ("aborted", "idle", None)
    assert game.result_text == "No action for 30 days — ended without a result"


# -- the sweeper -------------------------------------------------------------------------------

def test_the_sweeper_ends_games_whose_time_is_up_with_nobody_on_them(alice, bob, carol, sent):
    expired = start(alice, bob, tc=TimeControl.realtime(1, 0))
    first_moves(expired, alice, bob)
    running = start(alice, carol, tc=TimeControl.realtime(1, 0))
    first_moves(running, alice, carol)
    Game.objects.filter(pk=expired.pk).update(
        turn_started_at=timezone.now() - timedelta(seconds=62),
        expires_at=timezone.now() - timedelta(seconds=2))
    with sent() as news:
        sweeper.sweep(timezone.now())
    assert refresh(expired).reason == "time" and refresh(running).is_active
    assert [m["type"] for g, m in news if g == f"game-{expired.pk}"] == ["end"]


def test_the_sweeper_fills_in_expires_at_of_older_games(alice, bob):
    game = start(alice, bob, tc=TimeControl.realtime(3, 0))
    Game.objects.filter(pk=game.pk).update(expires_at=None)
    sweeper.sweep(timezone.now())
    assert refresh(game).expires_at == refresh(game).turn_started_at + timedelta(seconds=30)


def test_an_outage_is_charged_to_nobody(alice, bob, carol):
    game = start(alice, bob, tc=TimeControl.realtime(1, 0))
    first_moves(game, alice, bob)
    untimed = start(alice, carol)
    before = refresh(game)
    began = timezone.now()
    assert sweeper.move_clocks_on(began, began + timedelta(seconds=89)) == 1
    after = refresh(game)
    assert after.turn_started_at == before.turn_started_at + timedelta(seconds=89)
    assert after.expires_at == before.expires_at + timedelta(seconds=89)
    assert after.remaining_at(began + timedelta(seconds=89)) == before.remaining_at(began)
    assert refresh(untimed).turn_started_at is None


def test_a_turn_begun_after_the_last_sign_of_life_gains_nothing(alice, bob):
    """The turn began 3 s after the last heartbeat, and the site was down for 40 s after it:
    the turn starts again when the site is back, with the time its player had at its start,
    not more (shifting it by the whole outage gave a 1+0 player 61 s)."""
    game = start(alice, bob, tc=TimeControl.realtime(1, 0))
    first_moves(game, alice, bob)
    began = refresh(game).turn_started_at - timedelta(seconds=3)
    ended = began + timedelta(seconds=40)
    assert sweeper.move_clocks_on(began, ended) == 1
    after = refresh(game)
    assert after.turn_started_at == ended
    assert after.remaining_at(ended) == refresh(game).remaining_ms
    assert max(after.remaining_at(ended)) <= 60_000
    assert after.expires_at == ended + timedelta(milliseconds=after.remaining_ms[0])


def crashed(seconds_ago, pid, host=None):
    """The row of a server process last heard of `seconds_ago`, that never said goodbye."""
    seen = timezone.now() - timedelta(seconds=seconds_ago)
    return ServerProcess.objects.create(
        name=f"{host or socket.gethostname()}:{pid}:abc123", started_at=seen, seen_at=seen)


def dead_pid():
    child = subprocess.Popen(["true"])
    child.wait()
    return child.pid


def test_a_restart_within_three_heartbeats_of_a_crash_is_an_outage_too(alice, bob):
    """The only process died 5 s ago (heartbeats every 10 s: it still looks alive) and is
    started again: its pid is gone from this machine, so the 5 s are charged to nobody."""
    game = start(alice, bob, tc=TimeControl.realtime(1, 0))
    first_moves(game, alice, bob)
    back(game, seconds=20)
    before = refresh(game)
    crashed(5, dead_pid())
    now = timezone.now()
    process.record_start("here:1:new", now)
    outage = Outage.objects.get()
    assert outage.ended_at == now and outage.games_shifted == 1
    assert refresh(game).turn_started_at == before.turn_started_at + outage.length


@pytest.mark.parametrize("elsewhere", [
    pytest.param({"pid": os.getppid()}, id="its pid still runs here"),
    pytest.param({"pid": 1234567, "host": "another-machine"}, id="on another machine"),
])
def test_a_process_that_may_still_run_is_not_an_outage(alice, bob, elsewhere):
    game = start(alice, bob, tc=TimeControl.realtime(1, 0))
    first_moves(game, alice, bob)
    before = refresh(game)
    crashed(5, **elsewhere)
    process.record_start("here:1:new", timezone.now())
    assert not Outage.objects.exists()
    assert refresh(game).turn_started_at == before.turn_started_at


def test_our_own_pid_in_an_old_row_is_another_process_gone():
    assert process.gone_from_this_machine(f"{socket.gethostname()}:{os.getpid()}:abc123")
    assert not process.gone_from_this_machine(f"{socket.gethostname()}:{os.getppid()}:abc123")


# -- an opponent who left ----------------------------------------------------------------------

def left(game, player, seconds):
    Game.objects.filter(pk=game.pk).update(
        **{f"absent{player}_since": timezone.now() - timedelta(seconds=seconds)})


def test_the_win_can_be_claimed_once_the_opponent_has_been_gone_long_enough(alice, bob):
    game = start(alice, bob, tc=TimeControl.realtime(5, 0))
    first_moves(game, alice, bob)
    services.join(game.pk, "chan.alice", alice)
    left(game, 1, 10)
    error = pytest.raises(PlayError, services.claim_victory, game.pk, alice, 2).value
    assert error.code == "not_allowed" and "in 2" in error.message
    left(game, 1, 31)
    assert presence.presence_of(refresh(game))["claimable_at"][0] is not None
    assert services.claim_victory(game.pk, alice, 2) == []
    game = refresh(game)
    assert (game.status, game.reason, game.winner) == ("finished", "left", 0)
    assert game.result_text == "bob left the game — alice wins"
    assert services.claim_victory(game.pk, alice, 2) == [
        {"type": "repeat", "ply": 2, "action": "claim_victory"}]


@pytest.mark.parametrize("setup, words", [
    ("present", "still on the game page"),
    ("not started", "has not really started"),
    ("correspondence", "only a realtime game"),
])
def test_claims_that_are_refused(alice, bob, setup, words):
    tc = TimeControl.correspondence(3) if setup == "correspondence" else TimeControl.realtime(5, 0)
    game = start(alice, bob, tc=tc)
    if setup != "not started":
        first_moves(game, alice, bob)
    if setup == "present":
        Game.objects.filter(pk=game.pk).update(absent1_since=None)
    else:
        left(game, 1, 100)
    ply = refresh(game).ply_count
    error = pytest.raises(PlayError, services.claim_victory, game.pk, alice, ply).value
    assert error.code == "not_allowed" and words in error.message
    assert refresh(game).is_active


def test_presence_notes_who_left_and_who_came_back(alice, bob, sent):
    game = start(alice, bob, tc=TimeControl.realtime(5, 0))
    first_moves(game, alice, bob)
    services.join(game.pk, "chan.alice", alice)
    services.join(game.pk, "chan.bob", bob)
    assert refresh(game).absent1_since is None
    ledger.leave(["chan.bob"])
    with sent() as news:
        presence.announce({game.pk})
    game = refresh(game)
    assert game.absent0_since is None and game.absent1_since is not None
    (group, message), = news
    assert message["players_online"] == [True, False]
    assert message["claimable_at"][0] == (game.absent1_since + timedelta(seconds=30)).isoformat()
    services.join(game.pk, "chan.bob2", bob)
    assert refresh(game).absent1_since is None



def test_presence_read_first_leaves_the_writes_to_the_writer(alice, bob, sent):
    """The debounced announce looks on a reader first (play.rooms): the news of games with
    nothing to note goes from there, the games whose absences change are left to announce()
    on a writer, which counts them again and writes."""
    noting = start(alice, bob, tc=TimeControl.realtime(5, 0))
    first_moves(noting, alice, bob)
    over = start(alice, bob, tc=TimeControl.realtime(5, 0))
    for game in (noting, over):
        services.join(game.pk, f"chan.alice{game.pk}", alice)
        services.join(game.pk, f"chan.bob{game.pk}", bob)
    services.resign(over.pk, alice, 0)
    ledger.leave([f"chan.bob{noting.pk}", f"chan.bob{over.pk}"])
    with sent() as news:
        to_write = presence.announce_read([noting.pk, over.pk])
    assert to_write == [noting.pk]
    assert refresh(noting).absent1_since is None  # nothing written by the read
    (group, message), = news
    assert group == f"game-{over.pk}" and message["players_online"] == [True, False]
    assert refresh(over).absent1_since is None  # a game that is over notes no absence
    with sent() as news:
        presence.announce(to_write)
    assert refresh(noting).absent1_since is not None
    (group, message), = news
    assert group == f"game-{noting.pk}" and message["players_online"] == [True, False]

def test_one_sweep_forgets_the_dead_rows_of_every_kind(alice, bob, carol, sent):
    from live.models import Presence
    from lobby import presence as lobby_presence

    game = start(alice, bob, tc=TimeControl.realtime(5, 0))
    services.join(game.pk, "chan.alice", alice)
    services.join(game.pk, "chan.carol", carol)
    lobby_presence.arrive(bob, "chan.lobby")
    lobby_presence.leave(["chan.lobby"])  # within its grace: it still counts
    now = timezone.now()
    # Carol's process died: nobody refreshes her row any more.
    Presence.objects.filter(channel_name="chan.carol").update(
        seen_at=now - process.stale_after() - timedelta(seconds=1))
    with sent() as news:
        ledger.sweep(now)
    assert set(Presence.objects.values_list("channel_name", flat=True)) == {
        "chan.alice", "chan.lobby"}
    (group, message), = news
    assert message["type"] == "presence" and message["watchers"] == 0
    with sent() as news:
        ledger.sweep(now + lobby_presence.grace() + timedelta(seconds=1))
    assert set(Presence.objects.values_list("channel_name", flat=True)) == {"chan.alice"}
    assert news == []  # the lobby's row was on no game


def test_a_move_is_judged_at_the_moment_it_was_received(alice, bob):
    game = start(alice, bob, tc=TimeControl.realtime(1, 0))
    first_moves(game, alice, bob)
    game = refresh(game)
    received = game.turn_started_at + timedelta(seconds=2)
    # Handled much later (the server was busy): alice pays the 2 s until it arrived.
    services.play(game.pk, alice, 2, "e5", now=received)
    after = refresh(game)
    assert after.remaining0_ms == game.remaining0_ms - 2000
    assert after.turn_started_at == received


def test_the_database_out_of_reach_moves_the_running_clocks_on_once(alice, bob, monkeypatch):
    """live.outages: a database thread's job failed for want of a database; before the next
    change the running clocks move on by the stretch since, and it is recorded; a second
    process that saw the same stretch adds nothing (each moment counts once)."""
    from django.db import OperationalError, connection

    from live import outages

    game = start(alice, bob, tc=TimeControl.realtime(5, 0))
    first_moves(game, alice, bob)
    before = refresh(game)
    with monkeypatch.context() as unreachable:
        unreachable.setattr(connection, "is_usable", lambda: False)
        outages.noticed(OperationalError("connection refused"))
    began = outages.away_since()
    assert began is not None
    outages.catch_up()
    assert outages.away_since() is None
    outage = Outage.objects.get()
    assert outage.began_at == began and outage.games_shifted == 1
    assert refresh(game).turn_started_at == before.turn_started_at + outage.length
    # Another process's view of the same stretch, from the same moment: nothing more.
    monkeypatch.setitem(outages._away, "since", began)
    outages.catch_up()
    assert Outage.objects.count() == 1
    assert refresh(game).turn_started_at == before.turn_started_at + outage.length


def test_a_statements_own_failure_is_no_outage(alice, bob):
    """A time-out or a lock leaves the connection working: the database was there."""
    from django.db import OperationalError

    from live import outages

    outages.noticed(OperationalError("canceling statement due to statement timeout"))
    assert outages.away_since() is None
