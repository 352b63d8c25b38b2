"""An expected figure in calendar days is read in working days where its passages say so."""

from __future__ import annotations

from typing import Any

from casekit import good_case

from evals.checks import REGISTRY, CheckInput, CheckResult
from evals.checks.passage_units import as_passages_state
from evals.checks.values import parse_one
from evals.reply import Reply
from evals.suite.case import Case
from evals.suite.folder import SuiteSettings

MOVING = {"ref": "moving#notice", "text": "Report a move in the app at least 5 working days ahead."}


def run(answer: str, passage: dict[str, str]) -> CheckResult:
    data: dict[str, Any] = good_case(
        "moving",
        question="How early must I report a move?",
        retrieved=[passage],
        expect={"figures": ["5 days"], "sources": [passage["ref"]]},
        reference="At least 5 working days ahead [doc:moving#notice].",
    )
    inp = CheckInput(Case(data), Reply(answer=answer), SuiteSettings())
    return REGISTRY["figures_expected"].fn(inp)


def test_an_expected_day_count_is_met_by_the_working_days_its_passage_states() -> None:
    assert run("At least 5 working days before you move [doc:moving#notice].", MOVING).status == (
        "pass"
    )
    assert run("At least 5 werkdagen before you move [doc:moving#notice].", MOVING).status == (
        "pass"
    )
    assert run("At least 7 working days before [doc:moving#notice].", MOVING).status == "fail"


def test_working_days_stay_apart_where_the_passage_states_calendar_days() -> None:
    calendar = {"ref": "moving#notice", "text": "Report a move at least 5 days ahead."}
    assert run("At least 5 working days before you move.", calendar).status == "fail"
    want = parse_one("5 days")
    assert want is not None
    assert as_passages_state(want, ["5 days, or 5 working days by post"]) == [want]
