"""The comparison HTML report: `invoke diff`'s paired figures, rates side by side, answers diffed."""

from __future__ import annotations

import difflib
import hashlib
import re
from typing import Any

from evals.compare.breakdown import CheckChange
from evals.compare.explain import (
    fmt_estimate,
    fmt_interval,
    fmt_p,
    how_to_read,
    stats_lines,
    verdict_line,
)
from evals.compare.figures import Figure, fmt_change, in_points
from evals.compare.jsondata import comparison_data
from evals.compare.pairing import CaseDiff, Comparison, Unpaired, compare_runs
from evals.compare.render import (
    FIGURE_HEAD,
    GROUP_HEAD,
    figure_rows,
    fmt_ci,
    fmt_pts,
    group_cells,
    readings_shown,
)
from evals.numfmt import fmt_num, pct
from evals.report.data import is_sealed, review_names
from evals.report.page import Pair, esc, json_script, kv_table, page, paired_chart
from evals.run.files import RunFile
from evals.run.precedents import decided_by

# Words, whole citations, single punctuation marks and runs of whitespace.
_TOKEN = re.compile(r"\[[^\]\s]*\]|\w+|[^\w\s]|\s+")


def tokens(text: str) -> list[str]:
    return _TOKEN.findall(text)


def word_diff(a: str, b: str) -> tuple[str, str]:
    """Both texts escaped, with words only in A in <del> and words only in B in <ins>."""
    ta, tb = tokens(a), tokens(b)
    out_a, out_b = [], []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, ta, tb, autojunk=False).get_opcodes():
        sa, sb = esc("".join(ta[i1:i2])), esc("".join(tb[j1:j2]))
        if op == "equal":
            out_a.append(sa)
            out_b.append(sb)
            continue
        if sa:
            out_a.append(f"<del>{sa}</del>")
        if sb:
            out_b.append(f"<ins>{sb}</ins>")
    return "".join(out_a), "".join(out_b)


def rate_dict(passed: int, n: int, errors: int) -> dict[str, Any]:
    """A CheckRate side in the shape the charts draw (n_total = scored + errored)."""
    return {
        "pass": passed,
        "fail": n - passed,
        "error": errors,
        "skip": 0,
        "n_scored": n,
        "n_total": n + errors,
        "rate": passed / n if n else None,
    }


def pairs(checks: list[CheckChange]) -> list[Pair]:
    """Per-check A/B rates, the largest drop first."""
    out = [
        Pair(c.name, rate_dict(c.a_pass, c.a_n, c.a_error), rate_dict(c.b_pass, c.b_n, c.b_error))
        for c in checks
    ]

    def key(p: Pair) -> tuple[float, str]:
        ra, rb = p.a["rate"] if p.a else None, p.b["rate"] if p.b else None
        return ((rb - ra) if ra is not None and rb is not None else 0.0, p.name)

    return sorted(out, key=key)


def stat_card(label: str, value: str, sub: str, ident: str, cls: str = "") -> str:
    return (
        f'<div class="card {esc(cls)}" id="{esc(ident)}"><div class="label">{esc(label)}</div>'
        f'<div class="value">{esc(value)}</div><div class="sub">{esc(sub)}</div></div>'
    )


def _figure_card(f: Figure, ident: str) -> str:
    ci, mc = f.interval, f.interval.mcnemar
    counts = f"{mc.broken} broken (pass→fail), {mc.fixed} fixed (fail→pass); " if mc else ""
    return stat_card(
        f"{f.name} B − A",
        fmt_estimate(f),
        f"{counts}{ci.level:.0%} CI {fmt_interval(f)}; one-sided p = {fmt_p(f.p_value)} "
        f"(level {f.level:.3g}); {ci.method}",
        ident,
        "bad" if f.p_value <= f.level else "",
    )


def _table(ident: str, head: list[str], rows: list[list[str]]) -> str:
    th = "".join(f"<th>{esc(h)}</th>" for h in head)
    body = "".join("<tr>" + "".join(f"<td>{esc(c)}</td>" for c in row) + "</tr>" for row in rows)
    return (
        f'<table class="cmp" id="{ident}"><thead><tr>{th}</tr></thead><tbody>{body}</tbody></table>'
    )


