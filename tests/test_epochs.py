"""Cases over epochs: per-case rates as the unit, flaky cases known, the case/epoch split."""

from __future__ import annotations

import math
import random

import pytest

from evals.compare import epochs as ep


def test_epoch_split_by_hand() -> None:
    split = ep.epoch_variance_split({"a": [1, 1, 1, 1], "b": [1, 0, 1, 0], "c": [0, 0, 0, 0]})
    assert split.case_means == {"a": 1.0, "b": 0.5, "c": 0.0}
    assert split.mean == pytest.approx(0.5)
    assert split.se == pytest.approx(math.sqrt(0.25 / 3))  # Var(case means) = 0.25
    assert split.within_var == pytest.approx((0 + 1 / 3 + 0) / 3)  # b's sample variance 1/3
    assert split.between_var == pytest.approx(0.25 - (1 / 3) / 4 / 3)
    assert split.flaky_cases == ["b"]
    # Counting 12 attempts as independent understates the SE here.
    assert split.se_if_attempts_independent < split.se


def test_epoch_split_recovers_components() -> None:
    # p ~ Beta(2, 2): between = Var(p) = 0.05, within = E[p(1 - p)] = 0.2
    rng = random.Random(11)
    data = []
    for _ in range(3000):
        p = rng.betavariate(2, 2)
        data.append([float(rng.random() < p) for _ in range(4)])
    split = ep.epoch_variance_split(data)
    assert split.between_var == pytest.approx(0.05, abs=0.01)
    assert split.within_var == pytest.approx(0.2, abs=0.01)
    assert split.se_with_epochs(4) == pytest.approx(split.se, rel=0.05)
    assert split.se_with_epochs(100) < split.se


def test_paired_split_recovers_the_epoch_share_of_the_change() -> None:
    # Same system in A and B: every case's true change is 0, so all noise is epoch noise.
    rng = random.Random(12)
    a, b = [], []
    for _ in range(3000):
        p = rng.betavariate(2, 2)
        a.append([float(rng.random() < p) for _ in range(4)])
        b.append([float(rng.random() < p) for _ in range(4)])
    split = ep.paired_epoch_split(a, b)
    assert split is not None
    assert split.epoch_share == pytest.approx(1.0, abs=0.06)
    assert split.between_var == pytest.approx(0.0, abs=0.01)
    assert split.within_var == pytest.approx(0.4, abs=0.02)  # 0.2 in each run
    assert split.se_with_epochs(16) == pytest.approx(split.se / 2, rel=0.1)
    assert ep.paired_epoch_split([[1.0]], [[0.0]]) is None  # one attempt each: unknown


def test_case_from_epochs_uses_rates_and_flags_flaky() -> None:
    c = ep.case_from_epochs("x", [1.0, 1.0, None], [1.0, 0.0, 0.0])
    assert c.a == 1.0 and c.b == pytest.approx(1 / 3) and c.flaky
    assert ep.case_from_epochs("y", [None], [1.0]).a is None
    assert not ep.case_from_epochs("z", [1.0, 1.0], [0.0, 0.0]).flaky  # moved, never varied
    # A 1-of-2 tie is a rate of 0.5, not a fail.
    assert ep.case_from_epochs("t", [1.0, 0.0], [1.0, 1.0]).a == 0.5


def test_worst_case_reading_counts_errored_attempts_against_b() -> None:
    c = ep.case_from_epochs("x", [1.0, None, 0.0], [1.0, None, 1.0])
    assert (c.a, c.b) == (0.5, 1.0)
    assert c.a_worst == pytest.approx(2 / 3)  # A's error read as a pass
    assert c.b_worst == pytest.approx(2 / 3)  # B's error read as a fail
    assert c.has_error
    clean = ep.case_from_epochs("y", [1.0], [1.0])
    assert (clean.a_worst, clean.b_worst, clean.has_error) == (None, None, False)
