"""The Watch page (list, filter, featured game, thumbnails) and the games on profile pages,
through Django's test client and the watch services."""
import json
import re
from datetime import timedelta

import pytest
from django.utils import timezone

import games
from live.process import stale_after
from play import services
from live.models import Presence
from play.models import Action, Game
from watch import profiles
from watch import services as watch
from tests.site.played import start

pytestmark = pytest.mark.django_db


def play(game, *actions):
    """Play `actions` in turn from the game's current ply, whoever is to move."""
    for action in actions:
        game = Game.objects.get(pk=game.pk)
        mover = game.players()[game.player_of(game.state().to_move)]
        services.play(game.pk, mover, game.ply_count, action)
    return Game.objects.get(pk=game.pk)


def resign(game, loser):
    game = Game.objects.get(pk=game.pk)
    services.resign(game.pk, loser, game.ply_count)
    return Game.objects.get(pk=game.pk)


def rows_of(html):
    return re.findall(r'<li class="watch-row[^"]*" id="watch-game-(\d+)"', html)


def age(game, minutes):
    """Make the game's actions and last change `minutes` old."""
    then = timezone.now() - timedelta(minutes=minutes)
    Action.objects.filter(game=game).update(created_at=then)
    Game.objects.filter(pk=game.pk).update(updated_at=then)


def watcher(game, user=None, channel=None):
    now = timezone.now()
    return Presence.objects.create(kind=Presence.GAME, game_id=game.pk, user=user, opened_at=now,
                                   seen_at=now,
                                   channel_name=channel or f"chan-{Presence.objects.count()}")


# -- the list ---------------------------------------------------------------------------------

def test_watch_lists_games_in_progress_newest_first(client, users):
    alice, bob, carol = users("alice", "bob", "carol")
    hadron = play(start(alice, bob), "c3", "a1")
    tripen = start(carol, alice, "tripen", {"size": 5})
    over = resign(start(bob, carol, "copolymer"), bob)
    response = client.get("/watch/")
    assert response.status_code == 200
    html = response.content.decode()
    assert rows_of(html) == [str(tripen.pk), str(hadron.pk)]
    assert str(over.pk) not in rows_of(html)
    row = html.split(f'id="watch-game-{hadron.pk}"')[1].split("</li>")[0]
    assert 'data-ply="2"' in html.split(f'id="watch-game-{hadron.pk}"')[0].rsplit("<li", 1)[1] + row
    assert "2 moves" in row and "alice" in row and "bob" in row and "alice to move" in row
    assert '<svg xmlns="http://www.w3.org/2000/svg" class="boardsvg boardsvg-square"' in row
    assert f'href="/game/{hadron.pk}/"' in row
    assert response.context["total"] == 2
    assert '<span id="live-count">2</span>' in html


def test_row_thumbnail_shows_the_current_position(users):
    alice, bob = users("alice", "bob")
    game = start(alice, bob)
    empty = watch.row_of(game)
    assert empty["ply"] == 0 and 'class="tile side-0"' not in empty["thumbnail"]
    game = play(game, "c3")
    row = watch.row_of(game)
    assert row["ply"] == 1 and row["to_move"] == 1
    assert row["thumbnail"] != empty["thumbnail"]
    assert row["thumbnail"].count('class="tile side-0"') == 1
    newcomer = {"rating": 1500, "provisional": True}
    assert row["players"] == [
        {"username": "alice", "side": 0, "side_name": "Red", "rating": newcomer, "clock_ms": None},
        {"username": "bob", "side": 1, "side_name": "Blue", "rating": newcomer, "clock_ms": None}]
    assert row["options_text"] == "5×5" and row["time_control"] == "untimed"
    html = watch.with_html(row)["html"]
    assert html.startswith(f'<li class="watch-row game-hadron" id="watch-game-{game.pk}"')


