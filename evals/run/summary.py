"""Aggregates over case rows: counts, per-check and per-category rates, each with its n."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from evals.run.precedents import label_counts
from evals.run.retry import retry_counts

_TOKEN_KEYS = ("prompt_tokens", "completion_tokens")


def empty_rate() -> dict[str, Any]:
    """A rate record with every count at zero and no rate."""
    return {
        "pass": 0,
        "fail": 0,
        "review": 0,
        "error": 0,
        "skip": 0,
        "n_scored": 0,
        "n_total": 0,
        "rate": None,
    }


def _finish(rate: dict[str, Any]) -> dict[str, Any]:
    rate["n_scored"] = rate["pass"] + rate["fail"]
    rate["rate"] = round(rate["pass"] / rate["n_scored"], 6) if rate["n_scored"] else None
    return rate


def mean_score(scores: list[float]) -> float | None:
    """The mean of the scores given, or None when there are none (never 0 for "nothing")."""
    return round(sum(scores) / len(scores), 6) if scores else None


def check_rates(rows: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per check: how many rows passed, failed, errored, skipped; the pass rate and the mean
    score over the scored ones (a partial score, such as 2 of 3 facts, counts as it is)."""
    rates: dict[str, dict[str, Any]] = defaultdict(empty_rate)
    scores: dict[str, list[float]] = defaultdict(list)
    for row in rows:
        for name, res in (row.get("checks") or {}).items():
            r = rates[name]
            r[res["status"]] += 1
            r["n_total"] += 1
            if res["status"] in ("pass", "fail") and isinstance(res.get("score"), int | float):
                scores[name].append(float(res["score"]))
    return {
        k: {**_finish(v), "score_mean": mean_score(scores[k])} for k, v in sorted(rates.items())
    }


