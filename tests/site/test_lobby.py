"""Lobby views and forms through Django's test client: seeks, challenges, bad input and who
may do what."""
import json
import re

import pytest
from django.urls import reverse

import games
from lobby.forms import ChallengeForm, ProposalForm
from lobby.models import Challenge, Seek
from play.models import Game

PLAY = "/play/"
JSON = {"HTTP_ACCEPT": "application/json"}


def login(client, user):
    client.force_login(user)
    return client


def seek_data(game="hadron", **extra):
    """A valid new-game form: every game's default options, like the page's selects."""
    data = {"game": game, "time_kind": "realtime", "minutes": "5", "increment": "3",
            "days": "3", "side": "random", "opponent": ""}
    for name in games.names():
        engine = games.get(name)
        for option in engine.option_choices():
            data[f"{name}_{option}"] = str(engine.defaults[option])
    data.update(extra)
    return data


def make_seek(owner, game="hadron", side="random", **extra):
    from lobby import services
    form = ProposalForm(seek_data(game, side=side, **extra))
    assert form.is_valid(), form.errors
    return services.create_seek(owner, **form.proposal())


# -- the Play page ---------------------------------------------------------------------------


@pytest.mark.django_db
def test_play_page_anonymous_sees_seeks_and_a_login_link(client, alice):
    make_seek(alice, "tripen", tripen_size="9")
    response = client.get(PLAY)
    assert response.status_code == 200
    page = response.content.decode()
    assert "Tripen" in page and "9×9" in page and "alice" in page
    assert "/accounts/login/?next=%2Fplay%2F" in page
    assert "Log in to accept" in page
    assert 'id="new-game"' not in page


@pytest.mark.django_db
def test_play_page_offers_every_option_the_rules_allow(client, alice):
    page = login(client, alice).get(PLAY).content.decode()
    assert reverse("lobby:play") == PLAY
    for name in games.names():
        for option, values in games.get(name).option_choices().items():
            select = re.search(rf'<select name="{name}_{option}".*?</select>', page, re.S)
            assert select, f"no select for {name} {option}"
            offered = re.findall(r'<option value="([^"]*)"', select.group(0))
            assert offered == [str(value) for value in values]
    for kind in ("realtime", "correspondence", "untimed"):
        assert f'value="{kind}"' in page
    assert 'id="lobby-config"' in page


@pytest.mark.django_db
def test_play_page_prefills_the_opponent(client, alice):
    page = login(client, alice).get(PLAY + "?opponent=bob").content.decode()
    assert 'name="opponent" value="bob"' in page


# -- creating seeks --------------------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize("game, extra, options", [
    ("copolymer", {"copolymer_size": "8"}, {"size": 8}),
    ("hadron", {"hadron_size": "11"}, {"size": 11}),
    ("tripen", {"tripen_size": "13"}, {"size": 13}),
    ("colorful", {"colorful_board": "long", "colorful_size": "4"}, {"board": "long", "size": 4}),
    ("colorful", {"colorful_board": "hexhex", "colorful_size": "3"}, {"board": "hexhex", "size": 3}),
])
def test_create_seek(client, alice, game, extra, options):
    response = login(client, alice).post(reverse("lobby:seek_create"), seek_data(game, **extra))
    assert response.status_code == 302 and response.url == PLAY
    seek = Seek.objects.get()
    assert (seek.owner, seek.game, seek.options, seek.status) == (alice, game, options, "open")
    assert seek.time_control.to_dict()["text"] == "5+3"
    page = client.get(PLAY).content.decode()
    assert "Your seek is open" in page
    assert f'data-seek-id="{seek.pk}"' in page and "Cancel" in page


@pytest.mark.django_db
@pytest.mark.parametrize("extra, text", [
    ({"time_kind": "correspondence", "days": "7"}, "7 days per move"),
    ({"time_kind": "untimed", "minutes": "", "increment": "", "days": ""}, "untimed"),
    ({"time_kind": "realtime", "minutes": "180", "increment": "0"}, "180+0"),
])
def test_create_seek_time_controls(client, alice, extra, text):
    login(client, alice).post(reverse("lobby:seek_create"), seek_data(**extra))
    assert Seek.objects.get().time_control.text == text


