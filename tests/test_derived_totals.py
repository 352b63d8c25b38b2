"""Computed figures of a first year, stacked discounts and a date after a waiting period:
each supported by the passages that hold its inputs (or the ticket), failed when wrong."""

from __future__ import annotations

from typing import Any

import pytest
from casekit import good_case

from evals.checks import REGISTRY, CheckInput, CheckResult
from evals.checks.dates import date_after
from evals.checks.values import parse_figures
from evals.reply import Reply
from evals.suite.case import Case
from evals.suite.folder import SuiteSettings


def case(question: str, *passages: dict[str, str]) -> dict[str, Any]:
    return good_case(
        "computed-totals",
        question=question,
        context={},
        retrieved=list(passages),
        expect={"sources": [p["ref"] for p in passages]},
        reference="See the passages.",
    )


def supported(answer: str, data: dict[str, Any]) -> CheckResult:
    return REGISTRY["figures_supported"].fn(
        CheckInput(Case(data), Reply(answer=answer), SuiteSettings())
    )


FEES = {
    "en": (
        "Fiber costs 28 € a month. Activation is a one-off 39 €.",
        "That is 336 € {y} [doc:f], and 375 € in the first year with the activation [doc:f].",
        "in a year",
    ),
    "it": (
        "La fibra costa 28 € al mese. L'attivazione costa 39 €, una sola volta.",
        "Sono 336 € {y} [doc:f] e 375 € il primo anno con l'attivazione [doc:f].",
        "per un anno",
    ),
    "nl": (
        "Glasvezel kost 28 € per maand. De activatie kost eenmalig 39 €.",
        "Dat is 336 € {y} [doc:f], en 375 € het eerste jaar met de activatie [doc:f].",
        "per jaar",
    ),
    "de": (
        "Glasfaser kostet 28 € im Monat. Die Aktivierung kostet einmalig 39 €.",
        "Das sind 336 € {y} [doc:f] und 375 € im ersten Jahr mit der Aktivierung [doc:f].",
        "im Jahr",
    ),
    "fr": (
        "La fibre coûte 28 € par mois. L'activation coûte 39 €, une seule fois.",
        "Cela fait 336 € {y} [doc:f], et 375 € la première année avec l'activation [doc:f].",
        "par an",
    ),
    "es": (
        "La fibra cuesta 28 € al mes. La activación cuesta 39 €, una sola vez.",
        "Son 336 € {y} [doc:f] y 375 € el primer año con la activación [doc:f].",
        "al año",
    ),
    "pt": (
        "A fibra custa 28 € por mês. A ativação custa 39 €, uma única vez.",
        "São 336 € {y} [doc:f] e 375 € no primeiro ano com a ativação [doc:f].",
        "por ano",
    ),
    "da": (
        "Fiber koster 28 € om måneden. Aktivering koster 39 € én gang.",
        "Det er 336 € {y} [doc:f] og 375 € det første år med aktiveringen [doc:f].",
        "om året",
    ),
}


@pytest.mark.parametrize("lang", sorted(FEES))
def test_twelve_months_and_a_one_off_make_the_first_years_total(lang: str) -> None:
    passage, answer, per_year = FEES[lang]
    data = case("?", {"ref": "f", "text": passage})
    r = supported(answer.format(y=per_year), data)
    assert r.status == "pass", (lang, r.detail)
    # A wrong product or sum still fails.
    assert supported(answer.format(y=per_year).replace("336 €", "326 €"), data).status == "fail"
    assert supported(answer.format(y=per_year).replace("375 €", "385 €"), data).status == "fail"


def test_a_monthly_price_is_not_multiplied_without_a_word_for_a_year() -> None:
    data = case("?", {"ref": "f", "text": FEES["it"][0]})
    assert supported("Sono 336 € [doc:f].", data).status == "fail"


ALARM = {"ref": "d#alarm", "text": "With a certified alarm you get 7 % off Comfort and Totale."}
CLAIMS = {
    "ref": "d#claims",
    "text": "After 3 claim-free years you get 5 %, after 5 years 10 %. Discounts add up.",
}
PREMIUM = {
    "ref": "p#premium",
    "text": "The yearly premium is 180 € for Comfort and 264 € for Totale.",
}


