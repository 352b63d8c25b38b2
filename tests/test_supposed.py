"""Figures that need no citation of their own: an example's inputs, a ratio of two sourced
figures, a result the same sentence works out right after it; and the wrong ones beside
them stay unsourced."""

from __future__ import annotations

from typing import Any

from casekit import good_case

from evals.checks import REGISTRY, CheckInput
from evals.reply import Reply
from evals.suite.case import Case
from evals.suite.folder import SuiteSettings

PASSAGES = [
    {"ref": "mobile#roaming", "text": "Mobile Plus includes 15 GB; each extra GB costs 2 €."},
    {"ref": "net#plans", "text": "Start: 100 Mbit/s for 39,50 €. Plus: 500 Mbit/s for 49,50 €."},
]


def graded(
    check: str,
    answer: str,
    retrieved: list[dict[str, str]] = PASSAGES,
    question: str = "?",
    lang: str = "en",
) -> str:
    """One check's verdict on the answer, to a case with `retrieved` and `question`."""
    data: dict[str, Any] = good_case(
        "supposed",
        question=question,
        context={},
        retrieved=retrieved,
        expect={"sources": [retrieved[0]["ref"]], "language": lang},
        reference="x",
    )
    inp = CheckInput(Case(data), Reply(answer=answer), SuiteSettings())
    return REGISTRY[check].fn(inp).status


def sourced(answer: str, lang: str = "en") -> str:
    return graded("no_unsourced_number", answer, lang=lang)


def test_an_examples_inputs_need_no_citation_and_its_price_does() -> None:
    it = "Ogni GB in più costa 2 € [doc:mobile#roaming]: per esempio 3 GB extra = 3 × 2 € = 6 €."
    assert sourced(it, "it") == "pass"
    assert sourced("Each extra GB is 2 € [doc:mobile#roaming]: for example 3 GB = 6 €.") == "pass"
    assert sourced("For example, the Pass costs 12 €.") == "fail"


def test_a_ratio_of_two_sourced_figures_is_sourced_and_a_wrong_one_is_not() -> None:
    right = (
        "Plus gives 500 Mbit/s [doc:net#plans], Start 100 Mbit/s [doc:net#plans]: five times "
        "as fast."
    )
    assert sourced(right) == "pass"
    assert sourced(right.replace("five times", "three times")) == "fail"


def test_a_result_worked_out_later_in_its_sentence_is_sourced() -> None:
    right = (
        "Plus is 49,50 € [doc:net#plans] and Start 39,50 € [doc:net#plans]. The difference is "
        "10 €: 49,50 € − 39,50 € = 10 €."
    )
    assert sourced(right) == "pass"
    assert sourced(right.replace("is 10 €:", "is 12 €:")) == "fail"


def test_a_week_the_customer_names_is_their_seven_days() -> None:
    roam = [{"ref": "roam#uk", "text": "In the UK data costs 2,50 € per day of use."}]
    asked = "I'm going to London for a week. What does data cost there?"
    right = "Data costs 2,50 € per day [doc:roam#uk]: on all 7 days, 7 × 2,50 € = 17,50 €."
    assert graded("no_unsourced_number", right, roam, asked) == "pass"
    wrong = right.replace("7 days, 7 ×", "8 days, 8 ×").replace("17,50", "20")
    assert graded("no_unsourced_number", wrong, roam, asked) == "fail"


def test_a_total_given_before_its_terms_is_supported_when_they_are_and_sum_to_it() -> None:
    phones = [
        {"ref": "p#tiers", "text": "Plus costs 29,90 € a month."},
        {"ref": "p#family", "text": "From the second device, each costs 10 % less."},
    ]
    right = (
        "You'd pay 56,81 € a month in total: the first phone at 29,90 € [doc:p#tiers] and the "
        "second with 10 % off [doc:p#family], which comes to 26,91 €."
    )
    assert graded("figures_supported", right, phones) == "pass"
    assert graded("figures_supported", right.replace("56,81", "58,81"), phones) == "fail"


def test_a_figure_restated_for_the_rule_of_a_passage_without_such_figures_keeps_its_source() -> (
    None
):
    plans = [
        {"ref": "p#plans", "text": "City costs 29 € a month."},
        {"ref": "p#change", "text": "Existing customers keep their price until 1 March 2026."},
    ]
    right = "City kostet 29 € [doc:p#plans]. Ab dem 1. März 2026 zahlen Sie 29 € [doc:p#change]."
    assert graded("figures_supported", right, plans, lang="de") == "pass"
    # Given first with that citation, it has no source of its own.
    alone = "Ab dem 1. März 2026 zahlen Sie 29 € [doc:p#change]."
    assert graded("figures_supported", alone, plans, lang="de") == "fail"


def test_a_total_given_before_the_sentences_that_work_it_out_is_for_a_person() -> None:
    yearly = [
        {"ref": "p#plans", "text": "Power costa 49 € al mese."},
        {"ref": "p#disc", "text": "Pagando un anno in anticipo si risparmia il 10 %."},
    ]
    answer = (
        "Spendi in totale 529,20 €. Il calcolo: 49 € al mese [doc:p#plans] per 12 mesi fanno "
        "588 €; lo sconto del 10 % [doc:p#disc] vale 58,80 €."
    )
    assert graded("no_unsourced_number", answer, yearly, lang="it") == "review"


