"""The Archive's rows are rendered once for what they show (archive.listing.items): a
repeated view reads them from the cache, and a row is drawn again when something it shows
changes (a rating beside a name, a player's name)."""
import pytest
from django.contrib.auth import get_user_model

from ratings.models import Rating
from tests.site.played import finished

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fresh_cache")]


def rows_drawn(response):
    return [t.name for t in response.templates].count("archive/_row.html")


@pytest.fixture
def two_games(users):
    alice, bob = users("alice", "bob")
    return [finished("hadron", (alice, bob), {"size": 5}, seed=1),
            finished("copolymer", (bob, alice), {"size": 4}, seed=2)]


def test_a_repeated_view_draws_no_row_again(client, two_games):
    first = client.get("/archive/")
    assert rows_drawn(first) == 2
    again = client.get("/archive/")
    assert rows_drawn(again) == 0
    assert again.content == first.content


def test_a_row_is_drawn_again_when_a_rating_beside_a_name_changes(client, two_games):
    # Casual games: their rows show each player's rating as it stands now.
    assert not any(game.rated for game in two_games)
    client.get("/archive/")
    alice = get_user_model().objects.get(username="alice")
    Rating.objects.update_or_create(user=alice, game="hadron", defaults={"rating": 1777})
    response = client.get("/archive/")
    # Only the Hadron game's row shows alice's Hadron rating.
    assert rows_drawn(response) == 1
    assert "1777" in response.content.decode()


def test_a_row_is_drawn_again_when_a_player_is_renamed(client, two_games):
    client.get("/archive/")
    get_user_model().objects.filter(username="bob").update(username="robert")
    html = client.get("/archive/").content.decode()
    assert "robert" in html and ">bob<" not in html


def forms_drawn(response):
    return [t.name for t in response.templates].count("archive/_filter.html")


def test_a_searchs_form_is_drawn_once_and_another_search_has_its_own(client, two_games):
    assert forms_drawn(client.get("/archive/?game=hadron")) == 1
    again = client.get("/archive/?game=hadron")
    assert forms_drawn(again) == 0
    assert '<option value="hadron" selected>' in again.content.decode()
    other = client.get("/archive/?game=copolymer")
    assert forms_drawn(other) == 1
    assert '<option value="copolymer" selected>' in other.content.decode()


def test_a_refused_search_is_drawn_every_time(client, two_games):
    for _ in range(2):
        response = client.get("/archive/?player=nobody-here")
        assert forms_drawn(response) == 1
        assert response.context["form"].errors


def test_a_row_is_drawn_again_when_its_game_changes(client, two_games):
    # The rows' keys are read narrowly (archive.listing.facts), not from the whole game: a
    # column the row shows is among them.
    from play.models import Game
    client.get("/archive/")
    Game.objects.filter(pk=two_games[0].pk).update(result_text="Blue wins by a mile")
    response = client.get("/archive/")
    assert rows_drawn(response) == 1
    assert "Blue wins by a mile" in response.content.decode()
