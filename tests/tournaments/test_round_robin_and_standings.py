"""Round robin tables (Berger) and the tie-breaks (tournaments.formats)."""
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tournaments.formats.roundrobin import berger_rounds
from tournaments.formats.standings import (
    performance, round_robin_table, scores, swiss_standings,
)


@pytest.mark.parametrize("double", [False, True])
@pytest.mark.parametrize("count", range(3, 11))
def test_berger_tables_meet_everyone_once_a_cycle_with_sides_balanced(count, double):
    players = [f"p{index}" for index in range(count)]
    rounds = berger_rounds(players, double=double)
    cycles = 2 if double else 1
    assert len(rounds) == cycles * (count - 1 + count % 2)
    for pairs in rounds:
        seated = [player for pair in pairs for player in pair]
        assert len(seated) == len(set(seated)) == count - count % 2
    met = Counter(frozenset(pair) for pairs in rounds for pair in pairs)
    assert len(met) == count * (count - 1) // 2
    assert set(met.values()) == {cycles}
    ordered = Counter(pair for pairs in rounds for pair in pairs)
    assert max(ordered.values()) == 1  # double: each side once
    firsts = Counter(first for pairs in rounds for first, _ in pairs)
    for player in players:
        assert abs(2 * firsts[player] - cycles * (count - 1)) <= cycles


def test_buchholz_then_sonneborn_berger_then_direct_encounter():
    players = ["ana", "ben", "cy", "dee"]
    games = [("ana", "ben", 1), ("cy", "dee", 1),
             ("ana", "cy", 0), ("ben", "dee", 1),
             ("ana", "dee", 1), ("ben", "cy", 1)]
    rows = swiss_standings(players, games)
    # ana 2, ben 2, cy 2, dee 0; all three met each other and dee: Buchholz 4 each;
    # SB: ana beat ben (2) and dee (0) = 2, ben beat dee and cy = 2, cy beat dee and ana = 2;
    # direct encounter among the three: one win each, so the given order decides.
    assert [(row.player, row.points, row.buchholz, row.sonneborn_berger) for row in rows] == [
        ("ana", 2, 4, 2), ("ben", 2, 4, 2), ("cy", 2, 4, 2), ("dee", 0, 6, 0)]
    rows = swiss_standings(players, games[:4])
    # ana 1 (beat ben), ben 1 (beat dee), cy 2, dee 0: ana's Buchholz 3 > ben's 2.
    assert [row.player for row in rows] == ["cy", "ana", "ben", "dee"]


def test_the_direct_encounter_splits_equal_tie_breaks():
    players = ["ana", "ben"]
    games = [("ben", "ana", 1)]
    rows = swiss_standings(players + ["cy"], games + [("ana", "cy", 1)], byes=["ben"])
    assert [row.player for row in rows][:2] == ["ben", "ana"]


def test_a_bye_is_a_point_without_tie_break():
    rows = swiss_standings(["ana", "ben"], [], byes=["ana"])
    assert (rows[0].player, rows[0].points, rows[0].buchholz) == ("ana", 1, 0)


def test_round_robin_table_ranks_by_points_then_sonneborn_berger():
    players = ["ana", "ben", "cy"]
    games = [("ana", "ben", 1), ("ben", "cy", 1), ("cy", "ana", 1)]
    rows = round_robin_table(players, games)
    assert [row.points for row in rows] == [1, 1, 1]
    assert [row.sonneborn_berger for row in rows] == [1, 1, 1]


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 5), st.integers(0, 5), st.sampled_from([0, 0.5, 1])),
                max_size=30))
def test_points_add_up_to_the_games_played(raw):
    games = [(a, b, result) for a, b, result in raw if a != b]
    assert sum(scores(range(6), games).values()) == len(games)
    rows = swiss_standings(list(range(6)), games)
    assert [row.points for row in rows] == sorted((row.points for row in rows), reverse=True)


def test_performance_rating_is_the_mean_opponent_plus_400_per_net_win():
    assert performance([]) is None
    assert performance([(1500, 1), (1700, 0), (1600, 0.5)]) == 1600
    assert performance([(1500, 1), (1500, 1)]) == 1900