def test_a_figure_pointed_back_to_restates_the_one_given_before() -> None:
    term = [
        {
            "ref": "c#term",
            "text": "De minimale looptijd is 3 maanden. Daarna kun je altijd opzeggen met "
            "een opzegtermijn van 1 maand.",
        }
    ]
    right = (
        "De minimale looptijd is 3 maanden [doc:c#term]. Na die 3 maanden kun je opzeggen met "
        "1 maand opzegtermijn [doc:c#term]."
    )
    assert graded("figures_supported", right, term, lang="nl") == "pass"
    # Not pointed back to, a figure about the notice is the notice's.
    wrong = "Je opzegtermijn is 3 maanden [doc:c#term]."
    assert graded("figures_supported", wrong, term, lang="nl") == "fail"


def test_a_day_of_the_month_in_words_that_a_passage_gives_needs_no_citation() -> None:
    rule = [{"ref": "i#ded", "text": "Die Reduzierung gilt ab dem ersten Tag des Folgemonats."}]
    right = "De verlaging geldt vanaf de eerste dag van de volgende maand."
    assert graded("no_unsourced_number", right, rule, lang="nl") == "pass"
    wrong = "De verlaging geldt vanaf de vijfde dag van de volgende maand."
    assert graded("no_unsourced_number", wrong, rule, lang="nl") == "fail"


def test_an_examples_inputs_are_no_claim_a_cited_passage_must_state() -> None:
    km = [
        {"ref": "k#km", "text": "1.250 km pro Monat sind enthalten; jeder weitere kostet 0,25 €."}
    ]
    right = (
        "Beispiel: Fahren Sie 1.350 km, sind das 1.350 km − 1.250 km [doc:k#km] = 100 km, also "
        "100 × 0,25 € [doc:k#km] = 25 €."
    )
    assert graded("figures_supported", right, km, lang="de") == "pass"


COVER = [
    {
        "ref": "cover",
        "text": "Plus vergoedt 80 %, tot 5.000 € per dier per kalenderjaar. Het eigen risico is "
        "150 € bij Basis en 100 € bij Plus. We trekken eerst het eigen risico af en vergoeden "
        "daarna het percentage van je pakket over de rest.",
    }
]


def test_an_amount_an_example_supposes_and_works_out_needs_no_citation() -> None:
    right = (
        "Plus vergoedt 80 % van de rekening en het eigen risico is 100 € per jaar [doc:cover]. "
        "Eerst gaat het eigen risico eraf, daarna krijg je 80 % van de rest. Een voorbeeld: bij "
        "een eerste rekening van 300 € krijg je (300 € − 100 €) × 0,80 = 160 € terug."
    )
    assert graded("no_unsourced_number", right, COVER, lang="nl") == "pass"
    # Not in an example, the amount is a claim that needs its source.
    plain = right.replace("Een voorbeeld: bij", "Bij")
    assert graded("no_unsourced_number", plain, COVER, lang="nl") == "fail"
    told = "Plus vergoedt 80 % [doc:cover]. Een voorbeeld: een rekening kost 300 €."
    assert graded("no_unsourced_number", told, COVER, lang="nl") == "fail"


def test_a_band_label_the_passage_writes_after_the_same_word_needs_no_citation() -> None:
    prices = [
        {
            "ref": "p",
            "text": "2 dagen kost 890 € voor een baby (0-1 jaar) en 820 € voor een peuter (1-4 jaar).",
        }
    ]
    right = "Je dochter van 2 valt in de groep peuters (1-4 jaar). Dat kost 820 € [doc:p]."
    assert graded("no_unsourced_number", right, prices, lang="nl") == "pass"
    # Another band, or the band after another word, is a claim that needs its source.
    assert (
        graded("no_unsourced_number", right.replace("(1-4 jaar)", "(1-3 jaar)"), prices, lang="nl")
        == "fail"
    )
    assert (
        graded(
            "no_unsourced_number", right.replace("peuters (1-4", "baby's (1-4"), prices, lang="nl"
        )
        == "fail"
    )


def test_the_customers_time_rounded_up_to_started_units_needs_no_citation() -> None:
    rooms = [{"ref": "rooms", "text": "Le ore extra costano 20 € per ora iniziata in Italia."}]
    ask = "Se prenoto ancora 2 ore e mezza, quanto pago?"
    right = "Costano 20 € per ora iniziata [doc:rooms]. 2 ore e mezza contano quindi come 3 ore iniziate: 3 × 20 € = 60 €."
    assert graded("no_unsourced_number", right, rooms, question=ask, lang="it") == "pass"
    # Rounded to more than the started units, or where the passage charges no started unit.
    assert (
        graded(
            "no_unsourced_number", right.replace("3 ore", "4 ore"), rooms, question=ask, lang="it"
        )
        == "fail"
    )
    flat = [{"ref": "rooms", "text": "Le ore extra costano 20 € all'ora in Italia."}]
    assert graded("no_unsourced_number", right, flat, question=ask, lang="it") == "fail"
