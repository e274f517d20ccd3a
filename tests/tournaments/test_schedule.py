"""Scheduled events (tournaments.schedule) and the home page's "next event"."""
import json
from datetime import datetime, timedelta, timezone as tz

import pytest

from tournaments import schedule, services
from tournaments.models import Tournament

pytestmark = pytest.mark.django_db
NOW = datetime(2026, 11, 26, 18, 20, tzinfo=tz.utc)  # a Thursday
HOURLY = {"name": "Hourly Hadron arena", "kind": "arena", "game": "hadron",
          "options": {"size": 5}, "clock": "3+2", "minutes": 30, "every": "hour", "at": ":00"}
WEEKLY = {"name": "Weekly Tripen Swiss", "kind": "swiss", "game": "tripen", "options": {},
          "days": 2, "rounds": 5, "every": "week", "at": "mon 12:00"}


def test_occurrences_are_the_next_day_of_each_recurrence():
    hourly = list(schedule.occurrences(HOURLY, NOW))
    assert hourly[0] == datetime(2026, 11, 26, 19, 0, tzinfo=tz.utc) and len(hourly) == 24
    daily = list(schedule.occurrences({**HOURLY, "every": "day", "at": "18:00"}, NOW))
    assert daily == [datetime(2026, 11, 27, 18, 0, tzinfo=tz.utc)]
    assert list(schedule.occurrences(WEEKLY, NOW)) == []  # next Monday is days off
    assert list(schedule.occurrences(WEEKLY, NOW + timedelta(days=3))) == [
        datetime(2026, 11, 30, 12, 0, tzinfo=tz.utc)]


def test_planning_creates_each_occurrence_once_official_and_without_a_creator(settings):
    settings.TOURNAMENT_SCHEDULE = json.dumps([HOURLY, WEEKLY])
    assert schedule.plan(NOW) == 24
    assert schedule.plan(NOW) == 0  # planned again (another process, the next run): nothing new
    assert schedule.plan(NOW + timedelta(hours=1)) == 1
    events = Tournament.objects.order_by("starts_at")
    first = events[0]
    assert (first.name, first.official, first.created_by, first.kind) == (
        "Hourly Hadron arena", True, None, "arena")
    assert first.ends_at - first.starts_at == timedelta(minutes=30)
    assert (first.time_kind, first.minutes, first.increment) == ("realtime", 3, 2)


def test_a_scheduled_correspondence_swiss_may_have_days_per_round(settings):
    settings.TOURNAMENT_SCHEDULE = json.dumps([{**WEEKLY, "round_days": 3}])
    assert schedule.plan(NOW + timedelta(days=3)) == 1
    assert Tournament.objects.get().round_days == 3


def test_the_default_schedule_is_for_development_only(settings):
    settings.TOURNAMENT_SCHEDULE = None
    settings.DEBUG = False
    assert schedule.entries() == []
    settings.DEBUG = True
    assert schedule.entries() == schedule.DEFAULT
    # Every default entry makes a valid event.
    for entry in schedule.DEFAULT:
        schedule.event_settings(entry, NOW)


@pytest.mark.parametrize("bad", [
    {**HOURLY, "game": "chess"}, {**HOURLY, "clock": "0+2"}, {**HOURLY, "kind": "knockout"},
    {**HOURLY, "options": {"size": 99}}, {**HOURLY, "every": "month"},
    {**WEEKLY, "round_days": 0}, {**WEEKLY, "round_days": "2"},
])
def test_a_malformed_schedule_is_refused_with_the_reason(settings, bad):
    settings.TOURNAMENT_SCHEDULE = json.dumps([bad])
    with pytest.raises((ValueError, KeyError)):
        schedule.entries()
        list(schedule.occurrences(bad, NOW))


def test_the_home_page_shows_running_events_and_the_next_one(client, django_user_model):
    from django.utils import timezone

    from play.clock import TimeControl

    person = django_user_model.objects.create_user("visitor")
    assert "tournaments-now" not in client.get("/").content.decode()
    now = timezone.now()
    for name, start in (("Running arena", now), ("Later arena", now + timedelta(minutes=12))):
        services.create(person, name=name, kind="arena", game="hadron", options={"size": 5},
                        time_control=TimeControl("realtime", 3, 2), rated=True,
                        starts_at=start, minutes=30)
    services.tick()
    page = client.get("/").content.decode()
    assert "Running arena" in page and "Next:" in page and "Later arena" in page
    assert "Log in to join" in page
    client.force_login(person)
    page = client.get("/").content.decode()
    running = Tournament.objects.get(name="Running arena")
    assert f'action="/tournaments/{running.pk}/join/"' in page
    response = client.post(f"/tournaments/{running.pk}/join/")
    assert response.status_code == 302 and running.entries.filter(player=person).exists()