@pytest.mark.django_db
def test_create_seek_json_answer(client, alice):
    response = login(client, alice).post(reverse("lobby:seek_create"),
                                         seek_data("copolymer", side="first"), **JSON)
    assert response.status_code == 200
    data = response.json()
    assert data["ok"] is True and data["redirect"] is None
    seek = data["seek"]
    assert seek["owner"] == "alice" and seek["game_title"] == "Copolymer"
    assert seek["options_text"] == "hexhex side 5"
    assert seek["side_text"] == "alice moves first"
    assert seek["time_control"]["kind"] == "realtime" and seek["realtime"] is True
    assert seek["cancel_url"] == reverse("lobby:seek_cancel", args=[seek["id"]])


@pytest.mark.django_db
@pytest.mark.parametrize("extra, field, message", [
    ({"game": "chess"}, "game", "Select a valid choice"),
    ({"game": "hadron", "hadron_size": "6"}, "hadron_size", "Select a valid choice"),
    ({"game": "copolymer", "copolymer_size": "19"}, "copolymer_size", "Select a valid choice"),
    ({"game": "colorful", "colorful_board": "long", "colorful_size": "3"}, "colorful_size",
     "long board has size 4, 5 or 6"),
    ({"game": "colorful", "colorful_board": "long", "colorful_size": "7"}, "colorful_size",
     "long board has size 4, 5 or 6"),
    ({"game": "colorful", "colorful_board": "square"}, "colorful_board", "Select a valid choice"),
    ({"time_kind": "blitz"}, "time_kind", "Select a valid choice"),
    ({"minutes": "0"}, "minutes", "greater than or equal to 1"),
    ({"minutes": "500"}, "minutes", "less than or equal to 180"),
    ({"minutes": "five"}, "minutes", "Enter a whole number"),
    ({"minutes": ""}, "minutes", "needs minutes"),
    ({"increment": "61"}, "increment", "less than or equal to 60"),
    ({"time_kind": "correspondence", "days": "0"}, "days", "greater than or equal to 1"),
    ({"time_kind": "correspondence", "days": "30"}, "days", "less than or equal to 14"),
    ({"time_kind": "correspondence", "days": ""}, "days", "how many days"),
    ({"side": "middle"}, "side", "Select a valid choice"),
])
def test_create_seek_bad_input(client, alice, extra, field, message):
    login(client, alice)
    response = client.post(reverse("lobby:seek_create"), seek_data(**extra))
    assert response.status_code == 400
    page = response.content.decode()
    assert "Your seek was not created" in page
    assert message in page
    assert f'id="id_{field}_errors"' in page
    response = client.post(reverse("lobby:seek_create"), seek_data(**extra), **JSON)
    assert response.status_code == 400
    errors = response.json()["errors"]
    assert field in errors and message in " ".join(errors[field])
    assert not Seek.objects.exists()


@pytest.mark.django_db
def test_other_games_options_do_not_matter(client, alice):
    data = seek_data("hadron", copolymer_size="99", colorful_board="nonsense")
    response = login(client, alice).post(reverse("lobby:seek_create"), data)
    assert response.status_code == 302
    assert Seek.objects.get().options == {"size": 5}


@pytest.mark.django_db
def test_bad_input_keeps_what_was_typed(client, alice):
    data = seek_data("tripen", tripen_size="11", minutes="999", side="second")
    page = login(client, alice).post(reverse("lobby:seek_create"), data).content.decode()
    assert 'value="999"' in page
    assert '<option value="11" selected>' in page
    assert '<option value="tripen" selected>' in page


def test_form_checks_options_with_the_engine():
    form = ProposalForm(seek_data("colorful", colorful_board="long", colorful_size="3"))
    assert not form.is_valid()
    assert "a long board has size 4, 5 or 6, not 3" in form.errors["colorful_size"]


