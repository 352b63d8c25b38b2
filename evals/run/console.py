"""What a run prints: one line per case, then the summary table."""

from __future__ import annotations

import sys
from typing import Any

from rich.console import Console
from rich.table import Table

from evals.providers.masking import printable
from evals.run.precedents import decided_by, label_counts_line
from evals.run.summary import coverage_line, judge_spend_lines, not_graded_line

LABEL = {"pass": "PASS ", "fail": "FAIL ", "error": "ERROR"}


def case_line(row: dict[str, Any]) -> str:
    """`PASS  id`, `FAIL  id  failed: a, b`, or `ERROR id  reason`."""
    line = f"{LABEL[row['status']]} {row['case']}"
    if row.get("epoch"):
        line += f" (epoch {row['epoch']})"
    if row["status"] == "fail" and (row.get("failed_checks") or "precedent" not in row):
        line += "  failed: " + ", ".join(row.get("failed_checks") or [])
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


def print_summary(summary: dict[str, Any], path: str, console: Console | None = None) -> None:
    """Per check and per category pass rates with n_scored/n_total, errors, and the file."""
    console = console or Console(file=sys.stdout, highlight=False, soft_wrap=True)
    c = summary["counts"]
    table = Table(title="checks", show_edge=False)
    for col in (
        "check",
        "pass rate (passed/scored of total)",
        "mean score",
        "fail",
        "error",
        "skip",
    ):
        table.add_column(col)
    for name, r in summary["checks"].items():
        table.add_row(
            name, fmt_rate(r), fmt_mean(r), str(r["fail"]), str(r["error"]), str(r["skip"])
        )
    console.print(table)
    cats = Table(title="categories (case pass rate)", show_edge=False)
    for col in ("category", "pass rate (passed/scored of total)", "error"):
        cats.add_column(col)
    for name, r in summary["categories"].items():
        cats.add_row(name, fmt_rate(r), str(r["error"]))
    console.print(cats)
    mean = summary["score_mean"]
    mean_s = "n/a" if mean is None else f"{mean:.3f}"
    console.print(
        f"cases: {c['pass']} pass, {c['fail']} fail, {c['error']} error, {c['total']} total; "
        f"mean score {mean_s} over {summary['n_scored']}/{summary['n_total']} scored"
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
