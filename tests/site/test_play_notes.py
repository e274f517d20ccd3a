"""Private notes per game (play.notes): each player keeps their own, shown on the game page to
its author only; nobody else can read or write them."""
import pytest
from django.urls import reverse

from play.clock import TimeControl
from play.models import Note
from tests.site.played import start

pytestmark = pytest.mark.django_db

SECRET = "she always answers c3 with a1 — try e5"


def page_of(client, user, game):
    client.force_login(user) if user is not None else client.logout()
    return client.get(game.get_absolute_url()).content.decode()


def test_a_players_note_is_shown_to_its_author_only(client, alice, bob, django_user_model):
    carol = django_user_model.objects.create_user("carol")
    game = start(alice, bob, "hadron", {"size": 5}, TimeControl.realtime(5, 0))
    client.force_login(alice)
    response = client.post(reverse("play:note", args=[game.pk]), {"text": f"  {SECRET}  "})
    assert response.status_code == 302 and response["Location"].endswith("#notes")
    assert Note.objects.get().text == SECRET
    assert SECRET in page_of(client, alice, game)
    for other in (bob, carol, None):
        assert SECRET not in page_of(client, other, game)
    # Bob's own notes form is there, empty; spectators and visitors have none.
    assert 'id="note-form"' in page_of(client, bob, game)
    assert 'id="note-form"' not in page_of(client, carol, game)
    assert 'id="note-form"' not in page_of(client, None, game)
    # Nor the snapshot JSON nor the archive's record carry it.
    for user in (alice, bob, carol):
        client.force_login(user)
        assert SECRET not in client.get(reverse("play:snapshot", args=[game.pk])).content.decode()
        assert SECRET not in client.get(reverse("archive:record_text", args=[game.pk])).content.decode()


def test_only_players_write_notes_and_never_anothers(client, alice, bob, django_user_model):
    carol = django_user_model.objects.create_user("carol")
    game = start(alice, bob, "hadron", {"size": 5}, TimeControl.realtime(5, 0))
    url = reverse("play:note", args=[game.pk])
    assert client.post(url, {"text": "x"}).status_code == 302  # to the log-in page
    client.force_login(carol)
    assert client.post(url, {"text": "x"}, HTTP_ACCEPT="application/json").status_code == 403
    assert not Note.objects.exists()
    client.force_login(bob)
    answer = client.post(url, {"text": "mine"}, HTTP_ACCEPT="application/json")
    assert answer.json() == {"text": "mine"}
    client.force_login(alice)
    client.post(url, {"text": "hers"})
    assert sorted(Note.objects.values_list("author__username", "text")) == [
        ("alice", "hers"), ("bob", "mine")]
    too_long = client.post(url, {"text": "x" * 4001}, HTTP_ACCEPT="application/json")
    assert too_long.status_code == 400 and "4000" in too_long.json()["error"]
    # An empty note deletes hers only.
    client.post(url, {"text": "   "})
    assert list(Note.objects.values_list("author__username", flat=True)) == ["bob"]
    assert client.get(url).status_code == 405
