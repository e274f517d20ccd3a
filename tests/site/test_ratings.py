"""Ratings written by the transaction that ends a game: played out, resigned, on time; never
for casual or aborted games; exactly once (tests/site/test_ratings_race.py races it on
PostgreSQL)."""
from datetime import timedelta

import pytest
from django.utils import timezone

from play import services
from play.clock import TimeControl
from play.endings import end_game
from play.models import Game
from ratings import policy
from ratings.models import Rating, RatingChange
from ratings.services import rate_game
from tests.site.played import play_out

pytestmark = pytest.mark.django_db


def rated_game(first, second, game="hadron", tc=None, rated=True):
    return services.start_game(game=game, options={"size": 5} if game == "hadron" else {},
                               players=(first, second), rated=rated,
                               time_control=tc or TimeControl.untimed())


def rating(user, game="hadron"):
    return Rating.objects.get(user=user, game=game)


def test_a_resignation_moves_both_ratings_once_and_the_result_carries_them(alice, bob):
    game = rated_game(alice, bob)
    services.play(game.pk, alice, 0, "c3")
    services.resign(game.pk, bob, 1)
    won, lost = rating(alice), rating(bob)
    assert won.rating > 1500 > lost.rating
    assert (won.games, won.wins, lost.games, lost.losses) == (1, 1, 1, 1)
    assert won.deviation < 350 and lost.deviation < 350
    changes = list(RatingChange.objects.filter(played=game).order_by("player_index"))
    assert [c.user for c in changes] == [alice, bob]
    assert [c.result for c in changes] == ["win", "loss"]
    assert changes[0].rating_before == 1500 and changes[0].rating_after == won.rating
    result = services.current(game.pk)["result"]
    assert result["ratings"] == [
        {"username": "alice", "before": 1500, "after": round(won.rating),
         "change": round(won.rating) - 1500, "provisional": True},
        {"username": "bob", "before": 1500, "after": round(lost.rating),
         "change": round(lost.rating) - 1500, "provisional": True},
    ]
    # Equal newcomers: what one gains the other loses.
    assert result["ratings"][0]["change"] == -result["ratings"][1]["change"] > 0


def test_a_game_played_out_is_rated_from_the_winners_side(alice, bob):
    game = play_out(rated_game(alice, bob), seed=3)
    assert game.status == Game.FINISHED and game.reason == "normal"
    winner, loser = game.players()[game.winner], game.players()[1 - game.winner]
    assert rating(winner).rating > 1500 > rating(loser).rating
    assert services.current(game.pk)["rated"] is True


def test_a_flag_that_fell_is_rated(alice, bob):
    game = rated_game(alice, bob, tc=TimeControl.realtime(1, 0))
    # Both make a first move (a first move not made aborts the game instead), then alice's
    # time runs out.
    services.play(game.pk, alice, 0, "c3")
    services.play(game.pk, bob, 1, "a1")
    Game.objects.filter(pk=game.pk).update(turn_started_at=timezone.now() - timedelta(minutes=2))
    services.expire(game.pk)
    game.refresh_from_db()
    assert game.reason == "time" and game.winner == 1
    assert rating(bob).wins == 1 and rating(alice).losses == 1


def test_casual_and_aborted_games_are_never_rated(alice, bob):
    casual = rated_game(alice, bob, rated=False)
    services.resign(casual.pk, alice, 0)
    aborted = rated_game(alice, bob)
    services.abort(aborted.pk, alice, 0)
    assert Game.objects.get(pk=aborted.pk).status == Game.ABORTED
    assert not Rating.objects.exists() and not RatingChange.objects.exists()
    assert "ratings" not in services.current(casual.pk)["result"]
    assert services.current(aborted.pk)["result"]["ratings"] == []


@pytest.mark.parametrize("reason", ["no_start", "idle"])
def test_games_the_site_ends_without_a_result_are_never_rated(alice, bob, reason):
    game = rated_game(alice, bob, tc=TimeControl.realtime(1, 0) if reason == "no_start" else None)
    if reason == "idle":
        services.play(game.pk, alice, 0, "c3")
        back = timezone.now() - timedelta(days=31)
    else:
        back = timezone.now() - timedelta(minutes=1)
    Game.objects.filter(pk=game.pk).update(turn_started_at=back, updated_at=back)
    Game.objects.get(pk=game.pk).save(update_fields=["expires_at"])
    services.expire(game.pk)  # the game's room or the sweeper
    snapshot = services.current(game.pk)
    assert (snapshot["status"], snapshot["result"]["reason"]) == ("aborted", reason)
    assert snapshot["result"]["ratings"] == []
    # No draw counted on the profile either: the rows are never touched.
    assert not RatingChange.objects.exists()
    assert not Rating.objects.filter(draws__gt=0).exists()
    assert not Rating.objects.filter(games__gt=0).exists()


def test_rating_a_game_again_changes_nothing(alice, bob):
    game = rated_game(alice, bob)
    services.resign(game.pk, alice, 0)
    before = [(r.rating, r.deviation, r.games) for r in Rating.objects.order_by("pk")]
    again = Game.objects.get(pk=game.pk)
    assert [c.pk for c in rate_game(again, timezone.now())] == list(
        RatingChange.objects.filter(played=game).order_by("player_index").values_list("pk", flat=True))
    # Even a second end recorded by mistake rates nothing twice.
    end_game(again, timezone.now(), 1, "resign", "again")
    assert [(r.rating, r.deviation, r.games) for r in Rating.objects.order_by("pk")] == before
    assert RatingChange.objects.count() == 2


