"""One case in one run, over its epochs: reading rows, what was scored, what changed.

Rows whose status is `error` (the attempt failed) or `review` (a check could not decide
and a person has not yet) are counted, never scored, and counted apart: the gate leaves
errored attempts out (beside its error-rate test) and reads review rows both ways.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from evals.compare.epochs import varies
from evals.compare.intervals import TIE_TOLERANCE, mean
from evals.errors import Problem
from evals.run.files import RunFile

TOL = TIE_TOLERANCE

STATUSES = ("pass", "fail", "error", "review")
# Rows the gate cannot score: an error, or a check that could not decide (`review`, until a
# person does). Neither is ever read as a pass or a fail.
UNSCORED = ("error", "review")


@dataclass(slots=True)
class SideCase:
    """One case in one run, over its epochs: error epochs are counted, never scored."""

    n_epochs: int
    n_scored: int
    n_pass: int
    score: float | None
    failed_checks: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)  # why attempts were not scored
    passes: list[float | None] = field(default_factory=list)  # per epoch; None: not scored
    scores: list[float | None] = field(default_factory=list)
    errored: list[bool] = field(default_factory=list)  # per epoch: an error (not a review)

    @property
    def n_error(self) -> int:
        return sum(self.errored)

    @property
    def n_review(self) -> int:
        return self.n_epochs - self.n_scored - self.n_error

    def gate_epochs(self) -> tuple[list[float | None], list[float | None]]:
        """Pass and score per epoch with the errored ones left out (None: in review)."""
        if not any(self.errored):
            return self.passes, self.scores
        keep = [i for i, e in enumerate(self.errored) if not e]
        return [self.passes[i] for i in keep], [self.scores[i] for i in keep]

    @property
    def pass_rate(self) -> float | None:
        return self.n_pass / self.n_scored if self.n_scored else None

    @property
    def flaky(self) -> bool:
        """Its outcome (pass/fail or score) varied between the attempts of this run."""
        if self.n_scored < 2:
            return False
        return varies([p for p in self.passes if p is not None]) or varies(
            [s for s in self.scores if s is not None]
        )


def row_problem(row: Mapping[str, Any]) -> str | None:
    """What makes one row unreadable for the pairing, or None."""
    if not isinstance(row.get("case"), str) or not row["case"]:
        return "missing case id"
    if row.get("status") not in STATUSES:
        return f"status {row.get('status')!r} is not pass|fail|error|review"
    if not isinstance(row.get("case_sha"), str):
        return "missing case_sha"
    if not isinstance(row.get("epoch", 0), int | None):
        return f"epoch {row['epoch']!r} is not an integer"
    if row["status"] not in UNSCORED and not isinstance(row.get("score"), int | float):
        return "a pass/fail row needs a numeric score"
    if row["status"] not in UNSCORED and not 0 <= row["score"] <= 1:
        return f"score {row['score']!r} is not in [0, 1]"
    return None


def row_problems(run: RunFile) -> list[Problem]:
    """Rows the pairing cannot read, each named by its position among the case rows."""
    return [
        Problem(str(run.path), f"case row {i}", why)
        for i, row in enumerate(run.rows, 1)
        if (why := row_problem(row)) is not None
    ]


def latest_epochs(rows: Sequence[dict[str, Any]]) -> Sequence[dict[str, Any]]:
    """One case's rows with a repeated epoch kept once, as its last row (a resumed run)."""
    if len(rows) < 2:
        return rows
    latest: dict[int, dict[str, Any]] = {}
    for row in rows:
        latest[int(row.get("epoch") or 0)] = row
    return list(latest.values()) if len(latest) < len(rows) else rows


def by_case(run: RunFile) -> dict[str, Sequence[dict[str, Any]]]:
    """Rows grouped by case id; a repeated (case, epoch) keeps its last row (a resumed run)."""
    out: dict[str, Sequence[dict[str, Any]]] = {}
    for row in run.rows:
        held = out.get(row["case"])
        if held is None:
            out[row["case"]] = (row,)  # a case of one row: a tuple of one, not a list
        elif isinstance(held, tuple):
            out[row["case"]] = [*held, row]
        else:
            held.append(row)  # type: ignore[attr-defined]
    # Only a case of several rows can repeat an epoch (no key per row is held for the rest).
    for case_id, rows in out.items():
        if len(rows) > 1:
            latest: dict[int, dict[str, Any]] = {}
            for row in rows:
                latest[int(row.get("epoch") or 0)] = row
            if len(latest) < len(rows):
                out[case_id] = list(latest.values())
    return out


def side_case(
    rows: Sequence[dict[str, Any]], shared: dict[tuple[Any, ...], SideCase] | None = None
) -> SideCase:
    """One case's rows in one run, over its epochs.

    With `shared`, a case of one row gets the same SideCase as every other case of one row
    with the same outcome (a SideCase is never changed once made): 100,000 cases, most of
    them alike, held one each."""
    if len(rows) == 1:  # the common case, kept fast for large runs
        r = rows[0]
        if r["status"] in UNSCORED:
            key: tuple[Any, ...] = (r["status"], _why(r))
        else:
            score = float(r["score"])  # its sign too: -0.0 is shown as it was written
            key = (
                r["status"] == "pass",
                score,
                math.copysign(1, score),
                *(r.get("failed_checks") or []),
            )
        if shared is not None and (hit := shared.get(key)) is not None:
            return hit
        if r["status"] in UNSCORED:
            one = SideCase(1, 0, 0, None, [], [_why(r)], [None], [None], [r["status"] == "error"])
        else:
            failed_one = list(r.get("failed_checks") or [])
            passed, score = float(r["status"] == "pass"), float(r["score"])
            one = SideCase(1, 1, int(passed), score, failed_one, [], [passed], [score])
        if shared is not None:
            shared[key] = one
        return one
    scored = [r for r in rows if r["status"] not in UNSCORED]
    failed: Counter[str] = Counter()
    for r in scored:
        failed.update(r.get("failed_checks") or [])
    return SideCase(
        n_epochs=len(rows),
        n_scored=len(scored),
        n_pass=sum(1 for r in scored if r["status"] == "pass"),
        score=mean([float(r["score"]) for r in scored]) if scored else None,
        failed_checks=[name for name, _ in failed.most_common()],
        errors=sorted({_why(r) for r in rows if r["status"] in UNSCORED}),
        passes=[None if r["status"] in UNSCORED else float(r["status"] == "pass") for r in rows],
        scores=[None if r["status"] in UNSCORED else float(r["score"]) for r in rows],
        errored=[r["status"] == "error" for r in rows],
    )


def _why(row: dict[str, Any]) -> str:
    """Why a row was not scored: its error, or that a check left it for review."""
    if row["status"] == "review":
        return "review: " + str(row.get("error") or "a check could not decide")
    return str(row.get("error") or "error")


def classify(a: SideCase, b: SideCase) -> str:
    """By pass rate first (broken: it passes less often in B, fixed: more often), then by
    mean score (DOWN, up), else same. With one epoch broken is pass -> fail."""
    rate = (b.pass_rate or 0.0) - (a.pass_rate or 0.0)
    if rate < -TOL:
        return "broken"
    if rate > TOL:
        return "fixed"
    score = (b.score or 0.0) - (a.score or 0.0)
    if score < -TOL:
        return "DOWN"
    if score > TOL:
        return "up"
    return "same"
