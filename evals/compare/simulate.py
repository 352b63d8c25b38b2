"""Seeded simulations of the gate: how often it fails when nothing changed, and interval coverage.

Pure functions, stdlib only (random.Random with a fixed seed: the same figures every time).
The test suite runs them so that a later change cannot quietly raise the false-alarm rate
of a mode or break the intervals.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

from evals.compare.epochs import CaseOutcome, case_from_epochs
from evals.compare.errorrate import ErrorCounts, count_errors
from evals.compare.gate import decide
from evals.compare.intervals import effect_interval

SCENARIOS = ("independent", "clustered", "unbalanced", "flaky")

_BETA = (0.8, 0.4)  # per-case pass probability, mean 2/3, many cases near 0 or 1
_N_CLUSTERS, _CLUSTER_SIZE = 12, 10
# One big help-centre article and a few small ones: what real suites look like, and where
# CR1 with G - 1 df fails about 22% of unchanged pairs at alpha 0.05.
UNBALANCED_SIZES = (60, 10, 5, 3, 1, 1)
_CLUSTER_RUN_SD = 1.0  # logit-scale noise one cluster shares within one run (naive: ~13%)
_FLAKY_N, _FLAKY_OF = 20, 200


def _logistic(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x))


Endpoints = dict[str, list[CaseOutcome]]
_FAIL_SCORES = (0.0, 1 / 3, 2 / 3)  # a failed case keeps its partial credit from run to run


def _shifted(p: float, drop: float) -> float:
    """p moved down by `drop` on the logit scale (0 and 1 stay put: those cases never vary)."""
    if drop == 0.0 or p <= 0.0 or p >= 1.0:
        return p
    return _logistic(math.log(p / (1.0 - p)) - drop)


@dataclass(frozen=True)
class Unknowns:
    """What goes wrong in a simulated pair besides the outcomes.

    `errors`: the chance that one try of an attempt ends in a transient error, in either
    run; `retries`: how often `invoke run` re-sends it (an attempt stays an error with
    chance errors ** (1 + retries); 0 is a run file written without retries). `review`:
    the chance that an attempt is left in review (undecided, read both ways by the gate).
    `b_error_share`: a B whose change makes cases error: that share of all cases, drawn
    from those that pass in A, errors in B on every attempt, whatever the retries.
    """

    errors: float = 0.0
    retries: int = 0
    review: float = 0.0
    b_error_share: float = 0.0

    @property
    def remaining(self) -> float:
        """The chance that an attempt is still an error after its retries."""
        return self.errors ** (1 + self.retries) if self.errors else 0.0


def draw_pair(
    rng: random.Random,
    scenario: str,
    epochs: int = 1,
    drop: float = 0.0,
    unknowns: Unknowns | None = None,
    n_cases: int = 200,
) -> tuple[Endpoints, ErrorCounts, Endpoints]:
    """One pair of runs A and B of the SAME system (no real change) under `scenario`, as the
    gate reads them: the two figures case by case, the cases that errored, and the figures
    with errored attempts as undecided (what the gate reads when B errors more than A).

    With `drop` > 0, B is worse: every case's pass probability falls by `drop` on the
    logit scale (for measuring power; a case that always passes or fails is left as is).
    `unknowns` adds errors (left out of the figures, as `invoke diff` does, and counted) and
    review rows (None in the figures). An attempt scores 1 when it passes, else the case's
    own partial credit (0, 1/3 or 2/3).
    """
    if epochs < 1:
        raise ValueError("epochs must be at least 1")
    u = unknowns or Unknowns()
    err, review = u.remaining, u.review
    out: Endpoints = {"pass rate": [], "mean score": []}
    flags: list[tuple[bool, bool]] = []
    drawn: list[tuple[str, float, float, str | None]] = []

    def add(case_id: str, p_a: float, p_b: float, cluster: str | None = None) -> None:
        drawn.append((case_id, p_a, _shifted(p_b, drop), cluster))

    if scenario == "independent":
        for i in range(n_cases):
            p = rng.betavariate(*_BETA)
            add(f"c{i}", p, p)
    elif scenario in ("clustered", "unbalanced"):
        sizes = (_CLUSTER_SIZE,) * _N_CLUSTERS if scenario == "clustered" else UNBALANCED_SIZES
        for g, size in enumerate(sizes):
            level = rng.gauss(0.0, 1.0)
            # The cluster's shared noise is drawn afresh for each run: one bad draw moves
            # all of its cases together, which independence-based tests do not expect.
            shock_a, shock_b = rng.gauss(0.0, _CLUSTER_RUN_SD), rng.gauss(0.0, _CLUSTER_RUN_SD)
            for j in range(size):
                mu = level + rng.gauss(0.7, 1.0)
                add(f"g{g}c{j}", _logistic(mu + shock_a), _logistic(mu + shock_b), f"g{g}")
    elif scenario == "flaky":
        for i in range(_FLAKY_OF):
            p = 0.5 if i < _FLAKY_N else float(i % 10 < 7)  # 20 coin flips, 180 fixed outcomes
            add(f"c{i}", p, p)
    else:
        raise ValueError(f"scenario must be one of {', '.join(SCENARIOS)}, not {scenario!r}")

    def attempt(p: float, partial: float) -> tuple[float | None, float | None, bool]:
        """(pass, score, errored) of one attempt; an errored one is left out (None, None)."""
        if err and rng.random() < err:
            return None, None, True
        if review and rng.random() < review:
            return None, None, False
        x = float(rng.random() < p)
        return x, x or partial, False

    sides = []
    for _, p_a, p_b, _ in drawn:
        partial = _FAIL_SCORES[int(3 * rng.random())]
        sides.append([[attempt(p, partial) for _ in range(epochs)] for p in (p_a, p_b)])
    if u.b_error_share:
        # B's change makes these cases error (a prompt that times out): drawn from the
        # cases that passed every scored attempt in A, every attempt, retries or not.
        passing = [k for k, (a, _) in enumerate(sides) if a[0][0] == 1.0]
        for k in rng.sample(passing, min(len(passing), round(u.b_error_share * len(sides)))):
            sides[k][1] = [(None, None, True)] * epochs
    both: Endpoints = {"pass rate": [], "mean score": []}  # errored attempts as undecided
    for (case_id, _, _, cluster), (a, b) in zip(drawn, sides, strict=True):
        a_kept = [(x, sc) for x, sc, e in a if not e]
        b_kept = [(x, sc) for x, sc, e in b if not e]
        passes = [not kept or any(x != 0.0 for x, _ in kept) for kept in (a_kept, b_kept)]
        errored = (any(e for *_, e in a), any(e for *_, e in b))
        flags.append((*errored, *passes))
        if any(errored):
            _append(both, case_id, [x[:2] for x in a], [x[:2] for x in b], cluster)
        if a_kept and b_kept:  # else every attempt of a run errored: it leaves the figures
            _append(out, case_id, a_kept, b_kept, cluster)
            if not any(errored):
                both["pass rate"].append(out["pass rate"][-1])
                both["mean score"].append(out["mean score"][-1])
    return out, count_errors(flags), both


Attempts = list[tuple[float | None, float | None]]


def _append(out: Endpoints, case_id: str, a: Attempts, b: Attempts, cluster: str | None) -> None:
    """One case's two figures from its (pass, score) attempts in A and in B."""
    if len(a) == len(b) == 1:  # the common setting, kept fast: one outcome per run
        (xa, sa), (xb, sb) = a[0], b[0]
        out["pass rate"].append(CaseOutcome(case_id, xa, xb, cluster))
        out["mean score"].append(CaseOutcome(case_id, sa, sb, cluster))
        return
    rate = case_from_epochs(case_id, [x for x, _ in a], [x for x, _ in b], cluster)
    score = case_from_epochs(
        case_id, [s for _, s in a], [s for _, s in b], cluster, flaky=rate.flaky
    )
    out["pass rate"].append(rate)
    out["mean score"].append(score)


