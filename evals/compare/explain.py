"""The diff's sentences: the verdict, how to read the figures, power, clusters, epochs, errors.

Shared word for word by the Markdown, text and HTML reports. Plain text: each renderer
escapes it for its own format. Every sentence is built from figures the JSON carries too.
"""

from __future__ import annotations

from evals.compare.figures import Figure, fmt_change, in_points
from evals.compare.gate import ERRORS_WORST, LEFT_OUT, WORST, Reading
from evals.compare.headers import RunInfo
from evals.compare.pairing import Comparison

MODE_WHAT = {
    "significant": "fails when B is worse with a one-sided p at or below its level",
    "noninferior": "passes when the lower end of every interval is above -margin",
    "strict": "fails on any case that went down and is not known to be flaky",
    "never": "never fails",
}


def fmt_p(p: float | None) -> str:
    """A p-value: four decimals, scientific notation below 0.0001."""
    return "n/a" if p is None else (f"{p:.4f}" if p >= 0.0001 else f"{p:.2e}")


def fmt_interval(f: Figure) -> str:
    """`[-7.2, -1.9] pts` for a rate, `[-0.041, +0.003]` for a score."""
    ci = f.interval
    if in_points(f.name):
        return f"[{100 * ci.low:+.1f}, {100 * ci.high:+.1f}] pts"
    return f"[{ci.low:+.3f}, {ci.high:+.3f}]"


def fmt_estimate(f: Figure) -> str:
    return fmt_change(f.interval.estimate, f.name).replace(" points", " pts")


def verdict_line(cmp: Comparison) -> str:
    """Which mode decided, the verdict and why, in one sentence."""
    d = cmp.decision
    return f"{d.verdict} (--fail-on {d.mode}, which {MODE_WHAT[d.mode]}): {d.reason}. [{d.code}]"


def how_to_read(cmp: Comparison) -> list[str]:
    """A short guide to the figures, with this diff's own settings filled in."""
    d, s = cmp.decision, cmp.stats
    level = f"{1 - d.alpha:.0%}"
    figures = d.main.figures
    lines = [
        "B - A is after minus before: a negative change means B is worse. Pass rates are in "
        "points (1 point = 1% of cases), mean scores on their 0-1 scale.",
        f"Each interval is two-sided at {level} (--alpha {d.alpha:g} sets it: level = "
        f"1 - alpha); it misses the true change in at most about {d.alpha:.0%} of comparisons.",
    ]
    if d.mode == "significant":
        k = sum(1 for f in figures if f.gated) or 1
        each = f"{k} figures at {d.alpha / k:.3g} each" if k > 1 else f"1 figure at {d.alpha:g}"
        lines.append(
            "A p-value is one-sided: the chance of a drop at least this large if B were no "
            f"worse than A. The gate tests {each}, so when nothing changed it fails in at "
            f"most {d.alpha:.0%} of comparisons."
        )
    elif d.mode == "noninferior":
        lines.append(
            f"The gate passes when the lower end of each {level} interval is above "
            f"-{s.margin:g} (--margin; {100 * s.margin:g} points of pass rate), fails when an "
            "upper end is below it, and is inconclusive in between."
        )
    elif d.mode == "strict":
        lines.append(
            "The gate fails on any single case that went down unless its attempts show it is "
            "flaky; it does not weigh fixes against breaks."
        )
    else:
        lines.append("The gate is off: the figures are for reading only.")
    lines.append(
        "Errored attempts (still errors after `invoke run` re-sent them) are left out of every "
        "figure; when B errors on more cases than A, the gate says INCONCLUSIVE (exit 3) "
        "rather than let its errors hide breaks."
    )
    lines.append(
        "Undecided outcomes (rows in review, which a check could not decide and no person has "
        "yet, and cases missing from B) are not errors: when they could change the verdict, "
        "the gate reads them both ways and says INCONCLUSIVE (exit 3)."
    )
    if not cmp.epochs.known:
        lines.append(
            "With one attempt per case, flakiness cannot be seen: run both with --epochs 3 "
            "(or more) to tell noise from change."
        )
    return lines


def _pow2(m: int) -> str:
    return f"1/{2**m:,}" if m <= 20 else f"2^-{m}"