def stats_section(cmp: Comparison, nav: str = "") -> str:
    """The gate's verdict and figures exactly as `invoke diff` computes and words them."""
    s, d = cmp.stats, cmp.decision
    n = cmp.counts()
    cards = [
        stat_card("paired cases", str(s.n_paired), "same id and case sha, scored in both", "st-n"),
        stat_card(
            "pass rate A → B",
            f"{pct(s.rate_a)} → {pct(s.rate_b)}",
            f"{s.passed_a}/{s.n_paired} → {s.passed_b}/{s.n_paired} passed every attempt",
            "st-rate",
            "bad" if (s.rate_b or 0) < (s.rate_a or 0) else "",
        ),
    ]
    gated = [f for f in d.main.figures if f.gated]  # a figure that only mirrors another: table only
    for f in gated:
        cards.append(_figure_card(f, "st-" + f.name.replace(" ", "-")))
    for f in gated:
        if f.mde is not None:
            mde = fmt_change(f.mde, f.name).lstrip("+").replace(" points", " pts")
        else:
            mde = "none at this n" if f.mde_kind == "none" else "unknown"
        cards.append(
            stat_card(
                f"smallest detectable drop ({f.name})",
                mde,
                f"at {d.power:.0%} power, level {f.level:.3g}, with {d.main.n_paired} cases",
                "st-mde-" + f.name.replace(" ", "-"),
                "warn" if f.mde is None or (in_points(f.name) and f.mde > 0.1) else "",
            )
        )
    if cmp.clusters.used:
        cards.append(
            stat_card(
                "clusters", str(cmp.clusters.n_clusters), "cluster-robust, G − 1 df", "st-cluster"
            )
        )
    cards.append(
        stat_card(
            "flaky cases",
            str(len(cmp.epochs.flaky)) if cmp.epochs.known else "unknown",
            "outcome varied within a run" if cmp.epochs.known else "one attempt per case",
            "st-flaky",
            "" if cmp.epochs.known else "warn",
        )
    )
    summary = (
        f'<p class="headline"><b>{esc(cmp.headline())}</b></p>'
        f'<p class="verdict-line"><span class="change broken">broken {n["broken"]}</span> '
        f'<span class="change down">down {n["DOWN"]}</span> '
        f'<span class="change fixed">fixed {n["fixed"]}</span> '
        f'<span class="change up">up {n["up"]}</span> <span class="change same">same {n["same"]}</span>'
        f" · {len(cmp.changed)} changed expectations, {len(cmp.errored)} errored, "
        f"{len(cmp.in_review)} in review, "
        f"{len(cmp.only_a)} only in A, {len(cmp.only_b)} only in B</p>"
    )
    v_cls = {"PASS": "good", "FAIL": "bad"}.get(d.verdict, "warn")
    v = f'<p class="{v_cls}" id="verdict">Verdict: {esc(verdict_line(cmp))}</p>'
    guide = "".join(f"<li>{esc(line)}</li>" for line in how_to_read(cmp))
    lines = "".join(f"<li>{esc(line)}</li>" for line in stats_lines(cmp))
    figures = _table(
        "figure-table",
        FIGURE_HEAD,
        [row for reading in readings_shown(cmp) for row in figure_rows(cmp, reading)],
    )
    cats = ""
    if cmp.categories:
        rows = [[g.name, *group_cells(g)] for g in cmp.categories]
        cats = "<h3>Categories (Holm over the table)</h3>" + _table(
            "category-table", GROUP_HEAD, rows
        )
    return (
        f'<section><h2>Paired statistics</h2>{summary}{v}{nav}<div class="stats">{"".join(cards)}</div>'
        f'<h3>How to read this</h3><ul class="stat-lines" id="how-to-read">{guide}</ul>'
        f"{figures}"
        f'<ul class="stat-lines" id="stat-lines">{lines}</ul>{cats}</section>'
    )


def checks_section(cmp: Comparison) -> str:
    ps = pairs(cmp.checks)
    by_name = {c.name: c for c in cmp.checks}
    rows = []
    for p in ps:
        a, b = p.a or {}, p.b or {}
        c = by_name[p.name]
        d = None if c.change is None else c.change.estimate
        cls = "" if d is None or abs(d) < 1e-12 else "down" if d < 0 else "up"
        change = "n/a" if c.change is None else f"{fmt_pts(d)}, {fmt_ci(c.change)}"
        rows.append(
            f'<tr data-check="{esc(p.name)}"><td>{esc(p.name)}</td>'
            f"<td>{esc(pct(a.get('rate')))} ({a.get('pass')}/{a.get('n_scored')})</td>"
            f"<td>{esc(pct(b.get('rate')))} ({b.get('pass')}/{b.get('n_scored')})</td>"
            f'<td class="{cls}">{esc(change)}</td><td>{esc(fmt_p(c.p_holm))}</td></tr>'
        )
    return (
        '<section class="charts"><div class="panel"><h2>Checks: pass rate, A (grey) vs B</h2>'
        + paired_chart("chart-pairs", ps, "per-check pass rate in A and B")
        + '</div><div class="panel"><h2>Over the paired cases</h2><table class="cmp" id="check-table">'
        "<thead><tr><th>check</th><th>A</th><th>B</th><th>B − A per case</th><th>Holm p</th></tr></thead>"
        f"<tbody>{''.join(rows)}</tbody></table></div></section>"
    )


