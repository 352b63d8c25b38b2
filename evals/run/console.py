"""What a run prints: one line per case, then the summary table."""

from __future__ import annotations

import sys
from typing import Any

from rich.console import Console
from rich.table import Table

from evals.providers.masking import printable
from evals.run.precedents import decided_by, label_counts_line
from evals.run.summary import coverage_line, judge_spend_lines, not_graded_line

LABEL = {"pass": "PASS ", "fail": "FAIL ", "review": "REVIEW", "error": "ERROR"}


def review_reasons(row: dict[str, Any]) -> str:
    """`check: why; check: why` for the checks of a row that could not decide."""
    checks = row.get("checks") or {}
    names = row.get("review_checks") or [
        n for n, r in checks.items() if (r or {}).get("status") == "review"
    ]
    parts = [f"{n}: {(checks.get(n) or {}).get('detail') or 'no reason given'}" for n in names]
    return printable("; ".join(parts) or "no reason recorded", one_line=True)


def case_line(row: dict[str, Any]) -> str:
    """`PASS  id`, `FAIL  id  failed: a, b`, `REVIEW id  undecided: check: why`, or
    `ERROR id  reason`."""
    line = f"{LABEL[row['status']]} {row['case']}"
    if row.get("epoch"):
        line += f" (epoch {row['epoch']})"
    if row["status"] == "fail" and (row.get("failed_checks") or "precedent" not in row):
        line += "  failed: " + ", ".join(row.get("failed_checks") or [])
        if row.get("review_checks"):
            # A failing check decides the case; the undecided ones are still worth knowing.
            line += " (undecided: " + ", ".join(row["review_checks"]) + ")"
    elif row["status"] == "review":
        line += "  undecided: " + review_reasons(row)
    elif row["status"] == "error":
        line += f"  {printable(str(row.get('error')), one_line=True)}"
    if isinstance(row.get("precedent"), dict):
        line += f"  {printable(decided_by(row['precedent']), one_line=True)}"
    return line


def fmt_rate(rate: dict[str, Any]) -> str:
    """`83.3%  (5/6 of 7)`: the rate with passed/scored of total, or `n/a` with its n."""
    if rate["rate"] is None:
        return f"n/a ({rate['n_scored']}/{rate['n_total']})"
    return f"{rate['rate'] * 100:5.1f}%  ({rate['pass']}/{rate['n_scored']} of {rate['n_total']})"


def fmt_mean(rate: dict[str, Any]) -> str:
    """A check's mean score over its scored rows, `n/a` when none (or an older run file)."""
    mean = rate.get("score_mean")
    return "n/a" if mean is None else f"{mean:.3f}"


def counts_text(c: dict[str, Any]) -> str:
    """`3 pass, 1 fail, 2 in review, 0 error, 6 total`: reviews beside errors, never scored
    (named only when there are some)."""
    review = f"{c['review']} in review, " if c.get("review") else ""
    return f"{c['pass']} pass, {c['fail']} fail, {review}{c['error']} error, {c['total']} total"


def print_summary(summary: dict[str, Any], path: str, console: Console | None = None) -> None:
    """Per check and per category pass rates with n_scored/n_total, errors, and the file."""
    console = console or Console(file=sys.stdout, highlight=False, soft_wrap=True)
    c = summary["counts"]
    # The review column appears when some check could not decide: older runs and suites
    # whose checks always decide print as before.
    review = any(r.get("review") for r in summary["checks"].values())
    table = Table(title="checks", show_edge=False)
    cols = ["check", "pass rate (passed/scored of total)", "mean score", "fail"]
    for col in (*cols, *(["review"] if review else []), "error", "skip"):
        table.add_column(col)
    for name, r in summary["checks"].items():
        counts = [str(r["fail"]), *([str(r.get("review", 0))] if review else [])]
        table.add_row(name, fmt_rate(r), fmt_mean(r), *counts, str(r["error"]), str(r["skip"]))
    console.print(table)
    cats = Table(title="categories (case pass rate)", show_edge=False)
    for col in (
        "category",
        "pass rate (passed/scored of total)",
        *(["review"] if review else []),
        "error",
    ):
        cats.add_column(col)
    for name, r in summary["categories"].items():
        cats.add_row(
            name, fmt_rate(r), *([str(r.get("review", 0))] if review else []), str(r["error"])
        )
    console.print(cats)
    mean = summary["score_mean"]
    mean_s = "n/a" if mean is None else f"{mean:.3f}"
    console.print(
        f"cases: {counts_text(c)}; "
        f"mean score {mean_s} over {summary['n_scored']}/{summary['n_total']} scored"
    )
    if c.get("review"):
        console.print(
            f"in review: {c['review']} case(s) the checks could not decide: not scored, "
            "a person (or the judge) decides them",
            markup=False,
        )
    ep = summary.get("epochs")
    if ep:
        flips = ep["flipping"]
        console.print(
            f"epochs: {ep['n']}; {len(flips)} of {len(ep['per_case'])} case(s) flip between "
            "pass and fail" + (":" if flips else "")
        )
        for cid in flips:
            r = ep["per_case"][cid]
            console.print(
                f"  {cid}: passed {r['pass']}/{r['n_scored']} scored epochs", markup=False
            )
    if summary.get("labels"):
        console.print(label_counts_line(summary["labels"]), markup=False)
    if summary.get("judge"):
        console.print(coverage_line(summary["judge"]))
    if summary.get("not_graded"):
        console.print(not_graded_line(summary["not_graded"]), markup=False)
    if summary.get("cost_usd") is not None or summary.get("tokens"):
        cost, spent = summary.get("cost_usd"), summary.get("spent_usd")
        no_usage = summary.get("n_no_usage") or 0
        if cost is not None:
            money = f"${cost:.4f}"
        elif no_usage:
            money = f"unknown ({no_usage} answer(s) came without token usage)"
        else:
            money = "unknown (no price for this model)"
        if cost is not None and spent is not None and spent != cost:
            money += f" (${spent:.4f} spent now; the rest came from the cache)"
        t = summary.get("tokens") or {}
        tokens = (
            f"{t.get('prompt_tokens', 0):,} in + {t.get('completion_tokens', 0):,} out"
            if t
            else "not reported"
        )
        if t and no_usage:
            tokens += f" (not counting {no_usage} answer(s) without usage)"
        console.print(f"tokens: {tokens}; cost: {money}", markup=False)
    for line in judge_spend_lines(summary):
        console.print(line, markup=False)
    if summary.get("cached"):
        console.print(f"from the cache: {summary['cached']} of {c['total']} answer(s)")
    if not summary.get("completed"):
        reason = printable(str(summary.get("stopped_reason")), one_line=True)
        console.print(f"run stopped early: {reason}", markup=False)
    console.print(f"run file: {path}")
