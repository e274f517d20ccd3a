"""An end adds its own game's points to the two entries (tournaments.results.points_gained)
instead of recounting their games: after every end, each entry's stored points must be what a
recount of its counted games makes of them (results.points_of), streaks, draws, void games
and forfeits included, and also when a game that ended earlier is counted after a later one."""
import random
from datetime import timedelta

import pytest
from django.db import transaction
from django.utils import timezone

from play import services as play
from play import statements
from play.clock import TimeControl
from play.endings import end_game
from tournaments import results, services
from tournaments.models import Bye, Entry, Tournament

pytestmark = pytest.mark.django_db


@pytest.fixture
def people(django_user_model):
    return [django_user_model.objects.create_user(f"player{n}") for n in range(6)]


def arena(creator, time_control=None):
    return services.create(creator, name="test arena", kind="arena", game="hadron",
                           options={"size": 5}, rated=True, starts_at=timezone.now(),
                           time_control=time_control or TimeControl("realtime", 3, 2),
                           minutes=30)


def entries_of(tournament, people):
    return [services.join(tournament.pk, person) for person in people]


def assert_points_are_a_recount(tournament):
    tournament = Tournament.objects.get(pk=tournament.pk)
    stored = dict(Entry.objects.filter(tournament=tournament).values_list("pk", "points"))
    assert stored == results.points_of(tournament, list(stored))


def draw(game, now=None):
    with transaction.atomic():
        locked = statements.game(game.pk, lock=True)
        end_game(locked, now or timezone.now(), None, "normal", "a draw")


@pytest.mark.parametrize("seed", range(4))
def test_after_every_end_of_an_arena_the_points_are_a_recount(people, seed):
    """Random opponents and endings (wins either way, draws, aborts that are void), one game
    at a time per player as the waves make them, so long streaks come and go."""
    chance = random.Random(seed)
    tournament = arena(people[0])
    entries = entries_of(tournament, people[:4])
    for _ in range(24):
        first, second = chance.sample(entries, 2)
        game = services._start(tournament, first, second)
        ending = chance.choice(["first wins"] * 4 + ["second wins"] * 2 + ["draw", "abort"])
        if ending == "first wins":
            play.resign(game.pk, second.player, 0)
        elif ending == "second wins":
            play.resign(game.pk, first.player, 0)
        elif ending == "draw":
            draw(game)
        else:
            play.abort(game.pk, first.player, 0)
        assert_points_are_a_recount(tournament)
    streaks = max(Entry.objects.filter(tournament=tournament).values_list("points", flat=True))
    assert streaks > 0


def test_a_swiss_game_adds_its_result_and_a_bye_stays_counted(people):
    tournament = services.create(people[0], name="test swiss", kind="swiss", game="hadron",
                                 options={"size": 5}, rated=True, starts_at=timezone.now(),
                                 time_control=TimeControl("correspondence", days=3), rounds=3)
    entries = entries_of(tournament, people[:3])
    Bye.objects.create(tournament=tournament, round=1, entry=entries[2])
    results.recount(tournament, entries[2].pk)
    won = services._start(tournament, entries[0], entries[1], 1)
    play.resign(won.pk, entries[1].player, 0)
    drawn = services._start(tournament, entries[1], entries[2], 2)
    draw(drawn)
    assert_points_are_a_recount(tournament)
    assert sorted(Entry.objects.filter(tournament=tournament).values_list("points", flat=True)) \
        == [0.5, 1.0, 1.5]


def test_a_game_counted_after_a_later_ending_one_recounts_the_streak_in_the_games_order(
        people):
    """Two wins, then two games of the same player in play at once (never so in an arena's
    waves, but an end's moment is the clock's): the one that ended later, a win on the
    streak, is counted first; then the one that ended earlier, a loss. In the games' order
    the loss breaks the streak (2 + 2 + 0 + 2), not after it (2 + 2 + 4 + 0)."""
    tournament = arena(people[0])
    ana, ben, cy = entries_of(tournament, people[:3])
    for opponent in (ben, cy):
        game = services._start(tournament, ana, opponent)
        play.resign(game.pk, opponent.player, 0)
    lost = services._start(tournament, ana, ben)
    won = services._start(tournament, ana, cy)
    later = timezone.now() + timedelta(seconds=2)
    play.resign(won.pk, cy.player, 0, now=later)
    assert Entry.objects.get(pk=ana.pk).points == 2 + 2 + 4
    play.resign(lost.pk, ana.player, 0, now=later - timedelta(seconds=1))
    assert Entry.objects.get(pk=ana.pk).points == 2 + 2 + 0 + 2
    assert_points_are_a_recount(tournament)
