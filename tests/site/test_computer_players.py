"""Computer players on the site, through Django's test client and the services, with jobs run
in line (JOBS_MODE=eager, pyproject.toml): the "Play the computer" form, the computer's moves
through the same door as a person's, stale answers, the sweep, names that mark computers, the
exhibition kept out of the archive, and the job API itself."""
import random
import re

import pytest

from bots import accounts, moves
from bots import services as bot_services
from games.bots import LEVELS
from jobs import runner as jobs
from play import services
from play.clock import TimeControl
from play.models import Action, Game
from tests.site.played import finished, start

pytestmark = pytest.mark.django_db

URL = "/play/computer/"


def form(game="hadron", level=1, side="first", time_kind="untimed", **extra):
    fields = {"computer-game": game, "computer-level": level, "computer-side": side,
              "computer-time_kind": time_kind, "computer-hadron_size": 5}
    fields.update({f"computer-{name}": value for name, value in extra.items()})
    return fields


@pytest.fixture
def played(django_capture_on_commit_callbacks):
    """`with played():` runs the block and its commit hooks: the jobs they submit, and the
    computer's moves those jobs make, run in line."""
    return lambda: django_capture_on_commit_callbacks(execute=True)


# -- the form ---------------------------------------------------------------------------------

def test_the_form_is_on_the_home_page_the_play_page_and_its_own(client, alice):
    client.force_login(alice)
    for page in ("/", "/play/", URL):
        text = client.get(page).content.decode()
        assert 'action="/play/computer/"' in text, page
        assert 'name="computer-level"' in text and 'name="computer-hadron_size"' in text


def test_moving_second_lands_on_the_game_page_with_the_computers_move_made(client, alice,
                                                                            played):
    client.force_login(alice)
    with played():
        response = client.post(URL, form(side="second", level=1))
    game = Game.objects.get()
    assert response.status_code == 302 and response["Location"] == game.get_absolute_url()
    assert game.player0.username == "computer-level-1" and game.player1 == alice
    assert game.player0.profile.is_bot and game.player0.bot.level == 1
    assert game.ply_count == 1 and game.action_rows.get().player == 0
    page = client.get(game.get_absolute_url()).content.decode()
    assert "computer-level-1" in page


def test_the_computer_answers_each_move_through_the_services(client, alice, played):
    client.force_login(alice)
    with played():
        client.post(URL, form(side="first", level=2, time_kind="realtime",
                              minutes=3, increment=2))
    game = Game.objects.get()
    assert (game.player0, game.player1.username, game.ply_count) == (alice, "computer-level-2", 0)
    assert game.time_kind == "realtime" and game.rated
    for ply in (0, 2):
        state = services.load(game.pk).state()
        with played():
            services.play(game.pk, alice, ply, state.legal_actions()[0])
        assert services.load(game.pk).ply_count == ply + 2
    assert list(Action.objects.filter(game=game).values_list("player", flat=True)) == [0, 1, 0, 1]


@pytest.mark.parametrize("bad, field", [
    ({"computer-game": "chess"}, "game"),
    ({"computer-level": 99}, "level"),
    ({"computer-level": "strong"}, "level"),
    ({"computer-hadron_size": 6}, "hadron_size"),
    ({"computer-side": "middle"}, "side"),
    ({"computer-time_kind": "correspondence"}, "time_kind"),
    ({"computer-time_kind": "realtime", "computer-minutes": 0, "computer-increment": 2},
     "minutes"),
    ({"computer-time_kind": "realtime"}, "minutes"),
])
def test_bad_input_is_refused_and_no_game_is_made(client, alice, bad, field):
    client.force_login(alice)
    response = client.post(URL, {**form(), **bad})
    assert response.status_code == 400
    assert field in response.context["computer_form"].errors
    assert 'class="errorlist' in response.content.decode()
    assert not Game.objects.exists()


def test_a_visitor_is_sent_to_log_in_and_no_game_is_made(client):
    response = client.post(URL, form())
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]
    assert not Game.objects.exists()
    assert "Log in to play" in client.get(URL).content.decode()


