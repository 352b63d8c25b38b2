"""Rendering a Comparison: Markdown for a pull request, JSON for machines, plain text for a terminal."""

from __future__ import annotations

import dataclasses
import json
import re
from typing import Any

from evals.compare.pairing import CHANGE_ORDER, CaseDiff, Comparison, SideCase, Unpaired
from evals.numfmt import fmt_num, fmt_signed, pct

QUESTION_WIDTH = 80


def fmt_pts(x: float | None) -> str:
    """A difference of rates in percentage points, signed, or `n/a`."""
    return "n/a" if x is None else f"{100 * x:+.1f} pts"


def fmt_p(p: float | None) -> str:
    """A p-value: four decimals, scientific notation below 0.0001."""
    return "n/a" if p is None else (f"{p:.4f}" if p >= 0.0001 else f"{p:.2e}")


# Characters that GitHub Markdown would read as markup: a table cell split (|), emphasis,
# code spans, links, and raw HTML (`<!--` in a question would hide the rest of the report).
_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>|~&])")


def _line(text: str, width: int) -> str:
    """One line, long text shortened."""
    text = " ".join(str(text).split())
    return text if len(text) <= width else text[: width - 1] + "…"


# `@name` and `#123` in a pasted report would notify people and link issues; as code they do not.
_GH_REFS = re.compile(r"(?<![\w/])([@#][A-Za-z0-9][\w-]*)")


def _cell(text: str, width: int = QUESTION_WIDTH) -> str:
    """One Markdown table cell: one line, shortened, then every markup character escaped."""
    return _GH_REFS.sub(r"`\1`", _MD_SPECIAL.sub(r"\\\1", _line(text, width)))


_HEX = re.compile(r"\b([0-9a-f]{12})[0-9a-f]{28,52}\b")


def _short(value: str) -> str:
    """Long hex digests and commits shortened to 12 characters for reading (JSON keeps them whole)."""
    return _HEX.sub(r"\1", value)


def side_label(s: SideCase) -> str:
    """`pass 1.00` for one epoch; `2/3 pass 0.71` over epochs; errors appended."""
    verdict = "pass" if s.passed else "fail"
    text = (
        f"{verdict} {fmt_num(s.score, 2)}"
        if s.n_scored == 1
        else f"{s.n_pass}/{s.n_scored} {verdict} {fmt_num(s.score, 2)}"
    )
    if s.n_epochs > s.n_scored:
        text += f" ({s.n_epochs - s.n_scored} error)"
    return text


def change_label(c: CaseDiff) -> str:
    """The case's change, with the checks B failed when it broke."""
    if c.change == "broken" and c.b.failed_checks:
        return f"broken: {', '.join(c.b.failed_checks)}"
    return c.change


def shown_cases(cmp: Comparison, show_all: bool) -> list[CaseDiff]:
    """The cases the table lists (changed ones unless `show_all`), worst change first."""
    rows = cmp.cases if show_all else [c for c in cmp.cases if c.change != "same"]
    return sorted(rows, key=lambda c: (CHANGE_ORDER[c.change], c.id))


def _rate_text(cmp: Comparison, side: str) -> str:
    s = cmp.stats
    rate, passed = (s.rate_a, s.passed_a) if side == "a" else (s.rate_b, s.passed_b)
    if cmp.a.epochs == 1 and cmp.b.epochs == 1:
        return f"{pct(rate)} ({passed}/{s.n_paired})"
    return f"{pct(rate)} (mean over epochs, n={s.n_paired} cases)"


def fmt_ci(ci: Any, scale: float, fmt: str) -> str:
    """`95% CI [lo, hi]` with the bounds multiplied by `scale`, or `n/a`."""
    if ci is None:
        return "n/a"
    lo, hi = ci.low * scale, ci.high * scale
    return f"{ci.level:.0%} CI [{lo:{fmt}}, {hi:{fmt}}]"


