"""`invoke calibrate --checks` as Markdown for people and JSON for machines."""

from __future__ import annotations

import json
from typing import Any

from evals.calibrate.checks import Calibration, Graded, Rate

SNIPPET = 100  # characters of an answer shown beside its verdict


def snippet(text: str, width: int = SNIPPET) -> str:
    """The answer's first `width` characters on one line, marked when cut."""
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[:width].rstrip() + "…"


def pct(rate: Rate) -> str:
    v = rate.value
    return f"{v * 100:.1f}% ({rate.num}/{rate.n})" if v is not None else f"n/a ({rate.num}/0)"


def _kappa_text(c: Calibration) -> str:
    k, n = c.kappa, len(c.scored)
    if k is None:
        why = "no answer graded" if not n else "every label and verdict is one class"
        return f"undefined ({why}; n = {n})"
    return f"{k:.3f} (n = {n})"


def conclusion(c: Calibration) -> str:
    code = c.exit_code
    if code == 3 and c.of_kind("error"):
        n = len(c.of_kind("error"))
        return f"**Result: INCOMPLETE**: {n} answer(s) hit a check error (exit 3)"
    if code == 3:
        return "**Result: INCONCLUSIVE**: " + "; ".join(c.shortfalls()) + " (exit 3)"
    if code == 1:
        return "**Result: FAIL**: " + "; ".join(c.shortfalls()) + " (exit 1)"
    return (
        "**Result: PASS**: sensitivity and specificity meet their floors at their lower "
        "bounds, answers in review counted against the checks (exit 0)"
    )


def _item_head(g: Graded) -> str:
    style = f", {g.item.style}" if g.item.style else ""
    return f'- {g.item.source}{style}: "{snippet(g.item.answer)}"'


def _problem_lines(title: str, hits: list[Graded], body: Any) -> list[str]:
    if not hits:
        return []
    out = [f"## {title} ({len(hits)})", ""]
    case = None
    for g in sorted(hits, key=lambda g: g.item.case):
        if g.item.case != case:
            case = g.item.case
            out += ([""] if out[-1] else []) + [f"### `{case}`", ""]
        out.append(_item_head(g))
        out += [f"  - {line}" for line in body(g)]
    return [*out, ""]


def _false_alarm(g: Graded) -> list[str]:
    lines = [f"failed by {n}: {g.results[n].detail}" for n in g.failing]
    return [*lines, f"right because: {g.item.why}"]


def _miss(g: Graded) -> list[str]:
    return [
        f"wrong because: {g.item.why}",
        f"passed by: {', '.join(g.passing) or '(no check scored it)'}",
    ]


def _error(g: Graded) -> list[str]:
    return [f"error in {n}: {g.results[n].detail}" for n in g.erroring]


def _review(g: Graded) -> list[str]:
    lines = [f"undecided by {n}: {g.results[n].detail}" for n in g.undecided]
    return [*lines, f"labelled {g.item.label} because: {g.item.why}"]


def review_line(c: Calibration) -> str:
    """`- in review: 3 of 140 labelled answers (2.1%): 1 of 70 correct, 2 of 70 wrong; ...`."""
    right, wrong = c.review_rate("pass"), c.review_rate("fail")
    return (
        f"- in review: {pct(c.review_rate())} of the labelled answers: {right.num} of "
        f"{right.n} correct, {wrong.num} of {wrong.n} wrong (a check could not decide; "
        "neither agree nor disagree: left out of the first reading of sensitivity and "
        "specificity, counted against the checks in the second and in the floors)"
    )