def draw_scenario(
    rng: random.Random,
    scenario: str,
    epochs: int = 1,
    drop: float = 0.0,
    errors: float = 0.0,
) -> Endpoints:
    """The two figures of one pair (see draw_pair), with `errors` the chance that an attempt
    errors, in either run, and is left out."""
    return draw_pair(rng, scenario, epochs, drop, Unknowns(errors=errors))[0]


@dataclass(frozen=True)
class SimulationResult:
    """How often the gate said FAIL (and INCONCLUSIVE) over reps of two runs with no change."""

    mode: str
    scenario: str
    reps: int
    epochs: int
    seed: int
    alpha: float
    false_alarm: float  # share of reps with verdict FAIL
    inconclusive: float  # share of reps with verdict INCONCLUSIVE
    mc_se: float  # Monte Carlo SE of false_alarm

    @property
    def passed(self) -> float:
        """Share of reps with verdict PASS."""
        return 1.0 - self.false_alarm - self.inconclusive

    @property
    def null_mc_se(self) -> float:
        """MC SE of a rate equal to alpha over these reps: the yardstick for 'at most alpha'."""
        return math.sqrt(self.alpha * (1 - self.alpha) / self.reps)


def simulate_false_alarm(
    mode: str,
    scenario: str,
    reps: int = 1000,
    seed: int = 20261129,
    alpha: float = 0.05,
    *,
    epochs: int = 1,
    use_clusters: bool = True,
    margin: float = 0.05,
    drop: float = 0.0,
    errors: float = 0.0,
    retries: int = 0,
    review: float = 0.0,
    b_error_share: float = 0.0,
    n_cases: int = 200,
) -> SimulationResult:
    """Share of reps in which the gate fails when A and B are the same system.

    Both figures (pass rate and mean score) are tested, as `invoke diff` does.
    Scenarios: "independent": 200 cases, pass probability ~ Beta(0.8, 0.4) each;
    "clustered": 12 clusters x 10 cases, logit(p) = cluster level + case level + a
    cluster-run shock (sd 1.0) drawn separately for A and B; "unbalanced": the same with
    clusters of 60, 10, 5, 3, 1 and 1 cases; "flaky": 200 cases, 20 pass
    with probability 0.5 on every attempt, 180 always pass or always fail. With epochs > 1
    each run attempts each case that many times (the rate is the unit; flakiness is seen).
    use_clusters=False ignores the cluster keys, to show what independence tests do. With
    `drop` > 0 B is really worse (see draw_scenario) and the FAIL share is the power;
    `errors` is the chance that a try errors, in either run, `retries` how often a run
    re-sends it, `review` the chance that an attempt is left in review, `b_error_share`
    the share of cases passing in A that error in B (see Unknowns); `n_cases` the size of
    the "independent" suite. The result's `passed` is the share of PASS verdicts.
    """
    rng = random.Random(seed)
    fails = inconclusive = 0
    unknowns = Unknowns(errors, retries, review, b_error_share)
    for _ in range(reps):
        cases, counts, with_errors = draw_pair(rng, scenario, epochs, drop, unknowns, n_cases)
        d = decide(
            cases,
            mode,
            alpha=alpha,
            margin=margin,
            compute_mde=False,
            use_clusters=use_clusters,
            errors=counts,
            with_errors=with_errors,
        )
        fails += d.verdict == "FAIL"
        inconclusive += d.verdict == "INCONCLUSIVE"
    rate = fails / reps
    return SimulationResult(
        mode,
        scenario,
        reps,
        epochs,
        seed,
        alpha,
        rate,
        inconclusive / reps,
        math.sqrt(rate * (1 - rate) / reps),
    )


