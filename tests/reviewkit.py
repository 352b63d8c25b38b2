"""A suite whose own check cannot always decide, and runs of it with a row in review.

`scope_bound` says review when an answer names a scope ("only on ...") it cannot bind to a
passage: a real suite check returning `undecided(...)`, graded by the real run command."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from casekit import good_case, invoke, make_project

MODEL = "acme/bot@2026-10-01"
REASON = "'only on' names a scope no passage binds the price to"
REVIEW_CHECKS = f"""
from evals.checks import check, passed, undecided

@check("scope_bound")
def scope_bound(inp):
    if "only on" in inp.answer:
        return undecided({REASON!r})
    return passed("no scope beyond the passages")
"""
PASS_ANSWER = "An extra Pro seat costs 45 € per seat and month [doc:pricing#plans]."
REVIEW_ANSWER = (
    "An extra Pro seat costs 45 € per month, only on annual billing [doc:pricing#plans]."
)
FAIL_ANSWER = "A Pro seat costs 39 € per month, only on annual billing [doc:pricing#plans]."


def review_case(case_id: str, **over: Any) -> dict[str, Any]:
    """The priced case, graded by its expected mention and the undecidable scope check."""
    return good_case(case_id, checks=["mentions_expected", "scope_bound"], **over)


def review_suite(
    tmp: Path, ids: tuple[str, ...] = ("price-fail", "price-pass", "price-review")
) -> Path:
    """A project at `tmp` whose suite holds the given cases and the scope check; the suite."""
    suite = make_project(tmp, [review_case(i) for i in ids])
    (suite / "checks.py").write_text(REVIEW_CHECKS, encoding="utf-8")
    return suite


def answers_for(tmp: Path, answers: dict[str, str], name: str = "answers.jsonl") -> Path:
    """A saved-answers file: one line per case id."""
    path = tmp / name
    path.write_text(
        "".join(
            json.dumps({"case": c, "answer": a}, ensure_ascii=False) + "\n"
            for c, a in answers.items()
        ),
        "utf-8",
    )
    return path


ANSWERS = {"price-fail": FAIL_ANSWER, "price-pass": PASS_ANSWER, "price-review": REVIEW_ANSWER}


def run_review(
    tmp: Path, answers: dict[str, str] | None = None, *more: str
) -> subprocess.CompletedProcess[str]:
    """`invoke run --answers` on the review suite: the finished process."""
    path = answers_for(tmp, answers if answers is not None else ANSWERS)
    return invoke(tmp, "run", "--answers", str(path), "--model", MODEL, *more)


def run_file(tmp: Path) -> Path:
    """The newest run file of the project."""
    return sorted((tmp / "runs").glob("*.jsonl"))[-1]
