"""The cases of several runs side by side: one cell per case and run, disagreements first.

Pure functions over run rows (no files, no flags). A cell is what one run did with one case
over its attempts: pass, fail, review (a check could not decide), error (no attempt was
scored) or missing (the run has no row for the case). Rows are read as the diff reads them
(evals.compare.sides): a repeated (case, epoch) keeps its last row.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from evals.compare.sides import UNSCORED, by_case
from evals.run.files import RunFile

CELL_STATES = ("pass", "fail", "review", "error", "missing")


@dataclass(frozen=True)
class Cell:
    """One case in one run, over its attempts."""

    status: str  # one of CELL_STATES
    n_epochs: int = 0
    n_scored: int = 0
    n_pass: int = 0
    score: float | None = None  # mean over scored attempts
    case_sha: str | None = None
    answer: str | None = None  # the last attempt's draft
    error: str | None = None
    checks: dict[str, dict[str, Any]] = field(default_factory=dict)  # last attempt's results

    @property
    def pass_rate(self) -> float | None:
        """Share of scored attempts that passed; None when none was scored."""
        return self.n_pass / self.n_scored if self.n_scored else None

    @property
    def text(self) -> str:
        """The cell as a grid shows it: the status, or `2/3 pass` over several attempts."""
        if self.n_scored > 1 and 0 < self.n_pass < self.n_scored:
            return f"{self.n_pass}/{self.n_scored} pass"
        return self.status


@dataclass(frozen=True)
class GridRow:
    """One case across the runs."""

    id: str
    question: str
    cells: list[Cell]
    same_case: bool  # every run that has it ran the same case file (same sha)
    cluster: str | None = None  # the rows' cluster key (cases sharing a source document)

    @property
    def disagree(self) -> bool:
        """Whether the runs did not all do the same with it (by status and attempt counts)."""
        return len({c.text for c in self.cells}) > 1 or not self.same_case

    def n_off(self, baseline: int) -> int:
        """How many runs differ from the baseline's cell."""
        ref = self.cells[baseline].text
        return sum(1 for c in self.cells if c.text != ref)


@dataclass(frozen=True)
class CheckRates:
    """One check across the runs: passes, scored and errored results per run."""

    name: str
    passed: list[int]
    scored: list[int]
    errored: list[int]
    n_disagree: int  # cases whose status for this check is not the same in every run

    def rate(self, run: int) -> float | None:
        return self.passed[run] / self.scored[run] if self.scored[run] else None


def cell(rows: Sequence[dict[str, Any]] | None) -> Cell:
    """The cell of one case's rows in one run."""
    if not rows:
        return Cell("missing")
    scored = [r for r in rows if r.get("status") not in UNSCORED]
    n_pass = sum(1 for r in scored if r.get("status") == "pass")
    last = rows[-1]
    if scored:
        status = "pass" if n_pass == len(scored) else "fail"
        score = sum(float(r.get("score") or 0.0) for r in scored) / len(scored)
    else:
        status = "error" if any(r.get("status") == "error" for r in rows) else "review"
        score = None
    checks = last.get("checks")
    return Cell(
        status=status,
        n_epochs=len(rows),
        n_scored=len(scored),
        n_pass=n_pass,
        score=score,
        case_sha=last.get("case_sha") if isinstance(last.get("case_sha"), str) else None,
        answer=None if last.get("draft") is None else str(last.get("draft")),
        error=None if last.get("error") is None else str(last.get("error")),
        checks=checks if isinstance(checks, dict) else {},
    )


def build_grid(runs: Sequence[RunFile], baseline: int = 0) -> list[GridRow]:
    """Every case of any run, one cell per run; the cases where the runs disagree come first,
    those that most runs do differently from the baseline before the others, then by id."""
    grouped = [by_case(r) for r in runs]
    ids = sorted({i for g in grouped for i in g})
    rows = []
    for case_id in ids:
        cells = [cell(g.get(case_id)) for g in grouped]
        shas = {c.case_sha for c in cells if c.status != "missing"}
        question = next(
            (str(g[case_id][0].get("question") or "") for g in grouped if case_id in g), ""
        )
        cluster = next(
            (str(r["cluster"]) for g in grouped for r in g.get(case_id, ()) if r.get("cluster")),
            None,
        )
        rows.append(GridRow(case_id, question, cells, len(shas) <= 1, cluster))
    rows.sort(key=lambda r: (not r.disagree, -r.n_off(baseline), r.id))
    return rows


def check_rates(grid: Sequence[GridRow], n_runs: int) -> list[CheckRates]:
    """Each check's pass counts per run (the last attempt of every case), and how many cases
    the runs disagree on for it; the checks with most disagreement first."""
    names = sorted({n for r in grid for c in r.cells for n in c.checks})
    out = []
    for name in names:
        passed, scored, errored = [0] * n_runs, [0] * n_runs, [0] * n_runs
        n_disagree = 0
        for row in grid:
            states = []
            for k, c in enumerate(row.cells):
                res = c.checks.get(name)
                status = res.get("status") if isinstance(res, dict) else None
                states.append(status)
                if status in ("pass", "fail"):
                    scored[k] += 1
                    passed[k] += status == "pass"
                elif status == "error":
                    errored[k] += 1
            n_disagree += len(set(states)) > 1
        out.append(CheckRates(name, passed, scored, errored, n_disagree))
    out.sort(key=lambda c: (-c.n_disagree, c.name))
    return out
