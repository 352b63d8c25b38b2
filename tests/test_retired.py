"""A forbidden figure named as retired: cited to an ARCHIVED passage in a sentence that says
it no longer applies passes; a retirement on the other side of a 'but' excuses nothing."""

from __future__ import annotations

import pytest
from casekit import good_case

from evals.checks import REGISTRY, CheckInput, CheckResult
from evals.reply import Reply
from evals.suite.case import Case
from evals.suite.folder import SuiteSettings

ARCHIVE = {
    "ref": "heatpump#archive",
    "text": "ARCHIVED. Hybrid heat pump: 39 € a month, offered until 1 September 2026.",
}
PRODUCTS = {"ref": "products#overview", "text": "We supply electricity and gas."}


def run(answer: str, lang: str) -> CheckResult:
    data = good_case(
        "heatpump",
        question="Can I still get the heat pump?",
        retrieved=[ARCHIVE, PRODUCTS],
        expect={"forbidden_figures": ["39 €"], "language": lang, "sources": ["products#overview"]},
    )
    inp = CheckInput(Case(data), Reply(answer=answer), SuiteSettings())
    return REGISTRY["no_forbidden"].fn(inp)


@pytest.mark.parametrize(
    ("lang", "answer"),
    [
        (
            "nl",
            "De warmtepomp voor 39 € per maand boden we aan tot 1 september 2026 "
            "[doc:heatpump#archive]; dat product is stopgezet.",
        ),
        (
            "en",
            "The heat pump at 39 € a month was offered until September [doc:heatpump#archive]; "
            "it has been discontinued.",
        ),
    ],
)
def test_an_archived_figure_in_a_sentence_that_retires_it_is_no_claim(
    lang: str, answer: str
) -> None:
    assert run(answer, lang).status == "pass"


@pytest.mark.parametrize(
    ("lang", "answer"),
    [
        (
            "nl",
            "Nieuwe klanten kunnen hem niet meer krijgen, maar jij kunt hem nog aanvragen voor "
            "39 € per maand [doc:heatpump#archive].",
        ),
        ("en", "The heat pump costs 39 € a month [doc:heatpump#archive]."),
        # Retired words beside it, but the figure cited to a current passage.
        ("en", "The heat pump costs 39 € a month [doc:products#overview]; it was discontinued."),
    ],
)
def test_an_archived_figure_beyond_a_but_or_cited_as_current_is_a_claim(
    lang: str, answer: str
) -> None:
    assert run(answer, lang).status == "fail"


def _fact(answer: str, fact: str, lang: str = "en") -> CheckResult:
    data = good_case(expect={"facts": [fact], "language": lang})
    return REGISTRY["facts_present"].fn(
        CheckInput(Case(data), Reply(answer=answer), SuiteSettings())
    )


def test_a_retirement_fact_said_in_other_retiring_words_is_undecided() -> None:
    r = _fact("The 39 € came from the 2025 list, valid until 28 February 2026.", "no longer valid")
    assert r.status == "review" and "valid until 28 February 2026" in r.detail
    r = _fact("La pausa era un'offerta ormai archiviata.", "non più disponibile", "it")
    assert r.status == "review"


def test_a_retirement_fact_with_nothing_retired_in_the_answer_fails() -> None:
    assert _fact("The 39 € price applies to your new seats.", "no longer valid").status == "fail"
    # A fact that retires nothing is not helped by a retiring clause elsewhere.
    assert _fact("The old list expired. Seats cost 45 €.", "billed pro rata").status == "fail"


@pytest.mark.parametrize(
    ("lang", "answer"),
    [
        ("en", "SMS reminders ended on 1 June 2026 for every plan."),
        ("de", "Die SMS-Erinnerungen endeten am 1. Juni 2026."),
        ("nl", "De sms-herinneringen zijn per 1 juni 2026 beëindigd."),
        ("it", "I promemoria via SMS sono cessati il 1° giugno 2026."),
        ("da", "Rejsepasset udgik den 1. marts 2026 og kan ikke købes længere."),
        ("es", "La promoción era para quien contratara antes de marzo y ha finalizado."),
        ("fr", "L'indemnité de 75 € concerne uniquement les contrats professionnels."),
    ],
)
def test_something_that_ended_on_a_date_is_said_to_be_retired(lang: str, answer: str) -> None:
    from evals.checks.clauses import corrects

    assert corrects(answer, lang)


def test_a_deduction_fact_taken_off_in_other_words_is_undecided() -> None:
    fact = "al netto di eventuali danni"
    r = _fact("L'importo può essere ridotto solo se ci sono danni non coperti.", fact, "it")
    assert r.status == "review" and "ridotto" in r.detail
    # The deduction of something else, or none, still fails.
    assert _fact("Il deposito viene ridotto per i ritardi.", fact, "it").status == "fail"
    assert _fact("Ti restituiamo i 100 € entro 14 giorni.", fact, "it").status == "fail"


def test_a_figure_cited_to_an_archive_the_answer_has_already_retired_is_no_claim() -> None:
    # The earlier sentence retires the archived offer; the figure is then named, cited to it,
    # to compare.
    said = (
        "Die Wärmepumpe aus dem Angebot [doc:heatpump#archive] gibt es nicht mehr. "
        "Gegenüber den 39 € von damals [doc:heatpump#archive] liefern wir heute Strom und Gas "
        "[doc:products#overview]."
    )
    assert run(said, "de").status == "pass"
    # Cited to the archive without any sentence retiring it, it stays a claim.
    claimed = "Die Wärmepumpe kostet 39 € im Monat [doc:heatpump#archive]."
    assert run(claimed, "de").status == "fail"
