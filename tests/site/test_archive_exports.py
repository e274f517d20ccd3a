"""The expensive export (a game's GIF): drawn once for every concurrent request, kept where
cheap requests cannot push it out, and limited per client address (issue 21, item 4)."""
import json
import time
from datetime import timedelta
from types import SimpleNamespace

import pytest
from django.core.cache import cache
from django.test import Client
from django.utils import timezone

from archive import drawings, exports
from archive.models import Drawing
from siteservers import migrate, server_env
from tests.site.played import finished, play_out, start
from tests.site.test_lobby_race import run, shell, wait_until_ready


@pytest.fixture
def drawn(monkeypatch):
    """Counts the GIFs drawn."""
    calls = []
    real = exports.draw_gif

    def counting(game):
        calls.append(game.pk)
        return real(game)

    monkeypatch.setattr(exports, "draw_gif", counting)
    return calls


@pytest.fixture
def one_window(monkeypatch):
    """Holds django-ratelimit's clock still, so that a test's requests fall in one window.
    Its windows are fixed to the wall clock: requests that took seconds to draw could
    straddle a window's end, and the count start again (a CI failure on PostgreSQL)."""
    import django_ratelimit.core
    now = time.time()
    monkeypatch.setattr(django_ratelimit.core, "time", SimpleNamespace(time=lambda: now))


SETUP = """
from django.contrib.auth import get_user_model
from tests.site.played import finished
User = get_user_model()
print(finished("hadron", (User.objects.create_user("alice"), User.objects.create_user("bob")),
               {"size": 5}, seed=3).pk)
"""

# A server process asking for the game's GIF at the same moment as the others; its drawing
# takes a second longer, as a long game's does.
FETCH = """
import hashlib, json, os, time
from pathlib import Path
from archive import exports
from play.models import Game
game = Game.objects.with_players().get(pk={game})
drew = []
real = exports.draw_gif
def draw(game):
    drew.append(1)
    time.sleep(1)
    return real(game)
exports.draw_gif = draw
Path({ready!r}).touch()
while not os.path.exists({go!r}):
    time.sleep(0.005)
data = exports.game_gif(game)
print(json.dumps([len(drew), hashlib.sha256(data).hexdigest(), data[:4].decode()]))
"""


def test_processes_asking_for_a_gif_at_once_draw_it_once(tmp_path):
    env = server_env(f"sqlite:///{tmp_path / 'db.sqlite3'}")
    migrate(env)
    game = int(run(env, SETUP))
    go = tmp_path / "go"
    ready = [tmp_path / f"{n}.ready" for n in range(3)]
    fetchers = [shell(env, FETCH.format(game=game, ready=str(path), go=str(go)))
                for path in ready]
    try:
        wait_until_ready(fetchers, ready)
    finally:
        go.touch()
    outcomes = []
    for fetcher in fetchers:
        out, err = fetcher.communicate(timeout=120)
        assert fetcher.returncode == 0, err
        outcomes.append(json.loads(out.strip().splitlines()[-1]))
    assert sorted(drew for drew, _, _ in outcomes) == [0, 0, 1], outcomes
    assert len({digest for _, digest, _ in outcomes}) == 1 and outcomes[0][2] == "GIF8"


@pytest.mark.django_db
@pytest.mark.usefixtures("fresh_cache")
def test_a_kept_gif_outlives_the_cache(client, alice, bob, drawn):
    game = finished("hadron", (alice, bob), {"size": 5}, seed=3)
    first = client.get(f"/game/{game.pk}/game.gif").content
    cache.clear()   # what a few hundred cheap requests did to Django's per-process cache
    assert client.get(f"/game/{game.pk}/game.gif").content == first
    assert drawn == [game.pk]


@pytest.mark.django_db
def test_a_gif_of_a_game_that_went_on_is_drawn_again_and_the_old_one_dropped(alice, bob, drawn):
    game = play_out(start(alice, bob, "hadron", {"size": 5}), stop_at=4)
    before = exports.game_gif(game)
    game = play_out(game, stop_at=6)
    after = exports.game_gif(game)
    assert before != after and len(drawn) == 2
    assert list(Drawing.objects.filter(game=game).values_list("key", flat=True)) == [
        f"gif:{exports.positions.stamp(game)}:6"]


@pytest.mark.django_db
def test_a_claim_left_by_a_dead_drawer_is_taken_over(alice, bob, drawn):
    game = finished("hadron", (alice, bob), {"size": 5}, seed=3)
    key = f"gif:{exports.positions.stamp(game)}:{game.ply_count}"
    Drawing.objects.create(game=game, kind="gif", key=key,
                           drawing_since=timezone.now() - drawings.STALE - timedelta(seconds=1))
    assert exports.game_gif(game).startswith(b"GIF8")
    assert drawn == [game.pk]


@pytest.mark.django_db
def test_a_drawing_in_progress_elsewhere_is_waited_for_then_a_503(client, alice, bob, drawn,
                                                                  monkeypatch):
    game = finished("hadron", (alice, bob), {"size": 5}, seed=3)
    key = f"gif:{exports.positions.stamp(game)}:{game.ply_count}"
    Drawing.objects.create(game=game, kind="gif", key=key, drawing_since=timezone.now())
    monkeypatch.setattr(drawings, "WAIT", 0.3)
    response = client.get(f"/game/{game.pk}/game.gif")
    assert response.status_code == 503 and response["Retry-After"]
    assert drawn == []


@pytest.mark.django_db
def test_gif_exports_are_limited_per_address(alice, bob, settings, one_window):
    settings.EXPORT_GIF_RATE = "3/m"
    game = finished("hadron", (alice, bob), {"size": 5}, seed=3)
    flooder, other = Client(REMOTE_ADDR="10.1.1.1"), Client(REMOTE_ADDR="10.2.2.2")
    url = f"/game/{game.pk}/game.gif"
    assert [flooder.get(url).status_code for _ in range(3)] == [200] * 3
    refused = flooder.get(url)
    assert refused.status_code == 429 and refused["Retry-After"] == "60"
    assert "Too many exports" in refused.content.decode()
    assert other.get(url).status_code == 200


@pytest.mark.django_db
def test_position_pngs_are_limited_per_address_and_svgs_are_not(client, alice, bob, settings,
                                                                 one_window):
    settings.EXPORT_PNG_RATE = "2/m"
    game = finished("hadron", (alice, bob), {"size": 5}, seed=3)
    assert client.get(f"/game/{game.pk}/position/1.png").status_code == 200
    assert client.get(f"/game/{game.pk}/position/2.png").status_code == 200
    assert client.get(f"/game/{game.pk}/position/3.png").status_code == 429
    # The Archive's thumbnails are SVG exports, 25 a page: never refused.
    assert all(client.get(f"/game/{game.pk}/position/{ply}.svg?labels=0").status_code == 200
               for ply in range(5))