def stats_lines(cmp: Comparison) -> list[str]:
    """The paired statistics as sentences (shared by Markdown and text)."""
    s = cmp.stats
    mc, sign = s.mcnemar, s.sign
    out = []
    if mc.n_discordant == 0:
        out.append(
            "Pass → fail b = 0, fail → pass c = 0: no discordant pairs (McNemar not applicable)."
        )
    else:
        out.append(
            f"Pass → fail b = {mc.b}, fail → pass c = {mc.c}: "
            f"McNemar exact two-sided p = {fmt_p(mc.p_value)} (n = {mc.n_discordant} discordant pairs)."
        )
    if sign.p_value is None:
        out.append(f"Sign test on scores: all {sign.n_ties} score differences are ties; no test.")
    else:
        out.append(
            f"Sign test on scores: {sign.n_up} up, {sign.n_down} down, {sign.n_ties} tied: "
            f"two-sided p = {fmt_p(sign.p_value)}."
        )
    for name, cl, scale, unit_fmt in (
        ("score", s.score_clustered, 1.0, ".3f"),
        ("pass-rate", s.rate_clustered, 100.0, ".1f"),
    ):
        if cl is not None:
            unit = " pts" if scale != 1.0 else ""
            out.append(
                f"Clustered SE of the mean {name} difference: {cl.se * scale:{unit_fmt}}{unit} over "
                f"{cl.n_clusters} clusters ({cl.naive_se * scale:{unit_fmt}}{unit} if cases were independent)."
            )
    out.append(
        f"Bootstrap: {s.resamples:,} resamples of cases (not attempts), seed {s.seed}, percentile intervals."
    )
    for name, ci in (("score", s.score_ci), ("pass-rate", s.rate_ci)):
        if ci is not None and ci.grid is not None:
            out.append(
                f"The {name} differences take so many distinct values that they were resampled "
                f"binned to {ci.grid:g} (interval moved by the binning's mean error)."
            )
    out.append(mde_sentence(cmp))
    return out


def mde_sentence(cmp: Comparison) -> str:
    s = cmp.stats
    power = f"{s.power:.0%} power (alpha {s.alpha:g})"
    if s.mde_rate is None:
        return f"With {s.n_paired} paired cases this diff cannot detect any change in pass rate at {power}."
    text = (
        f"With {s.n_paired} paired cases this diff can only detect a change of "
        f"{100 * s.mde_rate:.1f} points or more in pass rate at {power}"
    )
    if s.mde_score is not None:
        text += f", and of {s.mde_score:.3f} or more in mean score"
    return text + "."


def verdict_line(cmp: Comparison) -> str:
    """OK / FAIL / NOTHING COMPARED, with what was left out of the pairing."""
    why = cmp.verdict()
    if cmp.stats.n_paired == 0:
        line = "NOTHING COMPARED (no case was scored in both runs)"
    elif why:
        line = f"FAIL ({why})"
    else:
        line = f"OK (no {'significant ' if cmp.fail_on == 'significant' else ''}regression)"
    left_out = [
        f"{len(group)} {what}"
        for what, group in (("left out for errors", cmp.errored), ("changed", cmp.changed))
        if group
    ]
    return line + (f"; {', '.join(left_out)}" if left_out else "")


def _unpaired_groups(cmp: Comparison) -> list[tuple[str, list[Unpaired]]]:
    return [
        ("Changed (expectations edited between the runs; not compared)", cmp.changed),
        ("Only in A", cmp.only_a),
        ("Only in B", cmp.only_b),
        ("Left out for errors", cmp.errored),
    ]


def _run_notes(cmp: Comparison) -> list[str]:
    out = [
        f"Error rows left out: A {cmp.a.n_error_rows} of {cmp.a.n_rows}, B {cmp.b.n_error_rows} of {cmp.b.n_rows}."
    ]
    for side, info in (("A", cmp.a), ("B", cmp.b)):
        if not info.complete:
            out.append(
                f"Run {side} is incomplete (no completed summary): its missing cases are one-sided."
            )
        out.extend(f"Run {side}: {w}" for w in info.warnings)
    return out


