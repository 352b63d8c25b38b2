"""Several runs of one suite compared: each run's figures, each candidate against the baseline
with the gate at its Holm step, every pair for "best", and the case-by-run grid."""

from __future__ import annotations

import functools
import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

from evals.compare.gate import Decision
from evals.compare.pairing import Comparison, compare_runs
from evals.errors import InputError, Problem
from evals.maths.distributions import t_ppf
from evals.multi.family import CandidateVerdict, Ranking, holm_gate, rank_runs
from evals.multi.grid import CheckRates, GridRow, build_grid, check_rates
from evals.run.files import RunFile
from evals.seal.rates import wilson


@dataclass(frozen=True)
class RunFigures:
    """One run on its own: what it is, and its pass rate and mean score with intervals and n."""

    key: str  # R0, R1, ...: how the tables name it
    label: str
    path: str
    run_id: str
    model: str
    prompt_sha: str
    n_cases: int
    n_scored: int
    n_error: int
    n_review: int
    n_missing: int  # cases other runs have and this one does not
    pass_rate: float | None
    pass_ci: tuple[float, float] | None
    mean_score: float | None
    score_ci: tuple[float, float] | None


@dataclass(frozen=True)
class Candidate:
    """One candidate against the baseline: the diff's comparison and the gate's verdict."""

    run: int  # index among the runs
    comparison: Comparison  # at level alpha: the figures shown
    verdict: CandidateVerdict
    gated: bool  # --gate names it: its verdict sets the exit code


@dataclass(frozen=True)
class MultiComparison:
    """Everything the renderers show."""

    runs: list[RunFigures]
    baseline: int
    candidates: list[Candidate]
    ranking: Ranking
    grid: list[GridRow]
    checks: list[CheckRates]
    alpha: float

    @property
    def disagreeing(self) -> list[GridRow]:
        return [r for r in self.grid if r.disagree]

    def exit_verdict(self) -> str:
        """FAIL when a gated candidate fails, else INCONCLUSIVE when one is, else PASS."""
        verdicts = {c.verdict.verdict for c in self.candidates if c.gated}
        return next((v for v in ("FAIL", "INCONCLUSIVE") if v in verdicts), "PASS")


def labels(runs: Sequence[RunFile]) -> list[str]:
    """A short name per run: its label (or model), made unique with the run id when shared."""
    names = [str(r.header.get("label") or r.header.get("model") or r.run_id) for r in runs]
    return [
        n if names.count(n) == 1 else f"{n} ({r.run_id})" for n, r in zip(names, runs, strict=True)
    ]


def _z(alpha: float) -> float:
    return statistics.NormalDist().inv_cdf(1 - alpha / 2)


def _mean_ci(xs: list[float], alpha: float) -> tuple[float, float] | None:
    if len(xs) < 2:
        return None
    m = math.fsum(xs) / len(xs)
    half = t_ppf(1 - alpha / 2, len(xs) - 1) * statistics.stdev(xs) / math.sqrt(len(xs))
    return max(0.0, m - half), min(1.0, m + half)


def run_figures(
    index: int, run: RunFile, label: str, grid: Sequence[GridRow], alpha: float
) -> RunFigures:
    """A run's own pass rate (Wilson; over epochs, the t interval of the per-case rates) and
    mean score (t interval), each over the cases it scored."""
    cells = [r.cells[index] for r in grid]
    scored = [c for c in cells if c.n_scored]
    rates = [c.pass_rate for c in scored if c.pass_rate is not None]
    scores = [c.score for c in scored if c.score is not None]
    if any(c.n_scored > 1 for c in scored):
        pass_ci = _mean_ci(rates, alpha)
    else:
        pass_ci = wilson(sum(c.n_pass for c in scored), len(scored), _z(alpha))
    return RunFigures(
        key=f"R{index}",
        label=label,
        path=str(run.path),
        run_id=run.run_id,
        model=str(run.header.get("model") or ""),
        prompt_sha=str(run.header.get("prompt_sha") or "")[:7],
        n_cases=sum(1 for c in cells if c.status != "missing"),
        n_scored=len(scored),
        n_error=sum(1 for c in cells if c.status == "error"),
        n_review=sum(1 for c in cells if c.status == "review"),
        n_missing=sum(1 for c in cells if c.status == "missing"),
        pass_rate=math.fsum(rates) / len(rates) if rates else None,
        pass_ci=pass_ci,
        mean_score=math.fsum(scores) / len(scores) if scores else None,
        score_ci=_mean_ci(scores, alpha),
    )


def _ranking(grid: Sequence[GridRow], n_runs: int, alpha: float) -> Ranking:
    outcomes = [[r.cells[k].pass_rate for r in grid] for k in range(n_runs)]
    same = [
        [
            [
                r.cells[i].case_sha is None
                or r.cells[j].case_sha is None
                or r.cells[i].case_sha == r.cells[j].case_sha
                for r in grid
            ]
            for j in range(n_runs)
        ]
        for i in range(n_runs)
    ]
    keyed = any(r.cluster is not None for r in grid)
    return rank_runs(outcomes, same, [r.cluster for r in grid] if keyed else None, alpha)


def compare_many(
    runs: Sequence[RunFile], baseline: int, gated: Sequence[int], alpha: float = 0.05
) -> MultiComparison:
    """Compare every run but the baseline against it, and every pair for "best".

    Raises InputError with every problem at once when some candidate cannot be paired with
    the baseline (another suite, a sealed run against an unsealed one, unreadable rows).
    """
    if len(runs) < 2:
        raise InputError("compare needs at least two runs (a baseline and one candidate)")
    base = runs[baseline]
    others = [i for i in range(len(runs)) if i != baseline]
    kept: dict[int, Comparison] = {}
    problems: list[Problem] = []
    for i in others:  # every pairing problem at once, before any figure is computed
        try:
            kept[i] = compare_runs(base, runs[i], alpha=alpha)
        except InputError as exc:
            problems.extend(exc.problems)
    if problems:
        raise InputError(list(dict.fromkeys(problems)))

    def gate_at(i: int, level: float) -> Decision:
        return (
            kept[i].decision
            if level == alpha
            else compare_runs(base, runs[i], alpha=level).decision
        )

    verdicts = holm_gate([functools.partial(gate_at, i) for i in others], alpha)
    grid = build_grid(runs, baseline)
    names = labels(runs)
    return MultiComparison(
        runs=[run_figures(k, r, names[k], grid, alpha) for k, r in enumerate(runs)],
        baseline=baseline,
        candidates=[
            Candidate(i, kept[i], v, i in gated) for i, v in zip(others, verdicts, strict=True)
        ],
        ranking=_ranking(grid, len(runs), alpha),
        grid=grid,
        checks=check_rates(grid, len(runs)),
        alpha=alpha,
    )
