"""The single-run HTML report: charts, the case table with filters, each case's detail, stamps."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from evals.numfmt import fmt_cost, fmt_ms, fmt_num, fmt_tokens, pct
from evals.report.brief import FULL_ROWS
from evals.report.data import (
    RunReport,
    failing_checks,
    find_suite,
    review_names,
    row_label,
    run_labels,
    run_questions,
    suite_roots,
    weakest_first,
)
from evals.report.detail import detail_html
from evals.report.page import bar_chart, esc, json_list_script, json_script, kv_table, page
from evals.run.precedents import decided_by

# Cases in review sit beside errors: neither is scored, both need a person.
STATUS_RANK = {"error": 0, "review": 1, "fail": 2, "pass": 3}


def card(label: str, value: str, sub: str = "", cls: str = "", ident: str = "") -> str:
    i = f' id="{esc(ident)}"' if ident else ""
    return (
        f'<div class="card {esc(cls)}"{i}><div class="label">{esc(label)}</div>'
        f'<div class="value">{esc(value)}</div><div class="sub">{esc(sub)}</div></div>'
    )


def stamp_rows(header: dict[str, Any]) -> list[tuple[str, Any]]:
    git = header.get("git") or {}
    judge = header.get("judge")
    return [
        ("run id", header.get("run_id")),
        ("model", header.get("model")),
        ("provider", header.get("provider")),
        ("prompt sha", header.get("prompt_sha")),
        ("judge", judge if judge else "none"),
        ("git commit", f"{git.get('commit') or 'none'}" + (" (dirty)" if git.get("dirty") else "")),
        ("created", header.get("created")),
        ("label", header.get("label") or ""),
        ("suite", header.get("suite")),
        ("suite digest", header.get("suite_digest")),
        ("cases", header.get("n_cases")),
        ("settings", header.get("settings") or {}),
        ("versions", header.get("versions") or {}),
    ]


def top(rep: RunReport) -> str:
    """Title, the stamp strip, warnings, and the headline cards."""
    h, s = rep.header, rep.summary
    git = h.get("git") or {}
    judge = (h.get("judge") or {}).get("model") or "none"
    strip = " · ".join(
        [
            f"model <b>{esc(h.get('model'))}</b>",
            f"prompt <code>{esc(str(h.get('prompt_sha'))[:12])}</code>",
            f"judge <b>{esc(judge)}</b>",
            f"commit <code>{esc((git.get('commit') or 'none')[:12])}</code>"
            + (' <span class="tag warn">dirty</span>' if git.get("dirty") else ""),
            f"{esc(h.get('created'))}",
        ]
    )
    notes = "".join(f'<p class="warning">{esc(w)}</p>' for w in rep.warnings)
    if rep.sealed:
        notes += '<p class="sealed">Sealed run: aggregates only. No case ids or text.</p>'
    if not s.get("completed"):
        notes += f'<p class="warning">Run stopped early: {esc(s.get("stopped_reason"))}</p>'
    c = s["counts"]
    scored = c["pass"] + c["fail"]
    case_rate = c["pass"] / scored if scored else None
    j = rep.judge
    cards = [
        card(
            "cases passed",
            pct(case_rate),
            f"{c['pass']}/{scored} scored of {c['total']}",
            "weak" if case_rate is not None and case_rate < 0.7 else "",
            "card-cases",
        ),
        card("fail", str(c["fail"]), "cases", "bad" if c["fail"] else "", "card-fail"),
        card(
            "error",
            str(c["error"]),
            "cases, never scored",
            "bad" if c["error"] else "",
            "card-error",
        ),
        *(
            [
                card(
                    "in review",
                    str(c["review"]),
                    "cases the checks could not decide, never scored",
                    "warn",
                    "card-in-review",
                )
            ]
            if c.get("review")
            else []
        ),
        card(
            "mean score",
            fmt_num(s.get("score_mean")),
            f"n={s.get('n_scored')}/{s.get('n_total')}",
            ident="card-score",
        ),
    ]
    labels = run_labels(rep)
    if labels:
        sub = f"{labels['pass']} pass, {labels['fail']} fail; checks said otherwise on {labels['checks_disagreed']}"
        cards.append(card("decided by a label", str(labels["n"]), sub, "warn", "card-labels"))
    asked = run_questions(rep)
    if asked:
        sub = f"{asked['stated']} stated, {asked['not_stated']} not stated, {asked['error']} error; on {asked['n_rows']} case(s)"
        if asked.get("claims"):
            sub += f"; {asked['claims']} per claim"
        tone = "bad" if asked["error"] else "warn"
        cards.append(card("judge per fact", str(asked["n_questions"]), sub, tone, "card-questions"))
    if j is not None:
        cards.append(
            card(
                "judge coverage",
                f"{j.n_scored}/{j.n_total}",
                f"{j.errors} judge errors",
                "bad" if j.errors else "",
                "card-judge",
            )
        )
    if j is not None or rep.flagged:
        cards.append(
            card(
                "needs review",
                str(len(rep.flagged)),
                "rows flagged",
                "warn" if rep.flagged else "",
                "card-review",
            )
        )
    cost = s.get("cost_usd")
    tokens = s.get("tokens") or {}
    cards.append(card("cost", fmt_cost(cost), "USD", ident="card-cost"))
    tok = tokens.get("total_tokens")
    if tok is None and tokens:
        tok = sum(v for v in tokens.values() if isinstance(v, int))
    cards.append(
        card(
            "tokens", "n/a" if tok is None else f"{tok:,}", fmt_tokens(tokens), ident="card-tokens"
        )
    )
    if "judge_cost_usd" in s and (j is not None or s.get("judge_cost_usd") is not None):
        jt = sum(v for v in (s.get("judge_usage") or {}).values() if isinstance(v, int))
        calls = f"{s.get('n_judge_calls') or 0} call(s), {jt:,} tokens"
        cards.append(
            card("judge cost", fmt_cost(s["judge_cost_usd"]), calls, ident="card-judge-cost")
        )
        total = fmt_cost(s.get("total_cost_usd"))
        cards.append(card("total cost", total, "answers + judge, USD", ident="card-total-cost"))
    lat = rep.latency
    cards.append(
        card(
            "latency p50 / p95",
            f"{fmt_ms(lat.p50)} / {fmt_ms(lat.p95)}",
            f"n={lat.n}/{lat.n_total}",
            ident="card-latency",
        )
    )
    return (
        f'<header class="top"><h1>Run report <span class="runid">{esc(rep.run.run_id)}</span></h1>'
        f'<p class="strip">{strip}</p>{notes}</header>'
        f'<section class="cards">{"".join(cards)}</section>'
    )


def charts(rep: RunReport) -> str:
    s = rep.summary
    checks = weakest_first(s.get("checks") or {})
    cats = weakest_first(s.get("categories") or {})
    legend = (
        '<p class="legend"><span class="sw weak"></span>below 70% <span class="sw fair"></span>'
        '70–90% <span class="sw good"></span>90% and over <span class="sw none"></span>nothing scored'
        " · weakest first · n = scored/total (errors and skips are not scored)</p>"
    )
    return (
        '<section class="charts"><div class="panel"><h2>Checks: pass rate</h2>'
        + bar_chart("chart-checks", checks, "pass rate per check")
        + check_table(checks)
        + '</div><div class="panel"><h2>Categories: case pass rate</h2>'
        + bar_chart("chart-categories", cats, "case pass rate per category")
        + f"</div>{legend}</section>"
    )


def check_table(checks: list[tuple[str, dict[str, Any]]]) -> str:
    """Each check's pass rate beside its mean score (a partial score counts as it is), with n;
    a review column when some check could not decide."""
    review = any(r.get("review") for _, r in checks)
    body = "".join(
        f"<tr><td>{esc(name)}</td><td>{esc(pct(r['rate']))}</td>"
        f"<td>{esc(fmt_num(r.get('score_mean'), 3))}</td>"
        f"<td>{r['n_scored']}/{r['n_total']}</td>"
        + (f"<td>{r.get('review', 0)}</td>" if review else "")
        + f"<td>{r['error']}</td><td>{r['skip']}</td></tr>"
        for name, r in checks
    )
    return (
        '<table class="checks" id="check-means"><thead><tr><th>check</th><th>pass rate</th>'
        "<th>mean score</th><th>scored/total</th>"
        + ("<th>review</th>" if review else "")
        + "<th>error</th><th>skip</th></tr></thead>"
        f"<tbody>{body}</tbody></table>"
    )


def errors_section(rep: RunReport) -> str:
    if not rep.errors:
        return ""
    items = []
    for e in rep.errors:
        if rep.sealed:
            items.append(f"<li><b>{len(e.cases)}</b> case(s)</li>")
        else:
            ids = ", ".join(esc(c) for c in e.cases)
            items.append(
                f"<li><b>{len(e.cases)}×</b> <code>{esc(e.reason)}</code> <span class='ids'>{ids}</span></li>"
            )
    n = rep.summary["counts"]["error"]
    return f'<section class="errors"><h2>Errors: {n} case(s), never scored</h2><ul>{"".join(items)}</ul></section>'


def reviews_section(rep: RunReport) -> str:
    """Cases in review grouped by the check that could not decide and why."""
    n = rep.summary["counts"].get("review", 0)
    if not n:
        return ""
    items = []
    for g in rep.reviews:
        if rep.sealed:
            items.append(f"<li><b>{len(g.cases)}</b> case(s)</li>")
        else:
            ids = ", ".join(esc(c) for c in g.cases)
            items.append(
                f"<li><b>{len(g.cases)}×</b> <code>{esc(g.reason)}</code> <span class='ids'>{ids}</span></li>"
            )
    return (
        f'<section class="errors reviews" id="reviews"><h2>In review: {n} case(s) the checks '
        f"could not decide, never scored</h2><ul>{''.join(items)}</ul></section>"
    )


def ordered_rows(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Errors, then cases in review, then failures, then passes; the lowest scores first
    within each."""
    return sorted(
        rows,
        key=lambda r: (
            STATUS_RANK.get(r.get("status"), 3),
            r.get("score") if r.get("score") is not None else -1,
            str(r.get("case")),
            r.get("epoch", 0),
        ),
    )