def test_two_discounts_add_up_and_are_taken_off_together() -> None:
    data = case("?", ALARM, CLAIMS, PREMIUM)
    right = (
        "In all you get 12 % [doc:d#alarm][doc:d#claims]. On the premium of 264 € [doc:p#premium] "
        "that is 31,68 €, so you pay 232,32 € [doc:p#premium][doc:d#alarm][doc:d#claims]."
    )
    r = supported(right, data)
    assert r.status == "pass", r.detail
    for wrong in (
        "In all you get 13 % [doc:d#alarm][doc:d#claims].",
        "You pay 230,32 € [doc:p#premium][doc:d#alarm][doc:d#claims].",
    ):
        assert supported(wrong, data).status == "fail", wrong


def test_a_sum_of_percentages_needs_one_term_from_its_own_citation() -> None:
    data = case("?", ALARM, CLAIMS, PREMIUM)
    # 7 % + 5 %, but the figure cites only the premiums' passage, which holds no percentage.
    assert supported("In all you get 12 % [doc:p#premium].", data).status == "fail"


WAITING = {
    "it": (
        "Le garanzie furto diventano attive 30 giorni dopo la firma.",
        "Ho firmato il 10 novembre.",
        "La copertura parte il 10 dicembre [doc:w].",
        "il 12 dicembre",
    ),
    "en": (
        "Theft cover becomes active 30 days after signing.",
        "I signed on 10 November.",
        "Your cover starts on 10 December [doc:w].",
        "on 12 December",
    ),
    "de": (
        "Der Diebstahlschutz gilt 30 Tage nach der Unterschrift.",
        "Ich habe am 10. November unterschrieben.",
        "Der Schutz beginnt am 10. Dezember [doc:w].",
        "am 12. Dezember",
    ),
    "nl": (
        "De diefstaldekking gaat 30 dagen na ondertekening in.",
        "Ik heb op 10 november getekend.",
        "De dekking start op 10 december [doc:w].",
        "op 12 december",
    ),
}


@pytest.mark.parametrize("lang", sorted(WAITING))
def test_a_date_is_the_customers_date_moved_on_by_the_passages_term(lang: str) -> None:
    passage, ticket, answer, other = WAITING[lang]
    data = case(ticket, {"ref": "w", "text": passage})
    r = supported(answer, data)
    assert r.status == "pass", (lang, r.detail)
    wrong = answer.rsplit(" ", 3)[0] + f" {other} [doc:w]."
    assert supported(wrong, data).status == "fail", wrong


def test_a_date_moved_by_months_keeps_the_day_and_a_dated_year() -> None:
    start = parse_figures("signed on 31 January 2026")
    assert date_after(parse_figures("28 February 2026")[0], start, parse_figures("1 month"))
    assert not date_after(parse_figures("28 February 2027")[0], start, parse_figures("1 month"))
    assert date_after(parse_figures("2 March 2026")[0], start, parse_figures("30 days"))


PLUS = {
    "ref": "subscription#plus",
    "text": (
        "Plus costs 19,90 € a month and includes 4 parcels. Further parcels cost 7,95 € each."
    ),
}


@pytest.mark.parametrize(
    "answer",
    [
        # The answer's own subtotal, itself computed, is a term of its total.
        "Plus is 19,90 € [doc:subscription#plus]. The 2 extra parcels cost 7,95 € each "
        "[doc:subscription#plus], so 15,90 € [doc:subscription#plus]. In all: 35,80 € "
        "[doc:subscription#plus].",
        # A decimal point does not end the sentence that gives the count.
        "Mensalidade: 19.90 EUR [doc:subscription#plus]. Adicionais: 2 a 7.95 EUR cada, total "
        "15.90 EUR [doc:subscription#plus]. Total: 19.90 + 15.90 = 35.80 EUR "
        "[doc:subscription#plus].",
    ],
)
def test_a_total_may_add_up_the_answers_own_shown_figures(answer: str) -> None:
    data = case("I send 6 parcels this month on Plus. What do I pay?", PLUS)
    assert supported(answer, data).status == "pass"


def test_a_total_that_no_shown_figures_add_up_to_still_fails() -> None:
    data = case("I send 6 parcels this month on Plus. What do I pay?", PLUS)
    wrong = (
        "Plus is 19,90 € [doc:subscription#plus]. The 2 extra parcels cost 7,95 € each "
        "[doc:subscription#plus], so 15,90 € [doc:subscription#plus]. In all: 37,80 € "
        "[doc:subscription#plus]."
    )
    r = supported(wrong, data)
    assert r.status == "fail" and "37,80" in r.detail


