"""The answers a mutation run could not decide: mutants caught for review and drafts in review.

A check that cannot decide says `review` instead of guessing; such an answer is neither killed
nor survived, neither caught nor missed, and is listed for a person."""

from __future__ import annotations

from evals.mutate.results import MutationReport


def review_note(n: int, what: str = "in review") -> str:
    """`, caught for review 2`: shown only when a check could not decide some answers."""
    return f", {what} {n}" if n else ""


def review_lines(report: MutationReport) -> list[str]:
    """Every answer a check could not decide: mutants caught for review, then drafts."""
    out: list[str] = []
    hits = [(c, v) for c in report.cases for v in c.variants if v.status == "review"]
    drafts = [
        (c, f"{kind}[{k.index}]", k)
        for c in report.cases
        for kind, ks in (("known_wrong", c.known_wrong), ("known_right", c.known_right))
        for k in ks
        if k.status == "review"
    ]
    if not hits and not drafts:
        return out
    out += [
        f"## In review: answers a check could not decide ({len(hits) + len(drafts)})",
        "",
        "Neither killed nor survived, neither caught nor missed: a person decides them.",
        "",
    ]
    for c, v in hits:
        why = "; ".join(f"{n}: {v.checks[n].detail}" for n in v.checks_with("review"))
        out.append(f"- `{c.case_id}` · {v.operator} ({v.source}, {v.kind}): {why}")
    for c, label, k in drafts:
        why = "; ".join(f"{n}: {r.detail}" for n, r in k.checks.items() if r.status == "review")
        out.append(f"- `{c.case_id}` {label} ({k.why}): {why}")
    return [*out, ""]
