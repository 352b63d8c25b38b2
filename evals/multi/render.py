"""A comparison of several runs as Markdown (a pull request), plain text (a terminal) or JSON.

The three say the same things in the same order: each run with its figures, each candidate
against the baseline, which run is best (or which cannot be told apart), the cases where the
runs disagree, and each check's pass counts per run. Strings from run files go through
evals.compare.safe, as the diff's do.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from evals.compare.explain import fmt_p
from evals.compare.figures import Figure
from evals.compare.intervals import Interval
from evals.compare.jsondata import interval_data
from evals.compare.safe import md_text, one_line, shown_case_id
from evals.multi.comparison import Candidate, MultiComparison, RunFigures
from evals.numfmt import fmt_num, pct

GRID_ROWS = 40  # disagreeing cases listed before "… and N more" (--all lists every case)


def fmt_rate(r: RunFigures) -> str:
    """`82.9% (95% CI 67.3 to 91.9)`, or `n/a`."""
    if r.pass_rate is None:
        return "n/a"
    if r.pass_ci is None:
        return pct(r.pass_rate)
    return f"{pct(r.pass_rate)} ({100 * r.pass_ci[0]:.1f} to {100 * r.pass_ci[1]:.1f})"


def fmt_score(r: RunFigures) -> str:
    if r.mean_score is None:
        return "n/a"
    if r.score_ci is None:
        return fmt_num(r.mean_score)
    return f"{fmt_num(r.mean_score)} ({r.score_ci[0]:.3f} to {r.score_ci[1]:.3f})"


def fmt_change(f: Figure | None) -> str:
    """A candidate's change against the baseline with its interval."""
    if f is None:
        return "n/a"
    ci: Interval = f.interval
    if "rate" in f.name:
        return f"{100 * ci.estimate:+.1f} pts ({100 * ci.low:+.1f} to {100 * ci.high:+.1f})"
    return f"{ci.estimate:+.3f} ({ci.low:+.3f} to {ci.high:+.3f})"


def figure_of(c: Candidate, name: str) -> Figure | None:
    return next((f for f in c.comparison.decision.main.figures if f.name == name), None)


def run_name(mc: MultiComparison, k: int) -> str:
    return mc.runs[k].key + (" (baseline)" if k == mc.baseline else "")


def best_sentence(mc: MultiComparison) -> str:
    """Which run is best, or which runs cannot be told apart, and how that was decided."""
    rk = mc.ranking
    m = len(mc.runs)
    how = (
        f"each pair of runs by a two-sided paired test of the pass rate, Holm over the "
        f"{m * (m - 1) // 2} pairs, family-wise alpha {mc.alpha:g}"
    )
    if rk.leader is None:
        return f"No run scored any case: no run can be named best ({how})."
    if rk.best is not None:
        r = mc.runs[rk.best]
        return f"Best: {r.key} {r.label}, significantly better than every other run ({how})."
    top = ", ".join(f"{mc.runs[k].key} {mc.runs[k].label}" for k in rk.top)
    return f"No run is best: {top} cannot be told apart ({how})."


def worst_sentence(mc: MultiComparison) -> str | None:
    """The candidate whose pass rate fell most against the baseline, and whether that drop
    is significant after Holm: named even when it is not, so a reader sees where to look."""
    drops = [(f.interval.estimate, c) for c in mc.candidates if (f := figure_of(c, "pass rate"))]
    if not drops:
        return None
    change, c = min(drops, key=lambda d: d[0])
    if change >= 0:
        return "No candidate's pass rate is below the baseline's."
    r = mc.runs[c.run]
    verdict = (
        "significantly worse (the gate fails it after Holm)"
        if c.verdict.verdict == "FAIL"
        else f"not significantly worse after Holm (p {fmt_p(c.verdict.p_holm)} > {mc.alpha:g}; "
        f"verdict {c.verdict.verdict})"
    )
    return f"Worst against the baseline: {r.key} {r.label}, {100 * change:+.1f} pts in pass rate, {verdict}."


def escaper(fmt: str) -> Callable[[object], str]:
    """How a string from a run file is shown in a table cell of this format."""
    return (lambda s: md_text(s, 80)) if fmt == "md" else (lambda s: one_line(s, 80))