# -- answers that come too late, and the sweep ----------------------------------------------------

def computer_game(alice, level=1):
    computer = accounts.bot_for(level)
    return start(alice, computer), computer


def test_a_stale_answer_changes_nothing(alice, played):
    game, computer = computer_game(alice)
    with played():
        services.play(game.pk, alice, 0, "c3")
    game = services.load(game.pk)
    assert game.ply_count == 2
    # An answer for ply 1 that arrives after the computer's own move at ply 1 (a retried job):
    moves.play_answer({"game": game.pk, "player": computer.pk, "ply": 1, "takebacks": 0},
                      {"action": "a1"})
    # An answer thought about before a takeback (same ply, another history):
    moves.play_answer({"game": game.pk, "player": computer.pk, "ply": 2, "takebacks": 1},
                      {"action": "e5"})
    game = services.load(game.pk)
    assert game.ply_count == 2 and game.action_rows.count() == 2


def test_the_answer_is_played_once_whatever_arrives_twice(alice):
    game, computer = computer_game(alice)
    services.play(game.pk, alice, 0, "c3")  # commit hooks not run: the computer was not asked
    payload = moves.turn_of(services.load(game.pk))
    assert payload["ply"] == 1 and payload["player"] == computer.pk
    result = moves.think(payload)
    moves.play_answer(payload, result)
    moves.play_answer(payload, result)
    game = services.load(game.pk)
    assert game.ply_count == 2 and game.action_rows.get(ply=1).action == result["action"]


def test_the_sweep_asks_the_computer_of_every_game_waiting_for_it(alice, bob, played):
    lost, computer = computer_game(alice)
    services.play(lost.pk, alice, 0, "c3")  # its job never submitted, as if a worker died
    between_people = start(alice, bob)
    assert [p["game"] for p in moves.waiting_games()] == [lost.pk]
    with played():
        jobs.sweep()
    assert services.load(lost.pk).ply_count == 2
    assert services.load(between_people.pk).ply_count == 0
    assert moves.waiting_games() == []


def test_thinking_time_follows_the_clock(alice):
    computer = accounts.bot_for(1)
    slow = services.start_game(game="hadron", options={}, players=(computer, alice),
                               time_control=TimeControl("untimed"))
    long = services.start_game(game="hadron", options={}, players=(computer, alice),
                               time_control=TimeControl("realtime", minutes=5, increment=0))
    quick = services.start_game(game="hadron", options={}, players=(computer, alice),
                                time_control=TimeControl("realtime", minutes=1, increment=0))
    quick.remaining_ms = [15_000, 60_000]  # a quarter of its minute left
    assert moves.thinking_time(slow, 0, 1) is None  # the level's own cap
    # A thirtieth of the time left (less the instant since the turn began), never more than
    # the level's cap.
    assert moves.thinking_time(quick, 0, 1) == pytest.approx(15 / 30, abs=0.05)
    assert moves.thinking_time(long, 0, 1) == LEVELS[1].cap


# -- names ------------------------------------------------------------------------------------

def test_computer_names_are_marked_everywhere_and_kept_from_people(client, alice):
    computer = accounts.bot_for(1)
    game = finished("hadron", (alice, computer), seed=3)
    assert game.status == "finished"
    for page in (game.get_absolute_url(), "/watch/", "/archive/", f"/u/{alice.username}/"):
        response = client.get(page)
        assert response.status_code == 200, page
        if page != "/watch/":
            assert "computer-level-1" in response.content.decode(), page
    profile = client.get("/u/computer-level-1/").content.decode()
    assert f"A computer player, {accounts.level_name(1)}" in profile
    assert "A computer player" not in client.get(f"/u/{alice.username}/").content.decode()
    response = client.post("/accounts/signup/", {"username": "Computer-Level-9",
                                                "password1": "a-long-pass-4471",
                                                "password2": "a-long-pass-4471"})
    assert "belong to the site" in response.content.decode()


