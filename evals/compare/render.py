"""Rendering a Comparison: Markdown for a pull request, plain text for a terminal (JSON: jsondata).

Everything from a run file is shown through evals.compare.safe: ids must follow their rule
(else a placeholder is shown) and every other string is escaped for the position it is in.
"""

from __future__ import annotations

import re

from evals.compare.breakdown import CheckChange, GroupChange
from evals.compare.explain import (
    fmt_estimate,
    fmt_interval,
    fmt_p,
    how_to_read,
    stats_lines,
    verdict_line,
)
from evals.compare.figures import Figure
from evals.compare.gate import ERRORS_WORST, LEFT_OUT, WORST, Reading
from evals.compare.intervals import Interval
from evals.compare.jsondata import render_json
from evals.compare.pairing import CHANGE_ORDER, CaseDiff, Comparison, SideCase, Unpaired
from evals.compare.safe import md_id, md_text, one_line, shown_run_id
from evals.numfmt import fmt_num, pct

QUESTION_WIDTH = 80
_HEX = re.compile(r"\b([0-9a-f]{12})[0-9a-f]{28,52}\b")


def fmt_pts(x: float | None) -> str:
    """A difference of rates in percentage points, signed, or `n/a`."""
    return "n/a" if x is None else f"{100 * x:+.1f} pts"


def fmt_ci(ci: Interval | None, points: bool = True) -> str:
    """`95% CI [lo, hi]` in points (rates) or on the score scale, or `n/a`."""
    if ci is None:
        return "n/a"
    if points:
        return f"{ci.level:.0%} CI [{100 * ci.low:+.1f}, {100 * ci.high:+.1f}]"
    return f"{ci.level:.0%} CI [{ci.low:+.3f}, {ci.high:+.3f}]"


def _short(value: str) -> str:
    """Long hex digests and commits shortened to 12 characters for reading (JSON keeps them whole)."""
    return _HEX.sub(r"\1", value)


def side_label(s: SideCase) -> str:
    """`pass 1.00` for one epoch; `2/3 pass 0.71` over epochs; errors appended."""
    if s.n_scored == 1:
        text = f"{'pass' if s.n_pass else 'fail'} {fmt_num(s.score, 2)}"
    else:
        text = f"{s.n_pass}/{s.n_scored} pass {fmt_num(s.score, 2)}"
    if s.n_epochs > s.n_scored:
        text += f" ({s.n_epochs - s.n_scored} error)"
    return text


def change_label(c: CaseDiff) -> str:
    """The case's change, with the checks B failed when it broke (names are run-file text)."""
    if c.change == "broken" and c.b.failed_checks:
        return f"broken: {', '.join(c.b.failed_checks)}"
    return c.change


def shown_cases(cmp: Comparison, show_all: bool, flaky: bool = False) -> list[CaseDiff]:
    """The cases a table lists (changed ones unless `show_all`), worst change first; flaky
    cases go in their own table."""
    rows = [c for c in cmp.cases if c.flaky == flaky and (show_all or c.change != "same")]
    return sorted(rows, key=lambda c: (CHANGE_ORDER[c.change], c.id))


def _rate_text(cmp: Comparison, side: str) -> str:
    s = cmp.stats
    rate, passed = (s.rate_a, s.passed_a) if side == "a" else (s.rate_b, s.passed_b)
    if not cmp.epochs.known:
        return f"{pct(rate)} ({passed}/{s.n_paired})"
    return f"{pct(rate)} (mean of {s.n_paired} case rates)"


def _figure_sides(cmp: Comparison, f: Figure) -> tuple[str, str]:
    s = cmp.stats
    if f.name == "pass rate":
        return _rate_text(cmp, "a"), _rate_text(cmp, "b")
    return f"{fmt_num(s.score_a)} (n={s.n_paired})", f"{fmt_num(s.score_b)} (n={s.n_paired})"


def _test_cell(f: Figure) -> str:
    mc = f.interval.mcnemar
    counts = f" ({mc.broken} broken, {mc.fixed} fixed)" if mc else ""
    return f"{f.interval.method}{counts}"


def figure_rows(cmp: Comparison, r: Reading) -> list[list[str]]:
    """Figure, A, B, B - A, interval, p, Holm p, level, test: one row per figure, named with
    its reading whenever there is more than one."""
    rows = []
    several = len(cmp.decision.readings) > 1
    for f in r.figures:
        a, b = _figure_sides(cmp, f) if r.name == LEFT_OUT else ("", "")
        rows.append(
            [
                f"{f.name}, {r.name}" if several else f.name,
                a,
                b,
                fmt_estimate(f),
                fmt_interval(f),
                fmt_p(f.p_value),
                fmt_p(f.p_adjusted) if f.gated else "not gated",
                f"{f.level:.3g}" if f.gated else f"follows {f.follows}",
                _test_cell(f),
            ]
        )
    return rows