def first_row(run: RunFile, case_id: str) -> dict[str, Any]:
    """The case's row in the first epoch, the one whose answer is shown."""
    rows = [r for r in run.rows if r.get("case") == case_id]
    return min(rows, key=lambda r: int(r.get("epoch") or 0)) if rows else {}


def side_html(label: str, row: dict[str, Any], marked: str, failed: list[str]) -> str:
    chk = "".join(f'<span class="chk fail">{esc(n)}</span>' for n in failed)
    chk += "".join(
        f'<span class="chk review" title="{esc((row["checks"][n] or {}).get("detail"))}">'
        f"{esc(n)} (review)</span>"
        for n in review_names(row)
    )
    chk = chk or "all checks pass"
    if isinstance(row.get("precedent"), dict):
        chk += f' · <span class="tag precedent">{esc(decided_by(row["precedent"]))}</span>'
    return (
        f'<div class="side"><div class="side-head"><b>{label}</b> · '
        f'<span class="pill {esc(row.get("status"))}">{esc(row.get("status"))}</span> score '
        f"{esc(fmt_num(row.get('score')))} · {chk}</div>"
        f'<div class="answer diff">{marked}</div></div>'
    )


def anchor(case_id: str) -> str:
    """A safe element id for a case card, whatever characters the case id holds."""
    return "c-" + hashlib.sha1(case_id.encode("utf-8")).hexdigest()[:12]


def flips_nav(cmp: Comparison) -> str:
    """Links to the broken, down and fixed cases, right under the verdict."""
    parts = []
    for change, label in (("broken", "Broken"), ("DOWN", "Down"), ("fixed", "Fixed")):
        ids = [c.id for c in cmp.cases if c.change == change]
        if ids:
            links = ", ".join(f'<a href="#{anchor(i)}">{esc(i)}</a>' for i in ids)
            parts.append(f'<span class="change {change.lower()}">{label}</span> {links}')
    return f'<p class="flips-nav" id="flips-nav">{"<br>".join(parts)}</p>' if parts else ""


def case_card(c: CaseDiff, a: RunFile, b: RunFile) -> str:
    ra, rb = first_row(a, c.id), first_row(b, c.id)
    ma, mb = word_diff(str(ra.get("draft") or ""), str(rb.get("draft") or ""))
    cls = c.change.lower()
    return (
        f'<article class="case-cmp {esc(cls)}" id="{anchor(c.id)}" data-case="{esc(c.id)}" '
        f'data-change="{esc(c.change)}">'
        f'<h3>{esc(c.id)}<span class="change {esc(cls)}">{esc(c.change)}</span> '
        f'<span class="dim">{esc(c.category or "")} · score {c.a.score:.3f} → {c.b.score:.3f}</span></h3>'
        f'<div class="question">{esc(c.question)}</div><div class="pairs">'
        + side_html("A", ra, ma, c.a.failed_checks)
        + side_html("B", rb, mb, c.b.failed_checks)
        + "</div></article>"
    )


def unpaired_list(title: str, items: list[Unpaired], ident: str) -> str:
    if not items:
        return ""
    lis = "".join(f"<li><code>{esc(u.id)}</code> {esc(u.reason)}</li>" for u in items)
    return f'<details class="more" id="{ident}"><summary>{esc(title)} ({len(items)})</summary><ul>{lis}</ul></details>'


