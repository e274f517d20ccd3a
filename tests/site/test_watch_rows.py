"""The Watch page's rows are rendered once for what they show (watch.services.keyed, drawn_rows): a
repeated view reads them from the cache, and a row is drawn again when its game moves, its
clock runs, or the same ply is reached by another move after a takeback."""
import re
from datetime import timedelta

import pytest

from play.clock import TimeControl
from play.models import Action, Game
from tests.site.played import start
from tests.site.test_watch import play

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fresh_cache")]


def listed(response):
    """The page's list of games (the featured game's data carries the moment it was read)."""
    return re.search(r'<ol class="watch-rows".*?</ol>', response.content.decode(), re.S).group()


def rows_drawn(response):
    return [t.name for t in response.templates].count("watch/_row.html")


def test_a_repeated_view_draws_no_row_again(client, users):
    alice, bob, carol = users("alice", "bob", "carol")
    play(start(alice, bob), "c3")
    play(start(bob, carol), "a1")
    first = client.get("/watch/")
    assert rows_drawn(first) == 2
    again = client.get("/watch/")
    assert rows_drawn(again) == 0
    assert listed(again) == listed(first)


def test_a_row_is_drawn_again_after_a_move(client, users):
    alice, bob = users("alice", "bob")
    game = play(start(alice, bob), "c3")
    client.get("/watch/")
    play(game, "a1")
    response = client.get("/watch/")
    assert rows_drawn(response) == 1
    html = response.content.decode()
    assert 'data-ply="2"' in html and "2 moves" in html


def test_another_move_at_the_same_ply_is_drawn_again(client, users):
    # Another process's takeback and a different move: same game, same ply, other picture.
    alice, bob = users("alice", "bob")
    game = play(start(alice, bob), "c3")
    before = client.get("/watch/").content.decode()
    Action.objects.filter(game=game, ply=0).update(action="e5")
    Game.objects.filter(pk=game.pk).update(takebacks=1)
    after = client.get("/watch/").content.decode()
    assert 'data-cell="e5"' in after and after != before


def test_a_running_clock_is_read_again_on_every_view(client, users, settings):
    alice, bob = users("alice", "bob")
    game = play(start(alice, bob, tc=TimeControl.realtime(5, 0)), "c3", "a1")
    first = client.get("/watch/")
    Game.objects.filter(pk=game.pk).update(turn_started_at=game.turn_started_at - timedelta(seconds=30))
    again = client.get("/watch/")
    assert rows_drawn(again) == 1 and listed(again) != listed(first)


def test_a_row_is_drawn_again_when_its_watchers_or_a_name_or_a_rating_change(client, users):
    # The rows' keys are read narrowly (watch.services.keyed: the games' columns and the
    # players' names, the watchers and ratings in queries of their own), not from the games.
    from django.contrib.auth import get_user_model
    from ratings.models import Rating
    from tests.site.test_watch import watcher
    alice, bob, carol = users("alice", "bob", "carol")
    game = play(start(alice, bob), "c3")
    client.get("/watch/")
    watcher(game, alice, "p0")  # a player's own page: no watcher
    assert rows_drawn(client.get("/watch/")) == 0
    watcher(game, carol, "s1")
    watcher(game, None, "s2")
    response = client.get("/watch/")
    assert rows_drawn(response) == 1 and "2 watching" in listed(response)
    get_user_model().objects.filter(username="bob").update(username="robert")
    response = client.get("/watch/")
    assert rows_drawn(response) == 1 and "robert" in listed(response)
    Rating.objects.update_or_create(user=alice, game=game.game, defaults={"rating": 1777})
    response = client.get("/watch/")
    assert rows_drawn(response) == 1 and "1777" in listed(response)
    assert rows_drawn(client.get("/watch/")) == 0
