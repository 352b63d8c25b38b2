"""Student t, normal and binomial functions against scipy's values.

The reference values were computed once with scipy 1.17.1 and pasted here, so the tests need
no numeric library.
"""

from __future__ import annotations

import math

import pytest

from evals.maths import distributions as dist

# scipy.stats.t.ppf(p, df)
T_PPF = [
    (0.975, 1, 12.706204736174694),
    (0.975, 2, 4.302652729749462),
    (0.975, 3, 3.1824463052837078),
    (0.95, 11, 1.7958848187040433),
    (0.975, 11, 2.200985160091639),
    (0.8, 11, 0.8755299780738819),
    (0.995, 4, 4.604094871349992),
    (0.975, 119, 1.9800998764569397),
    (0.975, 199, 1.9719565442517533),
    (1e-06, 5, -24.771029720515948),
    (0.975, 9999, 1.960201263621357),
]

# scipy.stats.t.sf(t, df)
T_SF = [
    (2.0, 11, 0.03540197753401729),
    (-1.3, 5, 0.8748496829146615),
    (4.5, 3, 0.0102452061722267),
    (0.2, 199, 0.4208424061245343),
    (12.0, 30, 2.7900927075996303e-13),
    (1.0, 0.5, 0.30112161084132205),
]


@pytest.mark.parametrize(("p", "df", "ref"), T_PPF)
def test_t_ppf_matches_scipy(p: float, df: float, ref: float) -> None:
    assert dist.t_ppf(p, df) == pytest.approx(ref, rel=1e-10)


@pytest.mark.parametrize(("t", "df", "ref"), T_SF)
def test_t_sf_matches_scipy(t: float, df: float, ref: float) -> None:
    assert dist.t_sf(t, df) == pytest.approx(ref, rel=1e-10)


def test_t_ppf_inverts_t_sf_and_is_symmetric() -> None:
    for df in (1, 2, 3, 7.5, 30, 1000, 1e6):
        for p in (1e-10, 0.001, 0.05, 0.3, 0.7, 0.99):
            t = dist.t_ppf(p, df)
            assert dist.t_cdf(t, df) == pytest.approx(p, rel=1e-9)
            if p >= 1e-3:  # 1 - 1e-10 is not exact in binary, so its quantile differs
                assert dist.t_ppf(1 - p, df) == pytest.approx(-t, rel=1e-9)
    assert dist.t_ppf(0.975, math.inf) == pytest.approx(dist.norm_ppf(0.975))


def test_t_functions_refuse_or_pass_through_edge_inputs() -> None:
    assert (dist.t_ppf(0.0, 5), dist.t_ppf(1.0, 5), dist.t_ppf(0.5, 5)) == (-math.inf, math.inf, 0)
    assert dist.t_sf(math.inf, 3) == 0.0 and dist.t_sf(-math.inf, 3) == 1.0
    assert math.isnan(dist.t_sf(math.nan, 3))
    with pytest.raises(ValueError):
        dist.t_sf(1.0, 0)
    with pytest.raises(ValueError):
        dist.t_ppf(1.5, 3)


def test_binomial_helpers_match_scipy() -> None:
    # scipy.stats.binom.sf(11, 40, .3) (= P(X >= 12)), .cdf(7, 40, .3), .pmf(12, 40, .3)
    assert dist.binom_sf(12, 40, 0.3) == pytest.approx(0.5593928960971246, rel=1e-11)
    assert dist.binom_cdf(7, 40, 0.3) == pytest.approx(0.05528288715374277, rel=1e-11)
    assert dist.binom_pmf(12, 40, 0.3) == pytest.approx(0.13657382060056153, rel=1e-11)
    assert dist.binom_sf(0, 5, 0.5) == 1.0 and dist.binom_sf(6, 5, 0.5) == 0.0


def test_binomial_tail_is_exact_against_integer_sums() -> None:
    for k, n in ((3, 7), (40, 101), (700, 1500)):
        exact = sum(math.comb(n, i) for i in range(k, n + 1)) / 2**n
        assert dist.binom_sf(k, n, 0.5) == pytest.approx(exact, rel=1e-11)