def render_markdown(c: Calibration) -> str:
    """The whole report: counts, the three figures, per check, per case, then every problem."""
    src = c.sources()
    files = len(c.labelled_files)
    sens, spec = c.sensitivity, c.specificity
    right = [g for g in c.graded if g.item.label == "pass"]
    wrong = [g for g in c.graded if g.item.label == "fail"]

    def row(name: str, group: list[Graded]) -> str:
        counts = [
            sum(g.verdict == v for g in group)
            for v in ("pass", "fail", "review", "error", "unscored")
        ]
        return f"| {name} | " + " | ".join(map(str, counts)) + " |"

    out = [
        f"# Check calibration: {c.suite}",
        "",
        f"{len(c.graded)} labelled answers to {len(c.case_ids)} cases: {src['reference']} "
        f"references, {src['known_right']} known_right and {src['known_wrong']} known_wrong "
        f"drafts, {src['labelled']} from labelled/ ({files} file(s)). Deterministic checks "
        "only; no model was called.",
        "",
        "| answers | checks pass | checks fail | review | error | not graded |",
        "|---|---:|---:|---:|---:|---:|",
        row("correct (label pass)", right),
        row("wrong (label fail)", wrong),
        "",
        f"- sensitivity: {pct(sens)} of the wrong answers caught (floor "
        f"{c.min_sensitivity * 100:g}%), those in review left out; "
        f"{pct(c.sensitivity_with_review)} counting them as not caught",
        f"- specificity: {pct(spec)} of the correct answers passed (floor "
        f"{c.min_specificity * 100:g}%), those in review left out; "
        f"{pct(c.specificity_with_review)} counting them as not passed",
        *[
            f"- {f.name} floor (in review counted against): {f.sentence()}"
            for f in c.floor_checks()
        ],
        review_line(c),
        f"- Cohen's kappa, labels vs checks: {_kappa_text(c)}",
        f"- false alarms: {len(c.of_kind('false_alarm'))}; misses: {len(c.of_kind('miss'))}; "
        f"errors: {len(c.of_kind('error'))} (left out of the figures)",
    ]
    if c.of_kind("unscored"):
        out.append(
            f"- not graded: {len(c.of_kind('unscored'))} answer(s) of cases with no "
            "deterministic check (the judge only)"
        )
    out += ["", conclusion(c), ""]

    checks = c.by_check()
    if checks:
        out += [
            "## By check",
            "",
            "False alarms: correct answers the check failed, of those it scored. Caught: wrong "
            "answers it failed. Only catch: wrong answers no other check failed.",
            "",
            "| check | false alarms | caught | only catch | review | skipped | errors |",
            "|---|---:|---:|---:|---:|---:|---:|",
        ]
        for r in checks.values():
            out.append(
                f"| {r.name} | {pct(r.false_alarm_rate)} | {pct(r.catch_rate)} | "
                f"{r.only_catch} | {r.review} | {r.skipped} | {r.errors} |"
            )
        out.append("")
        alarms = {
            name: [g for g in c.of_kind("false_alarm") if name in g.failing] for name in checks
        }
        if any(alarms.values()):
            out += ["False alarms by check:", ""]
            for name, hits in alarms.items():
                if hits:
                    where = ", ".join(f"`{g.item.case}` {g.item.source}" for g in hits)
                    out.append(f"- {name} ({len(hits)}): {where}")
            out.append("")

    cases = c.by_case()
    bad = {cid: t for cid, t in cases.items() if t.false_alarms or t.misses or t.errors or t.review}
    out += [
        "## By case",
        "",
        f"{len(cases) - len(bad)} of {len(cases)} cases without a false alarm, miss, answer "
        "in review or error.",
        "",
    ]
    if bad:
        out += [
            "| case | correct | false alarms | wrong | misses | review | errors |",
            "|---|---:|---:|---:|---:|---:|---:|",
        ]
        for cid, t in bad.items():
            out.append(
                f"| {cid} | {t.correct} | {t.false_alarms} | {t.wrong} | {t.misses} "
                f"| {t.review} | {t.errors} |"
            )
        out.append("")

    styles = c.by_style()
    if styles:
        out += [
            "## By style",
            "",
            "| style | correct | false alarms | wrong | misses | review | errors |",
            "|---|---:|---:|---:|---:|---:|---:|",
        ]
        for style, t in styles.items():
            out.append(
                f"| {style} | {t.correct} | {t.false_alarms} | {t.wrong} | {t.misses} "
                f"| {t.review} | {t.errors} |"
            )
        out.append("")

    out += _problem_lines(
        "False alarms: correct answers the checks failed", c.of_kind("false_alarm"), _false_alarm
    )
    out += _problem_lines("Misses: wrong answers the checks passed", c.of_kind("miss"), _miss)
    out += _problem_lines(
        "In review: answers a check could not decide", c.of_kind("review"), _review
    )
    out += _problem_lines("Errors: answers a check could not grade", c.of_kind("error"), _error)
    return "\n".join(out).rstrip("\n") + "\n"


