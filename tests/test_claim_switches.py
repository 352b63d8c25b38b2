"""A case decides what a dropped condition or the assistant's own action makes
claims_grounded: review by default, fail where the case says so."""

from __future__ import annotations

from typing import Any

import pytest
from casekit import good_case

from evals.checks import REGISTRY, CheckInput, CheckResult
from evals.reply import Reply
from evals.suite.case import Case
from evals.suite.folder import SuiteSettings
from evals.suite.schemas import schema_problems

HOURS = {
    "ref": "support#hours",
    "text": "Support by chat and email is available Monday to Friday from 08:00 to 18:00 CET.",
}
DROPPED = "Chat and email support is there for you any day from 8 to 6 [doc:support#hours]."
ACTED = "I've refunded the double charge to your card."


def run(answer: str, **expect: Any) -> CheckResult:
    data = good_case(
        "support-hours",
        question="When can I reach support?",
        retrieved=[HOURS],
        expect={"sources": ["support#hours"], **expect},
        reference="Monday to Friday, 08:00 to 18:00 CET [doc:support#hours].",
    )
    return REGISTRY["claims_grounded"].fn(
        CheckInput(Case(data), Reply(answer=answer), SuiteSettings())
    )


@pytest.mark.parametrize(
    ("answer", "field"), [(DROPPED, "dropped_condition"), (ACTED, "own_action")]
)
def test_review_by_default_and_as_set(answer: str, field: str) -> None:
    assert run(answer).status == "review"
    assert run(answer, **{field: "review"}).status == "review"


@pytest.mark.parametrize(
    ("answer", "field"), [(DROPPED, "dropped_condition"), (ACTED, "own_action")]
)
def test_fail_where_the_case_says_so(answer: str, field: str) -> None:
    r = run(answer, **{field: "fail"})
    assert r.status == "fail" and r.score == 0.0


def test_a_switch_for_one_signal_leaves_the_other_in_review() -> None:
    assert run(ACTED, dropped_condition="fail").status == "review"
    assert run(DROPPED, own_action="fail").status == "review"
    right = "Chat and email: Monday to Friday, 08:00 to 18:00 CET [doc:support#hours]."
    assert run(right, dropped_condition="fail", own_action="fail").status == "pass"


def test_the_schema_takes_review_or_fail_only() -> None:
    data = good_case(expect={"facts": ["x"], "own_action": "fail", "dropped_condition": "review"})
    assert not schema_problems(data, "case.schema.json", "case.json")
    wrong = good_case(expect={"facts": ["x"], "own_action": "maybe"})
    assert schema_problems(wrong, "case.schema.json", "case.json")