def select(ident: str, label: str, options: list[tuple[str, str]]) -> str:
    opts = "".join(f'<option value="{esc(v)}">{esc(t)}</option>' for v, t in options)
    return f'<label>{esc(label)} <select id="{esc(ident)}">{opts}</select></label>'


def cases_section(rep: RunReport) -> str:
    suite = find_suite(rep.header, suite_roots(rep.run, Path.cwd()))
    rows = ordered_rows(rep.rows)
    # A large run: the first rows in full, every other one in brief (report/brief.py).
    briefs = rep.briefs.listed(rows[FULL_ROWS:]) if rep.briefs is not None else []
    if rep.briefs is not None:
        rows = rows[:FULL_ROWS]
    total = len(rows) + len(briefs)
    trs, details = [], []
    for i, row in enumerate(rows):
        failed, errored = failing_checks(row)
        st = str(row.get("status"))
        score = row.get("score")
        fails = "".join(f'<span class="chk fail">{esc(n)}</span>' for n in failed)
        fails += "".join(f'<span class="chk error">{esc(n)} (error)</span>' for n in errored)
        undecided = review_names(row)
        fails += "".join(
            f'<span class="chk review" title="{esc((row["checks"][n] or {}).get("detail"))}">'
            f"{esc(n)} (review)</span>"
            for n in undecided
        )
        if st == "error" and not errored:
            reason = str(row.get("error") or "error")
            short = reason if len(reason) <= 60 else reason[:59] + "…"
            fails += f'<span class="reason" title="{esc(reason)}">{esc(short)}</span>'
        flag = (
            ' <span class="tag warn" title="needs review">review</span>'
            if row.get("needs_review")
            else ""
        )
        if isinstance(row.get("precedent"), dict):
            flag += f' <span class="tag precedent" title="{esc(decided_by(row["precedent"]))}">label</span>'
        trs.append(
            f'<tr class="case-row {esc(st)}" tabindex="0" data-detail="detail-{i}" data-status="{esc(st)}"'
            f' data-category="{esc(row.get("category") or "(none)")}" data-failing="{esc(" ".join(failed + errored + undecided))}"'
            f' data-k-id="{esc(row_label(row, rep.epochs))}" data-k-category="{esc(row.get("category") or "")}"'
            f' data-k-status="{STATUS_RANK.get(st, 3)}" data-k-score="{"" if score is None else score}"'
            f' data-k-failing="{len(failed) + len(errored)}">'
            f"<td>{esc(row_label(row, rep.epochs))}{flag}</td><td>{esc(row.get('category') or '')}</td>"
            f'<td><span class="pill {esc(st)}">{esc(st)}</span></td><td class="num">{esc(fmt_num(score))}</td>'
            f"<td>{fails}</td></tr>"
        )
        details.append(detail_html(i, row, rep, suite))
    s = rep.summary
    filters = (
        '<div class="filters">'
        + select(
            "f-status",
            "status",
            [
                ("all", "all"),
                ("not-pass", "failures, errors and reviews"),
                ("fail", "fail"),
                ("review", "review"),
                ("error", "error"),
                ("pass", "pass"),
            ],
        )
        + select(
            "f-check",
            "failing check",
            [("", "any")] + [(n, n) for n, _ in weakest_first(s.get("checks") or {})],
        )
        + select(
            "f-category",
            "category",
            [("", "any")] + [(n, n) for n in sorted(s.get("categories") or {})],
        )
        + '<label>id <input id="f-text" type="search" placeholder="filter ids"></label>'
        + f'<span class="shown" id="shown-count">{total} of {total}</span>'
        + '<span class="pager" id="pager" hidden><button type="button" id="page-prev">'
        'previous</button> <span id="page-info"></span> '
        '<button type="button" id="page-next">next</button></span></div>'
    )
    if briefs:
        details.append(
            '<article class="detail" id="detail-brief" hidden><h3 id="brief-title"></h3>'
            f"<p>This report shows {FULL_ROWS:,} of the run's {total:,} rows in full (errors, "
            "cases in review and failures first); this one is listed in brief. "
            'Read it in full with <code id="brief-cmd"></code>.</p></article>'
        )
    head = "".join(
        f'<th data-key="{k}" data-type="{t}" scope="col"><button type="button">{esc(lbl)}</button></th>'
        for k, t, lbl in (
            ("id", "text", "case"),
            ("category", "text", "category"),
            ("status", "num", "status"),
            ("score", "num", "score"),
            ("failing", "num", "failing checks"),
        )
    )
    return (
        f'<section class="cases"><h2>Cases</h2>{filters}<div class="split"><div class="table-wrap">'
        f'<table id="cases"><thead><tr>{head}</tr></thead><tbody>{"".join(trs)}</tbody></table></div>'
        f'<aside id="detail-panel"><p id="detail-empty" class="dim">Click a case to read its question, '
        f"passages, answer, checks and verdict.</p>{''.join(details)}</aside></div></section>"
        + (json_list_script("brief-rows", briefs) if briefs else "")
    )


def render_run_html(rep: RunReport) -> str:
    """The whole single-run page. A sealed run gets aggregates only: no ids, no text."""
    body = top(rep) + charts(rep) + errors_section(rep) + reviews_section(rep)
    if not rep.sealed:
        body += cases_section(rep)
    body += (
        '<section class="stamps"><h2>Stamps</h2>'
        + kv_table(stamp_rows(rep.header), "stamps")
        + "</section>"
    )
    data = {"run_id": rep.run.run_id, "summary": rep.summary, "recomputed": rep.recomputed}
    body += json_script("report-data", json.loads(json.dumps(data, default=str)))
    title = f"Run report {rep.run.run_id}"
    return page(title, body, script=None if rep.sealed else "report.js")