def test_thumbnails_are_drawn_once_per_position_without_replays(users, monkeypatch):
    alice, bob = users("alice", "bob")
    game = play(start(alice, bob), "c3")
    first = watch.picture(game)

    def no_replay(*args):
        raise AssertionError("replayed the whole game")

    monkeypatch.setattr(type(games.get("hadron")), "replay", no_replay)
    drawn = []
    original = watch.svg.render
    monkeypatch.setattr(watch.svg, "render", lambda *a, **k: drawn.append(1) or original(*a, **k))
    assert watch.picture(Game.objects.get(pk=game.pk)) == first
    assert drawn == []
    # A move in this process: the play app caches the new state, one drawing follows.
    game = play(game, "a1")
    assert watch.picture(game) != first and drawn == [1]
    # A move stored by another process: one engine step from the cached state, no replay.
    Action.objects.create(game=game, ply=2, action="e5", player=0)
    Game.objects.filter(pk=game.pk).update(ply_count=3)
    assert 'data-cell="e5"' in watch.picture(Game.objects.get(pk=game.pk))
    assert len(drawn) == 2


def test_filter_by_game(client, users):
    alice, bob = users("alice", "bob")
    hadron = start(alice, bob)
    colorful = start(bob, alice, "colorful", {"size": 3})
    response = client.get("/watch/?game=colorful")
    html = response.content.decode()
    assert rows_of(html) == [str(colorful.pk)]
    assert response.context["featured"]["id"] == colorful.pk
    assert 'data-game="colorful"' in html
    assert re.search(r'href="/watch/\?game=colorful" aria-current="page"', html)
    response = client.get("/watch/?game=hadron")
    assert rows_of(response.content.decode()) == [str(hadron.pk)]
    # An unknown game is said so, and every game is listed.
    response = client.get("/watch/?game=chess")
    html = response.content.decode()
    assert response.status_code == 200 and "Showing every game" in html
    assert rows_of(html) == [str(colorful.pk), str(hadron.pk)]


def test_empty_watch_page(client):
    response = client.get("/watch/")
    html = response.content.decode()
    assert response.status_code == 200
    assert rows_of(html) == [] and "No games in progress" in html
    assert 'id="featured-none">' in html  # no featured game (a kept page has no context)
    assert '<script id="featured-row" type="application/json">null</script>' in html
    assert client.post("/watch/").status_code == 405


def test_page_embeds_the_featured_game_with_a_labelled_board(client, users):
    alice, bob = users("alice", "bob")
    game = play(start(alice, bob, "copolymer"), "C3")
    html = client.get("/watch/").content.decode()
    featured = html.split('id="featured-frame">')[1].split("</div>")[0]
    assert 'class="boardsvg boardsvg-hex"' in featured and 'class="label"' in featured
    data = json.loads(html.split('<script id="featured-row" type="application/json">')[1]
                      .split("</script>")[0])
    assert data["id"] == game.pk and data["ply"] == 1 and "thumbnail" not in data
    assert f'data-featured="{game.pk}"' in html


# -- the featured game ------------------------------------------------------------------------

def test_liveliness_counts_recent_actions_then_watchers_then_recency(users):
    alice, bob, carol, dave = users("alice", "bob", "carol", "dave")
    busy = play(start(alice, bob), "c3", "a1", "e5")
    watched = play(start(carol, dave), "c3")
    quiet = play(start(alice, carol), "c3", "a1", "e5", "a5", "b2")
    age(quiet, 30)
    assert watch.liveliest().pk == busy.pk
    # Watchers only break ties of recent actions: three people watch `watched`.
    for user in (None, None, bob):
        watcher(watched, user)
    assert watch.liveliest().pk == busy.pk
    age(busy, 20)
    age(watched, 20)
    # Nothing recent anywhere: the most watched game.
    assert watch.liveliest().pk == watched.pk
    # The players' own pages do not count as watchers.
    for user in (alice, alice, alice, alice):
        watcher(quiet, user)
    assert watch.liveliest().pk == watched.pk
    # Equal on both: the most recent action wins.
    Presence.objects.filter(game_id=watched.pk).delete()
    age(busy, 5)
    Action.objects.filter(game=busy).update(created_at=timezone.now() - timedelta(minutes=20))
    assert watch.liveliest().pk == busy.pk
    assert watch.liveliest(kind="tripen") is None


def test_stale_connections_do_not_count(users):
    alice, bob, carol, dave = users("alice", "bob", "carol", "dave")
    first = start(alice, bob)
    second = start(carol, dave)
    watcher(first, None)
    Presence.objects.update(seen_at=timezone.now() - stale_after() * 2)
    watcher(second, None)
    assert watch.liveliest().pk == second.pk


