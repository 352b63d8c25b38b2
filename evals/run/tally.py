"""The summary record built row by row, so a run keeps counts instead of every row it wrote.

`Tally.add` takes each row as it is written; `Tally.record` gives exactly what
`summary.summarise` gives over the same rows in the same order (a test holds the two to
the same record). What it keeps per row is a few numbers: the scores (as C doubles, so the
sums are the ones `sum()` gives over a list), and, only for the rows that have them, the
small parts of a row that the judge's, the labels' and the questions' counts read.
"""

from __future__ import annotations

from array import array
from collections import defaultdict
from typing import Any

from evals.run.precedents import label_counts
from evals.run.retry import retry_counts
from evals.run.summary import (
    _TOKEN_KEYS,
    _finish,
    _judged,
    _questions,
    empty_rate,
    judge_spend,
    mean_score,
    not_graded,
    question_counts,
)

# The parts of a row that the judge's counts read; every other field is left behind.
_JUDGE_FIELDS = ("kind", "judge", "judge_usage", "judge_cost_usd", "needs_review")


def _judge_part(row: dict[str, Any]) -> dict[str, Any]:
    """The row as the judge's counts see it: its judge fields and its `judge` check only."""
    out = {k: row[k] for k in _JUDGE_FIELDS if k in row}
    res = (row.get("checks") or {}).get("judge")
    out["checks"] = {"judge": res} if res is not None else {}
    if _questions(row):
        out["judge_questions"] = row["judge_questions"]
    return out


