"""An expected figure is stated where the answer states it: a negation before it takes it
back ("the deadline is not 12:00"), a negation inside a condition does not ("if it has not
arrived by 12:00"), in every language read."""

from __future__ import annotations

from typing import Any

import pytest
from casekit import good_case

from evals.checks import REGISTRY, CheckInput, CheckResult
from evals.reply import Reply
from evals.suite.case import Case
from evals.suite.folder import SuiteSettings

LATE = {
    "ref": "delivery#late",
    "text": "If your box has not arrived by 12:00 the next day, report it in the app.",
}


def expected(answer: str, lang: str) -> CheckResult:
    data: dict[str, Any] = good_case(
        "late-box",
        question="My box is late. What do I do?",
        context={},
        retrieved=[LATE],
        expect={"figures": ["12:00"], "sources": ["delivery#late"], "language": lang},
        reference="If it has not arrived by 12:00 the next day [doc:delivery#late], report it.",
    )
    return REGISTRY["figures_expected"].fn(
        CheckInput(Case(data), Reply(answer=answer), SuiteSettings())
    )


@pytest.mark.parametrize(
    ("lang", "answer"),
    [
        ("en", "If it has not arrived by 12:00 tomorrow, report it in the app."),
        ("it", "Se non è arrivata entro le 12:00 del giorno dopo, segnalalo nell'app."),
        ("pt", "Se não tiver chegado até às 12:00 do dia seguinte, reporte na app."),
        ("es", "Si no ha llegado antes de las 12:00 del día siguiente, avísanos en la app."),
        ("de", "Wenn sie bis 12:00 Uhr am nächsten Tag nicht da ist, melden Sie es."),
        ("nl", "Als hij om 12:00 de volgende dag niet binnen is, meld het in de app."),
    ],
)
def test_a_negation_inside_a_condition_states_its_deadline(lang: str, answer: str) -> None:
    assert expected(answer, lang).status == "pass"


@pytest.mark.parametrize(
    ("lang", "answer"),
    [
        ("en", "The deadline is not 12:00."),
        ("it", "Non entro le 12:00: prima devi aspettare."),
        ("en", "It does not arrive by 12:00."),
    ],
)
def test_a_negation_before_the_figure_takes_it_back(lang: str, answer: str) -> None:
    assert expected(answer, lang).status == "fail"


@pytest.mark.parametrize(
    ("lang", "answer", "figure"),
    [
        ("pt", "Ainda não: nos primeiros 3 meses a pausa máxima é de 4 semanas.", "3 meses"),
        ("en", "Not yet: for the first 3 months the longest pause is 4 weeks.", "3 months"),
        ("de", "Noch nicht – in den ersten 3 Monaten sind es höchstens 4 Wochen.", "3 Monate"),
    ],
)
def test_a_colon_or_a_dash_ends_what_a_negation_before_it_denies(
    lang: str, answer: str, figure: str
) -> None:
    assert _with_figure(answer, lang, figure) == "pass"


def _with_figure(answer: str, lang: str, figure: str) -> str:
    """`figures_expected`'s verdict on the answer to a case expecting `figure`."""
    data: dict[str, Any] = good_case(
        "one-figure",
        question="?",
        context={},
        retrieved=[LATE],
        expect={"figures": [figure], "sources": ["delivery#late"], "language": lang},
        reference="x",
    )
    inp = CheckInput(Case(data), Reply(answer=answer), SuiteSettings())
    return REGISTRY["figures_expected"].fn(inp).status


@pytest.mark.parametrize(
    ("lang", "answer", "figure"),
    [
        ("da", "Efter 3 udeblivelser kan du ikke booke hold i 14 dage.", "14 dage"),
        ("en", "After 3 no-shows you cannot book classes for 14 days.", "14 days"),
        ("fr", "Vous ne pouvez pas réserver de cours pendant 14 jours.", "14 jours"),
        ("it", "Non puoi prenotare corsi per 14 giorni.", "14 giorni"),
    ],
)
def test_how_long_a_negated_state_lasts_is_stated(lang: str, answer: str, figure: str) -> None:
    assert _with_figure(answer, lang, figure) == "pass"


def test_a_span_denied_itself_is_not_stated() -> None:
    assert _with_figure("The block is not for 14 days, only 7.", "en", "14 days") == "fail"
    assert _with_figure("Blokeringen er ikke i 14 dage.", "da", "14 dage") == "fail"
