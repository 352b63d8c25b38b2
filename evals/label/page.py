"""The review page: every queued answer rendered once, escaped, with one script for the keys."""

from __future__ import annotations

import base64
import hashlib
from decimal import Decimal
from importlib import resources
from pathlib import Path
from typing import Any

from evals.checks.expectations import items as expect_items
from evals.checks.values import Figure, parse_figures
from evals.label.queue import WHY_QUEUED, Item
from evals.report.data import Passages, citation_spans
from evals.report.detail import judge_html, passages_html, questions_html, turns_html
from evals.report.page import asset as report_asset
from evals.report.page import esc
from evals.run.precedents import decided_by
from evals.suite.case import Case

#: Citations and figures are marked in the answer's first this many characters only: reading
#: figures is the page's costliest step (seconds per megabyte), and a person reads no
#: further anyway; the rest of the answer is shown as plain text.
MARKED_PREFIX = 20_000

#: Failing and undecided checks first: they are why the answer is in the queue.
CHECK_ORDER = {"error": 0, "fail": 1, "review": 2, "skip": 3, "pass": 4}

KEYS = (
    ("r", "right"),
    ("w", "wrong"),
    ("s", "skip"),
    ("u", "undo"),
    ("e", "write a reason (Esc: back to the keys)"),
)


def asset(name: str) -> str:
    """The page's own script or stylesheet, shipped as package data."""
    try:
        return resources.files("evals.label").joinpath("assets", name).read_text("utf-8")
    except (NotADirectoryError, FileNotFoundError):
        return (Path(__file__).parent / "assets" / name).read_text("utf-8")


def reading(f: Figure) -> str:
    """What the checks read a figure as: `money 45 EUR`, `time 22:00`, `date 2026-06-01`."""
    v = f.value
    if f.kind == "time" and isinstance(v, Decimal):
        return f"time {int(v) // 60:02d}:{int(v) % 60:02d}"
    if f.kind == "date" and isinstance(v, tuple):
        y, m, d = v
        return f"date {y or '----'}-{m:02d}-{d:02d}"
    return f"{f.kind} {v} {f.unit}"


def _figures_html(text: str) -> str:
    """Text escaped, each figure the checks read marked with what they read it as."""
    out, at = [], 0
    for f in parse_figures(text):
        if f.start < at:
            continue  # "22 h" is read twice (a time and a duration) at one place
        out.append(esc(text[at : f.start]))
        out.append(
            f'<mark class="fig" title="{esc(reading(f))}">{esc(text[f.start : f.end])}</mark>'
        )
        at = f.end
    out.append(esc(text[at:]))
    return "".join(out)


def answer_html(answer: str, pattern: str, anchors: dict[str, str]) -> str:
    """The answer with each citation linked to its passage and each figure marked (in its
    first MARKED_PREFIX characters: the page says so when the answer is longer)."""
    out = []
    for text, ref in citation_spans(answer[:MARKED_PREFIX], pattern):
        if ref is None:
            out.append(_figures_html(text))
        elif ref in anchors:
            out.append(f'<a class="cite" href="#{anchors[ref]}">{esc(text)}</a>')
        else:
            out.append(
                f'<mark class="cite missing" title="not among the passages">{esc(text)}</mark>'
            )
    out.append(esc(answer[MARKED_PREFIX:]))
    return "".join(out)


def checks_html(row: dict[str, Any]) -> str:
    checks = row.get("checks") if isinstance(row.get("checks"), dict) else {}
    trs = []
    for name, r in sorted(checks.items(), key=lambda kv: CHECK_ORDER.get(kv[1].get("status"), 9)):
        st = str(r.get("status"))
        trs.append(
            f'<tr class="{esc(st)}"><td>{esc(name)}</td>'
            f'<td><span class="pill {esc(st)}">{esc(st)}</span></td><td>{esc(r.get("detail"))}</td></tr>'
        )
    if not trs:
        return '<p class="dim">no check ran</p>'
    return (
        '<table class="checks"><thead><tr><th>check</th><th>verdict</th><th>detail</th></tr>'
        f"</thead><tbody>{''.join(trs)}</tbody></table>"
    )


def _phrasings(title: str, expected: list[Any], figures: bool) -> str:
    lis = []
    for it in expect_items(expected):
        alts = " · ".join(f"<q>{esc(a)}</q>" for a in it.alternatives)
        about = f' <span class="dim">about {esc(it.about)}</span>' if figures and it.about else ""
        opt = ' <span class="dim">(optional)</span>' if it.optional else ""
        lis.append(f"<li>{alts}{about}{opt}</li>")
    return f"<h4>{esc(title)}</h4><ul>{''.join(lis)}</ul>" if lis else ""


