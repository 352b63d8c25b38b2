"""`invoke report`: a run's numbers in the terminal, its flagged rows, and the HTML reports."""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from evals.cli import EXIT_ERROR, EXIT_OK
from evals.errors import InputError
from evals.numfmt import fmt_cost, fmt_ms, fmt_tokens, pct
from evals.providers.masking import printable
from evals.report.brief import briefs_for
from evals.report.data import (
    RunReport,
    band,
    build_report,
    review_names,
    run_labels,
    run_questions,
    weakest_first,
)
from evals.report.safe import no_surrogates, terminal_run
from evals.run.console import counts_text
from evals.run.files import OutputError, read_run, write_whole
from evals.run.latest import resolve_for_suite
from evals.run.precedents import label_counts_line
from evals.run.summary import (
    judge_spend_lines,
    not_graded_line,
    question_counts_line,
)

STYLE = {"weak": "bold red", "fair": "yellow", "good": "green", "none": "dim"}


def rate_cells(r: dict[str, Any], mean: bool = False, review: bool = False) -> list[Text]:
    """Rate, (the mean score,) passed/scored of total, fail, (review,) error, skip; the rate
    coloured by how weak it is."""
    score = r.get("score_mean")
    n_review = r.get("review", 0)
    return [
        Text(pct(r["rate"]), style=STYLE[band(r["rate"])]),
        *([Text("n/a" if score is None else f"{score:.3f}")] if mean else []),
        Text(f"{r['pass']}/{r['n_scored']} of {r['n_total']}"),
        Text(str(r["fail"])),
        *([Text(str(n_review), style="bold yellow" if n_review else "")] if review else []),
        Text(str(r["error"]), style="bold red" if r["error"] else ""),
        Text(str(r["skip"])),
    ]


def rate_table(
    title: str, first: str, rates: dict[str, dict[str, Any]], mean: bool = False
) -> Table:
    """Rates weakest first; with `mean`, each item's mean score beside its pass rate. A review
    column appears when some row could not be decided."""
    review = any(r.get("review") for r in rates.values())
    table = Table(title=title, show_edge=False, title_justify="left")
    # Names and counts are never cut or wrapped; on a narrow terminal the headings wrap.
    width = max((len(n) for n in rates), default=len(first))
    table.add_column(first, justify="left", no_wrap=True, min_width=width)
    cols = ["pass rate", *(["mean"] if mean else []), "passed/scored of total"]
    for col in (*cols, "fail", *(["review"] if review else []), "error", "skip"):
        table.add_column(col, justify="right", no_wrap=col != "passed/scored of total")
    for name, r in weakest_first(rates):
        table.add_row(Text(name), *rate_cells(r, mean, review))
    return table


def stamp_line(header: dict[str, Any]) -> str:
    """model, prompt sha, judge, commit and date on one line."""
    git = header.get("git") or {}
    commit = (git.get("commit") or "no git")[:10] + (" (dirty)" if git.get("dirty") else "")
    judge = header.get("judge") or {}
    return (
        f"model {header.get('model')}  prompt {str(header.get('prompt_sha'))[:10]}  "
        f"judge {judge.get('model') or 'none'}  commit {commit}  created {header.get('created')}"
    )