@dataclass(frozen=True)
class CoverageResult:
    """Share of reps whose interval held the true difference (0: the runs share a system)."""

    scenario: str
    reps: int
    epochs: int
    seed: int
    level: float
    coverage: float
    mc_se: float
    mean_width: float
    zero_width: int  # intervals of zero width seen (should be 0)


def simulate_coverage(
    scenario: str,
    reps: int = 1000,
    seed: int = 20261129,
    alpha: float = 0.05,
    *,
    epochs: int = 1,
    use_clusters: bool = True,
) -> CoverageResult:
    """Coverage of the gate's pass-rate interval (effect_interval) of the true change, 0 here."""
    rng = random.Random(seed)
    hits, widths, zero = 0, 0.0, 0
    for _ in range(reps):
        cases = draw_scenario(rng, scenario, epochs)["pass rate"]
        clusters = [c.cluster for c in cases] if use_clusters else None
        if clusters is not None and all(g is None for g in clusters):
            clusters = None
        a = [float(c.a) for c in cases]  # type: ignore[arg-type]
        b = [float(c.b) for c in cases]  # type: ignore[arg-type]
        ci = effect_interval(a, b, clusters, alpha)
        hits += ci.low <= 0.0 <= ci.high
        widths += ci.width
        zero += ci.width <= 0.0
    cov = hits / reps
    return CoverageResult(
        scenario,
        reps,
        epochs,
        seed,
        1 - alpha,
        cov,
        math.sqrt(cov * (1 - cov) / reps),
        widths / reps,
        zero,
    )
