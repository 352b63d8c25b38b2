"""The release gate: one verdict (PASS, FAIL, INCONCLUSIVE) from paired case outcomes, and why.

Pure functions, no I/O. The gate tests each figure the report shows (the pass rate, and the
mean score unless its changes only mirror the pass rate's) with one pre-declared one-sided
test that B is worse, in one of four modes:

* significant: FAIL when some figure is worse at one-sided level alpha / k (k figures:
  Bonferroni, which is Holm's first step, so the chance of any false alarm is at most
  alpha); INCONCLUSIVE when B looks worse by more than the margin but the exact test could
  not have fired with so few discordant pairs; else PASS.
* noninferior: PASS when the lower end of every figure's two-sided 1 - alpha interval is
  above -margin, FAIL when some upper end is below it, else INCONCLUSIVE.
* strict: FAIL on any case that went down and is not known to be flaky.
* never: always PASS; the figures are for reading.

Errors never make the gate greener: with errored attempts the gate decides twice, once
with them left out and once with each errored attempt counted against B (a fail in B, a
pass in A), and says INCONCLUSIVE when the two readings disagree.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from evals.compare.epochs import CaseOutcome
from evals.compare.intervals import TIE_TOLERANCE, Interval, effect_interval, holm
from evals.compare.power import mde_exact, mde_t, min_discordant_for, reaches, smallest_p

MODES = ("significant", "noninferior", "strict", "never")
ALIASES = {"regression": "strict"}  # the old name of the strict mode, still accepted
EXIT_CODES = {"PASS": 0, "FAIL": 1, "INCONCLUSIVE": 3}
LEFT_OUT, WORST = "errors left out", "errors counted against B"


@dataclass(frozen=True)
class Figure:
    """One figure (pass rate or mean score) of one reading: its interval, test and power."""

    name: str
    interval: Interval
    p_value: float  # one-sided, that B is worse
    p_adjusted: float | None  # Holm over the gated figures; None for one not gated on
    level: float  # the raw p must reach this to fail the gate (alpha / number of figures)
    smallest_p: float | None  # exact test: the smallest p this many discordant pairs allow
    mde: float | None  # smallest drop detected with `power` at `level`; None: see mde_kind
    mde_kind: str  # "exact", "t", "none" (no n could), "unknown" (no noise estimate)
    noninferiority: str  # noninferior | inferior | undetermined, against the margin
    follows: str | None = None  # not gated on: its changes are a multiple of this figure's

    @property
    def gated(self) -> bool:
        return self.follows is None

    @property
    def reachable(self) -> bool:
        """Whether any result with this many discordant pairs could reach the level."""
        return self.smallest_p is None or reaches(self.smallest_p, self.level)


@dataclass(frozen=True)
class Reading:
    """The gate's verdict on one reading of the errors."""

    name: str
    verdict: str
    reason: str
    test: str
    n_paired: int
    figures: list[Figure] = field(default_factory=list)
    broken: list[str] = field(default_factory=list)  # non-flaky cases that went down
    flaky_changed: list[str] = field(default_factory=list)  # flaky cases that went down


@dataclass(frozen=True)
class Decision:
    """The gate's verdict, the test that decided it, and why, in one sentence."""

    verdict: str  # PASS | FAIL | INCONCLUSIVE
    exit_code: int  # 0 | 1 | 3
    mode: str
    test: str
    reason: str
    alpha: float
    margin: float
    power: float
    readings: dict[str, Reading]  # LEFT_OUT always; WORST too when some attempt errored
    n_errored: int = 0  # cases whose figures depend on how errors are read

    @property
    def main(self) -> Reading:
        """The reading the report leads with: errors counted against B when there are any."""
        return self.readings.get(WORST) or self.readings[LEFT_OUT]


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