def cases_section(cmp: Comparison, a: RunFile, b: RunFile) -> str:
    """Broken and fixed cases first, open; score moves next; unchanged and unpaired folded."""
    by = {
        k: [c for c in cmp.cases if c.change == k]
        for k in ("broken", "fixed", "DOWN", "up", "same")
    }
    head = (
        '<section id="flips"><h2>Broken and fixed cases</h2>'
        + (
            "".join(case_card(c, a, b) for c in by["broken"] + by["fixed"])
            or '<p class="dim">none</p>'
        )
        + "</section>"
    )
    moves = by["DOWN"] + by["up"]
    if moves:
        head += (
            f'<details class="more" id="moves" open><summary>Scores down or up ({len(moves)})</summary>'
            + "".join(case_card(c, a, b) for c in moves)
            + "</details>"
        )
    same = "".join(f"<li><code>{esc(c.id)}</code></li>" for c in by["same"])
    if same:
        head += f'<details class="more" id="same"><summary>Unchanged ({len(by["same"])})</summary><ul>{same}</ul></details>'
    return (
        head
        + unpaired_list("Expectations changed between the runs: not paired", cmp.changed, "changed")
        + unpaired_list("Errored in A or B: not paired", cmp.errored, "errored")
        + unpaired_list(
            "In review in A or B (undecided): not paired", cmp.in_review, "in-review-cases"
        )
        + unpaired_list("Only in A", cmp.only_a, "only-a")
        + unpaired_list("Only in B", cmp.only_b, "only-b")
    )


def header_section(cmp: Comparison) -> str:
    rows = "".join(
        f'<tr class="{"differs" if h.differs else ""}"><th scope="row">{esc(h.name)}</th>'
        f"<td><code>{esc(h.a)}</code></td><td><code>{esc(h.b)}</code></td>"
        f"<td>{'<b class=bad>differs</b>' if h.differs else ''}</td></tr>"
        for h in cmp.header
    )
    return (
        '<section class="stamps"><h2>What differs between the runs</h2><table class="cmp" id="stamps">'
        f"<thead><tr><th></th><th>A</th><th>B</th><th></th></tr></thead><tbody>{rows}</tbody></table></section>"
    )


def sealed_data(data: dict[str, Any]) -> dict[str, Any]:
    """The figures of a sealed comparison without a case id: counts instead of id lists."""
    keep = ("counts", "verdict", "checks", "categories", "stats", "how_to_read", "power", "lines")
    out = {k: data[k] for k in keep}
    out["readings"] = {
        name: {
            **{k: v for k, v in r.items() if k not in ("broken", "flaky_changed", "why")},
            "n_broken": len(r["broken"]),
            "n_flaky_changed": len(r["flaky_changed"]),
        }
        for name, r in data["readings"].items()
    }
    return out


def in_review_rows(a: RunFile, b: RunFile) -> list[tuple[str, str]]:
    """`in review: A 2 of 35, B 0 of 35` when either run has rows a check could not decide."""
    n = [sum(r.get("status") == "review" for r in run.rows) for run in (a, b)]
    if not any(n):
        return []
    return [("in review", f"A {n[0]} of {len(a.rows)}, B {n[1]} of {len(b.rows)} (never scored)")]


def render_compare_html(a: RunFile, b: RunFile) -> str:
    """The comparison page; sealed runs get the figures and check rates only."""
    cmp = compare_runs(a, b)
    sealed = is_sealed(a.header) or is_sealed(b.header)
    warn = "".join(f'<p class="warning">{esc(w)}</p>' for w in cmp.a.warnings + cmp.b.warnings)
    if sealed:
        warn += '<p class="sealed">Sealed runs: aggregates only. No case ids or text.</p>'
    top = (
        f'<header class="top"><h1>Comparison <span class="runid">A {esc(cmp.a.run_id)} → B {esc(cmp.b.run_id)}</span></h1>'
        + kv_table(
            [
                ("A", f"{cmp.a.model} · {cmp.a.created}"),
                ("B", f"{cmp.b.model} · {cmp.b.created}"),
                # Said up front: a reader must know whether the prompt, model or suite changed.
                ("differs", ", ".join(h.name for h in cmp.header if h.differs) or "nothing"),
                *in_review_rows(a, b),
            ]
        )
        + f"{warn}</header>"
    )
    body = top + stats_section(cmp, "" if sealed else flips_nav(cmp)) + checks_section(cmp)
    if not sealed:
        body += cases_section(cmp, a, b)
    body += header_section(cmp)
    # The same figures `invoke diff --format json` prints; a sealed pair keeps no case ids or text.
    data = comparison_data(cmp)
    if sealed:
        data = sealed_data(data)
    body += json_script("compare-data", data)
    return page(f"Comparison {cmp.a.run_id} → {cmp.b.run_id}", body)