@pytest.mark.django_db
def test_open_seeks_are_limited(client, alice):
    login(client, alice)
    for _ in range(5):
        assert client.post(reverse("lobby:seek_create"), seek_data()).status_code == 302
    response = client.post(reverse("lobby:seek_create"), seek_data(), **JSON)
    assert response.status_code == 409 and "cancel one first" in response.json()["message"]
    assert Seek.objects.count() == 5


# -- permissions -----------------------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize("name, args", [
    ("seek_create", []), ("seek_cancel", [1]), ("seek_accept", [1]),
    ("challenge_create", []), ("challenge_accept", [1]), ("challenge_decline", [1]),
    ("challenge_withdraw", [1]),
])
def test_anonymous_must_log_in(client, name, args):
    url = reverse(f"lobby:{name}", args=args)
    response = client.post(url, seek_data(opponent="bob"))
    assert response.status_code == 302
    assert response.url == "/accounts/login/?next=/play/"
    followed = client.get(response.url).content.decode()
    assert "Log in to create a seek, accept one or challenge a player." in followed
    response = client.post(url, seek_data(), **JSON)
    assert response.status_code == 403
    assert response.json()["login_url"] == "/accounts/login/?next=%2Fplay%2F"
    assert not Seek.objects.exists() and not Challenge.objects.exists()


@pytest.mark.django_db
@pytest.mark.parametrize("name, args", [
    ("seek_create", []), ("seek_accept", [1]), ("challenge_decline", [1]),
])
def test_actions_take_post_only(client, alice, name, args):
    assert login(client, alice).get(reverse(f"lobby:{name}", args=args)).status_code == 405


@pytest.mark.django_db
def test_actions_need_the_csrf_token(alice):
    from django.test import Client
    client = Client(enforce_csrf_checks=True)
    client.force_login(alice)
    assert client.post(reverse("lobby:seek_create"), seek_data()).status_code == 403
    assert not Seek.objects.exists()


# -- cancelling and accepting seeks ----------------------------------------------------------


@pytest.mark.django_db
def test_cancel_own_seek(client, alice):
    seek = make_seek(alice)
    response = login(client, alice).post(reverse("lobby:seek_cancel", args=[seek.pk]))
    assert response.status_code == 302
    seek.refresh_from_db()
    assert seek.status == "cancelled" and seek.closed_at is not None
    assert f'data-seek-id="{seek.pk}"' not in client.get(PLAY).content.decode()


@pytest.mark.django_db
def test_cannot_cancel_someone_elses_seek(client, alice, bob):
    seek = make_seek(alice)
    response = login(client, bob).post(reverse("lobby:seek_cancel", args=[seek.pk]), **JSON)
    assert response.status_code == 403
    assert "only cancel your own" in response.json()["message"]
    response = client.post(reverse("lobby:seek_cancel", args=[seek.pk]))
    assert response.status_code == 302
    assert "only cancel your own" in client.get(PLAY).content.decode()
    seek.refresh_from_db()
    assert seek.status == "open"


@pytest.mark.django_db
def test_cancel_missing_or_closed_seek(client, alice):
    login(client, alice)
    response = client.post(reverse("lobby:seek_cancel", args=[999]), **JSON)
    assert response.status_code == 404
    seek = make_seek(alice)
    client.post(reverse("lobby:seek_cancel", args=[seek.pk]))
    response = client.post(reverse("lobby:seek_cancel", args=[seek.pk]), **JSON)
    assert response.status_code == 409 and "cancelled" in response.json()["message"]


@pytest.mark.django_db
@pytest.mark.parametrize("side, first", [("first", "alice"), ("second", "bob")])
def test_accept_seek_starts_the_game(client, alice, bob, side, first):
    seek = make_seek(alice, "colorful", side=side, colorful_board="long", colorful_size="6",
                     time_kind="correspondence", days="2")
    response = login(client, bob).post(reverse("lobby:seek_accept", args=[seek.pk]))
    game = Game.objects.get()
    assert response.status_code == 302 and response.url == game.get_absolute_url()
    assert (game.game, game.options) == ("colorful", {"board": "long", "size": 6})
    assert game.player0.username == first
    assert {game.player0, game.player1} == {alice, bob}
    assert game.time_control.text == "2 days per move"
    seek.refresh_from_db()
    assert (seek.status, seek.accepted_by, seek.started_game) == ("taken", bob, game)


