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
