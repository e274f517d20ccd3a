"""Arena pairing waves and points (tournaments.formats.arena)."""
from hypothesis import given, settings
from hypothesis import strategies as st

from tournaments.formats.arena import (ArenaGame, game_points, on_fire, pair_wave, points, sheet,
                                       sides)


@st.composite
def waves(draw):
    count = draw(st.integers(0, 30))
    waiting = draw(st.permutations(range(count)))
    last = {}
    for player in waiting:
        if draw(st.booleans()):
            last[player] = draw(st.integers(0, 40))
    return list(waiting), last


@settings(max_examples=300, deadline=None)
@given(waves())
def test_a_wave_pairs_only_waiting_players_once_and_no_immediate_rematch(wave):
    waiting, last = wave
    pairs = pair_wave(waiting, last)
    seated = [player for pair in pairs for player in pair]
    assert len(seated) == len(set(seated))
    assert set(seated) <= set(waiting)
    if len(waiting) != 2:
        for a, b in pairs:
            assert last.get(a) != b and last.get(b) != a
    left = [player for player in waiting if player not in seated]
    # Nobody waits who could have been paired: any two left over just played each other.
    for index, a in enumerate(left):
        for b in left[index + 1:]:
            assert last.get(a) == b or last.get(b) == a


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 1000), min_size=3, max_size=40, unique=True))
def test_without_history_everyone_meets_a_neighbour_in_rank(waiting):
    pairs = pair_wave(waiting, {})
    assert len(pairs) == len(waiting) // 2
    for a, b in pairs:
        assert abs(waiting.index(a) - waiting.index(b)) == 1


def test_two_waiting_players_meet_again():
    assert pair_wave(["ana", "ben"], {"ana": "ben", "ben": "ana"}) == [("ana", "ben")]


def test_a_third_player_breaks_up_a_rematch():
    pairs = pair_wave(["ana", "ben", "cy"], {"ana": "ben", "ben": "ana"})
    assert pairs == [("ana", "cy")]


def test_the_player_who_moved_first_less_moves_first():
    assert sides("ana", "ben", {"ana": 1, "ben": 0}) == ("ben", "ana")
    assert sides("ana", "ben", {}) == ("ana", "ben")


WIN, DRAW, LOSS = ArenaGame(1), ArenaGame(0.5), ArenaGame(0)


def test_a_streak_doubles_wins_after_two_until_a_game_is_not_won():
    games = [WIN, WIN, WIN, WIN, DRAW, WIN, WIN, WIN, LOSS, WIN]
    assert game_points(games) == [2, 2, 4, 4, 1, 2, 2, 4, 0, 2]
    assert points(games) == 23


def test_the_flame_shows_after_two_wins_in_a_row():
    assert not on_fire([WIN])
    assert on_fire([LOSS, WIN, WIN])
    assert not on_fire([WIN, WIN, DRAW])


def test_berserk_adds_one_point_to_a_win_of_enough_actions_and_is_not_doubled():
    berserk = ArenaGame(1, berserk=True, actions=7)
    quick = ArenaGame(1, berserk=True, actions=6)
    lost = ArenaGame(0, berserk=True, actions=30)
    assert game_points([berserk, quick, berserk, lost]) == [3, 2, 5, 0]


def test_the_sheet_marks_each_games_points_the_streaks_doubles_and_berserk_games():
    berserk_win = ArenaGame(1, berserk=True, actions=7)
    berserk_loss = ArenaGame(0, berserk=True, actions=30)
    marks = sheet([WIN, berserk_win, WIN, berserk_loss, DRAW])
    assert [m["points"] for m in marks] == [2, 3, 4, 0, 1]
    assert [m["doubled"] for m in marks] == [False, False, True, False, False]
    assert [m["berserk"] for m in marks] == [False, True, False, True, False]
    assert [m["berserk_point"] for m in marks] == [False, True, False, False, False]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.builds(ArenaGame, st.sampled_from([1, 0.5, 0]), st.booleans(),
                          st.integers(0, 12)), max_size=20))
def test_the_sheet_adds_up_to_the_points_and_doubles_only_wins_on_a_streak(games):
    marks = sheet(games)
    assert sum(mark["points"] for mark in marks) == points(games)
    for index, (game, mark) in enumerate(zip(games, marks)):
        before = games[:index]
        assert mark["doubled"] == (game.result == 1 and on_fire(before))
        assert mark["berserk"] == game.berserk
