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

Errors never make the gate greener, and neither do outcomes nobody knows yet. An errored
attempt (`invoke run` re-sent it when the error was transient) is left out, and a separate
error-rate test (evals.compare.errorrate) says INCONCLUSIVE when B errors more than A. An
undecided outcome (a `review` row, a case of A missing from B) is read twice, once left out
and once at its least favourable value for the test in use (for the exact McNemar test a
fail in B and a pass in A, also when it is unknown in both runs; for a t test the values
that minimise its p, which are not always the extremes), and the gate says INCONCLUSIVE when
the two readings disagree. A figure whose test could not fire even if every case dropped by
100 points says INCONCLUSIVE, never PASS.

Every verdict carries a reason code (evals.compare.reasons) for CI.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from evals.compare.columns import ids_where, reading_cases
from evals.compare.epochs import CaseOutcome
from evals.compare.errorrate import ErrorCounts, ErrorRateTest, error_rate_test
from evals.compare.figures import Figure, figure, same_signal, shown
from evals.compare.intervals import holm
from evals.compare.power import reaches
from evals.compare.worst import least_favourable_cases, spread

MODES = ("significant", "noninferior", "strict", "never")
ALIASES = {"regression": "strict"}  # the old name of the strict mode, still accepted
EXIT_CODES = {"PASS": 0, "FAIL": 1, "INCONCLUSIVE": 3}
LEFT_OUT, WORST = "undecided left out", "undecided against B"
ERRORS_WORST = "errors against B"  # read only when B errors more than A


@dataclass(frozen=True)
class Reading:
    """The gate's verdict on one reading of the errors."""

    name: str
    verdict: str
    reason: str
    test: str
    n_paired: int
    code: str = ""  # one of evals.compare.reasons.REASONS
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
    readings: dict[str, Reading]  # LEFT_OUT always; WORST too when some outcome is undecided
    n_errored: int = 0  # cases with an errored attempt, left out (the error-rate test's cases)
    n_missing: int = 0  # cases of run A missing from run B (undecided in B)
    spread: dict[str, tuple[float, float]] = field(default_factory=dict)  # lowest, highest B - A
    code: str = ""  # why, for machines: evals.compare.reasons.REASONS
    n_unknown: int = 0  # cases with an undecided outcome (review rows or missing), read twice
    errors: ErrorRateTest | None = None  # the error-rate test, when some case errored

    @property
    def n_review(self) -> int:
        """Cases with a `review` attempt (undecided, not missing)."""
        return self.n_unknown - self.n_missing

    @property
    def main(self) -> Reading:
        """The reading the report leads with: undecided outcomes left out (the one whose figures
        the tables show; the other reading is labelled wherever it appears)."""
        return self.readings[LEFT_OUT]


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
    flaky = ids_where(endpoints, "flaky")
    down = sorted(ids_where(endpoints, "down"))
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
            code="nothing-compared",
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
        figure(key, cases, alpha, level, margin, power, compute_mde, use_clusters)
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
            verdict="PASS",
            reason="the gate is off; the figures are for reading",
            test="none",
            code="gate-off",
            **base,
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
            return Reading(verdict="FAIL", reason=why, test=test, code="case-went-down", **base)
        why = f"no case went down{note}"
        return Reading(verdict="PASS", reason=why, test=test, code="none-went-down", **base)
    gate_figures = [f for f in figures if f.gated]
    if mode == "noninferior":
        test = f"noninferiority: the lower end of each {1 - alpha:.0%} interval vs -{margin:g}"
        states = {f.name: f.noninferiority for f in gate_figures}
        text = "; ".join(f"{f.name} {shown(f.interval, f.name)}" for f in gate_figures)
        bound = f"{margin:g} (pass rate: {100 * margin:g} points)"
        if all(s == "noninferior" for s in states.values()):
            why = f"B is at most {bound} worse: {text}"
            return Reading(verdict="PASS", reason=why, test=test, code="within-margin", **base)
        worse = [k for k, s in states.items() if s == "inferior"]
        if worse:
            why = f"B is worse by more than {bound} in {' and '.join(worse)}: {text}"
            return Reading(verdict="FAIL", reason=why, test=test, code="beyond-margin", **base)
        why = f"cannot tell whether B is within {bound} of A (more cases or epochs would): {text}"
        return Reading(
            verdict="INCONCLUSIVE", reason=why, test=test, code="margin-undecided", **base
        )
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
            return Reading(verdict="FAIL", reason=why, test=test, code="worse", **base)
    for f in gate_figures:
        ci = f.interval
        if not f.reachable and ci.estimate < 0 and ci.low < -margin:
            m = ci.mcnemar.n_discordant if ci.mcnemar else 0
            why = (
                f"B looks worse in {f.name} ({shown(ci, f.name)}) but with {m} discordant pair(s) the "
                f"smallest p the exact test can give is {f.smallest_p:.3g} > {f.level:.3g}: "
                "no result at this n could be significant; add cases or epochs"
            )
            if ci.mcnemar is None:
                why = (
                    f"B looks worse in {f.name} ({shown(ci, f.name)}) but with the noise seen not "
                    f"even a drop of 100 points could reach {f.level:.3g}: no result at this n "
                    "could be significant; add cases, clusters or epochs"
                )
            return Reading(verdict="INCONCLUSIVE", reason=why, test=test, code="too-small", **base)
    for f in gate_figures:
        if not f.can_fail:
            why = (
                f"the test of {f.name} could not fail at this n whatever happened (not even if "
                f"every case dropped by 100 points: smallest p {f.smallest_p_at_n:.3g} > "
                f"{f.level:.3g}), so a pass would say nothing; add cases, clusters or epochs"
            )
            return Reading(verdict="INCONCLUSIVE", reason=why, test=test, code="too-small", **base)
    best = min(gate_figures, key=lambda f: f.p_value)
    why = (
        f"no evidence B is worse: smallest one-sided p = {best.p_value:.3g} ({best.name}) > "
        f"{best.level:.3g}"
    )
    return Reading(verdict="PASS", reason=why, test=test, code="no-evidence", **base)


