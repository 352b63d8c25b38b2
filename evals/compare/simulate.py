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


def draw_scenario(
    rng: random.Random,
    scenario: str,
    epochs: int = 1,
    drop: float = 0.0,
    errors: float = 0.0,
) -> Endpoints:
    """One pair of runs A and B of the SAME system (no real change) under `scenario`.

    With `drop` > 0, B is worse: every case's pass probability falls by `drop` on the
    logit scale (for measuring power; a case that always passes or fails is left as is).
    With `errors` > 0, each attempt of either run errors with that probability, at random.

    Returns the two figures the gate tests, pass rate and mean score, case by case: an
    attempt scores 1 when it passes, else the case's own partial credit (0, 1/3 or 2/3).
    """
    if epochs < 1:
        raise ValueError("epochs must be at least 1")
    out: Endpoints = {"pass rate": [], "mean score": []}

    def add(case_id: str, p_a: float, p_b: float, cluster: str | None = None) -> None:
        partial = _FAIL_SCORES[int(3 * rng.random())]
        p_b = _shifted(p_b, drop)
        if epochs == 1:  # the common setting, kept fast: one outcome per run, never flaky
            x, y = float(rng.random() < p_a), float(rng.random() < p_b)
            if errors and (rng.random() < errors or rng.random() < errors):
                gone = rng.random() < 0.5  # which run errored (rarely both: left out)
                xa, yb = (None, y) if gone else (x, None)
                out["pass rate"].append(CaseOutcome(case_id, xa, yb, cluster))
                sa = None if xa is None else x or partial
                sb = None if yb is None else y or partial
                out["mean score"].append(CaseOutcome(case_id, sa, sb, cluster))
                return
            out["pass rate"].append(CaseOutcome(case_id, x, y, cluster))
            out["mean score"].append(CaseOutcome(case_id, x or partial, y or partial, cluster))
            return
        a = [1.0 if rng.random() < p_a else 0.0 for _ in range(epochs)]
        b = [1.0 if rng.random() < p_b else 0.0 for _ in range(epochs)]
        rate = case_from_epochs(case_id, a, b, cluster)
        scores = [[x if x else partial for x in side] for side in (a, b)]
        score = case_from_epochs(case_id, *scores, cluster, flaky=rate.flaky)
        out["pass rate"].append(rate)
        out["mean score"].append(score)

    if scenario == "independent":
        for i in range(200):
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
    return out


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
    `errors` is the chance that an attempt errors, in either run.
    """
    rng = random.Random(seed)
    fails = inconclusive = 0
    for _ in range(reps):
        cases = draw_scenario(rng, scenario, epochs, drop, errors)
        d = decide(
            cases, mode, alpha=alpha, margin=margin, compute_mde=False, use_clusters=use_clusters
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
