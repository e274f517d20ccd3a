"""One account must not hurt the others through the computer players (issue 21, items 1 and 2):
a cap on active games against the computer, the computer's clock charged only for the time a
worker thought (never the time its job waited in the queue), and the sweep that retries lost
jobs reaching every game, however many there are. Jobs run in line (BOT_JOBS=eager)."""
from datetime import timedelta

import pytest
from django.utils import timezone

from bots import accounts, moves
from bots import services as bot_services
from play import services
from play.clock import TimeControl
from play.models import Game
from tests.site.played import start

pytestmark = pytest.mark.django_db

URL = "/play/computer/"


def form(**extra):
    fields = {"computer-game": "hadron", "computer-level": 1, "computer-side": "first",
              "computer-time_kind": "untimed", "computer-hadron_size": 5}
    fields.update({f"computer-{name}": value for name, value in extra.items()})
    return fields


# -- the cap ----------------------------------------------------------------------------------

def test_a_player_has_at_most_the_cap_of_computer_games_at_once(client, settings, alice, bob):
    settings.BOT_GAMES_PER_PLAYER = 3
    client.force_login(alice)
    for _ in range(3):
        assert client.post(URL, form()).status_code == 302
    refused = client.post(URL, form(level=2))
    assert refused.status_code == 409
    assert "You already play 3 games against the computer" in refused.content.decode()
    assert bot_services.computer_games_of(alice).count() == 3 == Game.objects.count()
    # Games between people do not count, and another account has its own three.
    start(alice, bob)
    client.force_login(bob)
    assert client.post(URL, form()).status_code == 302
    # A game that ends frees its place.
    ended = bot_services.computer_games_of(alice).first()
    services.resign(ended.pk, alice, ended.ply_count)
    client.force_login(alice)
    assert client.post(URL, form()).status_code == 302
    assert bot_services.computer_games_of(alice).count() == 3


def test_the_service_itself_refuses_past_the_cap(settings, alice):
    settings.BOT_GAMES_PER_PLAYER = 1
    choice = {"game": "hadron", "options": {}, "level": 1, "side": "first",
              "time_control": TimeControl.untimed()}
    bot_services.start_computer_game(alice, **choice)
    with pytest.raises(bot_services.TooManyComputerGames):
        bot_services.start_computer_game(alice, **choice)
    assert Game.objects.count() == 1


# -- the computer's clock ---------------------------------------------------------------------

def realtime_game(alice, minutes=1):
    computer = accounts.bot_for(1)
    game = services.start_game(game="hadron", options={"size": 5}, players=(alice, computer),
                               time_control=TimeControl.realtime(minutes, 0))
    return game, computer


def test_the_computers_clock_stands_while_its_job_waits_and_runs_while_it_thinks(alice):
    game, computer = realtime_game(alice)
    services.play(game.pk, alice, 0, "c3")  # commit hooks not run: the job waits
    game = services.load(game.pk)
    # Its clock stands: nothing can lapse, however long the queue.
    assert game.running == 1 and game.turn_started_at is None and game.expires_at is None
    left = game.remaining1_ms
    much_later = timezone.now() + timedelta(minutes=5)
    assert services.noticed(game, much_later).is_active
    # Its answer comes after the job waited 5 minutes and a worker thought 0.8 s of them.
    payload = moves.turn_of(game)
    result = moves.think(payload)
    picked = much_later.timestamp()
    moves.play_answer(payload, dict(result, picked_at=picked, answered_at=picked + 0.8))
    game = services.load(game.pk)
    assert game.ply_count == 2 and game.is_active
    assert game.remaining1_ms == left - 800
    # The person's clock runs from the answer on.
    assert game.running == 0 and game.turn_started_at is not None


def test_a_computer_moving_first_does_not_start_its_clock_at_the_start(alice):
    computer = accounts.bot_for(1)
    game = services.start_game(game="hadron", options={"size": 5}, players=(computer, alice),
                               time_control=TimeControl.realtime(1, 0))
    assert game.turn_started_at is None and game.expires_at is None
    person_first, _ = realtime_game(alice)
    assert person_first.turn_started_at is not None and person_first.expires_at is not None


def test_an_answer_without_its_moments_costs_the_computer_nothing(alice):
    game, computer = realtime_game(alice)
    services.play(game.pk, alice, 0, "c3")
    left = services.load(game.pk).remaining1_ms
    moves.play_answer(moves.turn_of(services.load(game.pk)), {"action": "a1"})
    game = services.load(game.pk)
    assert game.ply_count == 2 and game.remaining1_ms == left


# -- the retry sweep --------------------------------------------------------------------------

def test_the_sweep_finds_a_lost_job_beyond_the_first_page_of_games(alice, bob):
    computer = accounts.bot_for(1)
    # More games against the computer than a page holds, where the person is to move, ...
    Game.objects.bulk_create([
        Game(game="hadron", options={"size": 5}, player0=person, player1=computer)
        for person in [alice, bob] * ((moves.WAITING_BATCH + 2) // 2)])
    # ... and after them one where the computer is to move and its job was lost.
    stuck = Game.objects.create(game="hadron", options={"size": 5}, player0=computer,
                                player1=alice)
    assert Game.objects.active().filter(pk__lt=stuck.pk).count() > moves.WAITING_BATCH
    assert [payload["game"] for payload in moves.waiting_games()] == [stuck.pk]