def expected_html(case: Case | None) -> str:
    """What the suite expects of an answer to the case, collapsed: its reference answer, the
    facts and figures it must state, and what it must not say."""
    if case is None:
        return ""
    expect = case.expect
    parts = []
    if case.data.get("reference"):
        parts.append(
            f'<h4>Reference answer</h4><div class="reference">{esc(case.data["reference"])}</div>'
        )
    parts.append(_phrasings("Facts it states", expect.get("facts") or [], False))
    parts.append(_phrasings("Figures it states", expect.get("figures") or [], True))
    never = [str(x) for x in expect.get("must_not_contain") or []]
    never += [str(x) for x in expect.get("forbidden_figures") or []]
    if never:
        parts.append(
            "<h4>Never says</h4><ul>"
            + "".join(f"<li><q>{esc(x)}</q></li>" for x in never)
            + "</ul>"
        )
    if expect.get("abstain") is not None:
        parts.append(f"<p>Abstains: {esc('yes' if expect.get('abstain') else 'no')}</p>")
    body = "".join(parts) or '<p class="dim">the case states no expectation a person reads</p>'
    return f'<details class="expected"><summary>What the case expects</summary>{body}</details>'


def ticket_html(row: dict[str, Any], case: Case | None, changed: bool) -> str:
    """The ticket the run asked; when the case was edited since, today's version beside it."""
    asked = f'<div class="question">{esc(row.get("question"))}</div>'
    if not changed or case is None:
        return f"<h3>Ticket</h3>{asked}"
    return (
        "<h3>Ticket as the run asked it</h3>" + asked + "<h3>Ticket in the case now</h3>"
        f'{turns_html(case.messages)}<div class="question now">{esc(case.question)}</div>'
    )


def item_html(
    i: int,
    n: int,
    item: Item,
    passages: Passages,
    pattern: str,
    note: str,
    case: Case | None = None,
) -> str:
    """One queued answer: ticket (and earlier turns; both versions when the case changed
    since the run), what the case expects, answer, passages, checks, judge."""
    row = item.row
    anchors = {p.ref: f"p-{i}-{k}" for k, p in enumerate(passages.items)}
    cited = {ref for _, ref in citation_spans(item.answer[:MARKED_PREFIX], pattern) if ref}
    cited |= {str(c) for c in row.get("cited") or []}
    st = str(row.get("status"))
    epoch = f" · epoch {esc(row.get('epoch'))}" if row.get("epoch") else ""
    prec = row.get("precedent")
    notes = f'<p class="flag">{esc(decided_by(prec))}</p>' if isinstance(prec, dict) else ""
    notes += f'<p class="note">{esc(note)}</p>' if note else ""
    changed = case is not None and row.get("case_sha") != case.sha
    long_note = (
        f'<p class="note">citations and figures are marked in the first {MARKED_PREFIX:,} '
        f"characters only (the answer has {len(item.answer):,})</p>"
        if len(item.answer) > MARKED_PREFIX
        else ""
    )
    return (
        f'<article class="item" id="item-{i}" data-i="{i}" hidden>'
        f'<h2><span class="case-id">{esc(item.case)}</span> <span class="pill {esc(st)}">{esc(st)}</span>'
        f' <span class="dim">{esc(WHY_QUEUED.get(item.queued, item.queued))}{epoch} · {i + 1} of {n}</span></h2>'
        f"{notes}{turns_html(row.get('messages'))}{ticket_html(row, case, changed)}"
        f"{expected_html(case)}"
        f'<h3>Answer</h3><div class="answer">{answer_html(item.answer, pattern, anchors)}</div>'
        f"{long_note}"
        f"<h3>Passages</h3>{passages_html(passages, anchors, cited)}"
        f"<h3>Checks</h3>{checks_html(row)}{judge_html(row) if row.get('judge') else ''}"
        f"{questions_html(row)}</article>"
    )


def _source_hash(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


def render_page(title: str, items: list[str], token: str, intro: str) -> str:
    """The whole page. Only our script runs (by hash) and it may only talk to this server."""
    js = asset("label.js")
    css = report_asset("report.css") + asset("label.css")
    csp = (
        f"default-src 'none'; style-src 'unsafe-inline'; script-src {_source_hash(js)}; "
        "connect-src 'self'; img-src data:; base-uri 'none'; form-action 'none'"
    )
    keys = " ".join(f"<span><kbd>{esc(k)}</kbd> {esc(v)}</span>" for k, v in KEYS)
    bar = (
        '<footer id="bar"><label for="why">reason</label>'
        '<input id="why" type="text" autocomplete="off" placeholder="why it is right or wrong (e)">'
        '<button type="button" id="b-right">right (r)</button>'
        '<button type="button" id="b-wrong">wrong (w)</button>'
        '<button type="button" id="b-skip">skip (s)</button>'
        '<button type="button" id="b-undo">undo (u)</button>'
        f'<p id="keys">{keys}</p><p id="msg" role="status" aria-live="polite"></p></footer>'
    )
    done = (
        '<section id="done" hidden><h2>Queue done</h2><p>Every answer in the queue has a label '
        "or was skipped. <kbd>u</kbd> goes back; close the page and stop the server with "
        "Ctrl-C in its terminal.</p></section>"
    )
    return (
        "<!doctype html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{esc(csp)}">'
        f'<meta name="label-token" content="{esc(token)}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{esc(title)}</title><style>{css}</style></head>\n"
        f'<body class="label-page"><header class="top"><h1>{esc(title)}</h1>'
        f'<p class="strip">{esc(intro)}</p></header><main id="queue">{"".join(items)}{done}</main>'
        f"{bar}<script>{js}</script></body></html>\n"
    )