_SEVERITY = {"PASS": 0, "INCONCLUSIVE": 1, "FAIL": 2}


def _worst_reading(
    endpoints: Mapping[str, Sequence[CaseOutcome]],
    floor: float,
    ceiling: float,
    args: tuple[str, float, float, float, bool, bool],
) -> Reading:
    """The reading with every unknown outcome at its least favourable value for the test.

    The plain extremes are least favourable for the exact McNemar test and for strict; a t
    test is also read at the values that minimise its p (evals.compare.worst), and the worse
    of the two verdicts is kept.
    """
    mode, alpha, use_clusters = args[0], args[1], args[5]
    plain = _decide_reading(WORST, reading_cases(endpoints, True, floor, ceiling), *args)
    if mode not in ("significant", "noninferior"):
        return plain
    # The level each figure is tested at: alpha split over the figures (the most any figure
    # gets when both are gated), or the two-sided interval's tail for noninferiority.
    tail = alpha / len(endpoints) if mode == "significant" else alpha / 2
    searched = {
        key: least_favourable_cases(cases, tail, use_clusters, floor, ceiling)
        for key, cases in endpoints.items()
    }
    if all(v is None for v in searched.values()):
        return plain
    plain_cases = reading_cases(endpoints, True, floor, ceiling)
    cases = {k: v if v is not None else plain_cases[k] for k, v in searched.items()}
    other = _decide_reading(WORST, cases, *args)
    return other if _SEVERITY[other.verdict] > _SEVERITY[plain.verdict] else plain


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
    errors: ErrorCounts | None = None,
    with_errors: Mapping[str, Sequence[CaseOutcome]] | None = None,
) -> Decision:
    """The gate's verdict for run A against run B under `mode` (see the module docstring).

    `endpoints` maps each figure's name ("pass rate", "mean score") to the same cases in
    the same order; a plain sequence is the pass rate alone. Values lie in [floor,
    ceiling]; errored attempts are not in them (left out). An undecided outcome (None: a
    review row, a case missing from B) is read in the worst-case reading at its least
    favourable value for the test (`floor` in B, `ceiling` in A for the exact test), also
    when it is undecided in both runs. `errors` counts the cases that had an errored attempt
    in A, in B or in both. When the error-rate test finds that B errors more, `with_errors`
    (the same figures with errored epochs as undecided, None) is read at its least
    favourable for B: INCONCLUSIVE when that reading does not PASS (without it,
    INCONCLUSIVE).
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
    unknown = ids_where(endpoints, "undecided")
    missing = ids_where(endpoints, "missing")
    left_out = _decide_reading(LEFT_OUT, reading_cases(endpoints, False, floor, ceiling), *args)
    rate_test = error_rate_test(errors, alpha) if errors is not None and errors.any else None
    common = {
        "mode": mode,
        "alpha": alpha,
        "margin": margin,
        "power": power,
        "errors": rate_test,
        "n_errored": errors.a_only + errors.b_only + errors.both if errors else 0,
    }
    readings = {LEFT_OUT: left_out}
    verdict, code, reason, test = left_out.verdict, left_out.code, left_out.reason, left_out.test
    if unknown:
        worst = _worst_reading(endpoints, floor, ceiling, args)
        k = len(unknown)
        readings[WORST] = worst
        common |= {"n_unknown": k, "n_missing": len(missing)}
        common["spread"] = spread(endpoints, floor, ceiling)
        n_review = len(unknown - missing)
        parts = [f"{n_review} in review"] if n_review else []
        parts += [f"{len(missing)} missing from B"] if missing else []
        what = f"{k} undecided case(s) ({', '.join(parts)})"
        test = worst.test
        if worst.verdict == left_out.verdict:
            reason = (
                f"{worst.reason}, with the {what} at their least favourable for B "
                f"({left_out.verdict} too with them left out)"
            )
            # Agreeing on INCONCLUSIVE, the reading without the undecided says why.
            code = left_out.code if verdict == "INCONCLUSIVE" else worst.code
        else:
            which = " and ".join(
                x for x, there in (("review rows", n_review), ("missing rows", missing)) if there
            )
            verdict, code = "INCONCLUSIVE", "undecided-rows"
            reason = (
                f"{which} decide it: {worst.verdict} with the {what} at their least favourable "
                f"for B, {left_out.verdict} with them left out"
            )
            if n_review:
                reason += "; decide the review rows (`invoke label`)"
            if missing:
                reason += "; rerun the missing cases (`invoke run --resume`)"
    if rate_test is not None and mode != "never":
        if rate_test.worse and verdict == "PASS":
            # Worse by the sign test: INCONCLUSIVE. By the share rule alone (a small suite),
            # the errors are read at their least favourable: one error in 18 cases blocks
            # only when it could have been the break that decides.
            against = None
            if with_errors is not None:
                against = _worst_reading(with_errors, floor, ceiling, args)
                readings[ERRORS_WORST] = dataclasses.replace(against, name=ERRORS_WORST)
            if rate_test.by_test or against is None or against.verdict != "PASS":
                verdict, code = "INCONCLUSIVE", "error-rate"
                found = (
                    f" ({against.verdict} with them at their least favourable)" if against else ""
                )
                reason = (
                    f"B's errors could hide breaks: {rate_test.sentence()}{found}; {reason} with "
                    "the errored attempts left out; rerun the errored cases"
                )
            else:
                reason += (
                    f"; B errors more than A ({rate_test.sentence()}), but the verdict holds with "
                    "every errored attempt at its least favourable for B"
                )
        elif rate_test.worse:
            if code == "nothing-compared":  # every case errored: the errors are why
                code, reason = "error-rate", f"{reason}: B's errors left nothing to compare"
            reason += f"; and B errors more than A ({rate_test.sentence()})"
        else:
            n = common["n_errored"]
            reason += f" ({n} case(s) with an errored attempt left out; B errors no more than A)"
    return Decision(
        verdict,
        EXIT_CODES[verdict],
        test=test,
        reason=reason,
        readings=readings,
        code=code,
        **common,
    )