@pytest.mark.django_db
def test_random_side_draws_both_ways(alice, bob):
    seek = make_seek(alice, side="random")
    firsts = {seek.players(bob)[0].username for _ in range(64)}
    assert firsts == {"alice", "bob"}


@pytest.mark.django_db
def test_accept_seek_json_gives_the_game_url(client, alice, bob):
    seek = make_seek(alice)
    response = login(client, bob).post(reverse("lobby:seek_accept", args=[seek.pk]), **JSON)
    assert response.status_code == 200
    assert response.json()["redirect"] == Game.objects.get().get_absolute_url()


@pytest.mark.django_db
def test_cannot_accept_own_seek(client, alice):
    seek = make_seek(alice)
    response = login(client, alice).post(reverse("lobby:seek_accept", args=[seek.pk]), **JSON)
    assert response.status_code == 400
    assert response.json()["message"] == "You cannot accept your own seek."
    response = client.post(reverse("lobby:seek_accept", args=[seek.pk]))
    assert response.status_code == 302 and response.url == PLAY
    assert "You cannot accept your own seek." in client.get(PLAY).content.decode()
    assert not Game.objects.exists()
    seek.refresh_from_db()
    assert seek.status == "open"


@pytest.mark.django_db
def test_second_accepter_finds_the_seek_taken(client, alice, bob, carol):
    seek = make_seek(alice)
    assert login(client, bob).post(reverse("lobby:seek_accept", args=[seek.pk])).status_code == 302
    response = login(client, carol).post(reverse("lobby:seek_accept", args=[seek.pk]), **JSON)
    assert response.status_code == 409
    assert response.json()["message"] == "This seek was already accepted."
    assert Game.objects.count() == 1
    assert Seek.objects.get().accepted_by == bob


@pytest.mark.django_db
def test_accept_cancelled_or_missing_seek(client, alice, bob):
    seek = make_seek(alice)
    login(client, alice).post(reverse("lobby:seek_cancel", args=[seek.pk]))
    login(client, bob)
    response = client.post(reverse("lobby:seek_accept", args=[seek.pk]), **JSON)
    assert response.status_code == 409 and response.json()["message"] == "This seek was cancelled."
    response = client.post(reverse("lobby:seek_accept", args=[12345]), **JSON)
    assert response.status_code == 404
    assert not Game.objects.exists()


@pytest.mark.django_db
def test_failed_start_leaves_the_seek_open(alice, bob, monkeypatch):
    from lobby import services
    seek = make_seek(alice)

    def broken(**kwargs):
        raise ValueError("the engine refused")

    monkeypatch.setattr(services, "start_game", broken)
    with pytest.raises(ValueError):
        services.accept_seek(bob, seek.pk)
    seek.refresh_from_db()
    assert seek.status == "open" and seek.accepted_by is None


# -- challenges ------------------------------------------------------------------------------


def challenge(client, opponent, **extra):
    return client.post(reverse("lobby:challenge_create"), seek_data(opponent=opponent, **extra))


@pytest.mark.django_db
def test_challenge_a_player(client, alice, bob):
    response = challenge(login(client, alice), "BOB", game="tripen", side="second")
    assert response.status_code == 302
    sent = Challenge.objects.get()
    assert (sent.challenger, sent.challenged) == (alice, bob)
    assert (sent.game, sent.side) == ("tripen", "second")
    assert sent.options == {"size": 7}
    assert "Challenge sent to bob" in client.get(PLAY).content.decode()
    # The challenged player finds it on the Play page and on the challenges page.
    login(client, bob)
    for url in (PLAY, reverse("lobby:challenges")):
        page = client.get(url).content.decode()
        assert ('<strong>alice</strong> <span class="rating provisional" '
                'title="rating 1500, provisional">1500?</span> challenges you') in page
        assert reverse("lobby:challenge_accept", args=[sent.pk]) in page
        assert reverse("lobby:challenge_decline", args=[sent.pk]) in page