def test_a_game_just_started_does_not_hide_a_more_watched_one(users):
    alice, bob, carol, dave = users("alice", "bob", "carol", "dave")
    watched = start(alice, bob)
    age(watched, 60)
    watcher(watched, carol)
    start(carol, dave)  # updated within the window, no action: not livelier
    assert watch.liveliest().pk == watched.pk


def test_featured_game_stays_until_it_ends(users):
    alice, bob, carol, dave = users("alice", "bob", "carol", "dave")
    first = play(start(alice, bob), "c3")
    second = play(start(carol, dave), "c3", "a1", "e5")
    assert watch.featured().pk == second.pk
    assert watch.featured(keep=first.pk).pk == first.pk
    assert watch.featured(kind="tripen", keep=first.pk) is None
    resign(first, alice)
    assert watch.featured(keep=first.pk).pk == second.pk


def test_the_page_ranks_once_while_its_pick_is_fresh_and_drops_a_pick_that_ended(
        users, monkeypatch):
    from django.core.cache import cache
    cache.delete("watch:pick:")
    monkeypatch.setattr(watch, "PICK_FRESH", 3600)  # fresh however slow the machine
    alice, bob, carol, dave = users("alice", "bob", "carol", "dave")
    first = play(start(alice, bob), "c3", "a1", "e5")
    ranked = []
    liveliest = watch.liveliest
    monkeypatch.setattr(watch, "liveliest", lambda kind=None: ranked.append(kind) or liveliest(kind))
    assert watch.page_featured().pk == first.pk
    second = play(start(carol, dave), "c3", "a1", "e5", "a5")  # livelier now
    # While its pick is fresh (watch.PICK_FRESH) the page shows the same pick without ranking again.
    assert watch.page_featured().pk == first.pk and ranked == [None]
    resign(first, alice)
    assert watch.page_featured().pk == second.pk and ranked == [None, None]
    assert watch.page_featured(kind="tripen") is None


def test_news_of_a_game(users):
    alice, bob = users("alice", "bob")
    game = start(alice, bob)
    news = watch.news_of(game.pk)
    assert news["active"] and news["row"]["id"] == game.pk and news["totals"] == {"hadron": 1}
    assert news["row"]["html"].startswith("<li")
    resign(game, bob)
    news = watch.news_of(game.pk)
    assert not news["active"] and "alice wins" in news["result"] and news["totals"] == {}
    assert watch.news_of(10 ** 9) is None


# -- profiles ---------------------------------------------------------------------------------

def test_profile_lists_games_in_progress_and_finished_with_results(client, users):
    alice, bob, carol = users("alice", "bob", "carol")
    live = play(start(alice, bob, "tripen", {"size": 5}), "a1/0")
    lost = resign(start(alice, carol), alice)
    won = resign(start(carol, alice, "colorful", {"size": 3}), carol)
    aborted = start(bob, alice)
    services.abort(aborted.pk, bob, 0)
    state = games.get("hadron").new(size=5)
    played = start(bob, alice)
    while not state.is_over:
        action = state.legal_actions()[0]
        played = play(played, action)
        state = state.play(action)
    response = client.get("/u/alice/")
    assert response.status_code == 200
    html = response.content.decode()
    progress = html.split('id="games-in-progress"')[1].split("</section>")[0]
    assert "Tripen" in progress and 'href="/u/bob/"' in progress
    assert f'href="/game/{live.pk}/"' in progress and "bob to move" in progress
    finished = html.split('id="finished-games"')[1].split("</section>")[0]
    rows = re.findall(r'<tr class="result-(\w+)">(.*?)</tr>', finished, re.S)
    # Newest first: the played-out game, the abort, the win, the loss.
    assert len(rows) == 4 and [result for result, _ in rows][1:] == ["aborted", "won", "lost"]
    by_game = {re.search(r'href="/game/(\d+)/"', row)[1]: (result, row) for result, row in rows}
    assert by_game[str(lost.pk)][0] == "lost" and "resignation" in by_game[str(lost.pk)][1]
    assert 'href="/u/carol/"' in by_game[str(lost.pk)][1]
    assert by_game[str(won.pk)][0] == "won" and "Colorful Connection" in by_game[str(won.pk)][1]
    assert by_game[str(aborted.pk)][0] == "aborted"
    finished_played = Game.objects.get(pk=played.pk)
    alice_won = finished_played.winner == 1
    assert by_game[str(played.pk)][0] == ("won" if alice_won else "lost")
    assert finished_played.result_text.split(" — ")[1] in by_game[str(played.pk)][1]
    # bob's page: the same games, his side of them.
    link = f'<a class="game-link" href="/game/{live.pk}/">Tripen<span class="visually-hidden">: '
    bob_page = client.get("/u/bob/").content.decode()
    assert link + "watch the game against alice" in bob_page  # a visitor watches
    client.force_login(bob)
    assert link + "play the game against alice" in client.get("/u/bob/").content.decode()


