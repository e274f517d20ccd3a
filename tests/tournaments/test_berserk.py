"""Berserk in arenas, through play's services as the game socket calls them: a player halves
their own clock before their first action, once, in an arena game only, and gets no increment
for the rest of the game (lichess's rule); a win after enough actions of their own is worth one
more point."""
from datetime import timedelta

import pytest
from django.utils import timezone

from play import services as play
from play.berserk import go_berserk
from play.snapshots import clocks_of
from play.clock import TimeControl
from tournaments import services
from tournaments.consumers import standings_message
from tournaments.formats.arena import BERSERK_MIN_ACTIONS
from tournaments.models import Entry, Pairing

pytestmark = pytest.mark.django_db
THREE_MINUTES = 3 * 60_000


@pytest.fixture
def people(django_user_model):
    return [django_user_model.objects.create_user(f"player{n}") for n in range(6)]


def paired(people, kind="arena", **extra):
    settings = {"name": f"test {kind}", "kind": kind, "game": "hadron", "options": {"size": 5},
                "rated": True, "starts_at": timezone.now()}
    if kind == "arena":
        settings.update(time_control=TimeControl("realtime", 3, 2), minutes=30)
    else:
        settings.update(time_control=TimeControl("realtime", 3, 2), rounds=3)
    settings.update(extra)
    tournament = services.create(people[0], **settings)
    for person in people[:2]:
        services.join(tournament.pk, person)
    services.tick()
    return Pairing.objects.get(tournament=tournament).game


def refusal(game, user, ply=None):
    game.refresh_from_db()
    with pytest.raises(play.PlayError) as refused:
        go_berserk(game.pk, user, game.ply_count if ply is None else ply)
    return refused.value


def act(game, user):
    game.refresh_from_db()
    play.play(game.pk, user, game.ply_count, game.state().legal_actions()[0])


def test_a_player_halves_their_own_clock_once_before_their_first_action(people):
    game = paired(people)
    go_berserk(game.pk, game.player1, 0)
    game.refresh_from_db()
    assert game.remaining_ms == [THREE_MINUTES, THREE_MINUTES // 2]
    assert Pairing.objects.get(game=game).second_berserk
    assert "already" in str(refusal(game, game.player1))
    act(game, game.player0)
    act(game, game.player1)
    assert "first action" in str(refusal(game, game.player0))
    assert refusal(game, people[5]).code == "not_a_player"
    assert refusal(game, game.player0, ply=0).code == "stale"
    game.refresh_from_db()
    assert game.remaining_ms[0] > THREE_MINUTES // 2  # the opponent's clock is theirs


def turn_at(game, user, now):
    """`user`, to move, acts at `now` (a first legal action)."""
    game.refresh_from_db()
    play.play(game.pk, user, game.ply_count, game.state().legal_actions()[0], now=now)
    game.refresh_from_db()


def test_the_berserk_player_gets_no_increment_and_the_clocks_say_so(people):
    game = paired(people)
    assert clocks_of(game, timezone.now())["increments"] == [2, 2]
    go_berserk(game.pk, game.player1, 0)
    game.refresh_from_db()
    assert game.berserk == (False, True)
    assert clocks_of(game, timezone.now())["increments"] == [2, 0]
    start = timezone.now()
    turn_at(game, game.player0, start)  # the first move starts the clocks
    first_left = list(game.remaining_ms)
    turn_at(game, game.player1, start + timedelta(seconds=10))
    assert game.remaining_ms[1] == first_left[1] - 10_000  # no increment for the berserk one
    turn_at(game, game.player0, start + timedelta(seconds=15))
    assert game.remaining_ms[0] == first_left[0] - 5_000 + 2_000  # the other keeps theirs


def test_berserk_is_offered_in_arena_games_only_and_changes_nothing_elsewhere(people):
    swiss = paired(people, kind="swiss")
    assert "arena" in str(refusal(swiss, swiss.player0))
    outside = play.start_game(game="hadron", options={"size": 5}, players=people[2:4],
                              time_control=TimeControl("realtime", 3, 2))
    assert "arena" in str(refusal(outside, outside.player0))
    for game in (swiss, outside):
        game.refresh_from_db()
        assert game.remaining_ms == [THREE_MINUTES, THREE_MINUTES]


def test_too_late_when_less_than_half_the_time_is_left(settings, people):
    # A first move may be due later than half the clock (a long first-move limit).
    settings.PLAY_FIRST_MOVE_SECONDS = 300
    game = paired(people)
    game.refresh_from_db()
    late = (game.turn_started_at or timezone.now()) + timedelta(minutes=2)
    with pytest.raises(play.PlayError) as refused:
        go_berserk(game.pk, game.player0, 0, now=late)
    assert "too late" in str(refused.value)
    assert not Pairing.objects.get(game=game).first_berserk


def play_out(game, winner, actions_each):
    """Both players act `actions_each` times in turn (first legal actions), then the loser
    resigns."""
    for _ in range(actions_each * 2):
        game.refresh_from_db()
        mover = game.player_of(game.state().to_move)
        act(game, (game.player0, game.player1)[mover])
    game.refresh_from_db()
    assert game.is_active
    loser = game.player1 if winner == 0 else game.player0
    play.resign(game.pk, loser, game.ply_count)


@pytest.mark.parametrize("actions, extra", [(BERSERK_MIN_ACTIONS, 1),
                                            (BERSERK_MIN_ACTIONS - 1, 0)])
def test_a_berserk_win_after_enough_own_actions_is_worth_one_more_point(people, actions,
                                                                        extra):
    game = paired(people, options={"size": 7})
    go_berserk(game.pk, game.player0, 0)
    play_out(game, 0, actions)
    winner = Entry.objects.get(player=game.player0)
    assert winner.points == 2 + extra
    pairing = Pairing.objects.get(game=game)
    assert (pairing.first_actions, pairing.second_actions) == (actions, actions)


def test_the_standings_mark_berserk_games_and_the_streak_live_and_on_the_page(client, people):
    """Three wins for one player, the first berserk: the sheet (lichess's) reads 3, 2, 4
    with the berserk game and the doubled win marked, and the flame shows; the same in the
    push the event's sockets get and on the page."""
    game = paired(people, options={"size": 7})
    tournament = game.pairing.tournament
    star = people[0]
    for number in range(3):
        if number:
            services.tick()  # the only two waiting meet again
            game = Pairing.objects.get(tournament=tournament, ended_at__isnull=True).game
        side = 0 if game.player0 == star else 1
        if number == 0:
            if side == 1:
                act(game, game.player0)  # berserk is before one's own first action
            go_berserk(game.pk, star, game.ply_count)
        play_out(game, side, BERSERK_MIN_ACTIONS if number == 0 else 1)
    pushed = standings_message(tournament.pk)
    row = next(row for row in pushed["rows"] if row["username"] == star.username)
    assert row["fire"] and row["points"] == 9
    assert [(m["points"], m["doubled"], m["berserk"]) for m in row["sheet"]] == [
        (3, False, True), (2, False, False), (4, True, False)]
    other = next(row for row in pushed["rows"] if row["username"] != star.username)
    assert not other["fire"] and [m["points"] for m in other["sheet"]] == [0, 0, 0]
    page = client.get(tournament.get_absolute_url()).content.decode()
    assert 'class="fire"' in page
    assert '<span class="berserk" title="3 points, berserk (+1)">3⚔</span>' in page
    assert '<span class="double " title="4 points, doubled on a streak">4</span>' in page