def power_lines(cmp: Comparison) -> list[str]:
    """What the tests in use could detect, and when no result at this n could be significant."""
    d = cmp.decision
    out = []
    prefix = "" if d.mode == "significant" else "(The test of --fail-on significant.) "
    where = f" ({d.main.name})" if len(d.readings) > 1 else ""
    for f in d.main.figures:
        if not f.gated:
            out.append(
                f"{f.name.capitalize()} is shown, not gated on: every change in it is the same "
                f"multiple of the change in {f.follows}, so it tests nothing new."
            )
            continue
        mc = f.interval.mcnemar
        if mc is not None and mc.n_discordant == 0:
            out.append(
                f"{f.name.capitalize()}: no case flipped between pass and fail, so the exact "
                "McNemar test has nothing to weigh (p = 1)."
            )
        elif mc is not None and f.smallest_p is not None:
            text = (
                f"{f.name.capitalize()}: with {mc.n_discordant} discordant pair(s) the smallest "
                f"one-sided p the exact McNemar test can give is {_pow2(mc.n_discordant)} = "
                f"{fmt_p(f.smallest_p)}"
            )
            if f.reachable:
                out.append(f"{text}, within its level {f.level:.3g}.")
            else:
                out.append(
                    f"{text} > {f.level:.3g}: no result at this n could be significant; "
                    "add cases or epochs."
                )
        n, test = d.main.n_paired, _test_name(f)
        drop = fmt_change(f.max_drop or 0.0, f.name).lstrip("+-")
        if f.mde_kind == "none" and mc is not None:
            out.append(
                f"{prefix}No change in {f.name} is detectable at this n: with {n} paired "
                f"case(s) the {test} cannot reach {f.level:.3g} even if every case broke."
            )
        elif f.mde_kind == "none":
            out.append(
                f"{prefix}No change in {f.name} is detectable at this n: with the noise seen, "
                f"the {test} cannot reach {f.level:.3g} even if every case dropped by {drop}; "
                "no drop this size can be detected."
            )
        elif f.mde_kind == "beyond":
            out.append(
                f"{prefix}No drop in {f.name} can be detected with {d.power:.0%} power: with "
                f"{n} paired cases{where} the {test} at {f.level:.3g} would need a drop larger "
                f"than {drop}, the most any change can be."
            )
        elif f.mde_kind == "unknown":
            out.append(
                f"The smallest detectable drop in {f.name} is unknown: the changes do not vary, "
                "so there is no estimate of the noise."
            )
        elif f.mde is not None:
            how = "exact power" if f.mde_kind == "exact" else "from the observed standard error"
            size = fmt_change(f.mde, f.name).lstrip("+")
            out.append(
                f"{prefix}With {n} paired cases{where} the {test} at {f.level:.3g} detects a drop in "
                f"{f.name} of {size} or more with {d.power:.0%} power ({how})."
            )
    return out


def _test_name(f: Figure) -> str:
    ci = f.interval
    if ci.mcnemar is not None:
        return "exact McNemar test"
    if ci.df is None:  # no variation to estimate the noise from: a score interval instead
        return f"test ({ci.method})"
    if ci.n_clusters:
        return f"cluster-robust t test ({ci.n_clusters} clusters, {ci.df:.3g} df)"
    return f"paired t test ({ci.df:.3g} df)"


def cluster_line(cmp: Comparison) -> str:
    """Where the cluster keys come from and whether the figures used them."""
    c = cmp.clusters
    source = (
        "the cases' `cluster` field (a case without one falls back to its first expected "
        "source when the run is made)"
    )
    if not c.n_keyed:
        line = (
            "Clusters: none (no paired case has a `cluster` key or an expected source), so "
            "cases count as independent."
        )
        if c.n_sharing:
            line += (
                f" But {c.n_sharing} case(s) retrieved a document another case did: if cases "
                "that share a source move together, a test that counts them as independent "
                "fails more often than alpha says (11.7% at 0.05 in a simulation). Give them "
                "a `cluster` field (or expected `sources`)."
            )
        return line
    alone = c.n_cases - c.n_keyed
    lone = f"; {alone} case(s) with neither count as their own cluster" if alone else ""
    if not c.used:
        return f"Clusters: every paired case shares one key from {source}, so cases count as independent."
    robust = [f for f in cmp.decision.main.figures if f.interval.method.startswith("cluster")]
    if not robust:
        return (
            f"Clusters: {c.n_clusters} from {source}{lone}. No change varied, so there is no "
            "cluster-to-cluster noise to estimate: the intervals fall back to score intervals, "
            "with cases as independent."
        )
    df = robust[0].interval.df or 0.0
    return (
        f"Clusters: {c.n_clusters} from {source}{lone}. Intervals, tests and detectable "
        f"changes are cluster-robust (CR2 standard error, Bell-McCaffrey degrees of freedom: "
        f"{df:.3g} here; G - 1 = {c.n_clusters - 1} would need equal clusters), so a few "
        "large clusters weigh as the little evidence they are."
    )