def test_a_date_moved_on_by_working_days_skips_the_weekends() -> None:
    sent = parse_figures("The expected delivery was 3 November 2026.", "en")
    term = parse_figures("lost after 10 working days", "en")
    assert date_after(parse_figures("on 17 November 2026", "en")[0], sent, term)
    # Ten calendar days would be 13 November: not ten working days.
    assert not date_after(parse_figures("on 13 November 2026", "en")[0], sent, term)


def test_a_term_set_before_a_date_moves_the_customers_date_back_not_on() -> None:
    data = case(
        "I move out on 20 December 2026. By when must I cancel?",
        {"ref": "cancel", "text": "Cancel in the app at least 15 days before your move."},
    )
    assert supported("Cancel by 5 December 2026 [doc:cancel].", data).status == "pass"
    # Fifteen days after the move is the wrong way round.
    assert supported("Cancel by 4 January 2027 [doc:cancel].", data).status == "fail"


def test_a_date_may_take_its_term_from_a_passage_the_answer_cites_elsewhere() -> None:
    data = case(
        "My parcel was due on 3 November 2026. From when is it lost?",
        {
            "ref": "claims",
            "text": "A parcel counts as lost 10 working days after the expected date.",
        },
        {"ref": "times", "text": "Working days are Monday to Friday."},
    )
    right = (
        "It counts as lost 10 working days after the expected date [doc:claims]. Counting "
        "Monday to Friday only [doc:times], that is 17 November 2026 [doc:times]."
    )
    assert supported(right, data).status == "pass"
    wrong = right.replace("17 November", "13 November")
    assert supported(wrong, data).status == "fail"


def test_the_days_between_two_of_the_customers_dates_need_no_passage() -> None:
    data = case(
        "My ticket is for 30 October. Today is 18 October. What do I get back?",
        {"ref": "flex", "text": "Cancel up to 10 days before departure: the price less 5 €."},
    )
    right = "From 18 to 30 October it is 12 days, more than 10 days [doc:flex] before departure."
    assert supported(right, data).status == "pass"
    # A wrong term that equals the time since the customer's date names neither day.
    wrong = "Cancelling is free until 12 days [doc:flex] before departure."
    assert supported(wrong, data).status == "fail"


def test_a_figure_whose_next_citation_follows_another_figure_may_be_stated_by_a_later_one() -> None:
    data = case(
        "Two adults and a child of 7: what do we pay?",
        {"ref": "prices", "text": "The crossing costs 89 € per person in high season."},
        {"ref": "ages", "text": "Children from 2 to 11 years get 40 % off."},
    )
    right = "Children from 2 to 11 years get 89 € [doc:prices] less 40 % [doc:ages] = 53,40 €."
    assert supported(right, data).status == "pass"
    # A figure with its own citation is held to it alone: the later one does not rescue it.
    wrong = "Children from 2 to 11 years [doc:prices] get 89 € [doc:prices] less 40 % [doc:ages]."
    assert supported(wrong, data).status == "fail"


def test_a_count_written_after_its_thing_in_the_passage_is_stated() -> None:
    data = case(
        "Is there room on the 8:30 bus?",
        {"ref": "offer", "text": "Morning fare: 20 % off. Seats limited: 8 per bus."},
    )
    assert supported("Only 8 seats [doc:offer] per bus have the discount.", data).status == "pass"
    assert supported("Only 9 seats [doc:offer] per bus have it.", data).status == "fail"
    # The thing's word belongs to the number right after it, not to a later one.
    other = case("How many?", {"ref": "p", "text": "Starter covers 20 seats and 8 locations."})
    assert supported("Starter covers 8 seats [doc:p].", other).status == "fail"


def test_a_weight_in_words_of_any_language_is_a_weight() -> None:
    from evals.checks.values import parse_figures

    for text, lang in (
        ("bis acht Kilogramm", "de"),
        ("jusqu'à 8 kilogrammes", "fr"),
        ("fino a 8 chili", "it"),
        ("hasta 8 kilos", "es"),
        ("até 8 quilos", "pt"),
    ):
        (fig,) = parse_figures(text, lang)
        assert (fig.kind, fig.unit, fig.value) == ("count", "kilogram", 8), text
