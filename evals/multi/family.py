"""Many candidates against one baseline, and which run is best: error rates for a family.

Pure functions, no I/O. Each candidate is judged by the release gate itself
(evals.compare.gate, significance mode); what changes with several candidates is the level.
Holm's step-down keeps the chance that ANY unchanged candidate is called worse at most alpha:
the candidate with the smallest p is gated at alpha / m, the next at alpha / (m - 1), and so
on, and once one is not called worse no later one is.

"Best" is a claim about every pair of runs, so it is tested over every pair: a two-sided
paired test of the pass rate for each pair, Holm over the m(m - 1)/2 pairs. A run is named
best only when it is significantly better than every other run; otherwise the runs that the
leader cannot be told apart from are named with it. A false "best" needs a false pairwise
claim, so the chance of one is at most alpha as well.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass

from evals.compare.gate import Decision
from evals.compare.intervals import Interval, effect_interval, holm, mean


@dataclass(frozen=True)
class CandidateVerdict:
    """The gate's verdict on one candidate at its Holm step."""

    index: int  # position among the candidates
    p_gate: float  # smallest level at which the gate's significance test fails it
    p_holm: float  # Holm-adjusted over the candidates: FAIL needs p_holm <= alpha
    step: int  # 0 for the smallest p_gate
    level: float  # alpha / (m - step): the level the gate was run at
    decision: Decision  # the gate at `level`
    verdict: str  # PASS | FAIL | INCONCLUSIVE, after Holm
    reason: str


def gate_p(decision: Decision) -> float:
    """The smallest level at which this decision's significance test says FAIL.

    Within a reading the gate splits its level over the gated figures (Bonferroni), so a
    reading fails at level L when its smallest p times the number of gated figures is at most
    L; with errors both readings must fail, so the larger of the two counts. A reading with
    nothing compared never fails: 1.
    """
    worst = 0.0
    for reading in decision.readings.values():
        gated = [f for f in reading.figures if f.gated]
        if not gated:
            return 1.0
        worst = max(worst, min(1.0, min(f.p_value for f in gated) * len(gated)))
    return worst


def holm_gate(
    deciders: Sequence[Callable[[float], Decision]], alpha: float
) -> list[CandidateVerdict]:
    """Gate each candidate at its Holm step; `deciders[i](level)` is the gate on candidate i.

    Each decider is called at `alpha` first (for its p), then at its step's level unless that
    is alpha. A candidate the gate fails after Holm has stopped (an earlier one, with a
    smaller p, was not called worse) is not called worse either.
    """
    m = len(deciders)
    if m == 0:
        return []
    first = [d(alpha) for d in deciders]
    ps = [gate_p(d) for d in first]
    adjusted = holm(ps)
    order = sorted(range(m), key=lambda i: ps[i])
    out: dict[int, CandidateVerdict] = {}
    stopped: int | None = None
    for step, i in enumerate(order):
        level = alpha / (m - step)
        decision = first[i] if m - step == 1 else deciders[i](level)
        verdict, reason = decision.verdict, decision.reason
        if verdict == "FAIL" and stopped is not None:
            verdict = "PASS"
            reason = (
                f"not called worse: Holm stops at the candidate with the next smaller p "
                f"(the gate alone: {decision.reason})"
            )
        if decision.verdict != "FAIL" and stopped is None:
            stopped = i
        out[i] = CandidateVerdict(i, ps[i], adjusted[i], step, level, decision, verdict, reason)
    return [out[i] for i in range(m)]


@dataclass(frozen=True)
class PairTest:
    """Two runs' pass rates, paired case by case: which looks better and whether it is."""

    better: int  # the run that looks better (index among all runs)
    worse: int
    n: int  # cases in the test
    interval: Interval  # worse - better, errors read against `better`
    p_two_sided: float
    p_holm: float  # Holm over every pair
    significant: bool


@dataclass(frozen=True)
class Ranking:
    """Who leads, and whether the lead is significant against every other run."""

    leader: int | None
    best: int | None  # the leader when it is significantly better than every other run
    top: list[int]  # the leader and the runs it cannot be told apart from
    pairs: list[PairTest]
    alpha: float


Outcomes = Sequence[float | None]  # one run's pass rate per case; None: not scored there


def _claim_values(
    x: Outcomes, y: Outcomes, same: Sequence[bool]
) -> tuple[list[float], list[float], list[int]]:
    """The pairs for the claim "x is better than y": x's unknowns as fails, y's as passes
    (the least favourable reading for the claim); unknown in both, or a changed case, left out."""
    xs, ys, keep = [], [], []
    for k, (a, b) in enumerate(zip(x, y, strict=True)):
        if not same[k] or (a is None and b is None):
            continue
        xs.append(0.0 if a is None else a)
        ys.append(1.0 if b is None else b)
        keep.append(k)
    return xs, ys, keep


def pair_test(
    x: Outcomes,
    y: Outcomes,
    same: Sequence[bool],
    clusters: Sequence[Hashable | None] | None,
    alpha: float,
) -> tuple[float, float, Interval | None, Interval | None, int]:
    """One-sided p that x is better than y and that y is better than x (each with the other's
    unknowns read against the claim), their intervals (loser - winner) and the cases used."""
    out: list[tuple[float, Interval | None, int]] = []
    for first, second in ((x, y), (y, x)):
        a, b, keep = _claim_values(first, second, same)
        if not keep:
            out.append((1.0, None, 0))
            continue
        keys = [clusters[k] for k in keep] if clusters is not None else None
        ci = effect_interval(a, b, keys, alpha)
        out.append((ci.p_value if ci.p_value is not None else 1.0, ci, len(keep)))
    return out[0][0], out[1][0], out[0][1], out[1][1], max(out[0][2], out[1][2])


def rank_runs(
    outcomes: Sequence[Outcomes],
    same: Sequence[Sequence[Sequence[bool]]],
    clusters: Sequence[Hashable | None] | None,
    alpha: float,
) -> Ranking:
    """Every pair of runs tested two-sided on the pass rate, Holm over the pairs; the leader
    is the run with the highest pass rate over its scored cases.

    `same[i][j][k]` says case k is the same case (same case sha) in runs i and j.
    """
    m = len(outcomes)
    rates = [
        mean([v for v in o if v is not None]) if any(v is not None for v in o) else -1.0
        for o in outcomes
    ]
    raw: list[tuple[int, int, float, Interval | None, int]] = []
    for i in range(m):
        for j in range(i + 1, m):
            p_ij, p_ji, ci_ij, ci_ji, n = pair_test(
                outcomes[i], outcomes[j], same[i][j], clusters, alpha
            )
            if p_ij <= p_ji:
                raw.append((i, j, min(1.0, 2 * p_ij), ci_ij, n))
            else:
                raw.append((j, i, min(1.0, 2 * p_ji), ci_ji, n))
    adjusted = holm([r[2] for r in raw])
    pairs = [
        PairTest(b, w, n, ci, p, q, ci is not None and q <= alpha)
        for (b, w, p, ci, n), q in zip(raw, adjusted, strict=True)
        if ci is not None
    ]
    if m == 0 or max(rates) < 0:
        return Ranking(None, None, [], pairs, alpha)
    leader = max(range(m), key=lambda i: (rates[i], -i))
    beaten = {p.worse for p in pairs if p.better == leader and p.significant}
    rest = sorted((i for i in range(m) if i != leader and i not in beaten), key=lambda i: -rates[i])
    top = [leader, *rest]
    best = leader if len(top) == 1 and m > 1 else None
    return Ranking(leader, best, top, pairs, alpha)
