"""The figures the gate tests: each one's interval, one-sided test, power, and how it is shown.

Pure functions, no I/O. A figure is a change B - A over the paired cases (the pass rate, the
mean score); see evals.compare.gate for how the modes decide on them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from evals.compare.columns import cluster_keys, pair_values
from evals.compare.epochs import CaseOutcome
from evals.compare.intervals import TIE_TOLERANCE, Interval, effect_interval
from evals.compare.power import mde_exact, mde_t, reaches, smallest_p
from evals.maths.distributions import t_cdf


@dataclass(frozen=True)
class Figure:
    """One figure (pass rate or mean score) of one reading: its interval, test and power."""

    name: str
    interval: Interval
    p_value: float  # one-sided, that B is worse
    p_adjusted: float | None  # Holm over the gated figures; None for one not gated on
    level: float  # the raw p must reach this to fail the gate (alpha / number of figures)
    smallest_p: float | None  # exact test: the smallest p this many discordant pairs allow;
    # t test: the p of the largest drop still possible, with the noise seen
    mde: float | None  # smallest drop detected with `power` at `level`; None: see mde_kind
    mde_kind: str  # "exact", "t", "none" (no drop could be significant), "beyond" (80% power
    # needs a drop of more than 100 points), "unknown" (no noise estimate)
    noninferiority: str  # noninferior | inferior | undetermined, against the margin
    follows: str | None = None  # not gated on: its changes are a multiple of this figure's
    smallest_p_at_n: float | None = None  # the smallest p any outcome could give at this n
    max_drop: float | None = None  # the largest drop possible: the whole range, 1 (100 points)

    @property
    def gated(self) -> bool:
        return self.follows is None

    @property
    def reachable(self) -> bool:
        """Whether any result with this many discordant pairs could reach the level."""
        return self.smallest_p is None or reaches(self.smallest_p, self.level)

    @property
    def can_fail(self) -> bool:
        """Whether any outcome at all (every case dropping by 100 points) could reach the level."""
        return self.smallest_p_at_n is None or reaches(self.smallest_p_at_n, self.level)


def noninferiority(lower_bound: float, margin: float, upper_bound: float | None = None) -> str:
    """'noninferior' when the interval's lower end is above -margin, 'inferior' when its upper
    end is below -margin, else 'undetermined'.

    With the two-sided 1 - alpha interval this is the usual noninferiority test at one-sided
    level alpha/2 (the convention of the CONSORT statement): conservative, and it reads
    straight off the interval the report shows.
    """
    if margin < 0:
        raise ValueError("the margin is a size, >= 0")
    if lower_bound > -margin:
        return "noninferior"
    if upper_bound is not None and upper_bound < -margin:
        return "inferior"
    return "undetermined"


def in_points(name: str) -> bool:
    """Rates are shown in points (x100); scores on their own 0-1 scale."""
    return "rate" in name


def fmt_change(x: float, name: str) -> str:
    """A change of the named figure: `-2.0 points` for a rate, `-0.020` for a score."""
    return f"{100 * x:+.1f} points" if in_points(name) else f"{x:+.3f}"


def shown(ci: Interval, name: str = "pass rate") -> str:
    """The figure as the report shows it: 'B - A = -2.0 points (95% CI -4.1 to +0.1)'."""
    if in_points(name):
        lo, hi = f"{100 * ci.low:+.1f}", f"{100 * ci.high:+.1f}"
    else:
        lo, hi = f"{ci.low:+.3f}", f"{ci.high:+.3f}"
    return f"B - A = {fmt_change(ci.estimate, name)} ({ci.level:.0%} CI {lo} to {hi})"


def figure(
    name: str,
    cases: Sequence[CaseOutcome],
    alpha: float,
    level: float,
    margin: float,
    power: float,
    compute_mde: bool,
    use_clusters: bool,
) -> Figure:
    """One figure of fully scored cases: its interval and one-sided test at level 1 - alpha,
    what the test detects at `level` (the share of alpha it gets), and its noninferiority."""
    a, b = pair_values(cases)
    keys = cluster_keys(cases) if use_clusters else []
    clustered = any(g is not None for g in keys)
    ci = effect_interval(a, b, keys if clustered else None, alpha)
    n, mc = len(cases), ci.mcnemar
    # Values lie in [0, 1]: no change can exceed 100 points (1 on the score scale), so the
    # strongest evidence any outcome could give is every case dropping by that much.
    max_drop = 1.0
    mde, kind, at_n, smallest = None, "unknown", None, None
    if mc is not None:
        smallest = smallest_p(mc.n_discordant)
        at_n = smallest_p(n)  # every case broke
        kind = "exact" if reaches(at_n, level) else "none"
        if compute_mde and kind == "exact":
            both = sum(1 for c in cases if c.a == 1.0 and c.b == 1.0)
            mde = mde_exact(n, mc.n_discordant / n, level, power, both_pass=both / n)
    elif ci.se is not None and ci.df is not None:
        # With the noise seen, the strongest evidence possible is a drop of the whole range.
        at_n = smallest = t_cdf(-max_drop / ci.se, ci.df)
        kind = "t" if reaches(at_n, level) else "none"
        mde = mde_t(ci.se, ci.df, level, power) if compute_mde and kind == "t" else None
    if mde is not None and mde > max_drop:
        mde, kind = None, "beyond"
    p = ci.p_value if ci.p_value is not None else 1.0
    return Figure(
        name=name,
        interval=ci,
        p_value=p,
        p_adjusted=p,
        level=level,
        smallest_p=smallest,
        mde=mde,
        mde_kind=kind,
        noninferiority=noninferiority(ci.low, margin, ci.high),
        smallest_p_at_n=at_n,
        max_drop=max_drop,
    )


def same_signal(x: Sequence[CaseOutcome], y: Sequence[CaseOutcome]) -> bool:
    """Whether every change in `y` is one and the same positive multiple of the change in `x`
    (both no change counts): then a test of `y` asks nothing a test of `x` does not."""
    scale = None
    for cx, cy in zip(x, y, strict=True):
        u, v = cx.b - cx.a, cy.b - cy.a  # type: ignore[operator]
        if abs(u) <= TIE_TOLERANCE:
            if abs(v) > TIE_TOLERANCE:
                return False
            continue
        if scale is None:
            scale = v / u
            if scale <= 0:
                return False
        elif abs(v - scale * u) > TIE_TOLERANCE:
            return False
    return True
