"""What a run prints: one line per case, then the summary table."""

from __future__ import annotations

import sys
from typing import Any, TextIO

from evals.providers.masking import printable
from evals.run.summary import coverage_line, judge_spend_lines, not_graded_line

LABEL = {"pass": "PASS ", "fail": "FAIL ", "error": "ERROR"}


def case_line(row: dict[str, Any]) -> str:
    """`PASS  id`, `FAIL  id  failed: a, b`, or `ERROR id  reason`."""
    line = f"{LABEL[row['status']]} {row['case']}"
    if row.get("epoch"):
        line += f" (epoch {row['epoch']})"
    if row["status"] == "fail":
        line += "  failed: " + ", ".join(row.get("failed_checks") or [])
    elif row["status"] == "error":
        line += f"  {printable(str(row.get('error')), one_line=True)}"
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


def table_lines(title: str, columns: list[str], rows: list[list[str]]) -> list[str]:
    """A titled text table: a heavy rule under the header, a bar between the columns."""
    widths = [max([len(c), *(len(r[i]) for r in rows)]) for i, c in enumerate(columns)]

    def line(cells: list[str], bar: str) -> str:
        return " " + f" {bar} ".join(c.ljust(w) for c, w in zip(cells, widths, strict=True)) + " "

    rule = "╇".join("━" * (w + 2) for w in widths)
    return [title, line(columns, "┃"), rule, *(line(r, "│") for r in rows)]


def print_summary(summary: dict[str, Any], path: str, out: TextIO | None = None) -> None:
    """Per check and per category pass rates with n_scored/n_total, errors, and the file.

    Plain text, written as it is: a run prints this once, and loading a rich-text library
    for it took longer than the printing."""
    file = out or sys.stdout

    def say(text: str) -> None:
        print(text, file=file)

    c = summary["counts"]
    checks = [
        [name, fmt_rate(r), fmt_mean(r), str(r["fail"]), str(r["error"]), str(r["skip"])]
        for name, r in summary["checks"].items()
    ]
    columns = ["check", "pass rate (passed/scored of total)", "mean score", "fail", "error"]
    for text in table_lines("checks", [*columns, "skip"], checks):
        say(text)
    cats = [[name, fmt_rate(r), str(r["error"])] for name, r in summary["categories"].items()]
    columns = ["category", "pass rate (passed/scored of total)", "error"]
    for text in table_lines("categories (case pass rate)", columns, cats):
        say(text)
    mean = summary["score_mean"]
    mean_s = "n/a" if mean is None else f"{mean:.3f}"
    say(
        f"cases: {c['pass']} pass, {c['fail']} fail, {c['error']} error, {c['total']} total; "
        f"mean score {mean_s} over {summary['n_scored']}/{summary['n_total']} scored"
    )
    ep = summary.get("epochs")
    if ep:
        flips = ep["flipping"]
        say(
            f"epochs: {ep['n']}; {len(flips)} of {len(ep['per_case'])} case(s) flip between "
            "pass and fail" + (":" if flips else "")
        )
        for cid in flips:
            r = ep["per_case"][cid]
            say(f"  {cid}: passed {r['pass']}/{r['n_scored']} scored epochs")
    if summary.get("judge"):
        say(coverage_line(summary["judge"]))
    if summary.get("not_graded"):
        say(not_graded_line(summary["not_graded"]))
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
        say(f"tokens: {tokens}; cost: {money}")
    for line in judge_spend_lines(summary):
        say(line)
    if summary.get("cached"):
        say(f"from the cache: {summary['cached']} of {c['total']} answer(s)")
    if not summary.get("completed"):
        reason = printable(str(summary.get("stopped_reason")), one_line=True)
        say(f"run stopped early: {reason}")
    say(f"run file: {path}")
