"""A figure's own citation (the refs right after it) must state it, in every language; a
supporting citation later in the sentence does not rescue it, and refs side by side count
together."""

from __future__ import annotations

from typing import Any

import pytest
from casekit import good_case

from evals.checks import REGISTRY, CheckInput, CheckResult
from evals.reply import Reply
from evals.suite.case import Case
from evals.suite.folder import SuiteSettings

PASSAGES = [
    {"ref": "p#plans", "text": "Plus costs 29 € per seat and month."},
    {"ref": "p#annual", "text": "Paying yearly saves 15 %."},
]


def supported(answer: str) -> CheckResult:
    data: dict[str, Any] = good_case(
        "own-citation",
        question="?",
        context={},
        retrieved=PASSAGES,
        expect={"sources": ["p#plans"]},
        reference="Plus costs 29 € [doc:p#plans].",
    )
    return REGISTRY["figures_supported"].fn(
        CheckInput(Case(data), Reply(answer=answer), SuiteSettings())
    )


@pytest.mark.parametrize(
    "answer",
    [
        "Plus costs 29 € per seat [doc:p#annual], billed monthly [doc:p#plans].",
        "Plus kostet 29 € pro Platz [doc:p#annual], monatlich abgerechnet [doc:p#plans].",
        "Plus costa 29 € a postazione [doc:p#annual], fatturati ogni mese [doc:p#plans].",
        "Plus kost 29 € per plek [doc:p#annual], maandelijks gefactureerd [doc:p#plans].",
    ],
)
def test_a_figure_cited_to_the_wrong_passage_fails_though_a_later_ref_holds_it(answer: str) -> None:
    assert supported(answer).status == "fail"


@pytest.mark.parametrize(
    "answer",
    [
        "Plus costs 29 € per seat [doc:p#annual][doc:p#plans].",
        "Plus kostet 29 € pro Platz [doc:p#annual] und [doc:p#plans].",
        "Plus costa 29 € a postazione [doc:p#annual] e [doc:p#plans].",
        "Plus kost 29 € per plek [doc:p#annual] en [doc:p#plans].",
        "Plus coûte 29 € par poste [doc:p#annual] et [doc:p#plans].",
        "Plus custa 29 € por lugar [doc:p#annual], [doc:p#plans].",
    ],
)
def test_refs_side_by_side_count_together(answer: str) -> None:
    r = supported(answer)
    assert r.status == "pass", r.detail


def _conversation(earlier: str, lang: str) -> dict[str, Any]:
    return good_case(
        "corrected-figure",
        question="Sorry, it is the 1-year contract, with 8 months left.",
        context={},
        messages=[
            {"role": "user", "content": "What does cancelling cost?"},
            {"role": "assistant", "content": earlier},
        ],
        retrieved=[{"ref": "c#fee", "text": "The fee is 50 € with up to 1 year left, else 100 €."}],
        expect={"sources": ["c#fee"], "language": lang},
        reference="Then it is 50 € [doc:c#fee].",
    )


@pytest.mark.parametrize(
    ("lang", "answer"),
    [
        ("en", "Then it is 50 € [doc:c#fee] instead of 100 €."),
        ("de", "Dann sind es 50 € [doc:c#fee] statt 100 €."),
        ("nl", "Dan wordt het 50 € [doc:c#fee] in plaats van 100 €."),
    ],
)
def test_the_assistants_earlier_figure_named_to_correct_it_needs_no_citation(
    lang: str, answer: str
) -> None:
    data = _conversation("You pay a 100 € fee [doc:c#fee].", lang)
    r = REGISTRY["no_unsourced_number"].fn(
        CheckInput(Case(data), Reply(answer=answer), SuiteSettings())
    )
    assert r.status == "pass", r.detail
    # Not one the assistant gave before: it still needs its source.
    fresh = _conversation("You pay a fee [doc:c#fee].", lang)
    r = REGISTRY["no_unsourced_number"].fn(
        CheckInput(Case(fresh), Reply(answer=answer), SuiteSettings())
    )
    assert r.status == "fail"