def table(fmt: str, head: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    """A Markdown table (`md`) or columns aligned with spaces (`text`); cells already escaped."""
    if fmt == "md":
        out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        return out + ["| " + " | ".join(r) + " |" for r in rows]
    widths = [max(len(x) for x in col) for col in zip(head, *rows, strict=True)]
    line = lambda r: "  ".join(x.ljust(w) for x, w in zip(r, widths, strict=True)).rstrip()  # noqa: E731
    return [line(head), line(["-" * w for w in widths]), *map(line, rows)]


def _heading(fmt: str, text: str, level: int = 2) -> list[str]:
    return ["", "#" * level + " " + text, ""] if fmt == "md" else ["", text, "=" * len(text)]


def render(mc: MultiComparison, fmt: str = "md", show_all: bool = False) -> str:
    """The comparison as Markdown (`md`) or plain text (`text`)."""
    esc = escaper(fmt)
    esc_long = md_text if fmt == "md" else one_line
    n_runs, base = len(mc.runs), mc.runs[mc.baseline]
    lines = (
        [f"# Compare: {n_runs} runs against {base.key} {esc(base.label)}"]
        if fmt == "md"
        else [f"compare: {n_runs} runs against {base.key} {one_line(base.label)}"]
    )
    level = f"{1 - mc.alpha:.0%}"
    lines += _heading(fmt, "Runs")
    lines += table(
        fmt,
        [
            "run",
            "label",
            "model",
            "prompt",
            f"pass rate ({level} CI)",
            "n",
            f"mean score ({level} CI)",
            "error",
            "review",
        ],
        [
            [
                run_name(mc, k),
                esc(r.label),
                esc(r.model),
                esc(r.prompt_sha),
                fmt_rate(r),
                f"{r.n_scored}/{r.n_cases}",
                fmt_score(r),
                str(r.n_error),
                str(r.n_review),
            ]
            for k, r in enumerate(mc.runs)
        ],
    )
    m = len(mc.candidates)
    lines += _heading(fmt, f"Against the baseline ({m} candidate{'s' * (m != 1)}, Holm)")
    rows = []
    for c in mc.candidates:
        r = mc.runs[c.run]
        v = c.verdict
        rows.append(
            [
                f"{r.key} {esc(r.label)}" + (" (gated)" if c.gated else ""),
                str(c.comparison.stats.n_paired),
                fmt_change(figure_of(c, "pass rate")),
                fmt_change(figure_of(c, "mean score")),
                fmt_p(v.p_gate),
                fmt_p(v.p_holm),
                f"{v.level:.3g}",
                v.verdict,
            ]
        )
    lines += table(
        fmt,
        [
            "candidate",
            "paired",
            f"pass rate B - A ({level} CI)",
            "mean score B - A",
            "p",
            "p (Holm)",
            "level",
            "verdict",
        ],
        rows,
    )
    lines.append("")
    lines.append(
        f"Each candidate is gated as `invoke diff` gates (one-sided, both figures), at its Holm "
        f"step: the smallest p at alpha {mc.alpha:g} / {m}, the next at alpha / {max(m - 1, 1)}, "
        f"…, so with every candidate unchanged the chance of any FAIL is at most {mc.alpha:g}."
    )
    for c in mc.candidates:
        lines.append(f"- {mc.runs[c.run].key}: {c.verdict.verdict}: {esc_long(c.verdict.reason)}")
    lines += ["", esc_long(best_sentence(mc))]
    if worst := worst_sentence(mc):
        lines.append(esc_long(worst))
    bad = mc.disagreeing
    lines += _heading(fmt, f"Where the runs disagree ({len(bad)} of {len(mc.grid)} cases)")
    shown_rows = mc.grid if show_all else bad
    cap = len(shown_rows) if show_all else GRID_ROWS
    if not shown_rows:
        lines.append("Every run did the same with every case.")
    else:
        lines += table(
            fmt,
            ["case", *(run_name(mc, k) for k in range(n_runs))],
            [
                [
                    shown_case_id(g.id) + ("" if g.same_case else " (case file differs)"),
                    *(c.text for c in g.cells),
                ]
                for g in shown_rows[:cap]
            ],
        )
        if len(shown_rows) > cap:
            lines.append(f"… and {len(shown_rows) - cap} more (--all lists every case)")
    lines += _heading(fmt, "Per check (passed / scored, errors)")
    lines += table(
        fmt,
        ["check", *(mc.runs[k].key for k in range(n_runs)), "cases where runs differ"],
        [
            [
                esc(ch.name),
                *(
                    f"{ch.passed[k]}/{ch.scored[k]}"
                    + (f", {ch.errored[k]} err" if ch.errored[k] else "")
                    for k in range(n_runs)
                ),
                str(ch.n_disagree),
            ]
            for ch in mc.checks
            if any(ch.scored) or any(ch.errored)
        ],
    )
    return "\n".join(lines) + "\n"


def to_data(mc: MultiComparison) -> dict[str, Any]:
    """Every figure the text shows, as plain values (the HTML page reads this too)."""
    return {
        "alpha": mc.alpha,
        "baseline": mc.runs[mc.baseline].key,
        "runs": [
            {
                "key": r.key,
                "label": r.label,
                "path": r.path,
                "run_id": r.run_id,
                "model": r.model,
                "prompt_sha": r.prompt_sha,
                "n_cases": r.n_cases,
                "n_scored": r.n_scored,
                "n_error": r.n_error,
                "n_review": r.n_review,
                "n_missing": r.n_missing,
                "pass_rate": r.pass_rate,
                "pass_ci": r.pass_ci,
                "mean_score": r.mean_score,
                "score_ci": r.score_ci,
            }
            for r in mc.runs
        ],
        "candidates": [
            {
                "run": mc.runs[c.run].key,
                "gated": c.gated,
                "n_paired": c.comparison.stats.n_paired,
                "figures": {
                    f.name: {
                        "interval": interval_data(f.interval),
                        "p_value": f.p_value,
                        "gated": f.gated,
                    }
                    for f in c.comparison.decision.main.figures
                },
                "p_gate": c.verdict.p_gate,
                "p_holm": c.verdict.p_holm,
                "holm_step": c.verdict.step,
                "level": c.verdict.level,
                "verdict": c.verdict.verdict,
                "reason": c.verdict.reason,
            }
            for c in mc.candidates
        ],
        "ranking": {
            "leader": None if mc.ranking.leader is None else mc.runs[mc.ranking.leader].key,
            "best": None if mc.ranking.best is None else mc.runs[mc.ranking.best].key,
            "cannot_be_told_apart": [mc.runs[k].key for k in mc.ranking.top],
            "sentence": best_sentence(mc),
            "worst": worst_sentence(mc),
            "pairs": [
                {
                    "better": mc.runs[p.better].key,
                    "worse": mc.runs[p.worse].key,
                    "n": p.n,
                    "interval": interval_data(p.interval),
                    "p_two_sided": p.p_two_sided,
                    "p_holm": p.p_holm,
                    "significant": p.significant,
                }
                for p in mc.ranking.pairs
            ],
        },
        "grid": [
            {
                "case": g.id,
                "shown_id": shown_case_id(g.id),
                "question": g.question,
                "disagree": g.disagree,
                "same_case": g.same_case,
                "cells": [
                    {
                        "status": c.status,
                        "text": c.text,
                        "score": c.score,
                        "n_epochs": c.n_epochs,
                        "n_scored": c.n_scored,
                        "n_pass": c.n_pass,
                        "answer": c.answer,
                        "error": c.error,
                        "checks": {
                            name: {"status": res.get("status"), "detail": res.get("detail")}
                            for name, res in c.checks.items()
                            if isinstance(res, dict)
                        },
                    }
                    for c in g.cells
                ],
            }
            for g in mc.grid
        ],
        "checks": [
            {
                "name": ch.name,
                "passed": ch.passed,
                "scored": ch.scored,
                "errored": ch.errored,
                "n_disagree": ch.n_disagree,
            }
            for ch in mc.checks
        ],
    }


def render_json(mc: MultiComparison) -> str:
    return json.dumps(to_data(mc), indent=2, ensure_ascii=False) + "\n"