def readings_shown(cmp: Comparison) -> list[Reading]:
    d = cmp.decision
    return [d.readings[k] for k in (LEFT_OUT, WORST, ERRORS_WORST) if k in d.readings]


def check_cells(r: CheckChange) -> list[str]:
    cells = []
    for rate, passed, total, err, rev in (
        (r.rate_a, r.a_pass, r.a_n, r.a_error, r.a_review),
        (r.rate_b, r.b_pass, r.b_n, r.b_error, r.b_review),
    ):
        extra = (f", {err} error" if err else "") + (f", {rev} in review" if rev else "")
        cells.append(f"{pct(rate)} ({passed}/{total}){extra}")
    ci = r.change
    change = "n/a" if ci is None else f"{fmt_pts(ci.estimate)}, {fmt_ci(ci)}"
    return [*cells, change, fmt_p(r.p_holm), str(r.n_cases)]


def group_cells(g: GroupChange) -> list[str]:
    rates = f"{pct(g.rate_a)} → {pct(g.rate_b)}"
    scores = f"{g.score_a:.3f} → {g.score_b:.3f}"
    if g.rate is None or g.score is None:
        # One cluster: its cases are one piece of evidence, so there is nothing to test.
        why = f"no test: {g.n_clusters or 1} cluster"
        return [str(g.n), rates, f"{fmt_pts(g.rate_b - g.rate_a)}, {why}", "n/a", scores,
                f"{g.score_b - g.score_a:+.3f}, {why}", "n/a"]  # fmt: skip
    return [
        str(g.n),
        rates,
        f"{fmt_pts(g.rate.estimate)}, {fmt_ci(g.rate)}",
        fmt_p(g.rate_p_holm),
        scores,
        f"{g.score.estimate:+.3f}, {fmt_ci(g.score, points=False)}",
        fmt_p(g.score_p_holm),
    ]


def _unpaired_groups(cmp: Comparison) -> list[tuple[str, list[Unpaired]]]:
    return [
        ("Changed (expectations edited between the runs; not compared)", cmp.changed),
        ("Only in A", cmp.only_a),
        ("Only in B", cmp.only_b),
        ("In review in A or B (undecided: read both ways by the gate)", cmp.in_review),
        (
            "Errored in A or B (no attempt left in a run: left out, counted by the error-rate test)",
            cmp.errored,
        ),
    ]


FIGURE_HEAD = ["figure", "A", "B", "B − A", "interval", "one-sided p", "Holm p", "level", "test"]
CHECK_HEAD = ["check", "A", "B", "B − A per case", "Holm p", "cases"]
GROUP_HEAD = ["category", "cases", "pass rate", "B − A", "Holm p", "mean score", "B − A", "Holm p"]


def _md_table(head: list[str], rows: list[list[str]]) -> list[str]:
    """A Markdown table; every cell is escaped (cells with ids are built with md_id)."""
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    out += ["| " + " | ".join(row) + " |" for row in rows]
    return out


def _md_cells(cells: list[str]) -> list[str]:
    return [md_text(c) for c in cells]


def render_markdown(cmp: Comparison, show_all: bool = False) -> str:
    """The diff as Markdown to paste into a pull request."""
    s, n, d = cmp.stats, cmp.counts(), cmp.decision
    run_a, run_b = md_id(shown_run_id(cmp.a.run_id)), md_id(shown_run_id(cmp.b.run_id))
    lines = [f"## Eval diff: {run_a} → {run_b}", "", f"**{md_text(cmp.headline())}**", ""]
    lines += [f"**{d.verdict}** {md_text(verdict_line(cmp).split(' ', 1)[1])}", ""]
    lines += ["**How to read this**", ""] + [f"- {md_text(t)}" for t in how_to_read(cmp)]
    lines += ["", f"### Figures ({s.n_paired} paired cases)", ""]
    if s.n_paired or WORST in d.readings:
        rows = [_md_cells(r) for reading in readings_shown(cmp) for r in figure_rows(cmp, reading)]
        lines += _md_table(FIGURE_HEAD, rows) + [""]
    else:
        lines += ["No case was scored in both runs: nothing to compare.", ""]
    lines += [f"- {md_text(line)}" for line in stats_lines(cmp)]
    lines += ["", "| | A | B | |", "|---|---|---|---|", f"| run | {run_a} | {run_b} | |"]
    for h in cmp.header:
        mark = "**differs**" if h.differs else ""
        cells = [md_text(_short(x), 60) for x in (h.name, h.a, h.b)]
        lines.append(f"| {cells[0]} | {cells[1]} | {cells[2]} | {mark} |")
    summary = ", ".join(f"{n[k]} {k}" for k in CHANGE_ORDER)
    lines += ["", f"### Cases: {s.n_paired} paired ({summary})"]
    for flaky in (False, True):
        rows = shown_cases(cmp, show_all or flaky, flaky)
        if flaky and rows:
            lines += ["", f"### Flaky cases ({len(rows)}): their outcome varied within a run"]
        if rows:
            lines += ["", "| id | question | A | B | change |", "|---|---|---|---|---|"]
        for c in rows:
            label = md_text(change_label(c))
            if c.change in ("broken", "DOWN") and not flaky:
                label = f"**{label}**"
            lines.append(
                f"| {md_id(c.shown_id)} | {md_text(c.question, QUESTION_WIDTH)} | "
                f"{side_label(c.a)} | {side_label(c.b)} | {label} |"
            )
    same = cmp.steady_same()
    if not show_all and same:
        lines += ["", f"_{same} unchanged case(s) not shown; `--all` lists them._"]
    unpaired = [(t, g) for t, g in _unpaired_groups(cmp) if g]
    if unpaired:
        lines += ["", "### Not paired", ""]
        for title, group in unpaired:
            lines.append(f"- **{title}** ({len(group)}):")
            lines += [f"  - {md_id(u.shown_id)}: {md_text(u.reason, 160)}" for u in group]
    if cmp.checks:
        lines += ["", f"### Checks (scored rows of the {s.n_paired} paired cases)", ""]
        rows = [[md_text(r.name, 60), *_md_cells(check_cells(r))] for r in cmp.checks]
        lines += _md_table(CHECK_HEAD, rows)
    if cmp.categories:
        lines += ["", "### Categories (paired cases; Holm over the table)", ""]
        rows = [[md_text(g.name, 60), *_md_cells(group_cells(g))] for g in cmp.categories]
        lines += _md_table(GROUP_HEAD, rows)
    return "\n".join(lines) + "\n"


