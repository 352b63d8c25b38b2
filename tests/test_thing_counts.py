"""A case may expect a count of any thing ("10 amici", "14 allergens"): found where the
answer gives that number, in digits or words, with the thing's word right after it."""

from __future__ import annotations

from typing import Any

import pytest
from casekit import good_case

from evals.checks import REGISTRY, CheckInput, CheckResult
from evals.checks.thing_counts import parse_expected
from evals.reply import Reply
from evals.suite.case import Case
from evals.suite.folder import SuiteSettings

REFERRAL = {
    "ref": "referrals#cap",
    "text": "You earn 15 € for each friend who orders, for up to 10 friends a year.",
}


def run(check: str, answer: str, expect: dict[str, Any]) -> CheckResult:
    data: dict[str, Any] = good_case(
        "referral-cap",
        question="Quanti amici posso invitare?",
        context={},
        retrieved=[REFERRAL],
        expect={"sources": ["referrals#cap"], **expect},
        reference="Fino a 10 amici all'anno [doc:referrals#cap].",
    )
    return REGISTRY[check].fn(CheckInput(Case(data), Reply(answer=answer), SuiteSettings()))


def test_a_count_of_a_thing_no_language_file_lists_is_an_expected_figure() -> None:
    fig = parse_expected("10 amici")
    assert fig is not None and fig.kind == "count" and fig.value == 10


@pytest.mark.parametrize(
    "answer",
    [
        "Puoi invitare fino a 10 amici all'anno [doc:referrals#cap].",
        "Al massimo dieci amici ogni anno [doc:referrals#cap].",
        "Fino a 10 nuovi amici l'anno [doc:referrals#cap].",
    ],
)
def test_the_count_is_stated_in_digits_or_words_before_its_thing(answer: str) -> None:
    assert run("figures_expected", answer, {"figures": ["10 amici"]}).status == "pass"


@pytest.mark.parametrize(
    "answer",
    [
        "Puoi invitare fino a 5 amici all'anno [doc:referrals#cap].",
        "Ogni amico ti dà 10 € [doc:referrals#cap], senza limite.",
        "Non 10 amici: non c'è limite [doc:referrals#cap].",
    ],
)
def test_another_count_or_the_number_of_another_thing_is_not_it(answer: str) -> None:
    assert run("figures_expected", answer, {"figures": ["10 amici"]}).status == "fail"


def test_a_forbidden_count_of_a_thing_fails_when_claimed() -> None:
    expect = {"forbidden_figures": ["20 amici"]}
    assert (
        run("no_forbidden", "Puoi invitare 20 amici [doc:referrals#cap].", expect).status == "fail"
    )
    ok = "Puoi invitare fino a 10 amici [doc:referrals#cap]."
    assert run("no_forbidden", ok, expect).status == "pass"


def test_validate_accepts_a_count_of_a_thing_and_names_what_is_no_figure() -> None:
    from pathlib import Path

    from evals.checks.loading import case_problems

    data = good_case(
        "referral-cap",
        question="Quanti amici posso invitare?",
        context={},
        retrieved=[{"ref": "referrals#cap", "text": "Puoi invitare fino a 10 amici all'anno."}],
        expect={
            "figures": ["10 amici"],
            "forbidden_figures": ["20 amici", "molti amici"],
            "sources": ["referrals#cap"],
        },
        reference="Fino a 10 amici all'anno [doc:referrals#cap].",
    )
    problems = case_problems(data, Path("cases/referral-cap.json"), set(REGISTRY))
    assert [(p.pointer, "not a figure" in p.message) for p in problems] == [
        ("/expect/forbidden_figures/1", True)
    ]
