"""The exact one-sided McNemar test, its critical values, its power and what it can detect.

Reference values: scipy.stats.binomtest and brute force over every (broken, fixed) table,
computed once in a scratch environment and pasted here.
"""

from __future__ import annotations

import math
import random
from fractions import Fraction

import pytest
from scipy.stats import t as scipy_t

from evals.compare import power as pw
from evals.compare.epochs import CaseOutcome
from evals.compare.gate import decide
from evals.maths.distributions import binom_sf

# scipy.stats.binomtest(c, b + c, 0.5, alternative="greater").pvalue; b = fixed, c = broken
MCNEMAR = [
    (0, 5, 0.03125),
    (0, 4, 0.0625),
    (3, 9, 0.072998046875),
    (10, 22, 0.025051229866221547),
    (40, 60, 0.028443966820490444),
    (6, 16, 0.026239395141601562),
    (500, 560, 0.03495477973013469),
    (5, 2, 0.9375),
]


@pytest.mark.parametrize(("b", "c", "ref"), MCNEMAR)
def test_mcnemar_one_sided_matches_scipy(b: int, c: int, ref: float) -> None:
    res = pw.mcnemar_one_sided(b, c)
    assert res.p_value == pytest.approx(ref, rel=1e-12)
    # b is fixed and c broken here, the reverse of the two-sided stats.McNemar.
    assert (res.fixed, res.broken) == (b, c)


def test_mcnemar_no_discordant_pairs_is_p_one() -> None:
    assert pw.mcnemar_one_sided(0, 0).p_value == 1.0
    with pytest.raises(ValueError):
        pw.mcnemar_one_sided(-1, 2)


def test_five_all_broken_pairs_can_be_significant_one_sided_but_four_cannot() -> None:
    # One-sided, the smallest p with m all-broken pairs is 0.5^m: 4 pairs give 0.0625 and
    # cannot reach 0.05; 5 pairs give 1/32 = 0.031 and can. Two-sided (the test the gate
    # used before) doubles it, so there 5 all-broken pairs (0.0625) cannot reach 0.05.
    assert pw.min_discordant_for(0.05) == 5
    assert pw.smallest_p(4) == pw.mcnemar_one_sided(0, 4).p_value == 0.0625
    assert pw.smallest_p(5) == pw.mcnemar_one_sided(0, 5).p_value == 1 / 32
    assert pw.min_discordant_for(0.05, two_sided=True) == 6
    assert pw.min_discordant_for(0.01) == 7  # so 5 pairs at 0.01: nothing can be significant
    assert pw.min_discordant_for(0.03125) == 5  # exactly 1/32: reachable, no rounding loss
    assert pw.reaches(1 / 32, 0.03125) and not pw.reaches(0.0625, 0.05)


@pytest.mark.parametrize("alpha", [0.05, 0.025, 0.01, 0.03125, 0.001])
def test_critical_values_match_brute_force(alpha: float) -> None:
    limit = Fraction(alpha * (1 + pw.ALPHA_SLACK))
    for m in range(0, 160):
        tails = [
            Fraction(sum(math.comb(m, i) for i in range(k, m + 1)), 2**m) for k in range(m + 1)
        ]
        ks = [k for k, t in enumerate(tails) if t <= limit]
        assert pw.critical_broken(m, alpha) == (min(ks) if ks else None), m
    # The table grows on demand and agrees with the float tails far out.
    for m in (1000, 1777, 3001):
        k = pw.critical_broken(m, alpha)
        assert binom_sf(k, m, 0.5) <= alpha * (1 + 1e-9) < binom_sf(k - 1, m, 0.5)


# Brute force over every (broken, fixed) table with the multinomial law and scipy's
# binomtest deciding each; args: n, p_discordant, delta, alpha.
POWER = [
    ((30, 0.3, 0.15, 0.05), 0.3052514208006896),
    ((12, 0.5, 0.3, 0.05), 0.25530175487999973),
    ((60, 0.2, 0.1, 0.01), 0.1679345721147707),
    ((40, 0.25, 0.0, 0.05), 0.023427702848304865),  # no change: the exact test's real size
    ((8, 0.6, 0.6, 0.05), 0.5940864000000005),
]


@pytest.mark.parametrize(("args", "ref"), POWER)
def test_exact_power_matches_brute_force(args: tuple, ref: float) -> None:
    assert pw.exact_mcnemar_power(*args) == pytest.approx(ref, rel=1e-9)


def test_exact_power_of_large_suites_matches_a_term_by_term_sum() -> None:
    # The running-tail recurrence against one incomplete beta per discordant count.
    for n, psi, delta in ((10_000, 0.15, 0.01), (3_000, 0.3, 0.05), (10_000, 0.02, 0.004)):
        lo, weights = pw._discordant_weights(n, psi)
        q = (psi + delta) / (2 * psi)
        direct = math.fsum(
            w * binom_sf(k, m, q)
            for w, m in zip(weights, range(lo, lo + len(weights)), strict=True)
            if (k := pw.critical_broken(m, 0.025)) is not None
        )
        assert pw.exact_mcnemar_power(n, psi, delta, 0.025) == pytest.approx(direct, rel=1e-9)


def test_exact_power_rejects_impossible_drop() -> None:
    with pytest.raises(ValueError):
        pw.exact_mcnemar_power(50, 0.1, 0.2, 0.05)


