"""The figures of a text with its citation markers blanked, read from one parse of the
text: the same figures, at the same offsets, as a parse of the blanked copy."""

from __future__ import annotations

import pytest

from evals.checks.matching import MARKER
from evals.checks.text import sentences
from evals.checks.unmarked import figures_between, unmarked_figures
from evals.checks.values import parse_figures


def _read(figs: object) -> list[tuple[object, ...]]:
    return [(f.kind, f.unit, f.value, f.start, f.end) for f in figs]  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("text", "lang"),
    [
        ("Pro costs 39 € [doc:pricing#2025] a seat; the annual plan saves 15 % [doc:a#b].", "en"),
        ("Ab dem 10. Mai 2025 [doc:de/vertrag#laufzeit], also bis zum 10. Mai 2027.", "de"),
        ("Il costo è di 2,50 €[doc:it/roaming#mondo] al giorno, fino alle 23:59 [doc:x].", "it"),
        ("Geen markers hier: 7,50 € binnen 2 werkdagen.", "nl"),
    ],
)
def test_unmarked_figures_are_those_of_the_blanked_copy(text: str, lang: str) -> None:
    blank = MARKER.sub(lambda m: " " * len(m.group(0)), text)
    assert _read(unmarked_figures(text, lang)) == _read(parse_figures(blank, lang))
    for start, sentence in sentences(text):
        plain = MARKER.sub(lambda m: " " * len(m.group(0)), sentence)
        shifted = [
            (k, u, v, a - start, b - start)
            for k, u, v, a, b in _read(figures_between(text, lang, start, start + len(sentence)))
        ]
        assert shifted == _read(parse_figures(plain, lang))


def test_a_figure_inside_a_marker_is_left_out() -> None:
    figs = unmarked_figures("See [doc:pricing#2025-01-01] for 30 days.", "en")
    assert [f.text for f in figs] == ["30 days"]