def _rate_json(rate: Rate, num: str) -> dict[str, Any]:
    v = rate.value
    return {"value": None if v is None else round(v, 6), num: rate.num, "n": rate.n}


def _graded_json(g: Graded) -> dict[str, Any]:
    i = g.item
    out: dict[str, Any] = {
        "case": i.case,
        "source": i.source,
        "label": i.label,
        "verdict": g.verdict,
        "why": i.why,
        "answer": i.answer,
        "failed": {n: g.results[n].detail for n in g.failing},
        "errors": {n: g.results[n].detail for n in g.erroring},
        "review": {n: g.results[n].detail for n in g.undecided},
        "passed_by": g.passing,
    }
    if i.style:
        out["style"] = i.style
    return out


def to_json(c: Calibration) -> dict[str, Any]:
    """The report as one JSON object; every false alarm, miss and error in full."""
    kappa = c.kappa
    return {
        "kind": "check_calibration",
        "suite": c.suite,
        "exit_code": c.exit_code,
        "answers": len(c.graded),
        "sources": c.sources(),
        "labelled_files": c.labelled_files,
        "verdicts": {
            label: {
                v: sum(g.item.label == label and g.verdict == v for g in c.graded)
                for v in ("pass", "fail", "review", "error", "unscored")
            }
            for label in ("pass", "fail")
        },
        "sensitivity": _rate_json(c.sensitivity, "caught"),
        "specificity": _rate_json(c.specificity, "passed"),
        "review_rate": {
            "all": _rate_json(c.review_rate(), "review"),
            "correct": _rate_json(c.review_rate("pass"), "review"),
            "wrong": _rate_json(c.review_rate("fail"), "review"),
        },
        "kappa": {"value": None if kappa is None else round(kappa, 6), "n": len(c.scored)},
        "sensitivity_with_review": _rate_json(c.sensitivity_with_review, "caught"),
        "specificity_with_review": _rate_json(c.specificity_with_review, "passed"),
        "floors": {
            "min_sensitivity": c.min_sensitivity,
            "min_specificity": c.min_specificity,
            "checks": [
                {
                    "name": f.name,
                    "value": f.value,
                    "low": f.low,
                    "high": f.high,
                    "floor": f.floor,
                    "n": f.n,
                    "verdict": f.verdict,
                }
                for f in c.floor_checks()
            ],
        },
        "shortfalls": c.shortfalls(),
        "by_check": {
            name: {
                "false_alarms": _rate_json(r.false_alarm_rate, "failed"),
                "caught": _rate_json(r.catch_rate, "caught"),
                "only_catch": r.only_catch,
                "skipped": r.skipped,
                "errors": r.errors,
                "review": r.review,
            }
            for name, r in c.by_check().items()
        },
        "by_case": {cid: t.__dict__ for cid, t in c.by_case().items()},
        "by_style": {s: t.__dict__ for s, t in c.by_style().items()},
        "false_alarms": [_graded_json(g) for g in c.of_kind("false_alarm")],
        "misses": [_graded_json(g) for g in c.of_kind("miss")],
        "errors": [_graded_json(g) for g in c.of_kind("error")],
        "review": [_graded_json(g) for g in c.of_kind("review")],
        "unscored": [_graded_json(g) for g in c.of_kind("unscored")],
    }


def render_json(c: Calibration) -> str:
    """The report as one JSON line."""
    return json.dumps(to_json(c), ensure_ascii=False)