def test_mde_exact_small_and_growing_suites() -> None:
    # 4 cases can never reach 0.05 one-sided: no drop is detectable.
    assert pw.mde_exact(4, 0.5, 0.05) is None
    assert pw.mde_exact(5, 0.5, 0.025) is None  # 1/32 > 0.025
    # 5 cases at 0.05: only all 5 broken rejects. The drop adds to the observed discordance
    # 0.2, which reaches every pair for the drop it takes (0.2 + delta > 1): a pair is then
    # broken with chance (1 + delta) / 2 and all 5 with its 5th power.
    assert pw.mde_exact(5, 0.2, 0.05) == pytest.approx(2 * 0.8 ** (1 / 5) - 1, abs=1e-4)
    mdes = [pw.mde_exact(n, 0.2, 0.05) for n in (20, 50, 200, 1000, 10_000)]
    assert all(x > y for x, y in zip(mdes, mdes[1:], strict=False))
    # At the MDE the power is the asked-for power.
    mde = pw.mde_exact(200, 0.2, 0.05)
    assert pw.exact_mcnemar_power(200, 0.2 + mde, mde, 0.05) == pytest.approx(0.8, abs=2e-3)


def _t_power_by_simulation(c: float, df: float, alpha: float, reps: int, seed: int) -> float:
    """Share of seeded draws where a drop of c printed SEs is significant in a fresh pair:
    both SEs sigma * sqrt(chi2_df / df), the estimate sigma * Z off the drop."""
    rng = random.Random(seed)
    crit = scipy_t.ppf(1 - alpha, df)
    hit = 0
    for _ in range(reps):
        printed = math.sqrt(rng.gammavariate(df / 2, 2.0) / df)
        fresh = math.sqrt(rng.gammavariate(df / 2, 2.0) / df)
        hit += c * printed + rng.gauss(0.0, 1.0) > crit * fresh
    return hit / reps


@pytest.mark.parametrize("df", [1.45, 5.0, 11.0, 199.0])
def test_mde_t_is_detected_with_80_percent_power_over_the_ses_spread(df: float) -> None:
    c = pw.mde_t(1.0, df, 0.05)
    assert c is not None
    assert _t_power_by_simulation(c, df, 0.05, reps=20_000, seed=5) == pytest.approx(0.8, abs=0.01)
    # Above the shifted t that takes the SE as known (scipy's quantiles), and close to it
    # with many df.
    shifted = scipy_t.ppf(0.95, df) + scipy_t.ppf(0.8, df)
    assert c > shifted
    if df > 100:
        assert c == pytest.approx(shifted, rel=0.01)
    assert pw.mde_t(0.01, df, 0.05) == pytest.approx(0.01 * c)
    assert pw.mde_t(0.0, 11, 0.05) is None


def _logistic(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x))


def pair_with_drop(rng: random.Random, shape: str, drop: float) -> list[CaseOutcome]:
    """One pair of runs whose B passes `drop` less often than A in expectation: B fails each
    case it would have passed with one extra chance. Independent: n cases, pass chance
    Beta(0.8, 0.4); unbalanced: clusters of 60, 10, 5, 3, 1 and 1 cases sharing a level and
    a per-run shock on the logit scale, as evals.compare.simulate draws them."""
    rows: list[tuple[str, float, float, str | None]] = []
    if shape.startswith("independent"):
        for i in range(int(shape.split("-")[1])):
            p = rng.betavariate(0.8, 0.4)
            rows.append((f"c{i}", p, p, None))
    else:
        for g, size in enumerate((60, 10, 5, 3, 1, 1)):
            level, shock_a, shock_b = rng.gauss(0, 1), rng.gauss(0, 1), rng.gauss(0, 1)
            for j in range(size):
                mu = level + rng.gauss(0.7, 1.0)
                rows.append(
                    (f"g{g}c{j}", _logistic(mu + shock_a), _logistic(mu + shock_b), f"g{g}")
                )
    keep = max(0.0, 1 - drop / (math.fsum(r[2] for r in rows) / len(rows)))
    return [
        CaseOutcome(c, float(rng.random() < pa), float(rng.random() < pb * keep), cl)
        for c, pa, pb, cl in rows
    ]


def power_at_printed(shape: str, reps: int, seed: int) -> float:
    """How often the gate FAILs a B worse by the smallest drop an unchanged pair printed."""
    rng = random.Random(seed)
    fails = done = 0
    for _ in range(reps):
        mde = decide(pair_with_drop(rng, shape, 0.0)).main.figures[0].mde
        if mde is None:
            continue
        done += 1
        fails += decide(pair_with_drop(rng, shape, mde), compute_mde=False).verdict == "FAIL"
    return fails / done


@pytest.mark.slow
@pytest.mark.parametrize(("shape", "reps"), [("independent-200", 1000), ("independent-40", 1500)])
def test_the_gate_detects_the_printed_smallest_drop_80_percent_of_the_time(
    shape: str, reps: int
) -> None:
    # Holding the observed discordance fixed, the printed drop was detected 70.5% of the time
    # at n = 200 and 59.4% at n = 40 (this simulation, before the change); now 79.0% and 78.9%.
    assert 0.77 <= power_at_printed(shape, reps, seed=3) <= 0.83


@pytest.mark.slow
def test_with_few_unequal_clusters_the_printed_drop_is_detected_less_often_than_80_percent() -> (
    None
):
    # Clusters of 60, 10, 5, 3, 1 and 1 cases (1.45 Bell-McCaffrey df): the CR2 SE runs at
    # about half the estimate's real spread there, which no factor on the SE alone can
    # undo. The drop printed is detected about 63% of the time (55% when the SE was taken
    # as known; bench/mde_power.py), and about 40% of unchanged pairs print that no drop up
    # to 100 points is detectable.
    assert 0.57 <= power_at_printed("unbalanced", 1000, seed=3) <= 0.68