def render_markdown(cmp: Comparison, show_all: bool = False) -> str:
    """The diff as Markdown to paste into a pull request."""
    s, n = cmp.stats, cmp.counts()
    lines = [f"## Eval diff: `{cmp.a.run_id}` → `{cmp.b.run_id}`", ""]
    lines += [f"**Verdict** (`--fail-on {cmp.fail_on}`): {verdict_line(cmp)}", ""]
    lines += ["| | A | B | |", "|---|---|---|---|"]
    lines.append(f"| run | `{cmp.a.run_id}` | `{cmp.b.run_id}` | |")
    for h in cmp.header:
        mark = "**differs**" if h.differs else ""
        lines.append(f"| {h.name} | {_cell(_short(h.a), 60)} | {_cell(_short(h.b), 60)} | {mark} |")
    summary = ", ".join(f"{n[k]} {k}" for k in CHANGE_ORDER)
    lines += ["", f"### Cases: {s.n_paired} paired ({summary})"]
    rows = shown_cases(cmp, show_all)
    if rows:
        lines += ["", "| id | question | A | B | change |", "|---|---|---|---|---|"]
        for c in rows:
            label = change_label(c)
            if c.change in ("broken", "DOWN"):
                label = f"**{label}**"
            lines.append(
                f"| `{c.id}` | {_cell(c.question)} | {side_label(c.a)} | {side_label(c.b)} | {label} |"
            )
    if not show_all and n["same"]:
        lines += ["", f"_{n['same']} unchanged case(s) not shown; `--all` lists them._"]
    unpaired = [(t, g) for t, g in _unpaired_groups(cmp) if g]
    if unpaired:
        lines += ["", "### Not paired", ""]
        for title, group in unpaired:
            lines.append(f"- **{title}** ({len(group)}):")
            lines += [f"  - `{u.id}`: {_cell(u.reason, 160)}" for u in group]
    lines += [""] + [f"- {note}" for note in _run_notes(cmp)]
    if cmp.checks:
        lines += ["", f"### Checks (scored rows of the {s.n_paired} paired cases)", ""]
        lines += ["| check | A | B | B − A |", "|---|---|---|---|"]
        for r in cmp.checks:
            cells = []
            for rate, passed, total, err in (
                (r.rate_a, r.a_pass, r.a_n, r.a_error),
                (r.rate_b, r.b_pass, r.b_n, r.b_error),
            ):
                cells.append(f"{pct(rate)} ({passed}/{total})" + (f", {err} error" if err else ""))
            diff = None if r.rate_a is None or r.rate_b is None else r.rate_b - r.rate_a
            lines.append(f"| {r.name} | {cells[0]} | {cells[1]} | {fmt_pts(diff)} |")
    lines += ["", f"### Paired statistics ({s.n_paired} paired cases)", ""]
    if s.n_paired:
        rate_diff = None if s.rate_a is None or s.rate_b is None else s.rate_b - s.rate_a
        score_diff = None if s.score_a is None or s.score_b is None else s.score_b - s.score_a
        lines += ["| | A | B | B − A |", "|---|---|---|---|"]
        lines.append(
            f"| pass rate | {_rate_text(cmp, 'a')} | {_rate_text(cmp, 'b')} | "
            f"{fmt_pts(rate_diff)}, {fmt_ci(s.rate_ci, 100, '+.1f')} |"
        )
        lines.append(
            f"| mean score | {fmt_num(s.score_a)} (n={s.n_paired}) | {fmt_num(s.score_b)} (n={s.n_paired}) | "
            f"{fmt_signed(score_diff)}, {fmt_ci(s.score_ci, 1, '+.3f')} |"
        )
        lines.append("")
        lines += [f"- {line}" for line in stats_lines(cmp)]
    else:
        lines.append("No case was scored in both runs: nothing to compare.")
    return "\n".join(lines) + "\n"


