"""The home page, Watch, the Archive, the rules and the leaderboards kept whole for visitors who are not signed in (frontend.kept): drawn
once for what they show, never another visitor's page, a waiting message never lost."""
import gzip
from datetime import timedelta
from unittest import mock

import pytest
from django.contrib.messages import constants
from django.contrib.messages.storage.cookie import CookieStorage, Message
from django.http import HttpRequest
from django.utils import timezone

from tests.site.played import finished, start
from tests.site.test_watch import play

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fresh_cache")]

PAGES = ["/", "/watch/", "/archive/", "/rules/hadron/", "/leaderboard/", "/leaderboard/hadron/"]


def drawn(response):
    """Whether the page's template ran for this response (a kept page's does not)."""
    return any(t.name == "base.html" for t in response.templates)


@pytest.fixture
def site(users):
    alice, bob, carol = users("alice", "bob", "carol")
    play(start(alice, bob), "c3")
    finished("hadron", (alice, carol), {"size": 5}, seed=3)
    return alice, bob, carol


@pytest.mark.parametrize("path", PAGES)
def test_a_repeated_view_is_not_drawn_again(client, site, path):
    first = client.get(path)
    again = client.get(path)
    assert drawn(first) and not drawn(again)
    assert again.content == first.content


@pytest.mark.parametrize("path", ["/watch/", "/archive/"])
def test_another_address_is_another_page(client, site, path):
    first = client.get(path)
    assert client.get(path + "?game=tripen").content != first.content


@pytest.mark.parametrize("path", PAGES)
def test_a_kept_page_is_sent_gzipped_to_who_takes_it(client, site, path):
    plain = client.get(path)
    packed = client.get(path, HTTP_ACCEPT_ENCODING="gzip, deflate")
    assert packed["Content-Encoding"] == "gzip"
    assert "Accept-Encoding" in packed["Vary"]
    assert gzip.decompress(packed.content) == plain.content


@pytest.mark.parametrize("path", PAGES)
def test_a_signed_in_visitor_gets_their_own_page_and_leaves_none(client, site, path):
    alice, _, _ = site
    before = client.get(path).content.decode()
    client.force_login(alice)
    mine = client.get(path)
    assert drawn(mine) and 'class="who"' in mine.content.decode()
    client.logout()
    after = client.get(path)
    assert 'class="who"' not in after.content.decode()
    assert after.content.decode() == before


@pytest.mark.parametrize("path", PAGES)
def test_a_waiting_message_is_shown_once_and_to_no_one_else(client, site, path):
    client.get(path)
    client.cookies["messages"] = CookieStorage(HttpRequest())._encode(
        [Message(constants.INFO, "Log in to play.")])
    shown = client.get(path)
    assert drawn(shown) and "Log in to play." in shown.content.decode()
    assert "Log in to play." not in client.get(path).content.decode()


def test_the_watch_page_is_drawn_again_after_a_move(client, users):
    alice, bob = users("alice", "bob")
    game = play(start(alice, bob), "c3")
    client.get("/watch/")
    play(game, "a1")
    again = client.get("/watch/")
    assert drawn(again) and "2 moves" in again.content.decode()


def test_the_archive_is_drawn_again_when_a_game_finishes(client, site):
    alice, bob, _ = site
    client.get("/archive/")
    finished("copolymer", (bob, alice), {"size": 5}, seed=4)
    again = client.get("/archive/")
    assert drawn(again) and "2 games" in again.content.decode()


def test_the_leaderboard_is_drawn_again_when_a_place_changes(client, django_user_model):
    from tests.site.test_rating_pages import established
    champ = django_user_model.objects.create_user("champ")
    rating = established(champ, rating=1900)
    assert ">1900</td>" in client.get("/leaderboard/").content.decode()
    rating.rating = 1950
    rating.save()
    again = client.get("/leaderboard/")
    assert drawn(again) and ">1950</td>" in again.content.decode()


