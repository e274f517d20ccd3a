"""Vacations (play.vacations): a correspondence player's deadlines stand still while they are
away, in every correspondence game; coming back, or running out of days, gives each turn the
time it had; realtime games are never paused; refusals change nothing. Everything is in the
database, so a restarted server (fresh objects, the sweeper) sees the same."""
import io
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import override_settings
from django.utils import timezone

from play import services, sweeper, vacations
from play.clock import TimeControl
from play.models import Game, Vacation, VacationGrant
from play.snapshots import snapshot
from tests.site.played import start

pytestmark = pytest.mark.django_db

DAY = timedelta(days=1)


def refresh(game):
    return Game.objects.get(pk=game.pk)


def correspondence(first, second, days=3):
    return start(first, second, "hadron", {"size": 5}, TimeControl.correspondence(days))


def refusal(call, *args, **kwargs):
    with pytest.raises(vacations.VacationError) as caught:
        call(*args, **kwargs)
    return caught.value.code


def test_deadline_stands_still_and_the_turn_gets_its_time_back(alice, bob):
    game = correspondence(alice, bob)
    t0 = timezone.now()
    services.play(game.pk, alice, 0, "c3", now=t0)           # bob to move, 3 days
    deadline = refresh(game).deadline
    assert deadline == t0 + 3 * DAY
    left = t0 + DAY
    vacations.start(bob, now=left)
    game = refresh(game)
    assert game.deadline is None and game.expires_at is None
    snap = snapshot(game, alice)
    assert snap["clocks"]["away"] == [False, True] and snap["clocks"]["deadline"] is None
    # Ten days away: the sweeper (any process, after a restart too) ends nothing.
    sweeper.sweep(left + 10 * DAY)
    assert refresh(game).is_active
    vacations.end(bob, now=left + 10 * DAY)
    game = refresh(game)
    # Two days left, as when he left.
    assert game.deadline == left + 10 * DAY + 2 * DAY
    assert snapshot(game, alice)["clocks"]["away"] == [False, False]
    sweeper.sweep(game.deadline + timedelta(seconds=5))
    assert refresh(game).reason == "no_start"  # bob never moved: aborted, on time


def test_a_turn_that_began_while_away_starts_at_the_return(alice, bob):
    game = correspondence(alice, bob)
    t0 = timezone.now()
    vacations.start(bob, now=t0)
    services.play(game.pk, alice, 0, "c3", now=t0 + DAY)
    assert refresh(game).deadline is None
    vacations.end(bob, now=t0 + 5 * DAY)
    assert refresh(game).deadline == t0 + 5 * DAY + 3 * DAY


def test_the_opponents_deadline_runs_while_one_is_away(alice, bob):
    game = correspondence(alice, bob)
    t0 = timezone.now()
    vacations.start(bob, now=t0)      # alice to move: her deadline is not bob's business
    assert refresh(game).deadline == refresh(game).turn_started_at + 3 * DAY


def test_realtime_games_are_never_paused(alice, bob):
    game = start(alice, bob, "hadron", {"size": 5}, TimeControl.realtime(5, 0))
    services.play(game.pk, alice, 0, "c3")
    before = refresh(game).expires_at
    vacations.start(bob)
    game = refresh(game)
    assert game.vacation1_since is None and game.expires_at == before


@override_settings(PLAY_VACATION_DAYS=4)
def test_the_allowance_runs_out_and_the_sweeper_ends_the_vacation(alice, bob):
    game = correspondence(alice, bob)
    t0 = timezone.now()
    services.play(game.pk, alice, 0, "c3", now=t0)
    vacations.start(bob, now=t0)
    sweeper.sweep(t0 + 4 * DAY + timedelta(minutes=1))
    assert Vacation.objects.get().ended_at == t0 + 4 * DAY
    game = refresh(game)
    assert game.vacation1_since is None
    assert game.deadline == t0 + 7 * DAY
    assert refusal(vacations.start, bob, now=t0 + 5 * DAY) == "no_days_left"


def test_refusals_change_nothing(alice, bob):
    game = correspondence(alice, bob)
    assert refusal(vacations.end, bob) == "not_on_vacation"
    vacations.start(bob)
    assert refusal(vacations.start, bob) == "already_on_vacation"
    assert Vacation.objects.count() == 1
    assert refresh(game).vacation1_since is not None


def test_the_vacation_page(client, alice, bob):
    game = correspondence(alice, bob)
    client.force_login(bob)
    page = client.get("/vacation/")
    assert b"Left this year: 30.0 days." in page.content
    assert client.post("/vacation/", {"action": "start"}).status_code == 302
    assert refresh(game).vacation1_since is not None
    again = client.post("/vacation/", {"action": "start"})
    assert again.status_code == 400 and b'data-code="already_on_vacation"' in again.content
    assert client.post("/vacation/", {"action": "end"}).status_code == 302
    assert refresh(game).vacation1_since is None
    assert client.post("/vacation/", {"action": "dance"}).status_code == 400
    client.logout()
    assert client.post("/vacation/", {"action": "start"}).status_code == 302  # to log in
    assert Vacation.objects.count() == 1