def category_rates(rows: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per category: the case pass rate over the cases that were scored (errors excluded)."""
    rates: dict[str, dict[str, Any]] = defaultdict(empty_rate)
    for row in rows:
        r = rates[row.get("category") or "(none)"]
        r[row["status"]] += 1
        r["n_total"] += 1
    return {k: _finish(v) for k, v in sorted(rates.items())}


def epoch_stats(rows: list[dict[str, Any]]) -> dict[str, Any] | None:
    """With several epochs: each case's pass rate over its scored epochs, and the flipping cases.

    A case flips when it passed in some epoch and failed in another; errors are counted
    apart and never make a flip.
    """
    by_case: dict[str, dict[str, Any]] = {}
    epochs = set()
    for row in rows:
        epochs.add(row.get("epoch", 0))
        r = by_case.setdefault(row["case"], {"pass": 0, "fail": 0, "review": 0, "error": 0})
        r[row["status"]] += 1
    if len(epochs) < 2:
        return None
    per_case = {}
    for cid, r in sorted(by_case.items()):
        n = r["pass"] + r["fail"]
        per_case[cid] = {
            **r,
            "n_scored": n,
            "n_total": n + r["error"] + r["review"],
            "rate": round(r["pass"] / n, 6) if n else None,
        }
    flipping = [cid for cid, r in per_case.items() if r["pass"] and r["fail"]]
    return {"n": len(epochs), "per_case": per_case, "flipping": flipping}


def _attempts(row: dict[str, Any]) -> int:
    j = row.get("judge")
    n = j.get("attempts") if isinstance(j, dict) and not j.get("cached") else 0
    asked = [q.get("attempts") for q in _questions(row) if not q.get("cached")]
    return sum(a for a in [n, *asked] if isinstance(a, int) and a > 0)


def _questions(row: dict[str, Any]) -> list[dict[str, Any]]:
    qs = row.get("judge_questions")
    return [q for q in qs if isinstance(q, dict)] if isinstance(qs, list) else []


def question_counts(rows: list[dict[str, Any]]) -> dict[str, int] | None:
    """What the judge was asked about items the checks left in review: rows, questions, and
    how they were answered; None when nothing was asked."""
    asked = [r for r in rows if _questions(r)]
    if not asked:
        return None
    qs = [q for r in asked for q in _questions(r)]
    return {
        "n_rows": len(asked),
        "n_questions": len(qs),
        "stated": sum(1 for q in qs if q.get("error") is None and q.get("stated") is True),
        "not_stated": sum(1 for q in qs if q.get("error") is None and q.get("stated") is False),
        "error": sum(1 for q in qs if q.get("error") is not None),
        "claims": sum(1 for q in qs if q.get("kind") == "claim"),
    }


def question_counts_line(c: dict[str, int]) -> str:
    """`judge per fact: 4 question(s) on 3 case(s): 2 stated, 1 not stated, 1 error`, with
    how many were per claim when any were."""
    claims = f" ({c['claims']} per claim)" if c.get("claims") else ""
    return (
        f"judge per fact: {c['n_questions']} question(s){claims} on {c['n_rows']} case(s) the checks "
        f"left in review: {c['stated']} stated, {c['not_stated']} not stated, {c['error']} error"
    )


def judge_spend(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The judge's tokens and cost over the judged rows, apart from the answers'.

    A judged row whose judging cost is unknown (no price, a reply without usage) makes the
    total unknown, as for answers; rows the judge never saw add nothing."""
    judged = [r for r in rows if "judge_cost_usd" in r]
    tokens: dict[str, int] = defaultdict(int)
    for r in judged:
        for k, v in (r.get("judge_usage") or {}).items():
            if isinstance(v, int):
                tokens[k] += v
    costs = [r.get("judge_cost_usd") for r in judged]
    known = all(isinstance(c, int | float) for c in costs)
    return {
        "judge_usage": dict(tokens) or None,
        "judge_cost_usd": round(sum(costs), 6) if judged and known else None,  # type: ignore[arg-type]
        # Requests made to the judge (retries of an unusable reply included; cached: none).
        "n_judge_calls": sum(_attempts(r) for r in judged),
    }


def summarise(
    rows: list[dict[str, Any]],
    *,
    completed: bool,
    stopped_reason: str | None = None,
    run_id: str | None = None,
    elapsed_s: float | None = None,
    left_out: list[str] | None = None,
) -> dict[str, Any]:
    """The summary record that closes a run file.

    `left_out`: the cases not run because only an ungraded check (the judge) scores them.
    """
    counts = {"pass": 0, "fail": 0, "review": 0, "error": 0}
    for row in rows:
        counts[row["status"]] += 1
    counts["total"] = len(rows)
    scores = [r["score"] for r in rows if r["status"] != "error" and r.get("score") is not None]
    tokens: dict[str, int] = defaultdict(int)
    for r in rows:
        for k, v in (r.get("usage") or {}).items():
            if isinstance(v, int):
                tokens[k] += v
    # Rows with an answer: all but provider failures (a check or the judge may still have
    # errored on an answer that was paid for).
    priced = [r for r in rows if r["status"] != "error" or r.get("usage") or r.get("checks")]
    costs = [r.get("cost_usd") for r in priced]
    known_cost = all(c is not None for c in costs) and bool(costs)
    # What this run paid: answers from the cache cost nothing again.
    spent = [r["cost_usd"] for r in priced if not r.get("cached")] if known_cost else []
    cached = sum(1 for r in rows if r.get("cached"))
    # Answers whose endpoint reported no token counts: the token totals leave them out.
    no_usage = sum(
        1
        for r in priced
        if not all(isinstance((r.get("usage") or {}).get(k), int) for k in _TOKEN_KEYS)
    )
    judge = judge_spend(rows)
    answers_cost = round(sum(costs), 6) if known_cost else None
    if not any("judge_cost_usd" in r for r in rows):
        total = answers_cost  # no row was judged
    elif answers_cost is None or judge["judge_cost_usd"] is None:
        total = None
    else:
        total = round(answers_cost + judge["judge_cost_usd"], 6)
    return {
        "kind": "summary",
        "run_id": run_id,
        "completed": completed,
        "stopped_reason": stopped_reason,
        "counts": counts,
        "score_mean": round(sum(scores) / len(scores), 6) if scores else None,
        "n_scored": len(scores),
        "n_total": len(rows),
        "checks": check_rates(rows),
        "categories": category_rates(rows),
        "tokens": dict(tokens) or None,
        "n_no_usage": no_usage,
        # An unknown price anywhere makes the total unknown, never a silent undercount.
        "cost_usd": answers_cost,
        "spent_usd": round(sum(spent), 6) if known_cost else None,
        # The judge's calls, counted apart and then together with the answers.
        **judge,
        "total_cost_usd": total,
        "cached": cached,
        # Attempts sent again after a transient error (`--resend`), and how they ended.
        "retries": retry_counts(rows),
        "epochs": epoch_stats(rows),
        # How many cases the judge score covers; absent when no row was judged.
        "judge": judge_coverage(rows) if any(_judged(r) for r in rows) else None,
        "not_graded": not_graded(rows, left_out or []),
        # Cases a person's label decided, counted apart from the checks' own verdicts.
        "labels": label_counts(rows),
        # Items the checks left undecided, put to the judge one question each (--judge).
        "judge_questions": question_counts(rows),
        "elapsed_s": round(elapsed_s, 3) if elapsed_s is not None else None,
    }


def _judged(row: dict[str, Any]) -> bool:
    res = (row.get("checks") or {}).get("judge")
    return res is not None and res.get("status") != "skip"


def not_graded(rows: list[dict[str, Any]], left_out: list[str]) -> dict[str, Any] | None:
    """The rubric no grader of the run graded: the rows whose `judge` is a skip, with its
    reason, and the cases left out because the judge is all that scores them."""
    reasons: dict[str, int] = defaultdict(int)
    n_rows = 0
    for row in rows:
        res = (row.get("checks") or {}).get("judge")
        if res is not None and res.get("status") == "skip":
            n_rows += 1
            reasons[str(res.get("detail"))] += 1
    if not n_rows and not left_out:
        return None
    return {
        "check": "judge",
        "n_rows": n_rows,
        "reasons": dict(reasons),
        "cases_left_out": sorted(left_out),
    }


def not_graded_line(ng: dict[str, Any]) -> str:
    """`judge: skip on 3 case(s) (not graded: ...); 2 case(s) graded only by it were not run: a, b`."""
    parts = []
    if ng["n_rows"]:
        why = "; ".join(ng["reasons"]) or "no reason recorded"
        parts.append(f"{ng['check']}: skip on {ng['n_rows']} case(s) ({why})")
    left = ng["cases_left_out"]
    if left:
        shown = ", ".join(left[:10]) + (
            f", ... and {len(left) - 10} more" if len(left) > 10 else ""
        )
        parts.append(
            f"{len(left)} case(s) graded only by the {ng['check']} were not run "
            f"(run with --judge MODEL to grade them): {shown}"
        )
    return "; ".join(parts)


def judge_coverage(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """How many case rows the judge score covers: judged, scored, errored, flagged, of all rows."""
    cov = {"n_judged": 0, "n_scored": 0, "n_error": 0, "n_review": 0, "n_total": 0}
    for row in rows:
        if row.get("kind", "case") != "case":
            continue
        cov["n_total"] += 1
        res = (row.get("checks") or {}).get("judge")
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


def coverage_line(cov: dict[str, Any]) -> str:
    """`judge: scored 8/10 judged (2 error), 3 flagged for review; 12 cases in the run`."""
    return (
        f"judge: scored {cov['n_scored']}/{cov['n_judged']} judged ({cov['n_error']} error), "
        f"{cov['n_review']} flagged for review; {cov['n_total']} cases in the run"
    )


def judge_spend_lines(summary: dict[str, Any]) -> list[str]:
    """The judge's tokens and cost, then the total with the answers; [] when nothing was judged.

    `judge: 2,000 in + 300 out over 7 call(s); cost: $0.0030` and
    `total cost (answers + judge): $0.0042`; an unknown cost says `unknown`, never $0."""
    if "judge_cost_usd" not in summary or (
        summary.get("judge_cost_usd") is None and not summary.get("judge")
    ):
        return []
    t = summary.get("judge_usage") or {}
    calls = summary.get("n_judge_calls") or 0
    tokens = (
        f"{t.get('prompt_tokens', 0):,} in + {t.get('completion_tokens', 0):,} out"
        if t
        else "none reported"
    )

    def money(v: Any) -> str:
        return "unknown" if v is None else f"${v:.4f}"

    return [
        f"judge: {tokens} over {calls} call(s); cost: {money(summary.get('judge_cost_usd'))}",
        f"total cost (answers + judge): {money(summary.get('total_cost_usd'))}",
    ]
