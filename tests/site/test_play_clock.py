"""Time controls and the clock arithmetic (no database)."""
from datetime import datetime, timedelta, timezone

import pytest

from play.clock import TimeControl, after_action, expiry, remaining_now, server_gap

T0 = datetime(2025, 1, 1, 12, 0, tzinfo=timezone.utc)


def seconds(n):
    return T0 + timedelta(seconds=n)


@pytest.mark.parametrize("tc, text", [
    (TimeControl.realtime(5, 3), "5+3"),
    (TimeControl.realtime(180, 0), "180+0"),
    (TimeControl.correspondence(3), "3 days per move"),
    (TimeControl.correspondence(1), "1 day per move"),
    (TimeControl.untimed(), "untimed"),
])
def test_text_and_round_trip(tc, text):
    assert tc.text == text
    assert tc.to_dict()["text"] == text
    assert TimeControl.from_dict(tc.to_dict()) == tc


@pytest.mark.parametrize("d, words", [
    ({"kind": "blitz"}, "one of"),
    ({"kind": "realtime", "minutes": 0, "increment": 0}, "1 to 180"),
    ({"kind": "realtime", "minutes": 181, "increment": 0}, "1 to 180"),
    ({"kind": "realtime", "minutes": 5, "increment": 61}, "0 to 60"),
    ({"kind": "realtime", "minutes": 5}, "needs increment"),
    ({"kind": "realtime", "minutes": True, "increment": 0}, "whole number"),
    ({"kind": "realtime", "minutes": "5", "increment": 0}, "whole number"),
    ({"kind": "realtime", "minutes": 5, "increment": 0, "days": 2}, "has no days"),
    ({"kind": "correspondence", "days": 15}, "1 to 14"),
    ({"kind": "correspondence", "days": 0}, "1 to 14"),
    ({"kind": "correspondence"}, "needs days"),
    ({"kind": "untimed", "minutes": 5}, "has no minutes"),
])
def test_validation_says_what_is_wrong(d, words):
    with pytest.raises(ValueError, match=words):
        TimeControl.from_dict(d)


def test_parse_operator_text():
    assert TimeControl.parse("5+3") == TimeControl.realtime(5, 3)
    assert TimeControl.parse(" 10 + 0 ") == TimeControl.realtime(10, 0)
    for bad in ("5", "5+", "abc", "0+3", "5+99"):
        with pytest.raises(ValueError):
            TimeControl.parse(bad)


def test_realtime_mover_pays_and_earns_increment_when_turn_passes():
    tc = TimeControl.realtime(1, 2)
    left, started = after_action(tc, [60_000, 60_000], 0, 1, T0, seconds(10))
    assert left == [52_000, 60_000] and started == seconds(10)


def test_realtime_a_berserk_mover_earns_no_increment_and_the_other_still_does():
    tc = TimeControl.realtime(1, 2)
    left, _ = after_action(tc, [30_000, 60_000], 0, 1, T0, seconds(10), berserk=(True, False))
    assert left == [20_000, 60_000]
    left, _ = after_action(tc, [30_000, 60_000], 1, 0, T0, seconds(10), berserk=(True, False))
    assert left == [30_000, 52_000]


def test_realtime_no_increment_inside_a_turn_of_several_actions():
    tc = TimeControl.realtime(1, 2)
    left, started = after_action(tc, [60_000, 60_000], 1, 1, T0, seconds(4))
    assert left == [60_000, 56_000] and started == seconds(4)


def test_realtime_clocks_stop_at_the_end():
    tc = TimeControl.realtime(1, 2)
    left, started = after_action(tc, [60_000, 60_000], 0, None, T0, seconds(5))
    assert left == [55_000, 60_000] and started is None


def test_correspondence_deadline_is_per_turn():
    tc = TimeControl.correspondence(2)
    assert after_action(tc, None, 0, 1, T0, seconds(60)) == (None, seconds(60))
    # Same player again (second stone of a turn): the turn's start, hence the deadline, stays.
    assert after_action(tc, None, 0, 0, T0, seconds(60)) == (None, T0)
    assert expiry(tc, None, 1, T0) == T0 + timedelta(days=2)


def test_remaining_now_and_expiry():
    tc = TimeControl.realtime(1, 0)
    assert remaining_now([30_000, 40_000], 1, T0, seconds(15)) == [30_000, 25_000]
    assert remaining_now([30_000, 40_000], 1, T0, seconds(99)) == [30_000, 0]
    assert remaining_now([30_000, 40_000], None, None, seconds(99)) == [30_000, 40_000]
    assert expiry(tc, [30_000, 40_000], 0, T0) == seconds(30)
    assert expiry(tc, [30_000, 40_000], None, T0) is None
    assert expiry(TimeControl.untimed(), None, 0, T0) is None


@pytest.mark.parametrize("closed, turn, back, given", [
    (10, 0, 13, 3),      # their turn ran all along: the close to the return
    (10, 12, 13, 1),     # the opponent moved meanwhile: from their turn's start
    (10, 0, 40, 5),      # back late: the grace after the close, no more
    (10, 16, 18, 0),     # their turn began after the grace: theirs to pay
    (10, 0, 9, 0),       # a return before the close gives nothing
])
def test_a_restart_gives_back_only_the_gap_it_made(closed, turn, back, given):
    assert server_gap(seconds(closed), seconds(turn), seconds(back),
                      timedelta(seconds=5)) == timedelta(seconds=given)
    assert server_gap(seconds(closed), None, seconds(back), timedelta(seconds=5)) == timedelta()
