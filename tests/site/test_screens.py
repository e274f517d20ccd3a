"""Issue 10's server side, through Django's test client: the Play page's ?game=, seeks closed
while their owner was away, the log-in wording, the error pages, the game page without
JavaScript, the clocks after each ply, "New opponent". The browser side is
tests/browser/test_screens_browser.py."""
import re
from datetime import timedelta

import pytest
from django.test import override_settings
from django.urls import path
from django.utils import timezone

from lobby.models import Seek
from play.clock import TimeControl
from play.models import Action
from tests.site.played import play_out, start

pytestmark = pytest.mark.django_db


def test_play_page_chooses_the_game_it_is_asked_for(client, alice):
    client.force_login(alice)
    page = client.get("/play/?game=tripen").content.decode()
    assert '<option value="tripen" selected>' in page
    assert '<option value="hadron" selected>' in client.get("/play/").content.decode()
    assert '<option value="hadron" selected>' in client.get("/play/?game=chess").content.decode()


def test_a_seek_closed_while_away_is_told_once(client, alice):
    seek = Seek(owner=alice, game="hadron", options={"size": 7}, status=Seek.Status.EXPIRED,
                closed_at=timezone.now() - timedelta(minutes=3))
    seek.time_control = TimeControl.realtime(3, 2)
    seek.save()
    client.force_login(alice)
    first = client.get("/play/").content.decode()
    assert "While you were away" in first and "Hadron 7×7, 3+2" in first
    assert 'name="hadron_size" value="7"' in first and 'name="minutes" value="3"' in first
    assert "While you were away" not in client.get("/play/").content.decode()


def test_login_error_says_usernames_ignore_case(client, alice):
    page = client.post("/accounts/login/", {"username": "ALICE", "password": "wrong"})
    text = page.content.decode()
    assert "Usernames ignore case; passwords do not." in text
    assert "case-sensitive" not in text


def boom(request):
    raise RuntimeError("a fault of ours")


urlpatterns = [path("boom/", boom)]


def test_error_pages_have_the_site_layout(client):
    missing = client.get("/no-such-page/")
    assert missing.status_code == 404
    assert "Page not found" in missing.content.decode()
    assert 'class="site-header"' in missing.content.decode()
    client.raise_request_exception = False
    with override_settings(ROOT_URLCONF=__name__):
        failed = client.get("/boom/")
    assert failed.status_code == 500
    text = failed.content.decode()
    assert "Something went wrong on our side" in text and 'href="/play/"' in text


def test_game_page_draws_the_position_and_lists_the_moves(client, alice, bob):
    game = play_out(start(alice, bob, game="hadron", options={"size": 5}), seed=2)
    page = client.get(f"/game/{game.pk}/").content.decode()
    assert len(re.findall(r'class="act[ "]', page)) == game.ply_count
    assert 'id="board-picture"><svg' in page
    assert page.count('class="tile side-') == game.ply_count
    earlier = client.get(f"/game/{game.pk}/?ply=3").content.decode()
    assert earlier.count('class="tile side-') == 3
    assert 'class="act current" href="?ply=3"' in earlier
    assert client.get(f"/game/{game.pk}/?ply=³").status_code == 200


def test_clocks_after_each_ply(client, alice, bob):
    game = start(alice, bob, tc=TimeControl.realtime(5, 2))
    game = play_out(game, seed=1, stop_at=3)
    stored = client.get(f"/game/{game.pk}/clocks.json").json()["remaining_ms"]
    assert stored == [[300_000, 300_000], *[
        list(left) for left in game.action_rows.values_list("remaining0_ms", "remaining1_ms")]]
    # Rows stored before they carried the clocks: the arithmetic over their times.
    for row in Action.objects.filter(game=game):
        Action.objects.filter(pk=row.pk).update(
            created_at=game.created_at + timedelta(seconds=10 * (row.ply + 1)),
            remaining0_ms=None, remaining1_ms=None)
    history = client.get(f"/game/{game.pk}/clocks.json").json()["remaining_ms"]
    # Red moves at 10 s and 30 s, Blue at 20 s; each earns 2 s when the turn passes.
    assert history == [[300_000, 300_000], [292_000, 300_000], [292_000, 292_000],
                       [284_000, 292_000]]
    untimed = start(alice, bob)
    assert client.get(f"/game/{untimed.pk}/clocks.json").json() == {"remaining_ms": None}


def test_new_opponent_posts_the_same_seek(client, alice, bob):
    game = start(alice, bob, game="colorful", options={"board": "long", "size": 5},
                 tc=TimeControl.correspondence(2))
    client.force_login(alice)
    assert 'id="new-opponent-form"' in client.get(f"/game/{game.pk}/").content.decode()
    page = client.get(f"/game/{game.pk}/").content.decode()
    form = page[page.index('id="new-opponent-form"'):page.index('id="new-opponent"')]
    fields = dict(re.findall(r'name="([a-z_]+)" value="([^"]*)"', form))
    fields.pop("csrfmiddlewaretoken")
    # The game was casual (start() makes casual games): so is the seek.
    assert fields == {"game": "colorful", "time_kind": "correspondence", "side": "random",
                      "rated": "casual", "colorful_board": "long", "colorful_size": "5",
                      "days": "2"}
    response = client.post("/play/seeks/", fields)
    assert response.status_code == 302
    seek = Seek.objects.get(owner=alice)
    assert seek.options == {"board": "long", "size": 5} and seek.time_control.days == 2
    assert not seek.rated