@pytest.mark.django_db
@pytest.mark.parametrize("opponent, message", [
    ("nobody", "There is no player called “nobody”."),
    ("", "Name the player you challenge."),
    ("alice", "You cannot challenge yourself."),
    ("ALICE", "You cannot challenge yourself."),
])
def test_challenge_bad_opponent(client, alice, bob, opponent, message):
    response = challenge(login(client, alice), opponent)
    assert response.status_code == 400
    assert message in response.content.decode()
    response = client.post(reverse("lobby:challenge_create"), seek_data(opponent=opponent), **JSON)
    assert message in response.json()["errors"]["opponent"]
    assert not Challenge.objects.exists()


@pytest.mark.django_db
def test_challenge_with_bad_options(client, alice, bob):
    response = challenge(login(client, alice), "bob", game="colorful", colorful_board="long",
                         colorful_size="3")
    assert response.status_code == 400
    assert "Your challenge was not sent" in response.content.decode()
    assert not Challenge.objects.exists()


@pytest.mark.django_db
def test_challenge_inactive_user(client, alice, bob):
    bob.is_active = False
    bob.save()
    assert challenge(login(client, alice), "bob").status_code == 400


@pytest.mark.django_db
def test_one_pending_challenge_per_opponent(client, alice, bob):
    login(client, alice)
    challenge(client, "bob")
    response = client.post(reverse("lobby:challenge_create"), seek_data(opponent="bob"), **JSON)
    assert response.status_code == 409 and "withdraw it first" in response.json()["message"]
    assert Challenge.objects.count() == 1


@pytest.mark.django_db
def test_accept_challenge(client, alice, bob):
    challenge(login(client, alice), "bob", side="first", game="hadron", hadron_size="9")
    sent = Challenge.objects.get()
    response = login(client, bob).post(reverse("lobby:challenge_accept", args=[sent.pk]))
    game = Game.objects.get()
    assert response.url == game.get_absolute_url()
    assert (game.player0, game.player1, game.options) == (alice, bob, {"size": 9})
    sent.refresh_from_db()
    assert (sent.status, sent.started_game) == ("accepted", game)
    response = client.post(reverse("lobby:challenge_accept", args=[sent.pk]), **JSON)
    assert response.status_code == 409 and Game.objects.count() == 1


@pytest.mark.django_db
def test_decline_challenge(client, alice, bob):
    challenge(login(client, alice), "bob")
    sent = Challenge.objects.get()
    response = login(client, bob).post(reverse("lobby:challenge_decline", args=[sent.pk]))
    assert response.status_code == 302
    assert "You declined alice&#x27;s challenge." in client.get(PLAY).content.decode()
    sent.refresh_from_db()
    assert sent.status == "declined"
    assert not Game.objects.exists()
    assert f'data-challenge-id="{sent.pk}"' not in client.get(PLAY).content.decode()


@pytest.mark.django_db
def test_withdraw_challenge(client, alice, bob):
    challenge(login(client, alice), "bob")
    sent = Challenge.objects.get()
    response = client.post(reverse("lobby:challenge_withdraw", args=[sent.pk]), **JSON)
    assert response.json()["ok"] is True
    sent.refresh_from_db()
    assert sent.status == "withdrawn"
    # Withdrawn means gone: bob can no longer accept it.
    response = login(client, bob).post(reverse("lobby:challenge_accept", args=[sent.pk]), **JSON)
    assert response.status_code == 409 and "already withdrawn" in response.json()["message"]


