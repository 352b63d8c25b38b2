"""One case's detail in the single-run report: question, passages, linked answer, checks, judge."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from evals.numfmt import fmt_ms, fmt_num
from evals.report.data import Passages, RunReport, citation_spans, passages_for, row_label
from evals.report.page import esc, kv_table
from evals.run.console import review_reasons
from evals.run.precedents import decided_by
from evals.suite.folder import DEFAULT_CITATION_PATTERN


def answer_html(answer: str, pattern: str, anchors: dict[str, str]) -> str:
    """The answer escaped, with each citation highlighted and linked to its passage."""
    out = []
    for text, ref in citation_spans(answer, pattern):
        if ref is None:
            out.append(esc(text))
        elif ref in anchors:
            out.append(
                f'<a class="cite" href="#{anchors[ref]}" data-ref="{esc(ref)}">{esc(text)}</a>'
            )
        else:
            out.append(
                f'<mark class="cite missing" title="not among the retrieved passages" data-ref="{esc(ref)}">{esc(text)}</mark>'
            )
    return "".join(out)


def passages_html(passages: Passages, anchors: dict[str, str], cited: set[str]) -> str:
    items = []
    for p in passages.items:
        tag = ' <span class="tag good">cited</span>' if p.ref in cited else ""
        title = f" — {esc(p.title)}" if p.title else ""
        body = (
            f"<p>{esc(p.text)}</p>" if p.text is not None else '<p class="dim">text unavailable</p>'
        )
        items.append(
            f'<li class="passage" id="{anchors[p.ref]}"><div class="ref"><code>{esc(p.ref)}</code>{title}{tag}</div>{body}</li>'
        )
    note = f'<p class="note">{esc(passages.note)}</p>' if passages.note else ""
    if not items:
        return note + '<p class="dim">no passages retrieved</p>'
    return note + f'<ol class="passages">{"".join(items)}</ol>'


def judge_html(row: dict[str, Any]) -> str:
    judge = row.get("judge")
    check = (row.get("checks") or {}).get("judge")
    if not judge and not check:
        return ""
    judge = judge or {}
    v = judge.get("verdict") or {}
    parts = [f"<h4>Judge <span class='dim'>{esc(judge.get('model'))}</span></h4>"]
    if v:
        parts.append(
            f'<p class="verdict">score <b>{esc(v.get("score"))}</b> · grounded <b>{esc(v.get("grounded"))}</b>'
            f" · rubric met <b>{esc(v.get('rubric_met'))}</b></p>"
            f'<p class="reasoning">{esc(v.get("reasoning"))}</p>'
        )
    if judge.get("error"):
        parts.append(f'<p class="bad">judge error: {esc(judge["error"])}</p>')
    return "".join(parts)


def questions_html(row: dict[str, Any]) -> str:
    """The judge's answers to what the checks left undecided: each item, stated or not, the
    quote, or the error."""
    asked = [q for q in row.get("judge_questions") or [] if isinstance(q, dict)]
    if not asked:
        return ""
    items = []
    for q in asked:
        if q.get("error"):
            said = f'<span class="bad">error: {esc(q["error"])}</span>'
        elif q.get("stated"):
            said = f"<b>stated</b>: \u201c{esc(q.get('quote'))}\u201d"
        else:
            said = "<b>not stated</b>"
        where = " (asked of the passages)" if q.get("source") in ("sources", "passages") else ""
        per = "per claim, " if q.get("kind") == "claim" else ""
        items.append(
            f"<li>{per}{esc(q.get('check'))}: {esc(q.get('statement'))}{where}: {said}"
            f'<br><span class="dim">{esc(q.get("reasoning") or "")}</span></li>'
        )
    claims = any(q.get("kind") == "claim" for q in asked)
    head = "Judge per fact and claim" if claims else "Judge per fact"
    return f"<h4>{head}</h4><ul class='questions'>{''.join(items)}</ul>"


def precedent_html(row: dict[str, Any]) -> str:
    """`decided by a label (who, when)` with the label's reason and the checks' own verdict."""
    p = row.get("precedent")
    if not isinstance(p, dict):
        return ""
    return (
        f'<p class="flag precedent">{esc(decided_by(p))}: labelled <b>{esc(p.get("label"))}</b>; '
        f"the checks alone said <b>{esc(p.get('checks_status'))}</b> "
        f'<span class="dim">({esc(p.get("source"))})</span><br>why: {esc(p.get("why"))}</p>'
    )


def turns_html(messages: Any) -> str:
    """A conversation's earlier turns, oldest first, each marked customer or assistant."""
    if not isinstance(messages, list) or not messages:
        return ""
    turns = []
    for m in messages:
        if not isinstance(m, dict):
            continue
        role = "user" if m.get("role") == "user" else "assistant"
        who = "customer" if role == "user" else "assistant (earlier reply)"
        turns.append(
            f'<div class="turn {role}"><span class="who">{esc(who)}</span>'
            f"{esc(m.get('content'))}</div>"
        )
    return f'<h4>Earlier turns</h4><div class="turns">{"".join(turns)}</div>'