def print_report(rep: RunReport, console: Console) -> None:
    """The terminal report: rates with n (weakest first), errors, judge, cost, tokens, latency."""
    s = rep.summary
    console.print(Text(f"run {rep.run.run_id}", style="bold"))
    console.print(Text(stamp_line(rep.header)))
    for w in rep.warnings:
        console.print(Text("warning: " + w, style="yellow"))
    if rep.sealed:
        console.print(Text("sealed run: aggregates only", style="bold"))
    title = "checks (weakest first; mean: the mean score over the scored rows)"
    console.print(rate_table(title, "check", s.get("checks") or {}, mean=True))
    console.print(rate_table("categories: case pass rate", "category", s.get("categories") or {}))
    c = s["counts"]
    mean = "n/a" if s.get("score_mean") is None else f"{s['score_mean']:.3f}"
    console.print(
        Text(
            f"cases: {counts_text(c)}; "
            f"mean score {mean} over {s.get('n_scored')}/{s.get('n_total')} scored"
        )
    )
    if rep.errors:
        console.print(Text(f"errors: {c['error']} case(s)", style="bold red"))
        for e in rep.errors:
            who = "" if rep.sealed else "  (" + ", ".join(e.cases[:5])
            who += "" if rep.sealed else (", ..." if len(e.cases) > 5 else "") + ")"
            reason = (
                "(reason withheld: sealed run)"
                if rep.sealed
                else printable(e.reason, one_line=True)
            )
            console.print(Text(f"  {len(e.cases)}x {reason}{who}"))
    print_reviews(rep, console)
    if rep.judge is not None:
        j = rep.judge
        console.print(
            Text(
                f"judge: scored {j.n_scored}/{j.n_total} cases that asked for it "
                f"({j.errors} error{'s' if j.errors != 1 else ''}); "
                f"{len(rep.flagged)} row(s) flagged needs_review"
                + (" (see --review)" if rep.flagged else "")
            )
        )
    elif rep.flagged:
        console.print(Text(f"{len(rep.flagged)} row(s) flagged needs_review (see --review)"))
    if s.get("not_graded") and not rep.sealed:
        console.print(Text(not_graded_line(s["not_graded"])))
    if labels := run_labels(rep):
        console.print(Text(label_counts_line(labels)))
    if asked := run_questions(rep):
        console.print(Text(question_counts_line(asked)))
    console.print(
        Text(f"cost: {fmt_cost(s.get('cost_usd'))}; tokens: {fmt_tokens(s.get('tokens'))}")
    )
    for line in judge_spend_lines(s):
        console.print(Text(line))
    lat = rep.latency
    console.print(
        Text(f"latency: p50 {fmt_ms(lat.p50)}, p95 {fmt_ms(lat.p95)} (n={lat.n}/{lat.n_total})")
    )
    if not s.get("completed"):
        reason = printable(str(s.get("stopped_reason")), one_line=True)
        console.print(Text(f"run stopped early: {reason}", style="bold"))
    console.print(Text(f"run file: {rep.run.path}"))


def print_reviews(rep: RunReport, console: Console) -> None:
    """Cases in review, grouped by the check that could not decide and why, with their ids."""
    n = rep.summary["counts"].get("review", 0)
    if not n:
        return
    console.print(
        Text(
            f"in review: {n} case(s) the checks could not decide (never scored)",
            style="bold yellow",
        )
    )
    for g in rep.reviews:
        if rep.sealed:
            console.print(Text(f"  {len(g.cases)}x (reason withheld: sealed run)"))
            continue
        more = ", ..." if len(g.cases) > 5 else ""
        who = f"  ({', '.join(g.cases[:5])}{more})"
        console.print(Text(f"  {len(g.cases)}x {printable(g.reason, one_line=True)}{who}"))
    if not rep.sealed and rep.reviews:
        console.print(Text(f"  read one: invoke show {rep.reviews[0].cases[0]}"))


def print_review(rep: RunReport, console: Console) -> None:
    """Each flagged row: why, the question, the answer, the verdict and the judge's reasoning."""
    if rep.sealed:
        raise InputError("sealed run: rows carry no case text, so there is nothing to review here")
    console.print(Text(f"\nflagged for review: {len(rep.flagged)} row(s)", style="bold"))
    for row in rep.flagged:
        judge = row.get("judge") or {}
        verdict = judge.get("verdict") or {}
        reasons = "; ".join(map(str, row.get("review_reasons") or [])) or "no reason recorded"
        console.rule(Text(f"{row.get('case')}  [{row.get('status')}]"), align="left")
        console.print(Text(f"why flagged: {reasons}", style="yellow"))
        for turn in row.get("messages") or []:
            who = "customer" if turn.get("role") == "user" else "assistant"
            console.print(Text(f"earlier, {who}: ", style="dim") + Text(str(turn.get("content"))))
        console.print(Text("question: ", style="bold") + Text(str(row.get("question") or "")))
        console.print(Text("answer: ", style="bold") + Text(str(row.get("draft") or "")))
        if verdict:
            console.print(
                Text(
                    f"verdict ({judge.get('model')}): score {verdict.get('score')}, "
                    f"grounded {verdict.get('grounded')}, rubric_met {verdict.get('rubric_met')}"
                )
            )
            console.print(Text("reasoning: ", style="bold") + Text(str(verdict.get("reasoning"))))
        if judge.get("error"):
            console.print(Text(f"judge error: {judge['error']}", style="bold red"))
        failed = [n for n, r in (row.get("checks") or {}).items() if r.get("status") != "pass"]
        if judge.get("error"):
            failed = [n for n in failed if n != "judge"]  # its detail is the error just shown
        for name in failed:
            r = row["checks"][name]
            console.print(Text(f"  {name}: {r.get('status')}: {r.get('detail')}"))


