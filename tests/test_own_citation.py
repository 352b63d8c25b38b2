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


def ticket_figure(answer: str) -> CheckResult:
    data: dict[str, Any] = good_case(
        "ticket-figure",
        question="They also want to charge me a 20 € fee. Is that right?",
        context={},
        retrieved=[
            {"ref": "p#fees", "text": "For each fine we charge an administrative fee of 20 €."},
            {"ref": "p#parking", "text": "You may park free of charge in the marked zones."},
        ],
        expect={"sources": ["p#fees"]},
        reference="Yes, we charge a fee of 20 € [doc:p#fees] for each fine.",
    )
    return REGISTRY["figures_supported"].fn(
        CheckInput(Case(data), Reply(answer=answer), SuiteSettings())
    )


def test_the_customers_figure_cited_right_after_to_a_passage_without_it_fails() -> None:
    result = ticket_figure("For each fine we charge a fee of 20 € [doc:p#parking].")
    assert result.status == "fail"
    assert "p#fees states it" in result.detail


@pytest.mark.parametrize(
    "answer",
    [
        "Yes, for each fine we charge a fee of 20 € [doc:p#fees].",
        # Cited for the words after it, not for the figure: the customer's own.
        "The 20 € you mention is for the fine; you may park free in marked zones [doc:p#parking].",
        "The 20 € you mention is for the fine.",
    ],
)
def test_the_customers_figure_passes_with_its_own_passage_or_cited_for_other_words(
    answer: str,
) -> None:
    assert ticket_figure(answer).status != "fail"


LIST_PASSAGE = [{"ref": "p#plans", "text": "Plus costs 29 € per seat and month; Basic 19 €."}]


def listed(answer: str) -> tuple[str, str]:
    data: dict[str, Any] = good_case(
        "list-lead",
        question="What do the plans cost?",
        context={},
        retrieved=LIST_PASSAGE,
        expect={"sources": ["p#plans"]},
        reference="Plus costs 29 € [doc:p#plans].",
    )
    inp = CheckInput(Case(data), Reply(answer=answer), SuiteSettings())
    return (
        REGISTRY["no_unsourced_number"].fn(inp).status,
        REGISTRY["figures_supported"].fn(inp).status,
    )


def test_a_list_under_a_line_that_cites_its_source_is_sourced_by_it() -> None:
    answer = "Here are today's prices [doc:p#plans]:\n- Plus: 29 € per seat\n- Basic: 19 € per seat"
    assert listed(answer) == ("pass", "pass")


def test_a_listed_figure_the_lead_passage_does_not_state_fails_and_no_lead_sources_nothing() -> (
    None
):
    wrong = "Here are today's prices [doc:p#plans]:\n- Plus: 39 € per seat\n- Basic: 19 € per seat"
    assert listed(wrong)[1] == "fail"
    bare = "Here are today's prices:\n- Plus: 29 € per seat\n- Basic: 19 € per seat"
    assert listed(bare)[0] == "fail"


def test_a_citation_after_an_abbreviation_stands_for_its_whole_sentence() -> None:
    from evals.checks.citations import _claims_citing
    from evals.suite import patterns
    from evals.suite.folder import SuiteSettings

    cite = patterns.compile_pattern(SuiteSettings().citation_pattern)
    answer = "Der Fixed Desk kostet jetzt 309 € pro Person und Monat zzgl. MwSt. [doc:prices]."
    assert _claims_citing(answer, "prices", cite) == [
        "Der Fixed Desk kostet jetzt 309 € pro Person und Monat zzgl. MwSt"
    ]


def test_a_short_denial_is_backed_by_a_passage_sentence_that_denies_it_too() -> None:
    from evals.checks.citations import supports

    passage = (
        "De assistent beantwoordt vragen uit dit helpcentrum. Hij kan geen declaratie "
        "goedkeuren en geen polis wijzigen of opzeggen."
    )
    never = lambda f: False  # noqa: E731
    assert supports(passage, "Ik kan de opzegging zelf niet voor u verwerken.", never, "nl")
    # Said as done, or about a word the passage does not deny, it is not backed.
    assert not supports(passage, "Ik heb de opzegging voor u verwerkt.", never, "nl")
    assert not supports(passage, "Ik kan de factuur niet voor u betalen.", never, "nl")
