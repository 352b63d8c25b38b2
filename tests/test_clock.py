"""Bare hours read as clock times where a range or "at" says so, in every language read;
a range of days, weeks or seats and a duration in hours stay what they are."""

from __future__ import annotations

import pytest

from evals.checks.values import parse_figures


def times(text: str, lang: str) -> list[int]:
    return [int(f.value) for f in parse_figures(text, lang) if f.kind == "time"]  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("lang", "text", "want"),
    [
        ("it", "Il servizio risponde dalle 8 alle 22.", [480, 1320]),
        ("nl", "Bereikbaar van zeven uur 's ochtends tot elf uur 's avonds.", [420, 1380]),
        ("nl", "Bereikbaar van 7 tot 23 uur.", [420, 1380]),
        ("de", "Erreichbar von 8 bis 18 Uhr.", [480, 1080]),
        ("fr", "Ouvert de 9h à 17h.", [540, 1020]),
        ("es", "Abierto de 9 a 17 h.", [540, 1020]),
        ("es", "Abierto de las 9 a las 17.", [540, 1020]),
        ("pt", "Aberto das 9 às 18 horas.", [540, 1080]),
        ("da", "Åbent fra kl. 8 til 16.", [480, 960]),
        ("en", "Open from 9 to 17:30.", [540, 1050]),
        ("de", "Wir rufen um 8 Uhr abends zurück.", [1200]),
        ("nl", "We bellen u om 7 uur terug.", [420]),
    ],
)
def test_bare_hours_in_a_range_or_after_at_are_clock_times(
    lang: str, text: str, want: list[int]
) -> None:
    assert times(text, lang) == want


@pytest.mark.parametrize(
    ("lang", "text"),
    [
        ("en", "Plans from 8 to 10 seats."),
        ("it", "La consegna richiede da 3 a 5 giorni."),
        ("nl", "Herstel duurt van 2 tot 4 weken."),
        ("nl", "Wij herstellen binnen 48 uur."),
        ("es", "Contratos de 10 a 12 meses."),
        ("it", "Sconti dal 10 al 20 dicembre."),
        ("en", "Any day from 8 to 6."),
    ],
)
def test_ranges_of_other_things_and_durations_are_no_clock_times(lang: str, text: str) -> None:
    assert times(text, lang) == []
