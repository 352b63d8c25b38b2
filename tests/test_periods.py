"""An amount is paid per a period: a passage's monthly price said as a one-off, or per
another period, fails figures_supported in every language read; the same period in other
words, no period, or the next figure's period word passes."""

from __future__ import annotations

from typing import Any

import pytest
from casekit import good_case

from evals.checks import REGISTRY, CheckInput, CheckResult
from evals.checks.periods import other_period, period_after
from evals.checks.values import parse_figures
from evals.reply import Reply
from evals.suite.case import Case
from evals.suite.folder import SuiteSettings


def supported(answer: str, passage: str) -> CheckResult:
    data: dict[str, Any] = good_case(
        "periods",
        question="?",
        context={},
        retrieved=[{"ref": "extras", "text": passage}],
        expect={"sources": ["extras"]},
        reference="See the passages.",
    )
    return REGISTRY["figures_supported"].fn(
        CheckInput(Case(data), Reply(answer=answer), SuiteSettings())
    )


def money(text: str) -> list:
    return [f for f in parse_figures(text) if f.kind == "money"]


# passage, a correct answer (the period in its own words), a wrong one (another period)
TYRES = {
    "en": (
        "Winter tyres cost 25 € a month from October to April.",
        "Winter tyres are 25 € per month [doc:extras], October to April.",
        "Winter tyres cost 25 € [doc:extras] as a one-off for the whole season.",
    ),
    "it": (
        "Gli pneumatici invernali costano 25 € al mese, da ottobre ad aprile.",
        "Gli pneumatici invernali costano 25 € [doc:extras] ogni mese, da ottobre ad aprile.",
        "Gli pneumatici invernali costano 25 € [doc:extras] una tantum per tutta la stagione.",
    ),
    "nl": (
        "Winterbanden kosten 25 € per maand, van oktober tot april.",
        "Winterbanden kosten 25 € [doc:extras] maandelijks, van oktober tot april.",
        "Winterbanden kosten 25 € [doc:extras] per jaar, voor het hele seizoen.",
    ),
    "de": (
        "Winterreifen kosten 25 € pro Monat, von Oktober bis April.",
        "Winterreifen kosten 25 € im Monat [doc:extras], von Oktober bis April.",
        "Winterreifen kosten 25 € [doc:extras] einmalig für die ganze Saison.",
    ),
    "fr": (
        "Les pneus hiver coûtent 25 € par mois, d'octobre à avril.",
        "Les pneus hiver coûtent 25 € [doc:extras] par mois, d'octobre à avril.",
        "Les pneus hiver coûtent 25 € [doc:extras] par an.",
    ),
    "es": (
        "Los neumáticos de invierno cuestan 25 € al mes, de octubre a abril.",
        "Los neumáticos de invierno cuestan 25 € [doc:extras] mensuales.",
        "Los neumáticos de invierno cuestan 25 € [doc:extras] por semana.",
    ),
    "pt": (
        "Os pneus de inverno custam 25 € por mês, de outubro a abril.",
        "Os pneus de inverno custam 25 € [doc:extras] mensais.",
        "Os pneus de inverno custam 25 € [doc:extras] por dia.",
    ),
    "da": (
        "Vinterdæk koster 25 € om måneden fra oktober til april.",
        "Vinterdæk koster 25 € [doc:extras] pr. måned.",
        "Vinterdæk koster 25 € [doc:extras] om året.",
    ),
}


@pytest.mark.parametrize("lang", sorted(TYRES))
def test_an_amount_said_per_its_passages_period_passes(lang: str) -> None:
    passage, right, _ = TYRES[lang]
    assert supported(right, passage).status == "pass"


@pytest.mark.parametrize("lang", sorted(TYRES))
def test_an_amount_said_per_another_period_fails(lang: str) -> None:
    passage, _, wrong = TYRES[lang]
    r = supported(wrong, passage)
    assert r.status == "fail"
    assert "another period" in r.detail


def test_the_detail_quotes_the_passages_own_words() -> None:
    passage, _, wrong = TYRES["it"]
    assert "25 € al mese" in supported(wrong, passage).detail


def test_a_period_word_before_the_next_figure_is_that_figures() -> None:
    text = "12 Monate × 39,50 € [doc:x] plus einmalig 59 € für den Techniker."
    first, second = money(text)
    assert period_after(text, first) is None
    assert period_after(text, second) is None  # "für den Techniker" is no period


def test_a_period_after_the_clause_ends_is_not_the_amounts() -> None:
    text = "Winter tyres cost 25 €. Monthly invoices come by email."
    assert period_after(text, money(text)[0]) is None


def test_a_few_words_may_stand_between_an_amount_and_its_period() -> None:
    text = "Protection costs 4,90 € per device per month."
    assert period_after(text, money(text)[0]) == "month"


def test_an_amount_a_passage_states_without_a_period_is_not_judged() -> None:
    answer = "The installation costs 59 € [doc:extras] one-off."
    assert other_period(answer, money(answer)[0], ["The installation costs 59 €."]) == ""


def test_an_amount_a_passage_states_per_both_periods_is_not_judged() -> None:
    passage = "Plus costs 10 € per month; the add-on costs 10 € per year."
    answer = "The add-on costs 10 € per year [doc:extras]."
    assert other_period(answer, money(answer)[0], [passage]) == ""


def test_an_answer_with_no_period_is_not_judged() -> None:
    passage, _, _ = TYRES["en"]
    assert supported("Winter tyres cost 25 € [doc:extras].", passage).status == "pass"