def test_profile_paginates_finished_games(client, users):
    alice, bob = users("alice", "bob")
    ended = [resign(start(alice, bob), bob) for _ in range(profiles.PER_PAGE + 3)]
    first = client.get("/u/alice/").content.decode()
    ids = re.findall(r'<a class="game-link" href="/game/(\d+)/">', first)
    assert len(ids) == profiles.PER_PAGE and ids[0] == str(ended[-1].pk)
    assert "Page 1 of 2" in first and 'href="?page=2#finished-games"' in first
    second = client.get("/u/alice/?page=2").content.decode()
    ids2 = re.findall(r'<a class="game-link" href="/game/(\d+)/">', second)
    assert ids2 == [str(game.pk) for game in reversed(ended[:3])]
    assert set(ids).isdisjoint(ids2)
    # A page number past the end or not a number: the nearest page, never an error.
    assert client.get("/u/alice/?page=99").status_code == 200
    assert client.get("/u/alice/?page=x").status_code == 200


def test_profile_without_games(client, users):
    users("alice")
    html = client.get("/u/alice/").content.decode()
    assert "alice has no game in progress" in html and "alice has not finished a game" in html


def test_rows_show_the_clocks_and_who_watches(users, client):
    """Issue 10, item 16: each row has the clocks (realtime) or the deadline and the watchers
    as the game page counts them (anyone's open sockets but the players')."""
    from play.clock import TimeControl
    alice, bob, carol = users("alice", "bob", "carol")
    game = play(start(alice, bob, tc=TimeControl.realtime(5, 0)), "c3")
    now = timezone.now()
    for name, user in (("p0", alice), ("s1", carol), ("s2", None)):
        watcher(game, user, name)
    row = watch.rows()[0]
    assert row["watchers"] == 2 and watch.row_of(game)["watchers"] == 2
    assert row["clocks"]["running"] == 1
    assert [p["clock_ms"] for p in row["players"]] == row["clocks"]["remaining_ms"]
    html = client.get("/watch/").content.decode()
    assert "2 watching" in html
    assert re.search(r'class="row-clock running" data-player="1" data-ms="\d+"[^>]*>[45]:\d\d<', html)
    mail = start(bob, carol, tc=TimeControl.correspondence(3))
    assert "to move within 3 days" in client.get("/watch/").content.decode() or \
        "to move within 2 days 23 h" in client.get("/watch/").content.decode()
    assert watch.row_of(mail)["players"][0]["clock_ms"] is None


@pytest.mark.parametrize("ms, text", [(300_000, "5:00"), (61_001, "1:02"), (9_560, "0:09.5"),
                                      (3_725_000, "1:02:05"), (-5, "0:00.0")])
def test_clock_text_writes_clocks_like_the_browser(ms, text):
    from watch.templatetags.watch_tags import clock_text
    assert clock_text(ms) == text


def test_a_listed_featured_game_is_read_once_for_the_page(client, users, monkeypatch):
    # The featured game is most often one of the listed: the page takes it from the list
    # (watch.services.page) instead of reading it and counting its watchers again.
    from django.core.cache import cache
    cache.delete("watch:pick:")
    monkeypatch.setattr(watch, "PICK_FRESH", 3600)
    alice, bob, carol, dave = users("alice", "bob", "carol", "dave")
    play(start(alice, bob), "c3")
    busy = play(start(carol, dave), "c3", "a1", "e5")
    client.get("/watch/")  # ranks and keeps the pick
    read = []
    monkeypatch.setattr(watch, "in_progress", lambda *args: read.append(args))
    shown = watch.page()
    assert shown.featured.pk == busy.pk and read == []
    rows, _, row = shown.drawn()
    assert row is next(r for r in rows if r["id"] == busy.pk)
    html = client.get("/watch/").content.decode()
    data = re.search(r'id="featured-row"[^>]*>(.*?)</script>', html).group(1)
    assert json.loads(data)["id"] == busy.pk
