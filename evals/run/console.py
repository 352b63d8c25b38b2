"""What a run prints: one line per case, then the summary table."""

from __future__ import annotations

import sys
from typing import Any, TextIO

from evals.providers.masking import printable
from evals.run.precedents import decided_by, label_counts_line
from evals.run.summary import (
    coverage_line,
    judge_spend_lines,
    not_graded_line,
    question_counts_line,
)

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
    # The review column appears when some check could not decide: older runs and suites
    # whose checks always decide print as before.
    review = any(r.get("review") for r in summary["checks"].values())
    checks = [
        [
            name,
            fmt_rate(r),
            fmt_mean(r),
            str(r["fail"]),
            *([str(r.get("review", 0))] if review else []),
            str(r["error"]),
            str(r["skip"]),
        ]
        for name, r in summary["checks"].items()
    ]
    columns = ["check", "pass rate (passed/scored of total)", "mean score", "fail"]
    columns += [*(["review"] if review else []), "error", "skip"]
    for text in table_lines("checks", columns, checks):
        say(text)
    cats = [
        [name, fmt_rate(r), *([str(r.get("review", 0))] if review else []), str(r["error"])]
        for name, r in summary["categories"].items()
    ]
    columns = ["category", "pass rate (passed/scored of total)"]
    columns += [*(["review"] if review else []), "error"]
    for text in table_lines("categories (case pass rate)", columns, cats):
        say(text)
    mean = summary["score_mean"]
    mean_s = "n/a" if mean is None else f"{mean:.3f}"
    say(
        f"cases: {counts_text(c)}; "
        f"mean score {mean_s} over {summary['n_scored']}/{summary['n_total']} scored"
    )
    if c.get("review"):
        say(
            f"in review: {c['review']} case(s) the checks could not decide: not scored, "
            "a person (or the judge) decides them"
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
    if summary.get("labels"):
        say(label_counts_line(summary["labels"]))
    if summary.get("judge_questions"):
        say(question_counts_line(summary["judge_questions"]))
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
    retries = summary.get("retries") or {}
    if retries.get("resent"):
        still = retries.get("still_error", 0)
        say(
            f"retried: {retries['resent']} re-send(s) of a transient error on "
            f"{retries.get('rows', 0)} attempt(s); {still} still an error after them"
            + ("" if still else ", none lost")
        )
    if not summary.get("completed"):
        reason = printable(str(summary.get("stopped_reason")), one_line=True)
        say(f"run stopped early: {reason}")
    say(f"run file: {path}")