def render_text(cmp: Comparison, show_all: bool = False) -> str:
    """The diff as plain text for a terminal."""
    s, n = cmp.stats, cmp.counts()
    lines = [
        f"diff {cmp.a.run_id} -> {cmp.b.run_id}",
        f"verdict (--fail-on {cmp.fail_on}): {verdict_line(cmp)}",
        "",
    ]
    width = max(len(h.name) for h in cmp.header)
    for h in cmp.header:
        mark = "  *" if h.differs else ""
        lines.append(
            f"  {h.name:<{width}}  A: {_line(_short(h.a), 50)}  B: {_line(_short(h.b), 50)}{mark}"
        )
    summary = ", ".join(f"{n[k]} {k}" for k in CHANGE_ORDER)
    lines += ["", f"cases: {s.n_paired} paired ({summary})"]
    rows = shown_cases(cmp, show_all)
    id_w = max((len(c.id) for c in rows), default=2)
    for c in rows:
        lines.append(
            f"  {c.id:<{id_w}}  {side_label(c.a):>16} -> {side_label(c.b):<16}  {change_label(c)}"
        )
    if not show_all and n["same"]:
        lines.append(f"  ({n['same']} unchanged case(s) not shown; --all lists them)")
    for title, group in _unpaired_groups(cmp):
        if group:
            lines.append(f"{title}: {len(group)}")
            lines += [f"  {u.id}: {u.reason}" for u in group]
    lines += _run_notes(cmp)
    if cmp.checks:
        lines += ["", "checks (A -> B):"]
        name_w = max(len(r.name) for r in cmp.checks)
        for r in cmp.checks:
            diff = None if r.rate_a is None or r.rate_b is None else r.rate_b - r.rate_a
            lines.append(
                f"  {r.name:<{name_w}}  {pct(r.rate_a)} ({r.a_pass}/{r.a_n}) -> "
                f"{pct(r.rate_b)} ({r.b_pass}/{r.b_n})  {fmt_pts(diff)}"
            )
    if s.n_paired:
        lines += ["", "statistics:"]
        lines.append(
            f"  pass rate   A {_rate_text(cmp, 'a')}  B {_rate_text(cmp, 'b')}  {fmt_ci(s.rate_ci, 100, '+.1f')} pts"
        )
        lines.append(
            f"  mean score  A {fmt_num(s.score_a)} (n={s.n_paired})  B {fmt_num(s.score_b)} (n={s.n_paired})  "
            f"{fmt_ci(s.score_ci, 1, '+.3f')}"
        )
        lines += [f"  {line}" for line in stats_lines(cmp)]
    return "\n".join(lines) + "\n"


def _side_data(s: SideCase) -> dict[str, Any]:
    return {
        "n_epochs": s.n_epochs,
        "n_scored": s.n_scored,
        "n_pass": s.n_pass,
        "pass_rate": s.pass_rate,
        "passed": s.passed,
        "score": s.score,
        "failed_checks": s.failed_checks,
        "errors": s.errors,
    }


def comparison_data(cmp: Comparison, show_all: bool = True) -> dict[str, Any]:
    """A JSON-ready dict of the comparison; derived figures included so readers need no code."""
    s = cmp.stats
    stats_data = dataclasses.asdict(s)
    stats_data["mcnemar"]["n_discordant"] = s.mcnemar.n_discordant
    stats_data["bootstrap"] = {"seed": s.seed, "resamples": s.resamples, "method": "percentile"}
    verdict = cmp.verdict()
    return {
        "a": dataclasses.asdict(cmp.a),
        "b": dataclasses.asdict(cmp.b),
        "header": [{"name": h.name, "a": h.a, "b": h.b, "differs": h.differs} for h in cmp.header],
        "counts": cmp.counts(),
        "verdict": {"fail_on": cmp.fail_on, "failed": verdict is not None, "reason": verdict},
        "cases": [
            {
                "id": c.id,
                "question": c.question,
                "category": c.category,
                "cluster": c.cluster,
                "change": c.change,
                "score_diff": c.score_diff,
                "rate_diff": c.rate_diff,
                "a": _side_data(c.a),
                "b": _side_data(c.b),
            }
            for c in shown_cases(cmp, show_all)
        ],
        "changed": [dataclasses.asdict(u) for u in cmp.changed],
        "only_a": [dataclasses.asdict(u) for u in cmp.only_a],
        "only_b": [dataclasses.asdict(u) for u in cmp.only_b],
        "errored": [dataclasses.asdict(u) for u in cmp.errored],
        "checks": [
            {**dataclasses.asdict(r), "rate_a": r.rate_a, "rate_b": r.rate_b} for r in cmp.checks
        ],
        "stats": stats_data,
        "mde_sentence": mde_sentence(cmp),
    }


def render_json(cmp: Comparison, show_all: bool = True) -> str:
    """The diff as one JSON line for machines."""
    # No indent: the C encoder is many times faster, and machines read this.
    return json.dumps(comparison_data(cmp, show_all), ensure_ascii=False) + "\n"


RENDERERS = {"md": render_markdown, "json": render_json, "text": render_text}
