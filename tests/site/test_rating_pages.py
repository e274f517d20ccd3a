"""Ratings on the pages: the leaderboards (people only, established ratings), the profile's
cards and charts, and ratings beside names on the game page and in the archive."""
import re
from datetime import timedelta

import pytest
from django.utils import timezone

from accounts.models import profile_of
from play import services
from play.clock import TimeControl
from ratings import graph, leaderboard
from ratings.models import Rating, RatingChange

pytestmark = pytest.mark.django_db


def established(user, game="hadron", rating=1600, deviation=70, games=20, **fields):
    return Rating.objects.create(user=user, game=game, rating=rating, deviation=deviation,
                                 games=games, last_rated_at=timezone.now(), **fields)


def rated_game(first, second, game="hadron"):
    return services.start_game(game=game, options={}, players=(first, second), rated=True,
                               time_control=TimeControl.untimed())


def test_the_leaderboard_lists_established_people_best_first(client, django_user_model):
    make = django_user_model.objects.create_user
    established(make("steady"), rating=1700)
    established(make("champ"), rating=1900, wins=15, losses=5)
    established(make("newbie"), rating=2100, deviation=200)          # provisional
    established(make("fresh"), rating=2000, games=leaderboard.MIN_GAMES - 1)
    established(make("gone", is_active=False), rating=2050)
    bot = make("botty")
    established(bot, rating=2400)
    profile = profile_of(bot)
    profile.is_bot = True
    profile.save()
    # Away for two years: the deviation has grown back past provisional since.
    away = established(make("away"), rating=1950, deviation=90)
    Rating.objects.filter(pk=away.pk).update(last_rated_at=timezone.now() - timedelta(days=730))
    established(make("tripenist"), game="tripen", rating=1800)

    assert [p.user.username for p in leaderboard.top("hadron")] == ["champ", "steady"]
    page = client.get("/leaderboard/").content.decode()
    board = page[page.index('id="leaderboard-hadron"'):page.index('id="leaderboard-tripen"')]
    assert re.findall(r'/u/(\w+)/', board) == ["champ", "steady"]
    assert "tripenist" in page and "Nobody yet" in page  # copolymer, colorful
    single = client.get("/leaderboard/hadron/").content.decode()
    assert "Hadron leaderboard" in single and ">15</td>" in single
    assert client.get("/leaderboard/chess/").status_code == 404


def test_the_leaderboards_statement_written_once_follows_the_rules_as_they_stand(
        client, django_user_model, monkeypatch):
    # tops() keeps its statement per process; the listing rule's threshold is a parameter of
    # it, so a statement kept from before a change of the rule must not be served after it.
    make = django_user_model.objects.create_user
    established(make("veteran"), rating=1800, games=30)
    established(make("regular"), rating=1700, games=12)
    first = leaderboard.tops(["hadron"])["hadron"]
    assert [(p.user.username, p.rating) for p in first] == [("veteran", 1800),
                                                           ("regular", 1700)]
    assert [p.user.pk for p in first] == [p.user.pk for p in leaderboard.top("hadron")]
    monkeypatch.setattr(leaderboard, "MIN_GAMES", 20)
    assert [p.user.username for p in leaderboard.tops(["hadron"])["hadron"]] == ["veteran"]


def test_the_leaderboards_take_one_query_per_game_however_many_are_listed(
        client, django_user_model, django_assert_max_num_queries):
    import games
    people = django_user_model.objects.bulk_create(
        [django_user_model(username=f"listed{k}") for k in range(12)])
    for name in games.names():
        for k, person in enumerate(people):
            established(person, game=name, rating=1500 + 10 * k)
    # One query per game's table, whatever the number of places (10 per table here, up to
    # 100 on one game's page): the players come with their ratings, nothing is read per row.
    with django_assert_max_num_queries(len(games.names())):
        page = client.get("/leaderboard/").content.decode()
    assert page.count("/u/listed11/") == len(games.names())
    with django_assert_max_num_queries(1):
        assert client.get("/leaderboard/hadron/").content.decode().count('<td class="num">') >= 12