def _figure(
    name: str,
    cases: Sequence[CaseOutcome],
    alpha: float,
    level: float,
    margin: float,
    power: float,
    compute_mde: bool,
    use_clusters: bool,
) -> Figure:
    a = [float(c.a) for c in cases]  # type: ignore[arg-type]
    b = [float(c.b) for c in cases]  # type: ignore[arg-type]
    clustered = use_clusters and any(c.cluster is not None for c in cases)
    ci = effect_interval(a, b, [c.cluster for c in cases] if clustered else None, alpha)
    n, mc = len(cases), ci.mcnemar
    mde, kind = None, "unknown"
    if mc is not None:
        kind = "exact" if n >= min_discordant_for(level) else "none"
        if compute_mde and kind == "exact":
            mde = mde_exact(n, mc.n_discordant / n, level, power)
    elif ci.se is not None and ci.df is not None:
        kind = "t"
        mde = mde_t(ci.se, ci.df, level, power) if compute_mde else None
    p = ci.p_value if ci.p_value is not None else 1.0
    return Figure(
        name=name,
        interval=ci,
        p_value=p,
        p_adjusted=p,
        level=level,
        smallest_p=smallest_p(mc.n_discordant) if mc is not None else None,
        mde=mde,
        mde_kind=kind,
        noninferiority=noninferiority(ci.low, margin, ci.high),
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


def _down(c: CaseOutcome) -> bool:
    return c.b < c.a - TIE_TOLERANCE  # type: ignore[operator]


def _decide_reading(
    name: str,
    endpoints: Mapping[str, Sequence[CaseOutcome]],
    mode: str,
    alpha: float,
    margin: float,
    power: float,
    compute_mde: bool,
    use_clusters: bool,
) -> Reading:
    """The decision on cases scored in both runs (errors already resolved one way)."""
    first = next(iter(endpoints.values()))
    n = len(first)
    flaky = {c.id for cases in endpoints.values() for c in cases if c.flaky}
    down = sorted({c.id for cases in endpoints.values() for c in cases if _down(c)})
    base = {
        "name": name,
        "n_paired": n,
        "broken": [i for i in down if i not in flaky],
        "flaky_changed": [i for i in down if i in flaky],
    }
    if n == 0:
        return Reading(
            verdict="INCONCLUSIVE",
            reason="no case was scored in both runs: nothing was compared, which is never a pass",
            test="none",
            **base,
        )
    # A figure whose every change is a fixed positive multiple of an earlier one's (a score
    # that only moves when the verdict does) tests nothing new: it is shown, not gated on,
    # so it does not cost the others half of alpha.
    gated: dict[str, Sequence[CaseOutcome]] = {}
    follows: dict[str, str] = {}
    for key, cases in endpoints.items():
        twin = next((k for k, seen in gated.items() if same_signal(seen, cases)), None)
        if twin is None:
            gated[key] = cases
        else:
            follows[key] = twin
    level = alpha / len(gated)
    figures = [
        _figure(key, cases, alpha, level, margin, power, compute_mde, use_clusters)
        for key, cases in endpoints.items()
    ]
    tested = [f for f in figures if f.name in gated]
    adjusted = dict(zip(gated, holm([f.p_value for f in tested]), strict=True))
    figures = [
        dataclasses.replace(f, p_adjusted=adjusted.get(f.name), follows=follows.get(f.name))
        for f in figures
    ]
    base["figures"] = figures
    if mode == "never":
        return Reading(
            verdict="PASS", reason="the gate is off; the figures are for reading", test="none", **base
        )
    if mode == "strict":
        test = "strict: any case that went down and is not known to be flaky"
        note = (
            f"; {len(base['flaky_changed'])} flaky case(s) went down, reported only"
            if base["flaky_changed"]
            else ""
        )
        broken = base["broken"]
        if broken:
            more = ", …" if len(broken) > 5 else ""
            why = f"{len(broken)} case(s) went down ({', '.join(broken[:5])}{more}){note}"
            return Reading(verdict="FAIL", reason=why, test=test, **base)
        return Reading(verdict="PASS", reason=f"no case went down{note}", test=test, **base)
    gate_figures = [f for f in figures if f.gated]
    if mode == "noninferior":
        test = f"noninferiority: the lower end of each {1 - alpha:.0%} interval vs -{margin:g}"
        states = {f.name: f.noninferiority for f in gate_figures}
        text = "; ".join(f"{f.name} {shown(f.interval, f.name)}" for f in gate_figures)
        bound = f"{margin:g} (pass rate: {100 * margin:g} points)"
        if all(s == "noninferior" for s in states.values()):
            why = f"B is at most {bound} worse: {text}"
            return Reading(verdict="PASS", reason=why, test=test, **base)
        worse = [k for k, s in states.items() if s == "inferior"]
        if worse:
            why = f"B is worse by more than {bound} in {' and '.join(worse)}: {text}"
            return Reading(verdict="FAIL", reason=why, test=test, **base)
        why = f"cannot tell whether B is within {bound} of A (more cases or epochs would): {text}"
        return Reading(verdict="INCONCLUSIVE", reason=why, test=test, **base)
    if mode != "significant":
        raise ValueError(f"mode must be one of {', '.join(MODES)}, not {mode!r}")
    k = len(gate_figures)
    split = f" (alpha {alpha:g} split over {k} figures)" if k > 1 else ""
    test = "one-sided: " + "; ".join(f"{f.name} by {f.interval.method}" for f in gate_figures)
    test += split
    for f in sorted(gate_figures, key=lambda f: f.p_value):
        if reaches(f.p_value, f.level):
            mc = f.interval.mcnemar
            counts = f" ({mc.broken} broken vs {mc.fixed} fixed)" if mc else ""
            why = (
                f"B is worse in {f.name}{counts}: one-sided p = {f.p_value:.3g} <= "
                f"{f.level:.3g}; {shown(f.interval, f.name)}"
            )
            return Reading(verdict="FAIL", reason=why, test=test, **base)
    for f in gate_figures:
        ci = f.interval
        if not f.reachable and ci.estimate < 0 and ci.low < -margin:
            m = ci.mcnemar.n_discordant if ci.mcnemar else 0
            why = (
                f"B looks worse in {f.name} ({shown(ci, f.name)}) but with {m} discordant pair(s) the "
                f"smallest p the exact test can give is {f.smallest_p:.3g} > {f.level:.3g}: "
                "no result at this n could be significant; add cases or epochs"
            )
            return Reading(verdict="INCONCLUSIVE", reason=why, test=test, **base)
    best = min(gate_figures, key=lambda f: f.p_value)
    why = (
        f"no evidence B is worse: smallest one-sided p = {best.p_value:.3g} ({best.name}) > "
        f"{best.level:.3g}"
    )
    return Reading(verdict="PASS", reason=why, test=test, **base)


def _reading(
    endpoints: Mapping[str, Sequence[CaseOutcome]], worst: bool, floor: float, ceiling: float
) -> dict[str, list[CaseOutcome]]:
    """Each figure's cases under one reading of the errors."""
    out: dict[str, list[CaseOutcome]] = {}
    for key, cases in endpoints.items():
        if not worst:
            out[key] = [c for c in cases if c.a is not None and c.b is not None]
            continue
        out[key] = [
            c
            if c.a is not None and c.b is not None and c.a_worst is None and c.b_worst is None
            else dataclasses.replace(
                c,
                a=c.a_worst if c.a_worst is not None else ceiling if c.a is None else c.a,
                b=c.b_worst if c.b_worst is not None else floor if c.b is None else c.b,
                a_worst=None,
                b_worst=None,
            )
            for c in cases
            if c.a is not None or c.b is not None  # errored in both: nothing known, left out
        ]
    return out


def decide(
    endpoints: Mapping[str, Sequence[CaseOutcome]] | Sequence[CaseOutcome],
    mode: str = "significant",
    *,
    alpha: float = 0.05,
    margin: float = 0.05,
    power: float = 0.8,
    compute_mde: bool = True,
    use_clusters: bool = True,
    floor: float = 0.0,
    ceiling: float = 1.0,
) -> Decision:
    """The gate's verdict for run A against run B under `mode` (see the module docstring).

    `endpoints` maps each figure's name ("pass rate", "mean score") to the same cases in
    the same order; a plain sequence is the pass rate alone. Values lie in [floor,
    ceiling]; a case errored in B (scored in A) is read at `floor` in B in the worst-case
    reading, one errored in A at `ceiling` in A; cases errored in both are left out.
    """
    mode = ALIASES.get(mode, mode)
    if mode not in MODES:
        raise ValueError(f"mode must be one of {', '.join(MODES)}, not {mode!r}")
    if not 0.0 < alpha < 1.0:
        raise ValueError("alpha must be between 0 and 1")
    if not 0.0 <= margin < 1.0:
        raise ValueError("margin must be at least 0 and below 1")
    if not isinstance(endpoints, Mapping):
        endpoints = {"pass rate": list(endpoints)}
    args = (mode, alpha, margin, power, compute_mde, use_clusters)
    errored = {
        c.id
        for cases in endpoints.values()
        for c in cases
        if c.a is None or c.b is None or c.a_worst is not None or c.b_worst is not None
    }
    left_out = _decide_reading(LEFT_OUT, _reading(endpoints, False, floor, ceiling), *args)
    common = {"mode": mode, "alpha": alpha, "margin": margin, "power": power}
    if not errored:
        return Decision(
            left_out.verdict,
            EXIT_CODES[left_out.verdict],
            test=left_out.test,
            reason=left_out.reason,
            readings={LEFT_OUT: left_out},
            **common,
        )
    worst = _decide_reading(WORST, _reading(endpoints, True, floor, ceiling), *args)
    k = len(errored)
    readings = {LEFT_OUT: left_out, WORST: worst}
    if worst.verdict == left_out.verdict:
        reason = (
            f"{worst.reason}, with errors counted against B ({left_out.verdict} too with the "
            f"{k} case(s) with errors left out)"
        )
        return Decision(
            worst.verdict,
            EXIT_CODES[worst.verdict],
            test=worst.test,
            reason=reason,
            readings=readings,
            n_errored=k,
            **common,
        )
    return Decision(
        "INCONCLUSIVE",
        EXIT_CODES["INCONCLUSIVE"],
        test=worst.test,
        reason=f"errors decide it: {worst.verdict} with the errored attempts of {k} case(s) "
        f"counted against B, {left_out.verdict} with them left out",
        readings=readings,
        n_errored=k,
        **common,
    )