class Tally:
    """Counts, sums and the few per-row values the summary needs, added one row at a time."""

    def __init__(self, *, per_case: bool = True) -> None:
        """`per_case`: keep each case's counts for the epoch figures; a run of one epoch
        (whose rows are all epoch 0) has none to give and need not keep them."""
        self.per_case = per_case
        self.counts = {"pass": 0, "fail": 0, "review": 0, "error": 0}
        self.n = 0
        self.scores = array("d")
        self.tokens: dict[str, int] = defaultdict(int)
        self.n_priced = 0
        self.costs = array("d")
        self.cost_unknown = False
        self.spent = array("d")
        self.cached = 0
        self.no_usage = 0
        self.checks: dict[str, dict[str, Any]] = defaultdict(empty_rate)
        self.check_scores: dict[str, array[float]] = defaultdict(lambda: array("d"))
        self.categories: dict[str, dict[str, Any]] = defaultdict(empty_rate)
        self.epochs: set[int] = set()
        self.by_case: dict[str, dict[str, int]] = {}
        # Rows the judge saw, rows decided by a label, rows with questions: usually none.
        self.judge_rows: list[dict[str, Any]] = []
        self.labelled: list[dict[str, Any]] = []
        self.any_judge_cost = False
        self.any_judged = False
        # Rows that took more than one try: only they are kept for the re-send counts.
        self.retried: list[dict[str, Any]] = []

    def add(self, row: dict[str, Any]) -> None:
        """Count one case row."""
        status = row["status"]
        self.counts[status] += 1
        self.n += 1
        if status != "error" and row.get("score") is not None:
            self.scores.append(row["score"])
        usage = row.get("usage") or {}
        for k, v in usage.items():
            if isinstance(v, int):
                self.tokens[k] += v
        if status != "error" or row.get("usage") or row.get("checks"):
            self.n_priced += 1
            cost = row.get("cost_usd")
            if cost is None:
                self.cost_unknown = True
            else:
                self.costs.append(cost)
                if not row.get("cached"):
                    self.spent.append(cost)
            if not all(isinstance(usage.get(k), int) for k in _TOKEN_KEYS):
                self.no_usage += 1
        if row.get("cached"):
            self.cached += 1
        if isinstance(row.get("tries"), int) and row["tries"] > 1:
            self.retried.append({"tries": row["tries"], "status": status})
        for name, res in (row.get("checks") or {}).items():
            r = self.checks[name]
            r[res["status"]] += 1
            r["n_total"] += 1
            if res["status"] in ("pass", "fail") and isinstance(res.get("score"), int | float):
                self.check_scores[name].append(float(res["score"]))
        cat = self.categories[row.get("category") or "(none)"]
        cat[status] += 1
        cat["n_total"] += 1
        self.epochs.add(row.get("epoch", 0))
        if self.per_case:
            per = self.by_case.setdefault(
                row["case"], {"pass": 0, "fail": 0, "review": 0, "error": 0}
            )
            per[status] += 1
        judged = _judged(row)
        self.any_judged = self.any_judged or judged
        if "judge_cost_usd" in row:
            self.any_judge_cost = True
        if "judge_cost_usd" in row or "judge" in (row.get("checks") or {}) or _questions(row):
            self.judge_rows.append(_judge_part(row))
        if isinstance(row.get("precedent"), dict):
            self.labelled.append({"precedent": row["precedent"]})

    def _epochs(self) -> dict[str, Any] | None:
        if len(self.epochs) < 2:
            return None
        if not self.per_case:
            raise ValueError("rows of several epochs in a tally that keeps no per-case counts")
        per_case = {}
        for cid, r in sorted(self.by_case.items()):
            n = r["pass"] + r["fail"]
            per_case[cid] = {
                **r,
                "n_scored": n,
                "n_total": n + r["error"] + r["review"],
                "rate": round(r["pass"] / n, 6) if n else None,
            }
        flipping = [cid for cid, r in per_case.items() if r["pass"] and r["fail"]]
        return {"n": len(self.epochs), "per_case": per_case, "flipping": flipping}

    def _coverage(self) -> dict[str, Any]:
        cov = {"n_judged": 0, "n_scored": 0, "n_error": 0, "n_review": 0, "n_total": self.n}
        for row in self.judge_rows:
            if row.get("kind", "case") != "case":
                cov["n_total"] -= 1
                continue
            res = row["checks"].get("judge")
            if res is None or res.get("status") == "skip":
                continue
            cov["n_judged"] += 1
            if res.get("status") in ("pass", "fail"):
                cov["n_scored"] += 1
            elif res.get("status") == "error":
                cov["n_error"] += 1
            if row.get("needs_review"):
                cov["n_review"] += 1
        return cov

    def record(
        self,
        *,
        completed: bool,
        stopped_reason: str | None = None,
        run_id: str | None = None,
        elapsed_s: float | None = None,
        left_out: list[str] | None = None,
    ) -> dict[str, Any]:
        """The summary record, as `summarise` writes it."""
        counts = {**self.counts, "total": self.n}
        known_cost = not self.cost_unknown and bool(self.n_priced)
        judge = judge_spend(self.judge_rows)
        answers_cost = round(sum(self.costs), 6) if known_cost else None
        if not self.any_judge_cost:
            total = answers_cost
        elif answers_cost is None or judge["judge_cost_usd"] is None:
            total = None
        else:
            total = round(answers_cost + judge["judge_cost_usd"], 6)
        checks = {
            k: {**_finish(v), "score_mean": mean_score(list(self.check_scores[k]))}
            for k, v in sorted(self.checks.items())
        }
        n_scored = len(self.scores)
        return {
            "kind": "summary",
            "run_id": run_id,
            "completed": completed,
            "stopped_reason": stopped_reason,
            "counts": counts,
            "score_mean": round(sum(self.scores) / n_scored, 6) if n_scored else None,
            "n_scored": n_scored,
            "n_total": self.n,
            "checks": checks,
            "categories": {k: _finish(v) for k, v in sorted(self.categories.items())},
            "tokens": dict(self.tokens) or None,
            "n_no_usage": self.no_usage,
            "cost_usd": answers_cost,
            "spent_usd": round(sum(self.spent), 6) if known_cost else None,
            **judge,
            "total_cost_usd": total,
            "cached": self.cached,
            "retries": retry_counts(self.retried),
            "epochs": self._epochs(),
            "judge": self._coverage() if self.any_judged else None,
            "not_graded": not_graded(self.judge_rows, left_out or []),
            "labels": label_counts(self.labelled),
            "judge_questions": question_counts(self.judge_rows),
            "elapsed_s": round(elapsed_s, 3) if elapsed_s is not None else None,
        }