def test_a_bot_mark_with_its_level_is_beside_a_computers_name_everywhere(client, alice):
    computer = accounts.bot_for(2)
    done = finished("hadron", (alice, computer), seed=3)
    live = start(alice, computer)
    mark = ('<span class="computer-mark" title="computer player, level 2 '
            f'({accounts.level_name(2)})">BOT 2</span>')
    client.force_login(alice)
    for page in (done.get_absolute_url(), live.get_absolute_url(), "/watch/", "/archive/",
                 f"/u/{alice.username}/", "/u/computer-level-2/", "/", "/play/"):
        text = client.get(page).content.decode()
        assert mark in text, page
        assert text.count("computer-mark\"") == text.count(mark), page  # alice has none
    # The pages' scripts draw it from the badge the JSON carries (static/js/ratings.js).
    players = services.snapshot_for(live.pk)["players"]
    assert [p["rating"].get("computer") for p in players] == [None, 2]


# -- the exhibition ---------------------------------------------------------------------------

def test_the_exhibition_is_kept_going_and_out_of_archives_and_ratings(client, settings, alice,
                                                                      played):
    settings.BOT_EXHIBITION = True
    settings.BOT_EXHIBITION_PACE = 0
    bob = accounts.bot_for(1)
    people = finished("hadron", (alice, bob), seed=4)
    shown = bot_services.keep_an_exhibition(rng=random.Random(2))
    assert bot_services.keep_an_exhibition() is None  # one is going already
    assert bot_services.is_exhibition(shown) and not bot_services.is_exhibition(people)
    assert not shown.rated
    watch = client.get("/watch/").content.decode()
    assert f'id="watch-game-{shown.pk}"' in watch and "exhibition between computers" in watch
    with played():
        # The sweep asks the computer to move; each move asks the other (jobs in line).
        jobs.sweep()
    shown = services.load(shown.pk)
    assert shown.status == "finished" and not shown.rating_changes.exists()
    again = bot_services.keep_an_exhibition()
    assert again is not None and again.pk != shown.pk
    listed = [int(n) for n in re.findall(r'data-game="(\d+)"',
                                         client.get("/archive/").content.decode())]
    assert people.pk in listed and shown.pk not in listed
    settings.BOT_EXHIBITION = False
    Game.objects.filter(pk=again.pk).update(status=Game.FINISHED)
    assert bot_services.keep_an_exhibition() is None


# -- the job API ------------------------------------------------------------------------------

def test_a_jobs_worker_is_asked_only_once_the_move_it_answers_has_left(
        alice, settings, monkeypatch, django_capture_on_commit_callbacks):
    """With Redis jobs the computer thinks in another process, which publishes the news of its
    reply itself: asked at the commit, before the person's move's news had left the server, its
    reply could reach the players' sockets first (a gap, healed only by a snapshot)."""
    from jobs import broker
    from live import groups, outbox
    from tests.ws.sockets import run

    happened = []

    class Layer:
        async def group_send(self, group, event):
            happened.append(("news", group))

    monkeypatch.setattr(outbox, "get_channel_layer", Layer)
    monkeypatch.setattr(broker, "enqueue", lambda kind, payload: happened.append(
        ("asked", kind.name, payload["ply"])))
    game, _ = computer_game(alice)
    settings.JOBS_MODE = "redis"
    with outbox.Outbox() as box, django_capture_on_commit_callbacks(execute=True):
        services.play(game.pk, alice, 0, "c3")
    assert happened == [], "asked before the move's news left"
    run(box.deliver)
    assert happened[0] == ("news", groups.game(game.pk))
    assert happened[-1] == ("asked", "bot_move", 1) and happened.count(happened[-1]) == 1


def test_jobs_refuse_unknown_kinds_payloads_that_cannot_cross_and_two_functions_for_one_kind():
    with pytest.raises(ValueError):
        jobs.submit("no-such-kind", {})
    with pytest.raises(TypeError):
        jobs.submit("bot_move", {"when": object()})
    with pytest.raises(ValueError):
        jobs.job("bot_move")(lambda payload: None)
    assert jobs.kind_of("bot_move").identity({"game": 4, "takebacks": 0, "ply": 7}) == \
        "bot_move:4:0:7"


