"""Every built-in check: an answer that must pass it and one that must fail it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from casekit import good_case

from evals.checks import REGISTRY, CheckInput, CheckResult, contains_phrase
from evals.reply import Reply
from evals.suite.case import Case
from evals.suite.folder import SuiteSettings


def run(name: str, answer: str, case: dict[str, Any] | None = None, **reply: Any) -> CheckResult:
    inp = CheckInput(Case(case or good_case()), Reply(answer=answer, **reply), SuiteSettings())
    return REGISTRY[name].fn(inp)


GOOD = "An extra Pro seat costs 45 € per seat and month [doc:pricing#plans]."


def test_facts_present_passes_with_normalised_match() -> None:
    case = good_case(expect={"facts": ["pro rata", "14 days"]})
    r = run("facts_present", "Seats are billed  PRO\u00a0RATA; refunds within 14 days.", case)
    assert (r.status, r.score) == ("pass", 1.0)


def test_facts_present_fails_naming_the_missing_fact() -> None:
    case = good_case(expect={"facts": ["pro rata", "14 days"]})
    r = run("facts_present", "Seats are billed pro rata.", case)
    assert (r.status, r.score) == ("fail", 0.5)
    assert '"14 days"' in r.detail


def test_an_answer_stating_the_opposite_of_a_negative_fact_fails_it() -> None:
    case = good_case(expect={"facts": ["payroll export is not part of Starter"]})
    r = run("facts_present", "Payroll export is part of Starter as well as Pro.", case)
    assert r.status == "fail" and "negated in the answer" in r.detail
    # Said in other words, it stays for a person or the judge to decide.
    r = run("facts_present", "Payroll export comes with Pro rather than Starter.", case)
    assert r.status == "review"
    # "no phone" without its "no" is one word: naming phones is no claim of the opposite.
    case = good_case(expect={"facts": ["no phone support"]})
    r = run("facts_present", "Phone support is Enterprise-only; chat is on every plan.", case)
    assert r.status != "fail"


def test_facts_do_not_match_inside_a_longer_number() -> None:
    case = good_case(expect={"facts": ["14 days"]})
    assert run("facts_present", "You have 114 days.", case).status == "fail"


def test_mentions_expected_passes_on_the_right_price() -> None:
    assert run("mentions_expected", GOOD).status == "pass"


def test_mentions_expected_fails_on_wrong_price_despite_2145_and_names_the_pattern() -> None:
    r = run("mentions_expected", "From your 21:45 shift on, a seat costs 39 € [doc:pricing#plans].")
    assert r.status == "fail"
    assert r.detail == 'pattern not found: "\\b45\\s?€"'


def test_weak_mention_pattern_is_fooled_by_the_time() -> None:
    # Why patterns need boundaries: "45" alone matches the 21:45 in a wrong answer.
    case = good_case(expect={"mentions": ["45"]})
    assert run("mentions_expected", "At 21:45 a seat costs 39 €.", case).status == "pass"


def test_no_forbidden_fails_on_the_retired_price() -> None:
    r = run("no_forbidden", "It costs 39 € [doc:pricing#plans].")
    assert r.status == "fail" and '"39 €"' in r.detail


def test_no_forbidden_passes_without_the_phrase() -> None:
    assert run("no_forbidden", GOOD).status == "pass"


def test_sources_cited_passes_and_fails() -> None:
    assert run("sources_cited", GOOD).status == "pass"
    r = run("sources_cited", "It costs 45 € [doc:rules#night].")
    assert r.status == "fail" and '"pricing#plans"' in r.detail


def test_sources_cited_uses_reported_citations_over_the_text() -> None:
    assert run("sources_cited", "It costs 45 €.", cited=["pricing#plans"]).status == "pass"


def test_citations_resolve_passes_when_every_citation_was_retrieved() -> None:
    assert run("citations_resolve", GOOD).status == "pass"


def test_an_uncited_answer_is_left_to_the_figure_check_not_failed_for_citing_nothing() -> None:
    r = run("citations_resolve", "It costs 45 €.")
    assert r.status == "skip" and "cites nothing" in r.detail
    assert run("no_unsourced_number", "It costs 45 €.").status == "fail"


def test_citations_resolve_fails_on_unretrieved_ref() -> None:
    r = run("citations_resolve", "It costs 45 € [doc:pricing#archive-2024].")
    assert r.status == "fail" and '"pricing#archive-2024"' in r.detail


def test_no_unsourced_number_passes_when_figures_are_cited_or_from_the_question() -> None:
    answer = "For your 21:45 shift: a Pro seat costs 45 € [doc:pricing#plans]."
    assert run("no_unsourced_number", answer).status == "pass"


def test_no_unsourced_number_fails_on_an_uncited_amount() -> None:
    r = run(
        "no_unsourced_number",
        "A Pro seat costs 45 € per month. Night shifts are extra [doc:rules#night].",
    )
    assert r.status == "fail" and '"45 €"' in r.detail


def test_no_unsourced_number_flags_an_uncited_time_not_in_the_question() -> None:
    r = run("no_unsourced_number", "The surcharge starts at 22:00.")
    assert r.status == "fail" and "22:00" in r.detail


def test_retrieval_recall_passes_and_fails() -> None:
    assert run("retrieval_recall", GOOD, retrieved=["pricing#plans"]).status == "pass"
    r = run("retrieval_recall", GOOD, retrieved=["rules#night"])
    assert (r.status, r.score) == ("fail", 0.0)


def test_citation_precision_passes_and_fails() -> None:
    assert run("citation_precision", GOOD).status == "pass"
    r = run("citation_precision", GOOD + " Night work is extra [doc:rules#night].")
    assert (r.status, r.score) == ("fail", 0.5)


def test_abstention_passes_when_an_unanswerable_case_is_declined() -> None:
    case = good_case(expect={"abstain": True})
    assert (
        run(
            "abstention", "I can't help with that; I'll hand this over to a colleague.", case
        ).status
        == "pass"
    )


def test_abstention_fails_when_an_unanswerable_case_is_answered() -> None:
    case = good_case(expect={"abstain": True})
    r = run("abstention", GOOD, case)
    assert r.status == "fail" and "should decline" in r.detail


def test_abstention_fails_when_an_answerable_case_is_declined_by_flag() -> None:
    case = good_case(expect={"abstain": False})
    r = run("abstention", "Sure.", case, abstained=True)
    assert r.status == "fail" and "answerable" in r.detail


def test_a_hand_over_offered_only_under_a_condition_is_no_decline() -> None:
    case = good_case(expect={"abstain": False})
    offered = GOOD + " If you were billed twice, I'll hand this over to a colleague."
    assert run("abstention", offered, case).status == "pass"
    declined = GOOD + " I'll hand this over to a colleague."
    assert run("abstention", declined, case).status == "fail"


def test_max_words_passes_and_fails() -> None:
    case = good_case(expect={"max_words": 5})
    assert run("max_words", "one two three", case).status == "pass"
    assert run("max_words", "one two three four five six", case).status == "fail"


@pytest.mark.parametrize(
    "name", ["facts_present", "mentions_expected", "no_forbidden", "max_words"]
)
def test_check_without_its_expectation_is_skipped_not_scored(name: str) -> None:
    r = run(name, GOOD, good_case(expect={}))
    assert (r.status, r.score) == ("skip", None)


def test_contains_phrase_ignores_case_and_unicode_forms() -> None:
    assert contains_phrase("Die Kündigungsfrist beträgt 30 TAGE.", "30 tage")
    assert contains_phrase("ﬁve", "five")
    assert not contains_phrase("4 days", "14 days")


def test_custom_citation_pattern_is_used() -> None:
    settings = SuiteSettings(citation_pattern=r"\(source: ([\w#-]+)\)")
    inp = CheckInput(Case(good_case()), Reply("45 € (source: pricing#plans)"), settings)
    assert REGISTRY["sources_cited"].fn(inp).status == "pass"


def test_no_unsourced_number_accepts_a_citation_right_after_the_full_stop() -> None:
    assert run("no_unsourced_number", "A Pro seat costs 45 €. [doc:pricing#plans]").status == "pass"


@pytest.mark.parametrize(
    "figure",
    [
        "€39",
        "39,00 €",
        "EUR 39",
        "39 EUR",
        "$12.50",
        "12.5 %",
        "30 days",
        "30 Tage",
        "30-day",
        "2 000 €",
        "CHF 9.90",
        "15 Prozent",
        "30 jours",
        "30 días",
    ],
)
def test_no_unsourced_number_recognises_money_percentages_and_units_in_any_form(
    figure: str,
) -> None:
    r = run("no_unsourced_number", f"It is {figure} for you.")
    assert r.status == "fail" and f'"{figure}"' in r.detail, r.detail
    assert run("no_unsourced_number", f"It is {figure} [doc:pricing#plans].").status == "pass"


def test_an_amount_the_question_quotes_needs_no_citation_in_any_spelling() -> None:
    case = good_case(question="Is Pro still €45? We need 6 more seats for the 21:45 shift.")
    for answer in ("Yes, 45 € still holds.", "Yes, 45,00 €.", "Yes, EUR 45.", "6 seats, yes."):
        assert run("no_unsourced_number", answer, case).status == "pass", answer
    assert run("no_unsourced_number", "No, it is 39 €.", case).status == "fail"


def test_facts_match_through_typography_and_invisible_characters() -> None:
    case = good_case(expect={"facts": ["don't need a card", "non-profit", "45 €", "pro rata"]})
    answer = "You DON\u2019T need a card; non\u2011profit, 45\u00a0€ or 45€; pro\u00ad rata."
    assert run("facts_present", answer, case).status == "pass"
    assert contains_phrase("It is € 45 a month.", "€45") and contains_phrase("€45", "€ 45")
    assert run("facts_present", "You do need a card; profit, 145 €; prorata.", case).score == 0.0


def test_refusal_is_recognised_with_smart_quotes_and_the_example_suites_phrases() -> None:
    from evals.suite.folder import open_suite

    settings = open_suite(Path(__file__).resolve().parent.parent / "evals").settings
    case = Case(good_case(expect={"abstain": True}))
    for answer in (
        "I\u2019ll HAND this over to our billing team.",
        "Ich leite Ihre\u00a0Anfrage an das Team weiter.",
        "Je transmets votre demande à l’équipe.",
        "Paso su consulta al equipo de facturación.",
    ):
        inp = CheckInput(case, Reply(answer=answer), settings)
        assert REGISTRY["abstention"].fn(inp).status == "pass", answer
    inp = CheckInput(case, Reply(answer="Pro costs 45 € [doc:pricing#plans]."), settings)
    assert REGISTRY["abstention"].fn(inp).status == "fail"


# --- claim support (annotated claims) and citations on hand-over cases ----------------------

CLAIMED = good_case(expect={"sources": ["pricing#plans"], "claim_support": True})


def test_claim_support_is_the_share_of_annotated_claims_with_a_supporting_chunk() -> None:
    claims = [
        {"claim": "A Pro seat costs 45 € a month.", "support": ["pricing#plans"]},
        {"claim": "Reception can replay the briefing.", "support": []},
    ]
    r = run("claim_support", GOOD, CLAIMED, claims=claims)
    assert (r.status, r.score) == ("fail", 0.5)
    assert '"Reception can replay the briefing."' in r.detail


def test_a_claim_supported_only_by_a_chunk_never_cited_nor_retrieved_is_unsupported() -> None:
    claims = [{"claim": "Shifts start at 22:00.", "support": ["rules#elsewhere"]}]
    r = run("claim_support", GOOD, CLAIMED, claims=claims, retrieved=["pricing#plans"])
    assert (r.status, r.score) == ("fail", 0.0)
    claims = [{"claim": "The night rule applies.", "support": ["rules#night"]}]
    r = run("claim_support", GOOD, CLAIMED, claims=claims)  # rules#night is retrieved
    assert (r.status, r.score) == ("pass", 1.0)


def test_an_answer_nobody_annotated_scores_zero_unless_it_declines() -> None:
    r = run("claim_support", GOOD, CLAIMED)
    assert (r.status, r.score) == ("fail", 0.0) and "no claim annotations" in r.detail
    r = run("claim_support", "I can't help with that.", CLAIMED, abstained=True, claims=[])
    assert (r.status, r.score) == ("pass", 1.0)


def test_claim_support_runs_only_where_the_case_asks_for_it() -> None:
    from evals.checks.grading import implied_checks

    assert "claim_support" in implied_checks(Case(CLAIMED))
    assert "claim_support" not in implied_checks(Case(good_case()))
    assert run("claim_support", GOOD).status == "skip"


HANDOVER = good_case(expect={"abstain": True})


def test_a_hand_over_case_that_cites_an_unexpected_passage_loses_precision() -> None:
    from evals.checks.grading import implied_checks

    names = implied_checks(Case(HANDOVER))
    assert "citations_resolve" in names and "citation_precision" in names
    answer = "Free parking is available behind the building [doc:rules#night]."
    r = run("citation_precision", answer, HANDOVER)
    assert (r.status, r.score) == ("fail", 0.0)
    assert run("citations_resolve", answer, HANDOVER).status == "pass"
    r = run("citation_precision", "I can't help with that.", HANDOVER)
    assert r.status == "skip"  # a hand-over that cites nothing has nothing to be imprecise about


def test_reported_citations_source_figures_when_the_answer_has_no_inline_markers() -> None:
    answer = "An extra Pro seat costs 45 € per seat and month."
    r = run("no_unsourced_number", answer, cited=["pricing#plans"])
    assert r.status == "pass" and "reported citation" in r.detail
    assert run("figures_supported", answer, cited=["pricing#plans"]).status == "pass"
    wrong = "An extra Pro seat costs 48 € per seat and month."
    assert run("no_unsourced_number", wrong, cited=["pricing#plans"]).status == "pass"
    r = run("figures_supported", wrong, cited=["pricing#plans"])
    assert r.status == "fail" and "48 €" in r.detail
    # Inline markers, once used, are held to: a figure without one is still unsourced.
    mixed = "Pro costs 45 € [doc:pricing#plans]. Starter costs 29 €."
    r = run("no_unsourced_number", mixed, cited=["pricing#plans"])
    assert r.status == "fail" and "29 €" in r.detail
    assert run("no_unsourced_number", answer).status == "fail"  # nothing reported, nothing inline


def _forbidden(answer: str, figure: str, lang: str) -> str:
    case = good_case(expect={"forbidden_figures": [figure], "language": lang})
    return run("no_forbidden", answer, case).status


@pytest.mark.parametrize(
    ("lang", "answer", "figure"),
    [
        # Denied with the clause-final negation of Dutch and German.
        ("nl", "Helaas krijg je die 150 € niet, dat had ik eerder verkeerd gezegd.", "150 €"),
        ("de", "Leider bekommen Sie die 150 € nicht, das war mein Fehler.", "150 €"),
        # Named for comparison beside the figure that applies.
        (
            "nl",
            "Vast 3 jaar: 1,49 € per m³ [doc:t#gas]. Ter vergelijking: Variabel 1,35 €.",
            "1,35 €",
        ),
        ("en", "Pro is 45 € [doc:p#plans]; for comparison, Starter is 29 € [doc:p#plans].", "29 €"),
        # A colon joins the figure to the clause that retires it.
        (
            "de",
            "Falls Sie 0,24 € gesehen haben: Das ist der archivierte Tarif und gilt nicht mehr.",
            "0,24 €",
        ),
        # A parenthesis of prose holding a citation is read, not blanked as a citation.
        (
            "nl",
            "Nu 0,27 € per kWh [doc:t#stroom] (0,24 € was het gearchiveerde tarief [doc:t#a]).",
            "0,24 €",
        ),
        # What would apply only under another condition, after what does apply.
        (
            "nl",
            "Je betaalt 100 € [doc:c#o]; pas bij een looptijd tot 1,5 jaar zou het 50 € zijn.",
            "50 €",
        ),
    ],
)
def test_a_forbidden_figure_named_to_deny_compare_or_retire_it_is_no_claim(
    lang: str, answer: str, figure: str
) -> None:
    assert _forbidden(answer, figure, lang) == "pass"


@pytest.mark.parametrize(
    ("lang", "answer", "figure"),
    [
        ("nl", "Je krijgt 150 € terug op je jaarafrekening.", "150 €"),
        ("de", "Sie bekommen 150 € Bonus [doc:t#bonus].", "150 €"),
        # The colon of a citation joins nothing: "discontinued" retires the free plan only.
        (
            "en",
            "The free plan was discontinued [doc:p#archive], but Starter is 25 € [doc:p#archive].",
            "25 €",
        ),
        ("en", "Pro is 45 € per seat (see pricing#plans), Starter 29 €.", "29 €"),
    ],
)
def test_a_forbidden_figure_stated_as_current_still_fails(
    lang: str, answer: str, figure: str
) -> None:
    assert _forbidden(answer, figure, lang) == "fail"
