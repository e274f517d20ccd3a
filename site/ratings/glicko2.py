"""The Glicko-2 rating system, as Mark Glickman's paper "Example of the Glicko-2 system"
(glicko.net, 2013) describes it, step by step. Plain Python: no Django, no site policy (the
starting values, the system constant and the rating periods the site uses are in
ratings.policy).

A rating is (rating, deviation, volatility) on the Glicko scale (1500 / 350 / 0.06 for a
newcomer); the computation runs on the Glicko-2 scale (mu, phi), 173.7178 times smaller.

Why not a library: the Python packages on PyPI either carry the classic transcription slip in
step 5's f(x) (the rating where the deviation belongs) or cannot take a fractional number of
rating periods, which the site needs for deviations that grow with inactivity.
"""
import math
from dataclasses import dataclass
from typing import Iterable

SCALE = 173.7178
CENTRE = 1500.0
# Step 5's iteration stops when the bracket is this narrow (the paper's epsilon).
CONVERGENCE = 0.000001
MAX_ITERATIONS = 1000


@dataclass(frozen=True)
class Rating:
    rating: float = 1500.0
    deviation: float = 350.0
    volatility: float = 0.06

    @property
    def mu(self):
        return (self.rating - CENTRE) / SCALE

    @property
    def phi(self):
        return self.deviation / SCALE


def g(phi):
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / (math.pi * math.pi))


def expected(mu, mu_j, phi_j):
    """E(mu, mu_j, phi_j): the expected score against opponent j."""
    return 1.0 / (1.0 + math.exp(-g(phi_j) * (mu - mu_j)))


def idle(player: Rating, periods: float = 1.0) -> Rating:
    """Step 6 alone: a player who did not compete for `periods` rating periods keeps rating
    and volatility, and the deviation grows (fractional periods allowed)."""
    phi = math.sqrt(player.phi ** 2 + periods * player.volatility ** 2)
    return Rating(player.rating, phi * SCALE, player.volatility)


def rate(player: Rating, results: Iterable[tuple[Rating, float]], *, tau: float,
         periods: float = 1.0) -> Rating:
    """The player's rating after one rating period with `results`: (opponent's rating at the
    start of the period, score: 1 win, 0.5 draw, 0 loss). `tau` is the system constant
    (0.3 to 1.2; the paper's example uses 0.5); `periods` is how many rating periods the
    deviation grows by in step 6 (the paper: 1)."""
    results = list(results)
    if not results:
        return idle(player, periods)
    mu, phi, sigma = player.mu, player.phi, player.volatility
    # Step 3: the estimated variance of the rating based only on game outcomes.
    terms = [(g(opponent.phi), expected(mu, opponent.mu, opponent.phi), score)
             for opponent, score in results]
    v = 1.0 / sum(gj * gj * e * (1.0 - e) for gj, e, _ in terms)
    # Step 4: the estimated improvement.
    improvement = sum(gj * (score - e) for gj, e, score in terms)
    delta = v * improvement
    # Step 5: the new volatility.
    sigma = new_volatility(phi, sigma, v, delta, tau)
    # Steps 6 and 7: the pre-period deviation, then the new deviation and rating.
    phi_star = math.sqrt(phi * phi + periods * sigma * sigma)
    phi = 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)
    mu = mu + phi * phi * improvement
    # Step 8: back to the Glicko scale.
    return Rating(SCALE * mu + CENTRE, SCALE * phi, sigma)


def new_volatility(phi, sigma, v, delta, tau):
    """Step 5: sigma' by the Illinois algorithm (the paper's 2013 revision)."""
    a = math.log(sigma * sigma)

    def f(x):
        ex = math.exp(x)
        return (ex * (delta * delta - phi * phi - v - ex)
                / (2.0 * (phi * phi + v + ex) ** 2)) - (x - a) / (tau * tau)

    big_a = a
    if delta * delta > phi * phi + v:
        big_b = math.log(delta * delta - phi * phi - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        big_b = a - k * tau
    f_a, f_b = f(big_a), f(big_b)
    for _ in range(MAX_ITERATIONS):
        if abs(big_b - big_a) <= CONVERGENCE:
            break
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(big_c)
        if f_c * f_b <= 0:
            big_a, f_a = big_b, f_b
        else:
            f_a /= 2.0
        big_b, f_b = big_c, f_c
    else:
        raise ArithmeticError("the volatility iteration did not converge")
    return math.exp(big_a / 2.0)
