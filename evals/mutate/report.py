"""Tallies of a mutation report and its Markdown and JSON renderings."""

from __future__ import annotations

import json
from typing import Any

from evals.mutate.operators import OPERATORS
from evals.mutate.results import CaseReport, MutationReport, VariantResult
from evals.mutate.undecided import review_lines, review_note

SYMBOL = {
    "killed": "killed",
    "survived": "**SURVIVED**",
    "exempt": "exempt",
    "error": "error",
    "n/a": "n/a",
    "held": "held",
    "false_alarm": "**FALSE ALARM**",
    "review": "review",
}


def _rate(num: int, den: int) -> float | None:
    return round(num / den, 4) if den else None


def _pct(num: int, den: int) -> str:
    return f"{100 * num / den:.0f}% ({num}/{den})" if den else "n/a (0/0)"


def by_operator(report: MutationReport) -> dict[str, dict[str, Any]]:
    """Per operator: cases where it applied, variants, and how they ended."""
    out: dict[str, dict[str, Any]] = {}
    for op, spec in OPERATORS.items():
        mine = [v for v in report.variants if v.operator == op]
        counts = {
            s: sum(v.status == s for v in mine)
            for s in ("killed", "survived", "held", "false_alarm", "review", "error")
        }
        exempt = sum(v.exempt is not None for v in mine)
        decided = counts["killed"] + counts["survived"]
        row: dict[str, Any] = {
            "kind": spec.kind,
            "cases": sum(c.operator_status(op) != "n/a" for c in report.cases),
            "variants": len(mine),
            **counts,
            "exempt": exempt,
        }
        if spec.kind == "mutant":
            row["kill_rate"] = _rate(counts["killed"], decided)
            row["n_scored"] = decided
        out[op] = row
    return out


def by_check(report: MutationReport) -> dict[str, dict[str, dict[str, Any]]]:
    """Per check and mutant operator: how many of the mutants it ran on it failed."""
    table: dict[str, dict[str, dict[str, Any]]] = {}
    for v in report.variants:
        if v.kind != "mutant":
            continue
        for name, r in v.checks.items():
            cell = table.setdefault(name, {}).setdefault(
                v.operator, {"killed": 0, "passed": 0, "review": 0, "error": 0, "skip": 0}
            )
            key = {"fail": "killed", "pass": "passed"}.get(r.status, r.status)
            cell[key] += 1
    for ops in table.values():
        for cell in ops.values():
            n = cell["killed"] + cell["passed"]
            cell["kill_rate"] = _rate(cell["killed"], n)
            cell["n_scored"] = n
    return table


def totals(report: MutationReport) -> dict[str, Any]:
    """Counts over cases, good answers and variants: kills, survivals, false alarms, errors."""
    vs = report.variants
    mutants = [v for v in vs if v.kind == "mutant"]
    inv = [v for v in vs if v.kind == "invariant"]
    killed = sum(v.status == "killed" for v in mutants)
    survived = sum(v.status == "survived" for v in mutants)
    kws = [k for c in report.cases for k in c.known_wrong]
    krs = [k for c in report.cases for k in c.known_right]
    goods = [g for c in report.cases for g in c.good]
    return {
        "cases": len(report.cases),
        "cases_without_good_answer": sum(not c.good for c in report.cases),
        "good_answers": len(goods),
        "good_answers_failing": sum(g.status != "pass" for g in goods),
        "mutants": len(mutants),
        "killed": killed,
        "survived": survived,
        "survived_exempt": sum(v.status == "survived" and v.exempt is not None for v in mutants),
        "mutant_errors": sum(v.status == "error" for v in mutants),
        # A check could not decide: caught for a person, neither killed nor survived.
        "caught_for_review": sum(v.status == "review" for v in mutants),
        "kill_rate": _rate(killed, killed + survived),
        "n_scored": killed + survived,
        "invariants": len(inv),
        "held": sum(v.status == "held" for v in inv),
        "false_alarms": sum(v.status == "false_alarm" for v in inv),
        "false_alarms_exempt": sum(v.status == "false_alarm" and v.exempt is not None for v in inv),
        "invariant_errors": sum(v.status == "error" for v in inv),
        "invariant_review": sum(v.status == "review" for v in inv),
        "known_wrong": len(kws),
        "known_wrong_missed": sum(k.status == "missed" for k in kws),
        "known_wrong_errors": sum(k.status == "error" for k in kws),
        "known_wrong_review": sum(k.status == "review" for k in kws),
        "judge_killed": report.judge_kills[0] if report.judge else None,
        "judge_graded": report.judge_kills[1] if report.judge else None,
        "known_right": len(krs),
        "known_right_false_alarms": sum(k.status == "false_alarm" for k in krs),
        "known_right_errors": sum(k.status == "error" for k in krs),
        "known_right_review": sum(k.status == "review" for k in krs),
        "good_answers_in_review": sum(g.status == "review" for g in goods),
    }