def epoch_lines(cmp: Comparison) -> list[str]:
    """Attempts per case, flaky cases, and how the noise splits between cases and epochs."""
    e = cmp.epochs
    if not e.known:
        return [
            f"Epochs: {max(e.epochs_a, e.epochs_b)} scored attempt per case, so flakiness is "
            "unknown: a case that flipped between the runs may be noise."
        ]
    out = [
        f"Epochs: up to {e.epochs_a} attempts per case in A and {e.epochs_b} in B; each case's "
        f"pass rate over its attempts is the unit (not a majority vote). {len(e.flaky)} "
        "case(s) are flaky (their outcome varied within a run) and are listed separately."
    ]
    p = e.paired
    if p is not None and p.epoch_share is not None:
        out.append(
            f"Of the noise in the mean pass-rate change, {p.epoch_share:.0%} is "
            f"attempt-to-attempt (more epochs shrink it) and {1 - p.epoch_share:.0%} "
            f"case-to-case (only more cases shrink it): SE {100 * p.se:.1f} points now, "
            f"{100 * p.se_with_epochs(10):.1f} with 10 epochs."
        )
    for side, split in (("A", e.split_a), ("B", e.split_b)):
        if split is not None:
            naive = split.se_if_attempts_independent
            wrong = (
                f" ({100 * naive:.1f} if every attempt counted as a case, which understates it)"
                if naive < split.se
                else ""
            )
            out.append(
                f"Run {side}: SE of the pass rate {100 * split.se:.1f} points with cases as the "
                f"unit{wrong}."
            )
    return out


def _reading_text(r: Reading) -> str:
    figures = "; ".join(
        f"{f.name} {fmt_estimate(f)} {fmt_interval(f)}, p = {fmt_p(f.p_value)}" for f in r.figures
    )
    return f"{r.name}: {r.verdict} over {r.n_paired} case(s)" + (f" ({figures})" if figures else "")


def _not_scored(info: RunInfo) -> str:
    return f"{info.n_error_rows} errored, {info.n_review_rows} in review, of {info.n_rows}"


def error_lines(cmp: Comparison) -> list[str]:
    """How errored, undecided and missing attempts were read, and how far they move things."""
    d = cmp.decision
    out = [
        f"Rows not scored: A {_not_scored(cmp.a)}; B {_not_scored(cmp.b)}. Errors and rows in "
        "review are never scored, and are counted apart."
    ]
    if d.errors is not None:
        out.append(
            f"Errored attempts are left out of the figures ({d.n_errored} case(s) had one; "
            f"{len(cmp.errored)} of them had no attempt left in a run and are not paired). "
            f"Error-rate test: {d.errors.sentence()}."
        )
    if ERRORS_WORST in d.readings:
        out.append(
            "B errors more than A, so its errors were also read at their least favourable: "
            f"{_reading_text(d.readings[ERRORS_WORST])}."
        )
    if cmp.only_a:
        gone = len(cmp.only_a) - d.n_missing
        also = f" ({gone} of them errored in A too and are left out)" if gone else ""
        out.append(
            f"{len(cmp.only_a)} case(s) of A are missing from B{also}: the gate reads each "
            "one that A scored as undecided in B (it could have gone either way), never as "
            "nothing."
        )
    if WORST in d.readings:
        parts = [f"{d.n_review} in review"] if d.n_review else []
        parts += [f"{d.n_missing} missing from B"] if d.n_missing else []
        out.append(
            f"{d.n_unknown} case(s) ({', '.join(parts)}) have undecided outcomes, so the gate "
            f"decided twice: {_reading_text(d.readings[LEFT_OUT])}; "
            f"{_reading_text(d.readings[WORST])} (each undecided outcome at its least "
            "favourable value for the test: a fail in B and a pass in A for the exact test, "
            "also when it is undecided in both runs; whatever minimises p for a t test)."
        )
        for f in d.readings[LEFT_OUT].figures:
            lo, hi = d.spread.get(f.name, (None, None))
            if lo is None or hi is None:
                continue
            out.append(
                f"How far the undecided outcomes can move {f.name} B - A: from "
                f"{fmt_change(lo, f.name)} (all against B) to {fmt_change(hi, f.name)} (all "
                f"for B); {fmt_change(f.interval.estimate, f.name)} with them left out."
            )
    return out


def stats_lines(cmp: Comparison) -> list[str]:
    """Every sentence under the figures, in the order the reports show them."""
    out = power_lines(cmp) + [cluster_line(cmp)] + epoch_lines(cmp) + error_lines(cmp)
    untested = [g.name for g in cmp.categories if not g.testable]
    if untested:
        names = ", ".join(untested[:5]) + (", …" if len(untested) > 5 else "")
        out.append(
            f"Categories: {len(untested)} of {len(cmp.categories)} hold fewer than two "
            f"clusters ({names}): no per-category test is possible there, since one cluster's "
            "cases move together and count as one piece of evidence."
        )
    s = cmp.stats
    if s.n_paired:
        out.append(
            f"Mean score moves: {s.n_up} case(s) up, {s.n_down} down, {s.n_ties} unchanged "
            "(the test is about the mean change, not these counts)."
        )
    for side, info in (("A", cmp.a), ("B", cmp.b)):
        if not info.complete:
            what = "read like errors in B" if side == "B" else "not compared"
            out.append(
                f"Run {side} is incomplete (no completed summary): the cases it lacks are {what}."
            )
        out.extend(f"Run {side}: {w}" for w in info.warnings)
    if cmp.deprecated:
        out.append(cmp.deprecated + ".")
    return out