def print_undecided(rep: RunReport, console: Console) -> None:
    """Each row in review that the judge did not flag: the question, the answer, and every
    check that could not decide with why (a flagged one is listed above already)."""
    rows = [
        r for r in rep.rows if r.get("status") == "review" and r.get("needs_review") is not True
    ]
    if not rows:
        return
    console.print(Text(f"\nin review, checks undecided: {len(rows)} row(s)", style="bold"))
    for row in rows:
        console.rule(Text(f"{row.get('case')}  [review]"), align="left")
        console.print(Text("question: ", style="bold") + Text(str(row.get("question") or "")))
        console.print(Text("answer: ", style="bold") + Text(str(row.get("draft") or "")))
        for name in review_names(row):
            r = row["checks"][name]
            console.print(Text(f"  {name}: review: {r.get('detail')}", style="yellow"))


def write_file(path: Path, text: str) -> bool:
    """Write whole or not at all: a half-written report is never left behind. False (and
    the reason printed) when it cannot be written."""
    try:
        # A lone surrogate from a run file cannot be encoded: it is shown as U+FFFD.
        write_whole(path, no_surrogates(text))
    except OutputError as exc:
        print(exc, file=sys.stderr)
        return False
    return True


def cmd_report(
    run: str | None = None,
    *,
    a: str | None = None,
    b: str | None = None,
    html: str | None = None,
    review: bool = False,
    console: Console | None = None,
    suite: str | None = None,
) -> int:
    """Terminal report of RUN (and --review, --html); with --a/--b the comparison as HTML.
    `latest` and the default are the newest run of `suite` (default: the configured one).

    `--b` alone compares RUN (default: the baseline) with B.
    """
    console = console or Console(file=sys.stdout, highlight=False, soft_wrap=True)
    if a or b:
        if a and run:
            raise InputError("give run A either as RUN or as --a, not both")
        if not b:
            raise InputError("a comparison needs --b RUN (and --a RUN, default: the baseline)")
        if not html:
            raise InputError("a comparison report needs --html FILE (`invoke diff` prints one)")
        if review:
            raise InputError("--review reads one run: use `invoke report RUN --review`")
        from evals.compare.command import guard_internal
        from evals.report.compare_html import render_compare_html

        path_a = resolve_for_suite(a or run or "baseline", suite, "--a RUN")
        path_b = resolve_for_suite(b, suite, "--b RUN")

        def compare() -> int:
            if not write_file(Path(html), render_compare_html(read_run(path_a), read_run(path_b))):
                return EXIT_ERROR
            console.print(Text(f"comparison report written: {html}"))
            return EXIT_OK

        return guard_internal("invoke report", compare)
    # Escape sequences in a run id, a category or a reason never reach the terminal raw.
    path = resolve_for_suite(run or "latest", suite, "`invoke report RUN`")
    briefs = briefs_for(path)
    if briefs is None:
        rep = build_report(terminal_run(read_run(path)))
    else:  # a large run: passes in brief as they are read (report/brief.py)
        run_file = read_run(path, keep=briefs.keep)  # rows made terminal-safe as read
        safe = terminal_run(dataclasses.replace(run_file, rows=[]))
        rep = build_report(dataclasses.replace(safe, rows=run_file.rows), briefs)
    print_report(rep, console)
    if review:
        print_review(rep, console)
        print_undecided(rep, console)
    if html:
        from evals.report.html import render_run_html

        if not write_file(Path(html), render_run_html(rep)):
            return EXIT_ERROR
        console.print(Text(f"report written: {html}"))
    return EXIT_OK
