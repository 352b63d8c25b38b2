"""What a number in words is: an indefinite article before a thing counted is no count, an
ordinal before a unit of time is no duration, a "per year" phrase is the period of a rate;
a numeral written out stays a figure."""

from __future__ import annotations

import pytest

from evals.checks.derived import multiplier
from evals.checks.values import parse_figures


def read(text: str, lang: str) -> list[tuple[str, str]]:
    return [(f.kind, f.text) for f in parse_figures(text, lang)]


@pytest.mark.parametrize(
    ("lang", "text"),
    [
        ("de", "Das kann nur ein Mitarbeiter bestätigen."),
        ("nl", "Dat kan alleen een medewerker bevestigen."),
        ("da", "Det kan kun en medarbejder bekræfte."),
        ("fr", "Seul un technicien peut le confirmer."),
        ("it", "Solo un tecnico può confermarlo."),
        ("es", "Solo un agente puede confirmarlo."),
        ("pt", "Só um técnico pode confirmar."),
    ],
)
def test_an_indefinite_article_before_a_thing_counted_is_no_figure(lang: str, text: str) -> None:
    assert [k for k, _ in read(text, lang) if k == "count"] == []


@pytest.mark.parametrize(
    ("lang", "text"),
    [
        ("de", "Das können zwei Mitarbeiter bestätigen."),
        ("da", "Det kan to medarbejdere bekræfte."),
    ],
)
def test_a_numeral_before_a_thing_counted_is_still_a_count(lang: str, text: str) -> None:
    assert [k for k, _ in read(text, lang)] == ["count"]


@pytest.mark.parametrize(
    ("lang", "text"),
    [
        ("en", "In the first year you pay more."),
        ("de", "Im ersten Jahr zahlen Sie mehr."),
        ("fr", "La première année, vous payez plus."),
        ("es", "El primer año paga más."),
        ("it", "Il primo anno paghi di più."),
        ("nl", "Het eerste jaar betaalt u meer."),
        ("pt", "No primeiro ano paga mais."),
        ("da", "Det første år betaler du mere."),
    ],
)
def test_an_ordinal_before_a_unit_of_time_says_which_not_how_long(lang: str, text: str) -> None:
    assert [k for k, _ in read(text, lang) if k == "duration"] == []


@pytest.mark.parametrize(
    ("lang", "rate", "term"),
    [
        ("it", "Sono 336 € in un anno.", "Il contratto dura un anno."),
        ("nl", "Dat is 336 € voor een jaar.", "Het contract loopt een jaar."),
        ("de", "Das sind 336 € für ein Jahr.", "Der Vertrag läuft ein Jahr."),
        ("fr", "Cela fait 336 € pour un an.", "Le contrat dure un an."),
    ],
)
def test_a_per_year_phrase_is_a_rates_period_but_a_term_is_a_claim(
    lang: str, rate: str, term: str
) -> None:
    period = next(f for f in parse_figures(rate, lang) if f.kind == "duration")
    assert multiplier(rate, period, lang)
    length = next(f for f in parse_figures(term, lang) if f.kind == "duration")
    assert not multiplier(term, length, lang)


@pytest.mark.parametrize(
    ("lang", "text", "want"),
    [
        ("it", "Lumo Plus ha 30 GB, Lumo Max 200 GB.", [("count", "30 GB"), ("count", "200 GB")]),
        ("en", "The plan has 15 GB of data.", [("count", "15 GB")]),
        ("it", "Puoi pagare in 24 rate.", [("count", "24 rate")]),
        ("nl", "U betaalt in 24 termijnen.", [("count", "24 termijnen")]),
        ("de", "Sie zahlen in 12 Raten.", [("count", "12 Raten")]),
        ("es", "Puede pagar en 12 cuotas.", [("count", "12 cuotas")]),
    ],
)
def test_data_volumes_and_instalments_are_figures_with_a_unit(
    lang: str, text: str, want: list[tuple[str, str]]
) -> None:
    assert read(text, lang) == want


@pytest.mark.parametrize(
    ("lang", "text"),
    [
        ("nl", "Bel de noodlijn op 0800 0222."),
        ("de", "Sturm heißt ab Windstärke 7."),
        ("en", "Storm means wind force 7 or more."),
        ("en", "Prices from 5 to 10 a month."),
    ],
)
def test_phone_numbers_and_scales_are_no_amounts(lang: str, text: str) -> None:
    assert read(text, lang) == []


@pytest.mark.parametrize(
    ("lang", "text", "value"),
    [
        ("es", "recibes quince euros con cincuenta (18 − 2,50).", "15.5"),
        ("it", "paghi ventitré euro e quaranta per la prima box", "23.4"),
        ("pt", "custa seis euros e cinquenta, ou seja", "6.5"),
        ("de", "vierzehn Euro neunzig pro Monat", "14.9"),
        ("en", "twenty-nine euros and fifty cents a month", "29.5"),
    ],
)
def test_an_amount_in_words_keeps_its_cents(lang: str, text: str, value: str) -> None:
    money = [f for f in parse_figures(text, lang) if f.kind == "money"]
    assert [str(f.value) for f in money] == [value]


def test_cents_in_words_never_take_the_number_of_a_unit_after_them() -> None:
    figs = parse_figures("cinco euros y veinte días", "es")
    assert [(f.kind, int(f.value)) for f in figs] == [("money", 5), ("duration", 20)]  # type: ignore[call-overload]