@pytest.mark.django_db
def test_only_the_right_player_answers_a_challenge(client, alice, bob, carol):
    challenge(login(client, alice), "bob")
    sent = Challenge.objects.get()
    # The challenger cannot accept or decline her own challenge ...
    for name in ("challenge_accept", "challenge_decline"):
        response = client.post(reverse(f"lobby:{name}", args=[sent.pk]), **JSON)
        assert response.status_code == 403
    # ... the challenged cannot withdraw it ...
    response = login(client, bob).post(reverse("lobby:challenge_withdraw", args=[sent.pk]), **JSON)
    assert response.status_code == 403
    # ... and to anyone else it does not exist.
    login(client, carol)
    for name in ("challenge_accept", "challenge_decline", "challenge_withdraw"):
        response = client.post(reverse(f"lobby:{name}", args=[sent.pk]), **JSON)
        assert response.status_code == 404
    assert "challenges you" not in client.get(PLAY).content.decode()
    sent.refresh_from_db()
    assert sent.status == "pending" and not Game.objects.exists()


@pytest.mark.django_db
def test_challenges_page_for_anonymous(client):
    page = client.get(reverse("lobby:challenges")).content.decode()
    assert "/accounts/login/?next=%2Fplay%2Fchallenges%2F" in page


def test_challenge_form_needs_an_opponent():
    form = ChallengeForm(seek_data())
    assert not form.is_valid() and "opponent" in form.errors


@pytest.mark.django_db
def test_page_config_is_json(client, alice):
    page = login(client, alice).get(PLAY).content.decode()
    marker = '<script id="lobby-config" type="application/json">'
    start = page.index(marker) + len(marker)
    config = json.loads(page[start:page.index("</script>", start)])
    assert config["you"] == "alice" and config["socket"] == "/ws/lobby/"
    long_sizes = {o["size"] for o in config["valid_options"]["colorful"] if o["board"] == "long"}
    assert long_sizes == {4, 5, 6}
    assert config["option_fields"]["colorful"] == ["colorful_board", "colorful_size"]


# -- a real race -----------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_racing_accepters_start_one_game(django_user_model):
    """Several players accept one seek at the same instant, each in its own thread and
    database connection: exactly one game starts, every other accepter is told it is taken.

    Needs a database with row locking between connections (PostgreSQL in the scale run):
    pytest-django's SQLite test database is a shared-cache in-memory one whose table locks
    fail at once instead of waiting. test_lobby_race.py races separate processes on a
    SQLite file, as several Daphne processes would."""
    import threading

    from django.db import connection

    from lobby import services

    if connection.vendor == "sqlite":
        pytest.skip("in-memory shared-cache SQLite has no waiting locks; see test_lobby_race.py")

    owner = django_user_model.objects.create_user("owner")
    racers = [django_user_model.objects.create_user(f"racer{i}") for i in range(4)]
    seek = make_seek(owner)
    start = threading.Barrier(len(racers))
    outcomes = []

    def accept(user):
        try:
            start.wait()
            outcomes.append(("game", services.accept_seek(user, seek.pk).pk))
        except services.LobbyError as error:
            outcomes.append(("refused", error.status))
        finally:
            connection.close()

    threads = [threading.Thread(target=accept, args=(user,)) for user in racers]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert sorted(kind for kind, _ in outcomes) == ["game", "refused", "refused", "refused"]
    assert {status for kind, status in outcomes if kind == "refused"} == {409}
    assert Game.objects.count() == 1
    seek.refresh_from_db()
    assert seek.status == "taken" and seek.started_game_id == Game.objects.get().pk


# -- presence: real-time seeks need their owner in the lobby ---------------------------------


def age(seek, **delta):
    from datetime import timedelta

    from django.utils import timezone
    Seek.objects.filter(pk=seek.pk).update(created_at=timezone.now() - timedelta(**delta))


def connect(user, channel, **since):
    from datetime import timedelta

    from django.utils import timezone

    from live.models import Presence
    seen = timezone.now() - timedelta(**since) if since else timezone.now()
    return Presence.objects.create(kind=Presence.LOBBY, user=user, channel_name=channel,
                                   opened_at=seen, seen_at=seen)