def test_a_computer_cannot_be_challenged_through_the_lobby(client, alice):
    accounts.bot_for(1)
    client.force_login(alice)
    response = client.post("/play/challenges/new/", {
        "game": "hadron", "hadron_size": 5, "time_kind": "untimed", "side": "random",
        "rated": "rated", "opponent": "computer-level-1"})
    assert response.status_code == 400
    assert "is a computer" in response.content.decode()


def test_a_computer_is_always_there_so_nobody_claims_a_win_against_it(alice, played):
    computer = accounts.bot_for(1)
    game = services.start_game(game="hadron", options={}, players=(alice, computer),
                               time_control=TimeControl("realtime", minutes=5, increment=0))
    with played():
        services.play(game.pk, alice, 0, "c3")
    game = services.load(game.pk)
    assert game.ply_count == 2 and game.both_moved
    Game.objects.filter(pk=game.pk).update(absent1_since=game.created_at)  # no page, ever
    with pytest.raises(services.PlayError) as refused:
        services.claim_victory(game.pk, alice, 2)
    assert refused.value.code == "not_allowed" and "computer" in refused.value.message
    snapshot = services.snapshot_for(game.pk, alice)
    assert snapshot["presence"]["players_online"][1] is True
    assert snapshot["presence"]["claimable_at"][0] is None  # alice may never claim


# -- the levels' ratings, and Master only without a clock -----------------------------------------

def test_the_form_shows_each_levels_rating_for_each_game_or_new(client, alice):
    """A level with a rated game of a kind shows its rating there; everywhere else "new"."""
    from ratings.models import Rating

    computer = accounts.bot_for(3)
    Rating.objects.create(user=computer, game="hadron", rating=1712.4, deviation=60.0, games=12)
    Rating.objects.create(user=accounts.bot_for(1), game="tripen", rating=1400, deviation=300,
                          games=1)
    client.force_login(alice)
    response = client.get(URL)
    table = {name: dict(rows) for name, _, rows in response.context["computer_form"].level_ratings()}
    assert table["hadron"] == {"Beginner": "new", "Casual": "new", "Club": "1712",
                               "Strong": "new", "Master": "new"}
    assert table["tripen"]["Beginner"] == "1400?" and table["tripen"]["Club"] == "new"
    assert set(table) == {"colorful", "copolymer", "hadron", "tripen"}
    text = response.content.decode()
    assert re.search(r'class="level-ratings" data-game="hadron">.*?Club <b>1712</b>', text, re.S)
    assert 'class="level-ratings" data-game="colorful"' in text


def test_master_is_offered_for_untimed_games_and_refused_with_a_clock(client, alice, played):
    assert LEVELS[5].name == "Master" and LEVELS[5].untimed_only and LEVELS[5].cap == 5.0
    client.force_login(alice)
    page = client.get(URL).content.decode()
    assert '<option value="5">Master (untimed only)</option>' in page
    response = client.post(URL, form(level=5, time_kind="realtime", minutes=15, increment=10))
    assert response.status_code == 400
    assert "level" in response.context["computer_form"].errors
    assert "no clock" in response.content.decode()
    assert not Game.objects.exists()
    # The service refuses it too, whatever door asks.
    with pytest.raises(ValueError, match="without a clock"):
        bot_services.start_computer_game(
            alice, game="hadron", options={"size": 5}, level=5, side="first",
            time_control=TimeControl(kind="realtime", minutes=15, increment=10))
    # Without a clock Master plays, thinking with its own cap (no realtime budget).
    with played():
        response = client.post(URL, form(level=5, side="first"))
    game = Game.objects.get()
    assert response.status_code == 302 and game.player1.bot.level == 5
    assert moves.thinking_time(game, 1, 5) is None
