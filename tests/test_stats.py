"""The two-sided exact McNemar test (the sealed pile's) against values computed by hand."""

from __future__ import annotations

import math

import pytest

from evals.compare import stats


def test_mcnemar_b10_c2_is_the_textbook_exact_p() -> None:
    # 2 * (C(12,0) + C(12,1) + C(12,2)) / 2**12 = 2 * 79 / 4096
    r = stats.mcnemar_exact(10, 2)
    assert r.p_value == 0.03857421875
    assert stats.mcnemar_exact(2, 10).p_value == 0.03857421875
    assert r.n_discordant == 12


def test_mcnemar_small_and_empty_cases() -> None:
    assert stats.mcnemar_exact(5, 0).p_value == 2 / 32
    assert stats.mcnemar_exact(3, 3).p_value == 1.0
    assert stats.mcnemar_exact(0, 0).p_value is None  # no discordant pairs: no test
    with pytest.raises(ValueError):
        stats.mcnemar_exact(-1, 2)


def test_binomial_p_matches_the_sum_of_binomial_coefficients() -> None:
    for k, n in ((0, 1), (3, 7), (4, 8), (40, 101), (4_990, 10_000)):
        m = min(k, n - k)
        expected = min(1.0, 2 * sum(math.comb(n, i) for i in range(m + 1)) / 2**n)
        assert stats.binomial_two_sided_p(k, n) == expected