def test_the_profile_shows_each_rated_game_with_its_chart(client, alice, bob, carol):
    for opponent in (bob, carol, bob):
        game = rated_game(alice, opponent)
        services.resign(game.pk, alice, 0)
    game = rated_game(bob, alice, "copolymer")
    services.resign(game.pk, bob, 0)
    page = client.get("/u/alice/").content.decode()
    cards = dict(re.findall(r'<article class="card rating-card" data-game="(\w+)">(.*?)</article>',
                            page, re.S))
    assert set(cards) == {"hadron", "copolymer"}
    hadron = cards["hadron"]
    assert '<span class="won">0 won</span> · <span class="lost">3 lost</span>' in hadron
    svg = re.search(r'<svg class="rating-graph".*?</svg>', hadron, re.S)[0]
    assert len(re.search(r'points="([^"]+)"', svg)[1].split()) == 4  # the start and 3 games
    assert svg.count('<circle class="dot loss"') == 3
    assert "Hadron rating from 1500 to" in svg and "over 3 rated games" in svg
    assert '<span class="won">1 won</span>' in cards["copolymer"]


def test_the_profile_says_what_its_plus_or_minus_means(client, alice, bob):
    established(alice, deviation=70)
    page = client.get("/u/alice/").content.decode()
    shown = re.search(r'<span class="muted small deviation" title="([^"]+)">([^<]+)</span>', page)
    assert shown[2].strip() == "95% within ±140"
    assert "Rating deviation 70" in shown[1] and "95% likely" in shown[1]


def test_a_player_without_rated_games_says_so(client, carol):
    page = client.get("/u/carol/").content.decode()
    assert "carol has not played a rated game yet. Everyone starts at 1500." in page


def test_the_chart_scales_to_round_ratings():
    assert graph.nice_step(80) == 25 and graph.nice_step(240) == 50 and graph.nice_step(900) == 200
    assert graph.history_svg("Hadron", []) == ""


def test_the_game_page_shows_ratings_and_whether_it_is_rated(client, alice, bob):
    established(alice, rating=1712)
    game = rated_game(alice, bob)
    page = client.get(game.get_absolute_url()).content.decode()
    assert '<span class="rating" title="rating 1712">1712</span>' in page
    assert 'title="rating 1500, provisional">1500?</span>' in page
    assert 'id="game-mode">rated</span>' in page


def test_archive_rows_show_the_rating_after_a_rated_game_and_its_change(client, alice, bob):
    game = rated_game(alice, bob)
    services.resign(game.pk, bob, 0)
    change = RatingChange.objects.get(played=game, user=alice)
    page = client.get("/archive/").content.decode()
    assert f'title="rating {change.after}, provisional">{change.after}?</span>' in page
    assert f'<span class="rating-change up">+{change.change}</span>' in page
    assert '<span class="rating-change down">−' in page
    assert '<span class="tag">rated</span>' in page


def test_every_games_tables_in_one_query_are_each_games_top(django_user_model,
                                                            django_assert_num_queries):
    import games
    people = django_user_model.objects.bulk_create(
        [django_user_model(username=f"p{k}") for k in range(9)])
    for k, person in enumerate(people):
        for n, name in enumerate(games.names()):
            established(person, game=name, rating=1500 + 10 * ((k * (n + 3)) % 7))
    # The best, but provisional by now (away for two years): passed over, the next one listed.
    away = timezone.now() - timedelta(days=730)
    Rating.objects.filter(user=people[0]).update(last_rated_at=away, rating=2000)
    now = timezone.now()
    with django_assert_num_queries(1):
        tables = leaderboard.tops(games.names(), 3, now)
    for name in games.names():
        assert tables[name] == leaderboard.top(name, 3, now) and len(tables[name]) == 3
        assert "p0" not in [place.user.username for place in tables[name]]