def test_a_draw_between_equals_keeps_the_rating_and_shrinks_the_deviation(alice, bob):
    game = rated_game(alice, bob)
    end_game(game, timezone.now(), None, "normal", "draw")
    for user in (alice, bob):
        row = rating(user)
        assert row.rating == pytest.approx(1500) and row.deviation < 350 and row.draws == 1


def test_the_deviation_grows_with_inactivity_and_provisional_follows(alice, bob):
    now = timezone.now()
    Rating.objects.create(user=alice, game="hadron", rating=1700, deviation=60, games=40,
                          last_rated_at=now)
    row = rating(alice)
    assert row.deviation_at(now) == pytest.approx(60)
    a_year = row.deviation_at(now + timedelta(days=365))
    assert 105 < a_year < 115  # lichess's choice: 60 -> 110 in a year
    assert not policy.is_provisional(row.deviation_at(now + timedelta(days=300)))
    assert policy.is_provisional(row.deviation_at(now + timedelta(days=500)))
    assert row.deviation_at(now + timedelta(days=100_000)) == policy.MAX_DEVIATION
    # The rating update starts from the grown deviation, so a comeback moves it more.
    game = rated_game(alice, bob)
    later = now + timedelta(days=365)
    end_game(game, later, 0, "resign", "bob resigned")
    change = RatingChange.objects.get(played=game, user=alice)
    assert change.deviation_before == pytest.approx(a_year)
    assert rating(alice).last_rated_at == later


def test_ratings_are_per_game(alice, bob):
    hadron = rated_game(alice, bob)
    services.resign(hadron.pk, bob, 0)
    copolymer = rated_game(alice, bob, game="copolymer")
    services.resign(copolymer.pk, alice, 0)
    assert rating(alice, "hadron").wins == 1 and rating(alice, "copolymer").losses == 1


def test_a_rematch_keeps_the_game_rated(alice, bob):
    from play import rematch
    game = rated_game(alice, bob)
    services.resign(game.pk, alice, 0)
    rematch.offer(game.pk, alice)
    rematch.offer(game.pk, bob)
    assert Game.objects.get(rematch_of=game).rated


def independent_glicko2(player, opponent, score, tau=0.75):
    """Glickman's steps 2-8 for one game written out again from the paper, without step 6's
    deviation growth for the game's own period (lichess's skipDeviationIncrease): the
    pre-period deviation is the deviation itself. (rating, deviation, volatility) tuples."""
    import math
    scale = 173.7178
    mu, phi, sigma = (player[0] - 1500) / scale, player[1] / scale, player[2]
    mu_j, phi_j = (opponent[0] - 1500) / scale, opponent[1] / scale
    g = 1 / math.sqrt(1 + 3 * phi_j ** 2 / math.pi ** 2)
    e = 1 / (1 + math.exp(-g * (mu - mu_j)))
    v = 1 / (g * g * e * (1 - e))
    delta = v * g * (score - e)
    a = math.log(sigma ** 2)

    def f(x):
        ex = math.exp(x)
        return (ex * (delta ** 2 - phi ** 2 - v - ex) / (2 * (phi ** 2 + v + ex) ** 2)
                - (x - a) / tau ** 2)
    big_a = a
    if delta ** 2 > phi ** 2 + v:
        big_b = math.log(delta ** 2 - phi ** 2 - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        big_b = a - k * tau
    fa, fb = f(big_a), f(big_b)
    while abs(big_b - big_a) > 1e-6:
        c = big_a + (big_a - big_b) * fa / (fb - fa)
        fc = f(c)
        if fc * fb <= 0:
            big_a, fa = big_b, fb
        else:
            fa /= 2
        big_b, fb = c, fc
    sigma = math.exp(big_a / 2)
    phi = 1 / math.sqrt(1 / phi ** 2 + 1 / v)  # no step 6: phi* = phi
    mu = mu + phi ** 2 * g * (score - e)
    return (scale * mu + 1500, scale * phi, sigma)


def test_several_games_in_a_row_are_rated_as_an_independent_glicko2_without_step_6(alice, bob):
    """docs/ratings-and-mail.md: each game is rated on its own, from both players' ratings as
    they stood when it ended, without the paper's step 6 growth for that game (games ended at
    the same moment, so no inactivity grows the deviation between them)."""
    now = timezone.now()
    expected = {alice.pk: (1500.0, 350.0, 0.06), bob.pk: (1500.0, 350.0, 0.06)}
    for winner in (0, 0, 1, None, 0):
        game = rated_game(alice, bob)
        end_game(game, now, winner, "normal", "played out")
        scores = (0.5, 0.5) if winner is None else ((1.0, 0.0) if winner == 0 else (0.0, 1.0))
        before = dict(expected)
        expected[alice.pk] = independent_glicko2(before[alice.pk], before[bob.pk], scores[0])
        expected[bob.pk] = independent_glicko2(before[bob.pk], before[alice.pk], scores[1])
        for user in (alice, bob):
            row = rating(user)
            assert (row.rating, row.deviation, row.volatility) == pytest.approx(
                expected[user.pk], abs=1e-6)
    assert rating(alice).games == 5 and rating(alice).draws == 1
