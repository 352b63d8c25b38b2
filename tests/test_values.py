"""Figures are values: one amount, duration, time or date in every usual spelling."""

from __future__ import annotations

from decimal import Decimal

import pytest

from evals.checks.values import contains_value, number, parse_figures, parse_one


@pytest.mark.parametrize("text", ["45 €", "€45", "45,00 €", "EUR 45", "45 euros", "€ 45.00"])
def test_every_spelling_of_an_amount_is_the_same_figure(text: str) -> None:
    assert parse_one(text).same(parse_one("45 €"))


@pytest.mark.parametrize(
    ("text", "same_as"),
    [
        ("25 percent", "25 %"),
        ("25 Prozent", "25 %"),
        ("15 pour cent", "15 %"),
        ("two weeks", "14 days"),
        ("14-day trial", "14 days"),
        ("14 Tage", "14 days"),
        ("14 días", "14 days"),
        ("a further two weeks", "14 days"),
        ("14 more days", "14 days"),
        ("10 pm", "22:00"),
        ("22 Uhr", "22:00"),
        ("22h00", "22:00"),
        ("6 a.m.", "06:00"),
        ("September 30, 2026", "30 September 2026"),
        ("30.09.2026", "30 September 2026"),
        ("30 de septiembre de 2026", "30 September 2026"),
        ("1er juin 2026", "1 June 2026"),
        ("twelve-month term", "12 months"),
        ("20 Plätze", "20 seats"),
    ],
)
def test_languages_and_forms_agree(text: str, same_as: str) -> None:
    assert contains_value(text, parse_one(same_as)), (text, same_as)


def test_a_time_is_never_an_amount_and_other_kinds_stay_apart() -> None:
    assert not contains_value("The shift starts at 21:45.", parse_one("45 €"))
    assert not contains_value("up to 30 seats", parse_one("30 days"))
    assert not contains_value("45 USD", parse_one("45 €"))
    assert not contains_value("15 %", parse_one("15 €"))


def test_thousands_and_decimal_separators_are_read_both_ways() -> None:
    assert number("1.312,50") == Decimal("1312.5")
    assert number("1,312.50") == Decimal("1312.5")
    assert number("1,080") == Decimal("1080")
    assert number("2 000") == Decimal("2000")
    assert number("99.9") == Decimal("99.9")


def test_articles_are_not_numbers_and_bare_years_are_not_figures() -> None:
    assert parse_figures("un site, une application, in 2026, HTTP status 410") == []


def test_an_ambiguous_hour_is_kept_in_both_readings() -> None:
    kinds = {f.kind for f in parse_figures("11 h")}
    assert kinds == {"time", "duration"}


def test_the_prefix_tree_of_words_matches_what_the_words_longest_first_match() -> None:
    # The month names are one prefix tree: it must match where, and as much as, the plain
    # alternation of the words, longest first, does, backtracking to a shorter word too.
    import regex

    from evals.checks.figure_pattern import _alt

    words = ["mar", "march", "mars", "marzo", "may", "mai", "maart", "m", "sept", "september"]
    plain = "|".join(regex.escape(w) for w in sorted(words, key=len, reverse=True))
    texts = ["Marchx", "mars 3", "marz", "MAY", "m", "sept. 5", "September 5", "maarten", "xm"]
    for word_end in ("", r"\b", r"\s\d"):
        tree = regex.compile(rf"(?:{_alt(words)}){word_end}", regex.IGNORECASE)
        flat = regex.compile(rf"(?:{plain}){word_end}", regex.IGNORECASE)
        for text in texts:
            assert [m.span() for m in tree.finditer(text)] == [
                m.span() for m in flat.finditer(text)
            ], (text, word_end)


def test_a_text_without_a_digit_holds_no_figure_and_one_with_words_for_numbers_does() -> None:
    assert parse_figures("the first of each month, a fortnight later") != []
    assert parse_figures("no figure here, only words [doc:billing#plans]", "en") == []


