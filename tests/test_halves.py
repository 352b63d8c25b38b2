"""One and a half in words is 1.5 in every language read, and a year is twelve months."""

from __future__ import annotations

from decimal import Decimal

import pytest

from evals.checks.values import parse_figures, parse_one


@pytest.mark.parametrize(
    ("text", "lang"),
    [
        ("meer dan anderhalf jaar", "nl"),
        ("mehr als eineinhalb Jahre", "de"),
        ("mehr als anderthalb Jahre", "de"),
        ("più di un anno e mezzo", "it"),
        ("more than a year and a half", "en"),
        ("more than one and a half years", "en"),
        ("plus d'un an et demi", "fr"),
        ("más de un año y medio", "es"),
        ("mais de um ano e meio", "pt"),
    ],
)
def test_one_and_a_half_years_in_words(text: str, lang: str) -> None:
    figs = [f for f in parse_figures(text, lang) if f.kind == "duration"]
    assert [(f.unit, f.value) for f in figs] == [("year", Decimal("1.5"))], text


def test_a_year_alone_is_still_one() -> None:
    figs = parse_figures("per un anno", "it")
    assert [(f.unit, f.value) for f in figs] == [("year", Decimal("1"))]


def test_a_year_is_twelve_months() -> None:
    year, months = parse_one("1,5 jaar"), parse_one("18 months")
    assert year is not None and months is not None and year.same(months)
    other = parse_one("19 months")
    assert other is not None and not year.same(other)
