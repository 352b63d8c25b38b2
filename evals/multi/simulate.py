"""Seeded simulations of `compare`: family-wise false alarms with many unchanged candidates,
and the power against one truly worse candidate.

Pure functions, stdlib only. One baseline and m candidates are drawn over the same cases
(each run attempts each case independently with the case's own pass probability), and the
candidates are judged exactly as `invoke compare` judges them: the release gate
(evals.compare.gate.decide, both figures) at each candidate's Holm step (evals.multi.family).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

from evals.compare.epochs import CaseOutcome
from evals.compare.gate import Decision, decide
from evals.multi.family import holm_gate

SCENARIOS = ("independent", "clustered", "flaky")
_FAIL_SCORES = (0.0, 1 / 3, 2 / 3)  # a failed case keeps its partial credit from run to run


def _logistic(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x))


def _shifted(p: float, drop: float) -> float:
    if drop == 0.0 or p <= 0.0 or p >= 1.0:
        return p
    return _logistic(math.log(p / (1.0 - p)) - drop)


@dataclass(frozen=True)
class Case:
    id: str
    p: float  # pass probability of the unchanged system
    partial: float  # the score of a failed attempt
    cluster: str | None
    shock_sd: float  # logit-scale noise shared by the case's cluster within one run


def draw_cases(rng: random.Random, scenario: str) -> list[Case]:
    """The suite: "independent" 200 cases with p ~ Beta(0.8, 0.4); "clustered" 12 clusters of
    10 whose cases share a run-to-run shock (sd 1 on the logit scale); "flaky" 200 cases of
    which 20 pass with probability 0.5 and 180 always pass or always fail."""
    partial = lambda: _FAIL_SCORES[int(3 * rng.random())]  # noqa: E731
    if scenario == "independent":
        return [Case(f"c{i}", rng.betavariate(0.8, 0.4), partial(), None, 0.0) for i in range(200)]
    if scenario == "clustered":
        out = []
        for g in range(12):
            level = rng.gauss(0.0, 1.0)
            for j in range(10):
                p = _logistic(level + rng.gauss(0.7, 1.0))
                out.append(Case(f"g{g}c{j}", p, partial(), f"g{g}", 1.0))
        return out
    if scenario == "flaky":
        return [
            Case(f"c{i}", 0.5 if i < 20 else float(i % 10 < 7), partial(), None, 0.0)
            for i in range(200)
        ]
    raise ValueError(f"scenario must be one of {', '.join(SCENARIOS)}, not {scenario!r}")


def draw_run(
    rng: random.Random, cases: list[Case], drop: float = 0.0
) -> tuple[list[float], list[float]]:
    """One run's pass (1/0) and score per case; `drop` > 0 lowers every case's logit."""
    shocks: dict[str | None, float] = {}
    passes, scores = [], []
    for c in cases:
        p = _shifted(c.p, drop)
        if c.shock_sd and 0.0 < p < 1.0:
            if c.cluster not in shocks:
                shocks[c.cluster] = rng.gauss(0.0, c.shock_sd)
            p = _logistic(math.log(p / (1.0 - p)) + shocks[c.cluster])
        x = float(rng.random() < p)
        passes.append(x)
        scores.append(x or c.partial)
    return passes, scores


def _endpoints(
    cases: list[Case], base: tuple[list[float], list[float]], cand: tuple[list[float], list[float]]
) -> dict[str, list[CaseOutcome]]:
    return {
        name: [
            CaseOutcome(c.id, a, b, c.cluster)
            for c, a, b in zip(cases, base[k], cand[k], strict=True)
        ]
        for k, name in enumerate(("pass rate", "mean score"))
    }


def _gate(endpoints: dict[str, list[CaseOutcome]], level: float) -> Decision:
    return decide(endpoints, alpha=level, compute_mde=False)


@dataclass(frozen=True)
class FamilyResult:
    """Shares of repetitions: any unchanged candidate failed; the worse one failed."""

    scenario: str
    n_candidates: int
    drop: float
    reps: int
    seed: int
    alpha: float
    family_false_alarm: float  # some unchanged candidate was called worse
    power: float | None  # the truly worse candidate was called worse (None: there is none)

    @property
    def mc_se(self) -> float:
        """Monte Carlo SE of a rate equal to alpha over these reps."""
        return math.sqrt(self.alpha * (1 - self.alpha) / self.reps)


def simulate_family(
    n_candidates: int,
    scenario: str = "independent",
    reps: int = 500,
    seed: int = 20261202,
    alpha: float = 0.05,
    drop: float = 0.0,
    holm: bool = True,
) -> FamilyResult:
    """How often `compare` calls an unchanged candidate worse (any of them: the family-wise
    rate), and with `drop` > 0 how often it calls the one truly worse candidate (the last)
    worse; the other candidates and the baseline are the same system. `holm=False` gates
    every candidate at alpha instead (m separate diffs), to show what the correction buys."""
    rng = random.Random(seed)
    false_alarms = hits = 0
    for _ in range(reps):
        cases = draw_cases(rng, scenario)
        base = draw_run(rng, cases)
        deciders: list[Callable[[float], Decision]] = []
        for j in range(n_candidates):
            worse = drop if drop and j == n_candidates - 1 else 0.0
            deciders.append(partial(_gate, _endpoints(cases, base, draw_run(rng, cases, worse))))
        if holm:
            verdicts = [v.verdict for v in holm_gate(deciders, alpha)]
        else:
            verdicts = [d(alpha).verdict for d in deciders]
        unchanged = verdicts[:-1] if drop else verdicts
        false_alarms += "FAIL" in unchanged
        hits += bool(drop) and verdicts[-1] == "FAIL"
    return FamilyResult(
        scenario,
        n_candidates,
        drop,
        reps,
        seed,
        alpha,
        false_alarms / reps,
        hits / reps if drop else None,
    )
