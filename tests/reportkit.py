"""Real run files for the report tests: a small suite run twice with replayed answers."""

from __future__ import annotations

import copy
import json
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from casekit import invoke, make_project, write_case

from evals.run.files import read_run, record_line
from evals.run.summary import summarise

JUDGE = "openai/gpt-4o-mini@2024-07-18"
MODEL_A = "acme/support-bot@2026-10-01"
MODEL_B = "acme/support-bot@2026-11-01"
XSS = '<script>window.__pwned=1</script> <img src=x onerror="window.__pwned=1">'
XSS_QUESTION = f"Is pasting {XSS} into a shift note safe?"
XSS_ANSWER = f"Pasted markup such as {XSS} is shown as text [doc:sec#markup]."


def cases() -> list[dict[str, Any]]:
    return [
        {
            "id": "price-pro",
            "category": "pricing",
            "question": "What does one more Pro seat cost per month?",
            "retrieved": [
                {
                    "ref": "pricing#plans",
                    "title": "Plans",
                    "text": "Starter: 39 € per seat and month. Pro: 45 € per seat and month.",
                },
                {"ref": "rules#night", "text": "The night surcharge starts at 22:00."},
            ],
            "expect": {
                "facts": ["45 €"],
                "sources": ["pricing#plans"],
                "rubric": "States the Pro price per seat and month and cites the pricing page.",
            },
        },
        {
            "id": "night-shift",
            "category": "scheduling",
            "question": "From when does the night surcharge apply?",
            "retrieved": [
                {
                    "ref": "rules#night",
                    "text": "The night surcharge applies to shifts beginning at 22:00 or later.",
                }
            ],
            "expect": {"facts": ["22:00"], "sources": ["rules#night"]},
        },
        {
            "id": "xss-note",
            "category": "security",
            "question": XSS_QUESTION,
            "retrieved": [
                {"ref": "sec#markup", "text": "Markup pasted into notes is shown as text."}
            ],
            "expect": {"facts": ["shown as text"], "sources": ["sec#markup"]},
        },
        {
            "id": "refund-law",
            "category": "billing",
            "question": "Can I get a refund under Brazilian consumer law?",
            "expect": {"abstain": True},
        },
        {
            "id": "ghost",
            "category": "billing",
            "question": "Is there a discount for schools?",
            "retrieved": [{"ref": "pricing#edu", "text": "Schools get 30 % off every plan."}],
            "expect": {"facts": ["30 %"], "sources": ["pricing#edu"]},
        },
    ]


ANSWERS_A = {
    "price-pro": "An extra Pro seat costs 45 € per seat and month [doc:pricing#plans].",
    "night-shift": "The surcharge applies from 21:45 on [doc:rules#night].",
    "xss-note": XSS_ANSWER.replace("shown as text", "displayed"),
    "refund-law": "I don't know: I'll hand this over to our support team.",
    # "ghost" has no saved answer in A: an error row with its reason.
}
ANSWERS_B = {
    "price-pro": "A Pro seat costs 39 € per month [doc:pricing#plans].",
    "night-shift": "The night surcharge applies from 22:00 on [doc:rules#night].",
    "xss-note": XSS_ANSWER,
    "refund-law": "I don't know: I'll hand this over to our support team.",
    "ghost": "Schools get 30 % off every plan [doc:pricing#edu].",
}


@dataclass
class Project:
    root: Path
    suite: Path
    run_a: Path
    run_b: Path


def write_answers(path: Path, answers: dict[str, str], latency0: float = 100.0) -> Path:
    lines = []
    for i, (case, answer) in enumerate(sorted(answers.items())):
        usage = {"prompt_tokens": 100 + i, "completion_tokens": 20 + i, "total_tokens": 120 + 2 * i}
        rec = {"case": case, "answer": answer, "latency_ms": latency0 + 50 * i, "usage": usage}
        lines.append(json.dumps(rec, ensure_ascii=False))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def run_replay(
    root: Path,
    model: str,
    answers: Path,
    label: str,
    *extra: str,
    env: dict[str, str] | None = None,
) -> Path:
    """`invoke run` with saved answers; returns the run file it wrote."""
    before = set((root / "runs").glob("*.jsonl"))
    out = invoke(
        root, "run", "--model", model, "--answers", str(answers), "--label", label, *extra, env=env
    )
    assert out.returncode in (0, 1, 3), out.stdout + out.stderr
    (new,) = set((root / "runs").glob("*.jsonl")) - before
    return new


def build(tmp: Path) -> Project:
    """A project with the five cases, run A (one error) and run B (one broken, two fixed)."""
    suite = make_project(tmp, [])
    for c in cases():
        write_case(suite, c)
    a = run_replay(tmp, MODEL_A, write_answers(tmp / "a.jsonl", ANSWERS_A), "before")
    b = run_replay(tmp, MODEL_B, write_answers(tmp / "b.jsonl", ANSWERS_B, 300.0), "after")
    return Project(tmp, suite, a, b)


def write_jsonl(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


BASELINE = next((Path(__file__).resolve().parent.parent / "runs").glob("*.jsonl"))


def large_run(
    path: Path, n: int, *, summary: bool = True, seed: int = 0, failing: int = 250
) -> list[dict[str, Any]]:
    """A run file of n rows made from the committed baseline's, `failing` of them failing."""
    base = read_run(BASELINE)
    rng = random.Random(seed)
    rows = []
    for i in rng.sample(range(n), n):
        row = copy.deepcopy(base.rows[i % len(base.rows)])
        row["case"] = f"case-{i:06d}"
        if i < failing:
            row.update(status="fail", score=round(rng.random(), 6))
            row["failed_checks"] = ["facts_present"]
            row["checks"]["facts_present"] = {"status": "fail", "score": 0.0, "detail": "missing"}
        else:
            row.update(status="pass", score=1.0, failed_checks=[])
            row["checks"] = {
                k: {**v, "status": "pass", "score": 1.0} for k, v in row["checks"].items()
            }
        rows.append(row)
    records = [base.header, *rows]
    if summary:
        records.append(summarise(rows, completed=True, run_id=base.run_id))
    path.write_text("".join(record_line(r) for r in records), "utf-8")
    return rows