def _variant_json(v: VariantResult) -> dict[str, Any]:
    out: dict[str, Any] = {
        "operator": v.operator,
        "kind": v.kind,
        "source": v.source,
        "note": v.note,
        "status": v.status,
        "failed_checks": v.checks_with("fail"),
        "error_checks": v.checks_with("error"),
        "review_checks": v.checks_with("review"),
    }
    if v.status not in ("killed", "held"):
        out["text"] = v.text
        out["passed_checks"] = v.checks_with("pass")
        out["diff"] = v.diff()
        out["checks"] = {n: r.to_json() for n, r in v.checks.items()}
    if v.exempt is not None:
        out["exempt"] = v.exempt
    return out


def _case_json(c: CaseReport) -> dict[str, Any]:
    return {
        "case": c.case_id,
        "path": c.path,
        "checks": c.checks,
        "good_answers": [g.__dict__ for g in c.good],
        "operators": {op: c.operator_status(op) for op in OPERATORS},
        "variants": [_variant_json(v) for v in c.variants],
        "known_wrong": [
            {
                "index": k.index,
                "why": k.why,
                "status": k.status,
                "failed_checks": [n for n, r in k.checks.items() if r.status == "fail"],
                "error_checks": [n for n, r in k.checks.items() if r.status == "error"],
                "review_checks": {n: r.detail for n, r in k.checks.items() if r.status == "review"},
            }
            for k in c.known_wrong
        ],
        "known_right": [
            {
                "index": k.index,
                "why": k.why,
                "status": k.status,
                "failed_checks": {n: r.detail for n, r in k.checks.items() if r.status == "fail"},
                "error_checks": {n: r.detail for n, r in k.checks.items() if r.status == "error"},
                "review_checks": {n: r.detail for n, r in k.checks.items() if r.status == "review"},
            }
            for k in c.known_right
        ],
        "mutation_exempt": [
            {"operator": e.operator, "change": e.change, "why": e.why, "used": c.exemption_used(e)}
            for e in c.exemptions
        ],
        "notes": c.notes,
        "problems": c.problem_count,
    }


def to_json(report: MutationReport) -> dict[str, Any]:
    """The whole mutation report as one JSON object."""
    return {
        "kind": "mutation_report",
        "suite": report.suite,
        "run_file": report.run_file,
        "judge": report.judge,
        "exit_code": report.exit_code,
        "totals": totals(report),
        "operators": {op: {"kind": s.kind, "summary": s.summary} for op, s in OPERATORS.items()},
        "by_operator": by_operator(report),
        "by_check": by_check(report),
        "cases": [_case_json(c) for c in report.cases],
        "warnings": report.warnings,
    }


def render_json(report: MutationReport) -> str:
    """The mutation report as one JSON line."""
    # One line: json's fast C encoder only runs without indentation (pipe to `jq` to read it).
    return json.dumps(to_json(report), ensure_ascii=False)