@pytest.mark.django_db
def test_play_page_closes_realtime_seeks_of_absent_owners(client, alice, bob, settings):
    settings.LOBBY_PRESENCE_GRACE = 5
    gone = make_seek(alice)
    age(gone, minutes=10)
    mail = make_seek(alice, time_kind="correspondence")
    age(mail, minutes=10)
    just_posted = make_seek(alice)  # its owner's page may still be connecting
    stays = make_seek(bob)
    age(stays, minutes=10)
    connect(bob, "bob-tab")
    page = client.get(PLAY).content.decode()
    statuses = {seek.pk: seek.status for seek in Seek.objects.all()}
    assert statuses == {gone.pk: "expired", mail.pk: "open", just_posted.pk: "open",
                        stays.pk: "open"}
    assert f'data-seek-id="{gone.pk}"' not in page and f'data-seek-id="{stays.pk}"' in page


@pytest.mark.django_db
def test_connection_of_a_dead_server_goes_stale(client, alice, settings):
    from django.utils import timezone

    from live import presence as ledger
    from live.models import Presence
    settings.LIVE_HEARTBEAT = 25  # a row is stale after three heartbeats: 75 s
    seek = make_seek(alice)
    age(seek, minutes=10)
    connect(alice, "fresh-tab", seconds=30)
    client.get(PLAY)
    assert Seek.objects.get().status == "open"
    # No heartbeat for longer than three of them: the process holding it must be gone.
    Presence.objects.all().delete()
    connect(alice, "dead-tab", seconds=120)
    client.get(PLAY)
    assert Seek.objects.get().status == "expired"
    ledger.sweep(timezone.now())
    assert not Presence.objects.exists()


@pytest.mark.django_db
def test_closed_connection_counts_during_the_grace(alice, settings):
    from datetime import timedelta

    from django.utils import timezone

    from live import presence as ledger
    from live.models import Presence
    from lobby import presence
    settings.LOBBY_PRESENCE_GRACE = 5
    seek = make_seek(alice)
    age(seek, minutes=10)
    tab = connect(alice, "reloading-tab")
    presence.leave([tab.channel_name])
    assert presence.close_abandoned_seeks() == []
    ledger.sweep(timezone.now())
    assert Presence.objects.exists()  # still within the grace
    Presence.objects.update(counts_until=timezone.now() - timedelta(seconds=1))
    assert presence.close_abandoned_seeks() == [seek.pk]
    ledger.sweep(timezone.now())
    assert not Presence.objects.exists()


# -- profile pages ---------------------------------------------------------------------------


@pytest.mark.django_db
def test_profile_offers_a_challenge_and_lists_your_own(client, alice, bob):
    page = client.get("/u/bob/").content.decode()
    assert "Challenge bob" not in page  # anonymous visitors can't challenge
    page = login(client, alice).get("/u/bob/").content.decode()
    assert 'href="/play/?opponent=bob#new-game"' in page and "Challenge bob" in page
    challenge(client, "bob")
    page = login(client, bob).get("/u/bob/").content.decode()
    assert ('<strong>alice</strong> <span class="rating provisional" '
                'title="rating 1500, provisional">1500?</span> challenges you') in page
    assert "Challenge bob" not in page
    sent = Challenge.objects.get()
    response = client.post(reverse("lobby:challenge_decline", args=[sent.pk]))
    assert response.status_code == 302
    assert "challenges you" not in client.get("/u/bob/").content.decode()


@pytest.mark.django_db
def test_play_page_lists_your_games_in_progress(client, alice, bob, carol):
    seek = make_seek(alice, "tripen", tripen_size="5", time_kind="untimed")
    login(client, bob).post(reverse("lobby:seek_accept", args=[seek.pk]))
    game = Game.objects.get()
    page = login(client, alice).get(PLAY).content.decode()
    assert "Your games in progress" in page
    assert f'href="{game.get_absolute_url()}"' in page and "against bob" in page
    assert "Your games in progress" not in login(client, carol).get(PLAY).content.decode()