def _text_table(head: list[str], rows: list[list[str]], indent: str = "  ") -> list[str]:
    widths = [max(len(x) for x in col) for col in zip(head, *rows, strict=True)]
    return [
        indent + "  ".join(x.ljust(w) for x, w in zip(row, widths, strict=True)).rstrip()
        for row in (head, *rows)
    ]


def render_text(cmp: Comparison, show_all: bool = False) -> str:
    """The diff as plain text for a terminal: the same figures as Markdown and JSON."""
    s, n = cmp.stats, cmp.counts()
    run_a, run_b = shown_run_id(cmp.a.run_id), shown_run_id(cmp.b.run_id)
    lines = [f"diff {run_a} -> {run_b}", one_line(cmp.headline())]
    lines += [f"verdict: {one_line(verdict_line(cmp))}", ""]
    lines += ["how to read this:"] + [f"  - {t}" for t in how_to_read(cmp)] + [""]
    lines.append(f"figures ({s.n_paired} paired cases):")
    rows = [r for reading in readings_shown(cmp) for r in figure_rows(cmp, reading)]
    if rows:
        lines += _text_table(FIGURE_HEAD, rows)
    lines += [f"  {one_line(line)}" for line in stats_lines(cmp)] + [""]
    width = max(len(h.name) for h in cmp.header)
    for h in cmp.header:
        mark = "  *" if h.differs else ""
        lines.append(
            f"  {one_line(h.name):<{width}}  A: {one_line(_short(h.a), 50)}  "
            f"B: {one_line(_short(h.b), 50)}{mark}"
        )
    summary = ", ".join(f"{n[k]} {k}" for k in CHANGE_ORDER)
    lines += ["", f"cases: {s.n_paired} paired ({summary})"]
    for flaky in (False, True):
        rows_c = shown_cases(cmp, show_all or flaky, flaky)
        if flaky and rows_c:
            lines.append(f"flaky cases ({len(rows_c)}): their outcome varied within a run")
        id_w = max((len(c.shown_id) for c in rows_c), default=2)
        for c in rows_c:
            lines.append(
                f"  {c.shown_id:<{id_w}}  {side_label(c.a):>16} -> {side_label(c.b):<16}  "
                f"{one_line(change_label(c))}"
            )
    same = cmp.steady_same()
    if not show_all and same:
        lines.append(f"  ({same} unchanged case(s) not shown; --all lists them)")
    for title, group in _unpaired_groups(cmp):
        if group:
            lines.append(f"{title}: {len(group)}")
            lines += [f"  {u.shown_id}: {one_line(u.reason)}" for u in group]
    if cmp.checks:
        lines += ["", "checks (A -> B):"]
        lines += _text_table(
            CHECK_HEAD, [[one_line(r.name, 60), *check_cells(r)] for r in cmp.checks]
        )
    if cmp.categories:
        lines += ["", "categories (Holm over the table):"]
        lines += _text_table(
            GROUP_HEAD, [[one_line(g.name, 60), *group_cells(g)] for g in cmp.categories]
        )
    return "\n".join(lines) + "\n"


RENDERERS = {"md": render_markdown, "json": render_json, "text": render_text}