def detail_html(i: int, row: dict[str, Any], rep: RunReport, suite: Path | None) -> str:
    """One case's detail: question, passages, linked answer, checks, judge, what it cost."""
    pattern = str(
        (rep.header.get("settings") or {}).get("citation_pattern") or DEFAULT_CITATION_PATTERN
    )
    passages = passages_for(row, suite)
    anchors = {p.ref: f"p-{i}-{k}" for k, p in enumerate(passages.items)}
    answer = row.get("draft")
    cited = {ref for _, ref in citation_spans(answer or "", pattern) if ref} | set(
        row.get("cited") or []
    )
    status = str(row.get("status"))
    flag = ""
    if row.get("needs_review"):
        why = "; ".join(map(str, row.get("review_reasons") or []))
        flag = f'<p class="flag">needs review: {esc(why)}</p>'
    if status == "review":
        flag += (
            f'<p class="flag review">in review: {esc(review_reasons(row))} '
            '<span class="dim">(not scored: a person, or the judge, decides)</span></p>'
        )
    flag += precedent_html(row)
    checks = []
    for name, r in (row.get("checks") or {}).items():
        st = str(r.get("status"))
        checks.append(
            f'<tr class="{esc(st)}"><td>{esc(name)}</td><td><span class="pill {esc(st)}">{esc(st)}</span></td>'
            f"<td>{esc(fmt_num(r.get('score'), 2) if r.get('score') is not None else '—')}</td><td>{esc(r.get('detail'))}</td></tr>"
        )
    checks_table = (
        '<table class="checks"><thead><tr><th>check</th><th>status</th><th>score</th>'
        f"<th>detail</th></tr></thead><tbody>{''.join(checks)}</tbody></table>"
        if checks
        else '<p class="dim">no check ran</p>'
    )
    error = f'<p class="bad">error: {esc(row.get("error"))}</p>' if row.get("error") else ""
    answer_block = (
        f'<div class="answer">{answer_html(answer, pattern, anchors)}</div>'
        if answer is not None
        else '<p class="dim">no answer (the provider failed)</p>'
    )
    meta = kv_table(
        [
            ("latency", fmt_ms(row.get("latency_ms"))),
            ("usage", row.get("usage")),
            ("cost", "unknown" if row.get("cost_usd") is None else f"${row['cost_usd']:.6f}"),
            ("resolved model", row.get("resolved_model") or ""),
            ("cached", row.get("cached")),
            ("case sha", row.get("case_sha")),
        ]
    )
    return (
        f'<article class="detail" id="detail-{i}" hidden>'
        f'<h3>{esc(row_label(row, rep.epochs))} <span class="pill {esc(status)}">{esc(status)}</span>'
        f' <span class="dim">score {esc(fmt_num(row.get("score"), 3))}</span></h3>{flag}{error}'
        f"{turns_html(row.get('messages'))}"
        f'<h4>Question</h4><div class="question">{esc(row.get("question"))}</div>'
        f"<h4>Answer</h4>{answer_block}"
        f"<h4>Retrieved passages</h4>{passages_html(passages, anchors, cited)}"
        f"<h4>Checks</h4>{checks_table}"
        f"{judge_html(row)}{questions_html(row)}<h4>Reply</h4>{meta}</article>"
    )
