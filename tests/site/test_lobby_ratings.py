"""Rated or casual on every seek and challenge (rated by default), carried onto the game; a
seek's rating range, refused by the server and greyed on the page; ratings beside the names
of the lobby's lists."""
import pytest
from django.urls import reverse

from lobby import listing, services
from lobby.models import Challenge, Seek
from play.models import Game
from ratings.models import Rating
from tests.site.test_lobby import JSON, PLAY, login, seek_data

pytestmark = pytest.mark.django_db


def post_seek(client, **fields):
    return client.post(reverse("lobby:seek_create"), seek_data(**fields), **JSON).json()


def test_seeks_are_rated_unless_casual_and_the_game_follows(client, alice, bob):
    login(client, alice)
    rated = post_seek(client)
    casual = post_seek(client, rated="casual", hadron_size="9")
    assert rated["ok"] and rated["seek"]["rated"] and rated["seek"]["mode_text"] == "rated"
    assert "rated" in rated["message"]
    assert casual["seek"]["rated"] is False and "casual" in casual["message"]
    login(client, bob)
    for seek, expected in ((rated["seek"], True), (casual["seek"], False)):
        answer = client.post(seek["accept_url"], **JSON).json()
        game = Game.objects.get(pk=int(answer["redirect"].strip("/").split("/")[-1]))
        assert game.rated is expected


def test_a_challenge_carries_its_mode_to_the_game(client, alice, bob):
    login(client, alice)
    answer = client.post(reverse("lobby:challenge_create"),
                         seek_data(opponent="bob", rated="casual"), **JSON).json()
    assert answer["challenge"]["rated"] is False
    assert answer["challenge"]["from_rating"] == {"rating": 1500, "provisional": True}
    challenge = Challenge.objects.get()
    login(client, bob)
    client.post(reverse("lobby:challenge_accept", args=[challenge.pk]), **JSON)
    assert Game.objects.get().rated is False


def test_a_bad_mode_or_range_is_refused(client, alice):
    login(client, alice)
    answer = client.post(reverse("lobby:seek_create"), seek_data(rated="maybe",
                                                                 rating_range="150"), **JSON)
    assert answer.status_code == 400
    errors = answer.json()["errors"]
    assert set(errors) == {"rated", "rating_range"}
    assert not Seek.objects.exists()


def test_a_rating_range_keeps_out_players_beyond_it(client, alice, bob, carol):
    Rating.objects.create(user=alice, game="hadron", rating=1610, deviation=80, games=30)
    Rating.objects.create(user=bob, game="hadron", rating=1850, deviation=80, games=30)
    Rating.objects.create(user=carol, game="hadron", rating=1790, deviation=80, games=30)
    login(client, alice)
    seek = post_seek(client, rating_range="200")["seek"]
    assert (seek["rating_range"], seek["rating_min"], seek["rating_max"]) == (200, 1410, 1810)
    assert seek["owner_rating"] == {"rating": 1610, "provisional": False}

    # bob sees it greyed, with the Accept button disabled; the server refuses him anyway.
    page = login(client, bob).get(PLAY).content.decode()
    assert 'class="seek out-of-range"' in page and "rated 1410–1810" in page
    assert 'disabled title="Your rating is outside this seek\'s range"' in page
    refused = client.post(seek["accept_url"], **JSON)
    assert refused.status_code == 403
    assert refused.json()["message"] == ("This seek is for players rated 1410–1810 at Hadron; "
                                         "yours is 1850.")
    assert Seek.objects.get().status == Seek.Status.OPEN

    # carol is inside it.
    assert 'class="seek out-of-range"' not in login(client, carol).get(PLAY).content.decode()
    assert client.post(seek["accept_url"], **JSON).json()["ok"]
    assert Game.objects.get().players() == (alice, carol) or Game.objects.get().players() == (carol, alice)


def test_the_range_follows_the_game_of_the_seek(alice, bob):
    # bob is strong at Tripen only: a Hadron seek ±200 around a newcomer still takes him.
    Rating.objects.create(user=bob, game="tripen", rating=2200, deviation=60, games=50)
    seek = services.create_seek(alice, game="hadron", options={"size": 7},
                                time_control=Seek().time_control, side="random",
                                rating_range=200)
    assert listing.for_viewer(listing.seek_dicts(), bob)[0]["out_of_range"] is False
    tripen = services.create_seek(alice, game="tripen", options={"size": 7},
                                  time_control=Seek().time_control, side="random",
                                  rating_range=500)
    shown = {s["id"]: s for s in listing.for_viewer(listing.seek_dicts(), bob)}
    assert shown[tripen.pk]["out_of_range"] is True and shown[seek.pk]["out_of_range"] is False
    with pytest.raises(services.LobbyError, match="yours is 2200"):
        services.accept_seek(bob, tripen.pk)


def test_the_lobby_lists_show_ratings_in_few_queries(client, django_assert_max_num_queries,
                                                      django_user_model, bob):
    owners = [django_user_model.objects.create_user(f"owner{i}") for i in range(6)]
    for i, owner in enumerate(owners):
        Rating.objects.create(user=owner, game="hadron", rating=1400 + 10 * i, deviation=70)
        services.create_seek(owner, game="hadron", options={"size": 7},
                             time_control=Seek().time_control, side="random")
    with django_assert_max_num_queries(3):
        seeks = listing.seek_dicts()
    assert [s["owner_rating"]["rating"] for s in seeks] == [1400, 1410, 1420, 1430, 1440, 1450]
    page = login(client, bob).get(PLAY).content.decode()
    assert 'title="rating 1450">1450</span>' in page