def test_an_amount_in_words_keeps_its_cents_in_words() -> None:
    from decimal import Decimal

    from evals.checks.values import parse_figures

    for text, lang, want in [
        ("kostet vierzehn Euro neunzig, also", "de", "14.90"),
        ("dat is negen euro vijftig.", "nl", "9.50"),
        ("è di quattordici euro e novanta, cioè", "it", "14.90"),
        ("custa cinco euros e noventa e cinco (5,95 €)", "pt", "5.95"),
        ("it is fourteen euros ninety.", "en", "14.90"),
    ]:
        money = [f for f in parse_figures(text, lang) if f.kind == "money"]
        assert money[0].value == Decimal(want), text
    # A number after an amount that is not its cents stays its own figure.
    figs = parse_figures("ten euros for 30 days.", "en")
    assert [f.kind for f in figs] == ["money", "duration"] and figs[0].value == 10


def test_kroner_weights_lengths_and_energy_are_figures_with_their_unit() -> None:
    from evals.checks.values import parse_figures, parse_one

    def read(text: str, lang: str) -> list[tuple[str, str, float]]:
        return [(f.kind, f.unit, float(f.value)) for f in parse_figures(text, lang)]  # type: ignore[arg-type]

    assert read("Abonnementet koster 39 kr. om måneden.", "da") == [("money", "DKK", 39.0)]
    assert read("DKK 600 eller kr. 600", "da") == [("money", "DKK", 600.0)] * 2
    assert read("up to 10 kg", "en") == [("count", "kilogram", 10.0)]
    assert read("maximaal 100 cm lang", "nl") == [("count", "centimetre", 100.0)]
    assert read("más de 5.000 kWh al año", "es")[0] == ("count", "kilowatt_hour", 5000.0)
    assert read("med én måneds varsel", "da") == [("duration", "month", 1.0)]
    # An expected figure may name a weight: it is read, so it can be held to a passage.
    assert parse_one("10 kg") is not None and parse_one("23 kg") != parse_one("10 kg")


def test_french_data_volumes_and_speeds_are_figures_with_their_unit() -> None:
    from evals.checks.values import parse_figures, parse_one

    def read(text: str, lang: str) -> list[tuple[str, str, float]]:
        return [(f.kind, f.unit, float(f.value)) for f in parse_figures(text, lang)]  # type: ignore[arg-type]

    assert read("une recharge de 15 Go", "fr") == [("count", "gigabyte", 15.0)]
    assert parse_one("15 Go").same(parse_one("15 GB"))  # type: ignore[union-attr,arg-type]
    assert read("ralentie à 64 kbit/s", "fr") == [("count", "kilobit_per_second", 64.0)]
    assert read("bis zu 10 Mbit/s", "de") == [("count", "megabit_per_second", 10.0)]
    assert read("Max biedt 2,5 Gbit/s", "nl") == [("count", "gigabit_per_second", 2.5)]
    # "to" and "mo" stay words: "1 to 5 days" holds no terabyte, "12 mo" no megabyte.
    assert [f.kind for f in parse_figures("from 1 to 5 days", "en")] == ["duration"]


def test_french_d_un_is_one_with_either_apostrophe() -> None:
    from evals.checks.values import parse_figures

    for text in ("avec un préavis d'un mois.", "avec un préavis d’un mois."):
        months = [f for f in parse_figures(text, "fr") if f.kind == "duration"]
        assert [(f.unit, f.value, f.text) for f in months] == [("month", 1, "un mois")], text
    # Elsewhere an apostrophe is read as written: English contractions, Italian "un'offerta".
    eleven = parse_figures("If nobody changes it, it's eleven hours.", "en")
    assert [f.value for f in eleven if f.kind == "duration"] == [660]


def test_a_lone_zero_before_three_digits_is_a_decimal_not_a_thousands_group() -> None:
    from decimal import Decimal

    from evals.checks.values import number, parse_figures

    assert number("0,142") == Decimal("0.142") and number("0.142") == Decimal("0.142")
    assert number("1,500") == Decimal("1500") and number("1.500") == Decimal("1500")
    price = parse_figures("O preço é 0,151 € por kWh.", "pt")
    assert [(f.kind, f.value) for f in price] == [("money", Decimal("0.151"))]


