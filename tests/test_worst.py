"""The least favourable outcome of errored attempts for the t test in use."""

from __future__ import annotations

import itertools
import math

import pytest

from evals.compare import gate as g
from evals.compare.epochs import CaseOutcome as C
from evals.compare.intervals import paired_diff_interval
from evals.compare.worst import least_favourable, least_favourable_cases


def _f(d: list[float], k: float, keys: list[str] | None) -> float:
    ci = paired_diff_interval([0.0] * len(d), d, keys)
    return sum(d) / len(d) + k * (ci.se or 0.0)


@pytest.mark.parametrize("keys", [None, ["a", "a", "b", "b", "c", "c", "c"]])
def test_coordinate_descent_finds_the_grid_minimum(keys: list[str] | None) -> None:
    d = [-0.2, 0.0, 0.1, -0.05, 0.0, 0.3, 0.0]
    low = [*d[:5], -1.0, -0.6]  # the last two cases have unknown outcomes
    high = [*d[:5], 0.0, 0.4]
    k = 2.4
    found = least_favourable(low, low, high, k, keys)
    grid = [i / 100 for i in range(101)]
    best = min(_f([*d[:5], -1.0 + x, -0.6 + y], k, keys) for x, y in itertools.product(grid, grid))
    assert _f(found, k, keys) <= best + 1e-9
    assert all(lo - 1e-12 <= v <= hi + 1e-12 for v, lo, hi in zip(found, low, high, strict=True))


def _scores(timeout: float | None) -> list[C]:
    """22 cases scored 1.0 in A; in B two lost 0.05 and one more is `timeout` (None: error)."""
    cases = [C(f"s{i}", 1.0, 1.0) for i in range(19)]
    cases += [C(f"d{i}", 1.0, 0.95) for i in range(2)]
    return [*cases, C("t", 1.0, timeout)]


def test_a_timeout_is_read_where_it_hurts_the_t_test_most_not_at_zero() -> None:
    # As a finished fail at 0.95 B is significantly worse (p = 0.041); a plain score of 0
    # for the timeout inflates the standard error (p = 0.141), and with the timeout left out
    # p = 0.081: reading the error at 0 said PASS.
    finished = g.decide({"mean score": _scores(0.95)})
    assert finished.verdict == "FAIL"
    assert g.decide({"mean score": _scores(0.0)}).verdict == "PASS"
    timed_out = g.decide({"mean score": _scores(None)})
    assert timed_out.readings[g.LEFT_OUT].verdict == "PASS"
    assert timed_out.readings[g.WORST].verdict == "FAIL"
    assert timed_out.verdict == "INCONCLUSIVE"


def test_pass_fail_pairs_keep_the_plain_worst_case_for_the_exact_test() -> None:
    cases = [C("a", 1.0, 1.0), C("b", 1.0, None), C("c", 0.0, 0.0)]
    assert least_favourable_cases(cases, 0.05, use_clusters=True) is None


def test_a_searched_value_stays_within_what_the_epochs_allow() -> None:
    # Two of three epochs scored 1.0 in B, one errored: B's rate lies in [2/3, 1].
    case = C("e", 1.0, 1.0, b_worst=2 / 3, b_best=1.0)
    others = [C(f"s{i}", 0.8, 0.7 + 0.01 * i) for i in range(10)]
    out = least_favourable_cases([case, *others], 0.025, use_clusters=False)
    assert out is not None
    b = out[0].b
    assert b is not None and 2 / 3 - 1e-12 <= b <= 1.0 + 1e-12
    assert not math.isnan(b)