def test_a_finished_games_page_is_kept_and_a_live_ones_is_not(client, users):
    alice, bob, carol = users("alice", "bob", "carol")
    live = play(start(alice, bob), "c3")
    over = finished("hadron", (alice, carol), {"size": 5}, seed=3)
    for game in (live, over):
        client.get(f"/game/{game.pk}/")
    assert drawn(client.get(f"/game/{live.pk}/"))  # its clocks and presence move
    again = client.get(f"/game/{over.pk}/")
    assert not drawn(again) and "csrfmiddlewaretoken" not in again.content.decode()
    assert drawn(client.get(f"/game/{over.pk}/?ply=2"))  # another position: another page


def test_a_finished_games_page_is_drawn_again_when_its_analysis_changes(client, users):
    from analysis.models import Analysis
    alice, carol = users("alice", "carol")
    over = finished("hadron", (alice, carol), {"size": 5}, seed=3)
    client.get(f"/game/{over.pk}/")
    Analysis.objects.create(game=over, playouts=10, status=Analysis.QUEUED, requested_by=alice)
    again = client.get(f"/game/{over.pk}/")
    assert drawn(again) and '"status": "queued"' in again.content.decode()


def test_a_signed_in_visitor_gets_the_analysis_panels_token(client, users):
    alice, carol = users("alice", "carol")
    over = finished("hadron", (alice, carol), {"size": 5}, seed=3)
    client.force_login(carol)
    assert "csrfmiddlewaretoken" in client.get(f"/game/{over.pk}/").content.decode()


def event(name, status, starts_in, ends_in=None):
    from tournaments.models import Tournament
    now = timezone.now()
    return Tournament.objects.create(
        name=name, kind=Tournament.ARENA, game="hadron", minutes=3, increment=2, status=status,
        starts_at=now + starts_in, ends_at=ends_in and now + ends_in)


def test_the_home_page_is_drawn_again_when_an_event_is_announced_or_starts(client, site):
    from tournaments.models import Tournament
    client.get("/")
    upcoming = event("Friday Arena", Tournament.UPCOMING, timedelta(hours=2, minutes=30))
    announced = client.get("/")
    assert drawn(announced) and "Friday Arena</a> in 2\xa0hours" in announced.content.decode()
    assert not drawn(client.get("/"))
    Tournament.objects.filter(pk=upcoming.pk).update(
        status=Tournament.RUNNING, ends_at=timezone.now() + timedelta(minutes=50))
    started = client.get("/").content.decode()
    assert "running, ends in 49\xa0minutes" in started and "Log in to join" in started
    assert "Friday Arena</a> in" not in started


def test_the_home_pages_countdown_is_never_a_minute_behind(client, site):
    """The page is drawn again when its countdown's words change, and drawn with the words its
    key was read with."""
    from tournaments.models import Tournament
    event("Friday Arena", Tournament.UPCOMING, timedelta(hours=1, minutes=10, seconds=30))
    assert "in 1\xa0hour, 10\xa0minutes" in client.get("/").content.decode()
    later = timezone.now() + timedelta(minutes=5)
    with mock.patch("django.utils.timezone.now", return_value=later):
        again = client.get("/")
    assert drawn(again) and "in 1\xa0hour, 5\xa0minutes" in again.content.decode()


def test_a_signed_in_visitor_gets_the_join_button_not_a_kept_page(client, site):
    from tournaments.models import Tournament
    alice, _, _ = site
    event("Friday Arena", Tournament.RUNNING, -timedelta(minutes=5), timedelta(minutes=50))
    assert "Log in to join" in client.get("/").content.decode()
    client.force_login(alice)
    mine = client.get("/").content.decode()
    assert "Log in to join" not in mine and "csrfmiddlewaretoken" in mine and "Join</button>" in mine


def test_a_kept_archive_page_reads_no_rows(client, site):
    """Its rows' keys make its key; the rows themselves are read only to draw it."""
    from archive import listing
    first = client.get("/archive/")
    with mock.patch.object(listing, "items", side_effect=AssertionError("rows read")):
        again = client.get("/archive/")
    assert not drawn(again) and again.content == first.content