def test_figures_are_found_as_the_whole_pattern_finds_them_in_every_text_of_the_suites() -> None:
    import json
    from pathlib import Path

    from evals.checks.figure_pattern import figure_groups, figure_matches, figure_pattern

    root = Path(__file__).resolve().parent.parent
    texts: set[str] = set()
    for path in [*root.glob("evals/cases/*.json"), *root.glob("bench/suites/*/cases/*.json")]:
        case = json.loads(path.read_text("utf-8"))
        texts |= {case.get("question", ""), case.get("reference", "")}
        texts |= {str(r.get("text", "")) for r in case.get("retrieved", [])}
    for path in root.glob("bench/suites/*/answers.jsonl"):
        texts |= {json.loads(line)["answer"] for line in path.read_text("utf-8").splitlines()}
    texts |= {"am 1. jedes Monats", "il 1° giorno di ogni mese", "€45 and EUR 12,50", "Juni 5"}
    assert len(texts) > 1000
    for lang in ("en", "de", "fr", "es", "it", "nl", "pt", "da", None):
        whole = figure_pattern(lang)
        for text in texts:
            want = [(m.span(), m.groupdict()) for m in whole.finditer(text)]
            got = [(m.span(), figure_groups(m)) for m in figure_matches(text, lang)]
            assert got == want, (lang, text)


@pytest.mark.parametrize(
    ("text", "lang"),
    [
        ("Le lundi de Pâques est un jour férié.", "fr"),
        ("Il 25 aprile è un giorno festivo.", "it"),
        ("El lunes de Pascua es un día festivo.", "es"),
    ],
)
def test_a_day_named_by_its_kind_is_no_span_of_one_day(text: str, lang: str) -> None:
    assert not [f for f in parse_figures(text, lang) if f.kind == "duration"]


def test_one_working_day_and_two_holidays_stay_spans() -> None:
    assert parse_figures("un jour ouvrable", "fr")[0].same(parse_one("1 working day"))
    assert parse_figures("deux jours fériés", "fr")[0].same(parse_one("2 days"))


@pytest.mark.parametrize(
    ("text", "lang"),
    [
        ("at most 2 claims a year", "en"),
        ("maximaal 2 schadeclaims per jaar", "nl"),
        ("höchstens 2 Schadensfälle im Jahr", "de"),
        ("al massimo 2 sinistri l'anno", "it"),
    ],
)
def test_insurance_claims_are_counted_in_each_language(text: str, lang: str) -> None:
    assert [(f.kind, f.unit, f.value) for f in parse_figures(text, lang)] == [
        ("count", "claim", Decimal(2))
    ]


def test_a_number_after_a_month_before_a_times_sign_is_no_day() -> None:
    figs = parse_figures("dus voor juni t/m augustus 3 × 9 € = 27 €", "nl")
    assert [f.kind for f in figs] == ["money", "money"]
    assert parse_figures("tot augustus 3, 2026", "en")[0].kind == "date"


@pytest.mark.parametrize(
    ("text", "lang"),
    [
        ("1.250 Kilometer im Monat", "de"),
        ("1,250 kilometres a month", "en"),
        ("1.250 kilometer per maand", "nl"),
        ("1.250 chilometri al mese", "it"),
    ],
)
def test_kilometres_in_words_are_km(text: str, lang: str) -> None:
    assert parse_figures(text, lang)[0].same(parse_one("1.250 km"))  # type: ignore[arg-type]


def test_a_year_before_a_currency_symbol_leaves_the_amount_to_the_symbol() -> None:
    from evals.checks.values import parse_figures

    figs = parse_figures("volgens de prijslijst 2026 € 1.190 per maand", "nl")
    assert [(f.kind, f.text) for f in figs] == [("money", "€ 1.190")]
    # A price written before its symbol, with no amount after it, is still a price.
    assert [f.text for f in parse_figures("Das kostet 2026 € im Jahr.", "de")] == ["2026 €"]


def test_a_number_of_units_and_a_half_is_read_whole_in_each_language() -> None:
    from evals.checks.values import parse_figures

    for text, lang in (
        ("2 ore e mezza", "it"),
        ("2 hours and a half", "en"),
        ("2 and a half hours", "en"),
        ("2 en een half uur", "nl"),
        ("2 horas y media", "es"),
    ):
        assert [f.value for f in parse_figures(text, lang)] == [150], text
    # An amount is no duration: "25 € e mezzo" keeps its 25 €.
    assert [f.text for f in parse_figures("costa 25 € e mezzo", "it")] == ["25 €"]
