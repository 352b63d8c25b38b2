"""Whether B's errors could hide a regression: the gate's separate error-rate test.

Pure functions, stdlib only. The gate decides PASS or FAIL with errored attempts left out
(`invoke run` has already re-sent the transient ones), so a B whose change makes some cases
error (a prompt that times out, a tool that crashes) could hide breaks behind its errors.
This test says INCONCLUSIVE when B errors more than A: by the one-sided exact binomial
(sign) test on the cases that errored in B only against those that errored in A only, at the
gate's level, or when B's share of errored cases is above twice A's plus 2 points (a floor
for suites too small for the test to fire).

The sign test counts only the errors that could hide something: a case that errored in B
only and passed (some attempt) in A could hide a break; its mirror, errored in A only and
passing in B, could hide a fix. With nothing changed the two are equally likely, so the test
holds its level, and errors on cases that fail in both runs anyway (which cannot hide a
break) do not dilute it. Without `invoke run`'s re-sends, 5% errors in both runs still blur
it: a B that errors on 6% of the cases that pass in A then passes 24.6% of the time
(`bench/gate_false_alarms.py`); re-sent, 0%.

Why this and not the worst case for errors: with 5% transient errors in both runs and
nothing changed, reading every error at its least favourable made more than a third of
unchanged pairs INCONCLUSIVE (most of them with 3 epochs); this test is at most alpha there
by construction (2.7% at 200 cases), and a B that errors on 6% of the cases that pass in A,
nothing else erroring, never passes (`tests/test_simulate.py`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from evals.maths.distributions import binom_sf

SHARE_FACTOR, SHARE_SLACK = 2.0, 0.02


@dataclass(frozen=True)
class ErrorCounts:
    """Cases of both runs by whether some attempt of theirs errored (after retries)."""

    n_cases: int  # cases in both runs (same id and case sha)
    a_only: int  # errored in A, not in B
    b_only: int  # errored in B, not in A
    both: int  # errored in both
    b_hiding: int | None = None  # of b_only, those that pass in A (could hide a break)
    a_hiding: int | None = None  # of a_only, those that pass in B (could hide a fix)

    @property
    def share_a(self) -> float:
        return (self.a_only + self.both) / self.n_cases if self.n_cases else 0.0

    @property
    def share_b(self) -> float:
        return (self.b_only + self.both) / self.n_cases if self.n_cases else 0.0

    @property
    def any(self) -> bool:
        return bool(self.a_only or self.b_only or self.both)


def count_errors(flags: Iterable[tuple[bool, bool, bool, bool]]) -> ErrorCounts:
    """ErrorCounts from each case's (errored in A, errored in B, passes in A, passes in B).

    "Passes" is some scored attempt passing, or no scored attempt at all (undecided: it
    might have)."""
    n = a_only = b_only = both = a_hiding = b_hiding = 0
    for in_a, in_b, pass_a, pass_b in flags:
        n += 1
        a_only += in_a and not in_b
        b_only += in_b and not in_a
        both += in_a and in_b
        a_hiding += in_a and not in_b and pass_b
        b_hiding += in_b and not in_a and pass_a
    return ErrorCounts(n, a_only, b_only, both, b_hiding, a_hiding)


@dataclass(frozen=True)
class ErrorRateTest:
    """The error-rate test's result: B errors more than A (`worse`), and by which rule."""

    counts: ErrorCounts
    alpha: float
    p_value: float  # one-sided exact: P(at least b_only of the discordant errored in B | even)
    by_test: bool  # p_value <= alpha
    by_share: bool  # share_b > 2 share_a + 2 points

    @property
    def worse(self) -> bool:
        return self.by_test or self.by_share

    def sentence(self) -> str:
        """One line: what was compared and what it found."""
        c = self.counts
        shares = (
            f"errored cases: A {c.a_only + c.both} of {c.n_cases} ({100 * c.share_a:.1f}%), "
            f"B {c.b_only + c.both} ({100 * c.share_b:.1f}%); {c.b_only} in B only, "
            f"{c.a_only} in A only"
        )
        if c.b_hiding is not None:
            shares += (
                f" ({c.b_hiding} passing in A could hide a break, {c.a_hiding} passing in B a fix)"
            )
        shares += f": one-sided exact p = {self.p_value:.3g}"
        if not self.worse:
            return f"{shares} > {self.alpha:g}, and B's share is within twice A's plus 2 points"
        why = [f"p <= {self.alpha:g}"] if self.by_test else []
        if self.by_share:
            why.append("B's share is above twice A's plus 2 points")
        return f"{shares}: B errors more than A ({' and '.join(why)})"


def error_rate_test(counts: ErrorCounts, alpha: float) -> ErrorRateTest:
    """Whether B's remaining errors exceed A's (see the module docstring). Without the
    `hiding` counts the sign test weighs every one-sided error."""
    b = counts.b_only if counts.b_hiding is None else counts.b_hiding
    a = counts.a_only if counts.a_hiding is None else counts.a_hiding
    m = a + b
    p = binom_sf(b, m, 0.5) if m else 1.0
    share = counts.share_b > SHARE_FACTOR * counts.share_a + SHARE_SLACK + 1e-12
    return ErrorRateTest(counts, alpha, p, p <= alpha, share)