def _details(v: VariantResult) -> list[str]:
    lines = [f"- change: {v.note}"]
    for name in v.checks_with("error"):
        lines.append(f"- error in {name}: {v.checks[name].detail}")
    for name in v.checks_with("review"):
        lines.append(f"- undecided by {name}: {v.checks[name].detail}")
    if v.kind == "mutant":
        lines.append(f"- passed by: {', '.join(v.checks_with('pass')) or '(no check ran)'}")
    else:
        for name in v.checks_with("fail"):
            lines.append(f"- failed by: {name} ({v.checks[name].detail})")
    if v.exempt is not None:
        lines.append(f"- exempt: {v.exempt}")
    lines += ["", "```diff", v.diff(), "```", ""]
    return lines


def render_markdown(report: MutationReport) -> str:
    """The mutation report as Markdown: totals, per operator and per check, then each problem."""
    t = totals(report)
    ops = by_operator(report)
    code = report.exit_code
    out = [f"# Mutation report: {report.suite}", ""]
    src = "the case references" + (
        f" and passing drafts of {report.run_file}" if report.run_file else ""
    )
    out.append(
        f"{t['cases']} cases, {t['good_answers']} good answers ({src}); "
        f"judge: {report.judge or 'not run'}."
    )
    out.append("")
    out.append(
        f"- mutants: {t['mutants']}; killed {t['killed']}, survived {t['survived']} "
        f"({t['survived_exempt']} exempt), errors {t['mutant_errors']}"
        + review_note(t["caught_for_review"], "caught for review")
        + f"; kill rate {_pct(t['killed'], t['n_scored'])}"
    )
    out.append(
        f"- invariance variants: {t['invariants']}; held {t['held']}, false alarms "
        f"{t['false_alarms']} ({t['false_alarms_exempt']} exempt), errors {t['invariant_errors']}"
        + review_note(t["invariant_review"])
    )
    out.append(
        f"- known_wrong drafts: {t['known_wrong']}; failing nothing {t['known_wrong_missed']}, "
        f"errors {t['known_wrong_errors']}" + review_note(t["known_wrong_review"])
    )
    out.append(
        f"- known_right drafts: {t['known_right']}; false alarms "
        f"{t['known_right_false_alarms']}, errors {t['known_right_errors']}"
        + review_note(t["known_right_review"])
    )
    if t["good_answers_in_review"]:
        out.append(
            f"- good answers in review (a check could not decide; not mutated): "
            f"{t['good_answers_in_review']}"
        )
    if t["good_answers_failing"]:
        out.append(f"- good answers that fail their own checks: {t['good_answers_failing']}")
    if t["cases_without_good_answer"]:
        out.append(
            f"- cases with no good answer (nothing mutated; add `reference`): "
            f"{t['cases_without_good_answer']}"
        )
    if report.judge:
        jk, jn = report.judge_kills
        blind = (
            ": it cannot tell these wrong answers from right ones (FAIL)"
            if report.judge_blind
            else ""
        )
        out.append(f"- judge {report.judge}: killed {_pct(jk, jn)} of the mutants it graded{blind}")
    out += ["", f"**Result: {'FAIL' if code else 'PASS'}** (exit {code})", ""]

    out += [
        "## By operator",
        "",
        "| operator | kind | cases | variants | killed / held | survived / false alarm "
        "| exempt | review | error | kill rate |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for op, r in ops.items():
        good_n = r["killed"] if r["kind"] == "mutant" else r["held"]
        bad_n = r["survived"] if r["kind"] == "mutant" else r["false_alarm"]
        rate = _pct(r["killed"], r["n_scored"]) if r["kind"] == "mutant" else "-"
        out.append(
            f"| {op} | {r['kind']} | {r['cases']} | {r['variants']} | {good_n} | {bad_n} "
            f"| {r['exempt']} | {r['review']} | {r['error']} | {rate} |"
        )
    out.append("")

    checks = by_check(report)
    mutant_ops = [op for op, s in OPERATORS.items() if s.kind == "mutant" and ops[op]["variants"]]
    if checks and mutant_ops:
        out += [
            "## By check",
            "",
            "Share of the mutants each check ran on that it failed (killed / scored).",
            "",
            "| check | " + " | ".join(mutant_ops) + " |",
            "|---|" + "---:|" * len(mutant_ops),
        ]
        for name in sorted(checks):
            cells = []
            for op in mutant_ops:
                cell = checks[name].get(op)
                if not cell or not (cell["n_scored"] or cell["error"]):
                    cells.append("-")
                    continue
                text = f"{cell['killed']}/{cell['n_scored']}"
                cells.append(text + (f" ({cell['error']} err)" if cell["error"] else ""))
            out.append(f"| {name} | " + " | ".join(cells) + " |")
        out.append("")

    sections = [
        ("Survivors", lambda v: v.status == "survived" and v.exempt is None),
        ("False alarms", lambda v: v.status == "false_alarm" and v.exempt is None),
        ("Errors", lambda v: v.status == "error"),
    ]
    for title, keep in sections:
        hits = [(c, v) for c in report.cases for v in c.variants if keep(v)]
        if not hits:
            continue
        out += [f"## {title} ({len(hits)})", ""]
        for c, v in hits:
            out.append(f"### `{c.case_id}` · {v.operator} ({v.source})")
            out += _details(v)

    out += review_lines(report)
    missed = [
        (c, k) for c in report.cases for k in c.known_wrong if k.status in ("missed", "error")
    ]
    if missed:
        out += [f"## known_wrong drafts not caught ({len(missed)})", ""]
        for c, k in missed:
            what = "fails no check" if k.status == "missed" else "a check errored"
            out.append(f"- `{c.case_id}` known_wrong[{k.index}] {what}: {k.why}")
        out.append("")

    alarms = [
        (c, k) for c in report.cases for k in c.known_right if k.status in ("false_alarm", "error")
    ]
    if alarms:
        out += [f"## known_right drafts failed: false alarms ({len(alarms)})", ""]
        for c, k in alarms:
            out.append(f"- `{c.case_id}` known_right[{k.index}] ({k.why}):")
            for name, r in k.checks.items():
                if r.status in ("fail", "error"):
                    verb = "failed by" if r.status == "fail" else "error in"
                    out.append(f"  - {verb} {name}: {r.detail}")
        out.append("")

    failing = [(c, g) for c in report.cases for g in c.good if g.status != "pass"]
    if failing:
        out += ["## Good answers that fail their own checks (or leave them undecided)", ""]
        for c, g in failing:
            effect = "the case cannot be mutated" if g.source == "reference" else "skipped"
            out.append(
                f"- `{c.case_id}` {g.source}: {g.status} on {', '.join(g.failed)} ({effect})"
            )
            out += [f"  - {name}: {detail}" for name, detail in g.details.items()]
        out.append("")

    exempts = [(c, e) for c in report.cases for e in c.exemptions]
    if exempts:
        out += [
            "## Exemptions (mutation_exempt)",
            "",
            "| case | operator | variant | why | used |",
            "|---|---|---|---|---|",
        ]
        for c, e in exempts:
            used = "yes" if c.exemption_used(e) else "no (nothing to exempt)"
            which = f"`{e.change}`" if e.change else "all"
            out.append(f"| {c.case_id} | {e.operator} | {which} | {e.why} | {used} |")
        exempt_vs = [(c, v) for c in report.cases for v in c.variants if v.exempt is not None]
        for c, v in exempt_vs:
            out.append("")
            out.append(f"### `{c.case_id}` · {v.operator} ({v.source}), exempt")
            out += _details(v)
        out.append("")

    out += [
        "## Per case",
        "",
        "| case | " + " | ".join(OPERATORS) + " |",
        "|---|" + "---|" * len(OPERATORS),
    ]
    for c in report.cases:
        cells = [SYMBOL[c.operator_status(op)] for op in OPERATORS]
        out.append(f"| {c.case_id} | " + " | ".join(cells) + " |")
    notes = [(c, n) for c in report.cases for n in c.notes]
    if notes:
        out += ["", "Notes:", ""] + [f"- `{c.case_id}`: {n}" for c, n in notes]
    return "\n".join(out) + "\n"
