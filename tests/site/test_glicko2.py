"""The Glicko-2 computation against Glickman's worked example ("Example of the Glicko-2
system", glicko.net): a player rated 1500 / 200 / 0.06 plays three opponents in one rating
period (tau = 0.5). The paper carries rounded intermediate values from step to step, so its
later figures are matched to within that rounding (v = 1.7785 from rounded E values is
1.77898 unrounded, delta -0.4834 is -0.48393; sigma' = 0.05999 is 0.0599960)."""
import math

import pytest

from ratings import glicko2
from ratings.glicko2 import Rating, rate

PLAYER = Rating(1500, 200, 0.06)
OPPONENTS = [Rating(1400, 30), Rating(1550, 100), Rating(1700, 300)]
SCORES = [1, 0, 0]


def test_the_papers_intermediate_values():
    mu, phi = PLAYER.mu, PLAYER.phi
    assert (round(mu, 4), round(phi, 4)) == (0, 1.1513)
    terms = [(glicko2.g(o.phi), glicko2.expected(mu, o.mu, o.phi)) for o in OPPONENTS]
    assert [round(g, 4) for g, _ in terms] == [0.9955, 0.9531, 0.7242]
    assert [round(e, 3) for _, e in terms] == [0.639, 0.432, 0.303]
    v = 1 / sum(g * g * e * (1 - e) for g, e in terms)
    assert v == pytest.approx(1.7785, abs=0.001)
    delta = v * sum(g * (s - e) for (g, e), s in zip(terms, SCORES))
    assert delta == pytest.approx(-0.4834, abs=0.001)
    assert glicko2.new_volatility(phi, 0.06, v, delta, tau=0.5) == pytest.approx(0.05999, abs=1e-5)


def test_the_papers_result():
    after = rate(PLAYER, zip(OPPONENTS, SCORES), tau=0.5)
    assert round(after.mu, 4) == -0.2069
    assert round(after.phi, 4) == 0.8722
    # The paper rounds mu' to -0.2069 before scaling back: 1464.06; unrounded it is 1464.05.
    assert after.rating == pytest.approx(1464.06, abs=0.015)
    assert round(after.deviation, 2) == 151.52
    assert after.volatility == pytest.approx(0.05999, abs=1e-5)


def test_no_games_only_grows_the_deviation():
    after = rate(PLAYER, [], tau=0.5, periods=2)
    assert after.rating == PLAYER.rating and after.volatility == PLAYER.volatility
    assert after.phi == pytest.approx(math.sqrt(PLAYER.phi ** 2 + 2 * 0.06 ** 2))


def test_a_win_raises_a_loss_lowers_a_draw_between_equals_changes_little():
    newcomer = Rating()
    assert rate(newcomer, [(Rating(), 1)], tau=0.75, periods=0).rating > 1500
    assert rate(newcomer, [(Rating(), 0)], tau=0.75, periods=0).rating < 1500
    draw = rate(newcomer, [(Rating(), 0.5)], tau=0.75, periods=0)
    assert draw.rating == pytest.approx(1500) and draw.deviation < 350
    # Beating a much stronger player is worth more than beating an equal.
    assert (rate(newcomer, [(Rating(1900, 60), 1)], tau=0.75, periods=0).rating
            > rate(newcomer, [(Rating(1500, 60), 1)], tau=0.75, periods=0).rating)


def test_the_engine_imports_nothing_from_django():
    import ratings.glicko2 as module
    source = open(module.__file__).read()
    assert "django" not in source.lower().replace("no django", "")
