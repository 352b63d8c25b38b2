"""A fact that is the hand-over itself is stated by any hand-over in a case expecting one."""

from __future__ import annotations

from typing import Any

from casekit import good_case

from evals.checks import REGISTRY, CheckInput, CheckResult
from evals.reply import Reply
from evals.suite.case import Case
from evals.suite.folder import SuiteSettings


def run(answer: str, **expect: Any) -> CheckResult:
    data = good_case(
        "charger",
        question="Installeren jullie ook een laadpaal?",
        expect={"facts": [["collega"]], "language": "nl", **expect},
    )
    inp = CheckInput(Case(data), Reply(answer=answer), SuiteSettings())
    return REGISTRY["facts_present"].fn(inp)


def test_any_hand_over_states_a_colleague_where_one_is_expected() -> None:
    answer = "Een laadpaal bieden we niet aan. Ik zet je vraag door naar de klantenservice."
    assert run(answer, abstain=True).status == "pass"
    assert run("Ik geef je vraag door aan een collega.", abstain=True).status == "pass"


def test_without_a_hand_over_or_where_none_is_expected_the_fact_is_read_as_written() -> None:
    assert run("Een laadpaal bieden we niet aan.", abstain=True).status == "fail"
    answer = "Ik zet je vraag door naar de klantenservice."
    assert run(answer, abstain=False).status == "fail"


def test_a_fact_beyond_the_hand_over_is_not_met_by_one() -> None:
    data = good_case(
        "charger",
        question="Installeren jullie ook een laadpaal?",
        expect={
            "facts": [["collega van de juridische afdeling"]],
            "language": "nl",
            "abstain": True,
        },
    )
    answer = "Ik zet je vraag door naar de klantenservice."
    r = REGISTRY["facts_present"].fn(CheckInput(Case(data), Reply(answer=answer), SuiteSettings()))
    assert r.status != "pass"


def test_hand_overs_in_other_common_words_are_read_in_each_language() -> None:
    from evals.checks.base import says_refusal
    from evals.checks.lexicon import lexicon

    for lang, answer in (
        ("nl", "Ik leg je vraag neer bij de klantenservice."),
        ("it", "Inoltro la tua domanda all'assistenza."),
        ("de", "Ich leite Ihre Frage an das Team weiter."),
        ("en", "I'll pass this to our billing team."),
    ):
        assert says_refusal(answer, lexicon(lang).handover, lang), answer