def test_the_opponents_home_page_says_so(client, alice, bob):
    game = correspondence(alice, bob)
    services.play(game.pk, alice, 0, "c3")
    vacations.start(bob)
    client.force_login(alice)
    page = client.get("/")
    assert b"bob is on vacation: the deadline stands still" in page.content


def test_an_outage_during_the_vacation_is_not_given_back_twice(alice, bob):
    """The site is down while bob is away (a restart after an outage moves the clocks on):
    back, he has what he had when he left, as without the outage."""
    game = correspondence(alice, bob)
    t0 = timezone.now()
    services.play(game.pk, alice, 0, "c3", now=t0)
    vacations.start(bob, now=t0 + DAY)
    sweeper.move_clocks_on(t0 + 2 * DAY, t0 + 4 * DAY)
    game = refresh(game)
    assert game.is_active and game.deadline is None
    vacations.end(bob, now=t0 + 10 * DAY)
    assert refresh(game).deadline == t0 + 10 * DAY + 2 * DAY


def test_a_vacation_begun_after_the_deadline_does_not_save_the_game(alice, bob):
    """bob's deadline passed before he left (the sweeper had not come by yet): leaving ends the
    game on time, as the sweeper would have, instead of stopping a clock that already ran out
    (which un-flagged it: no deadline, nothing for the sweeper to end)."""
    game = correspondence(alice, bob)
    t0 = timezone.now()
    services.play(game.pk, alice, 0, "c3", now=t0)
    services.play(game.pk, bob, 1, "a1", now=t0 + DAY)
    services.play(game.pk, alice, 2, "e5", now=t0 + DAY)          # bob's deadline: t0 + 4 days
    late = t0 + 4 * DAY + timedelta(minutes=5)
    vacations.start(bob, now=late)
    game = refresh(game)
    assert not game.is_active
    assert (game.reason, game.winner) == ("time", 0)
    assert game.finished_at == late and game.vacation1_since is None
    sweeper.sweep(late + DAY)
    assert refresh(game).result_text == game.result_text


def test_a_vacation_begun_before_the_deadline_keeps_the_game(alice, bob):
    game = correspondence(alice, bob)
    t0 = timezone.now()
    services.play(game.pk, alice, 0, "c3", now=t0)
    vacations.start(bob, now=t0 + 3 * DAY - timedelta(seconds=1))
    sweeper.sweep(t0 + 30 * DAY)
    assert refresh(game).is_active


def vacations_command(*args):
    out = io.StringIO()
    call_command("vacations", *args, stdout=out)
    return out.getvalue()


def test_the_operators_command_lists_and_ends_vacations(alice, bob):
    game = correspondence(alice, bob)
    services.play(game.pk, alice, 0, "c3")
    assert vacations_command("list") == "nobody is on vacation\n"
    vacations.start(bob)
    listed = vacations_command("list")
    assert listed.startswith("bob\tsince ") and "days left" in listed
    assert "alice" not in listed
    assert vacations_command("end", "BOB").startswith("bob is back")
    assert refresh(game).vacation1_since is None and refresh(game).deadline is not None
    with pytest.raises(CommandError, match="not_on_vacation"):
        vacations_command("end", "bob")
    with pytest.raises(CommandError, match="no player 'carol'"):
        vacations_command("end", "carol")


@override_settings(PLAY_VACATION_DAYS=2)
def test_granted_days_lengthen_the_allowance_and_a_vacation_under_way(alice, bob):
    game = correspondence(alice, bob)
    t0 = timezone.now()
    services.play(game.pk, alice, 0, "c3", now=t0)
    vacations.start(bob, now=t0)
    assert Vacation.objects.get().ends_by == t0 + 2 * DAY
    vacations.grant(bob, 5, now=t0 + DAY, reason="hospital")
    assert Vacation.objects.get().ends_by == t0 + 7 * DAY
    assert vacations.status(bob, now=t0 + DAY)["allowance_days"] == 7
    sweeper.sweep(t0 + 3 * DAY)             # the old end: still away
    assert refresh(game).vacation1_since is not None
    sweeper.sweep(t0 + 7 * DAY + timedelta(seconds=1))
    assert Vacation.objects.get().ended_at == t0 + 7 * DAY
    # Another year: the grant was for this one.
    assert vacations.allowance_days(bob, t0.replace(year=t0.year + 1)) == 2
    with pytest.raises(ValueError):
        vacations.grant(bob, 0)


def test_the_operators_command_grants_days(alice, bob):
    out = vacations_command("grant", "bob", "10", "--reason", "tournament organiser")
    assert out.startswith("bob: 40 days in ") and "40.0 left" in out
    assert VacationGrant.objects.get().reason == "tournament organiser"
    vacations.start(bob)
    assert "on vacation until" in vacations_command("grant", "bob", "1")
    assert vacations.status(bob)["allowance_days"] == 41
    with pytest.raises(CommandError, match="at least one day"):
        vacations_command("grant", "bob", "-3")
    assert VacationGrant.objects.count() == 2
