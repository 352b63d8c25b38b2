"""A forbidden figure the answer says is not owed ("you do not have to pay the 240 €") is
denied, not claimed, in every language read; one it says is owed, or one beside a negation
that denies something else, is still a claim."""

from __future__ import annotations

from typing import Any

import pytest
from casekit import good_case

from evals.checks import REGISTRY, CheckInput, CheckResult
from evals.reply import Reply
from evals.suite.case import Case
from evals.suite.folder import SuiteSettings

REPAIR = {
    "ref": "repair#wear",
    "text": "Repairs of normal wear are free of charge; damage you cause is charged at cost.",
}


def forbidden(answer: str, lang: str) -> CheckResult:
    data: dict[str, Any] = good_case(
        "repair-quote",
        question="The technician left a quote of 240 € for the repair. Do I have to pay it?",
        context={},
        retrieved=[REPAIR],
        expect={"forbidden_figures": ["240 €"], "sources": ["repair#wear"], "language": lang},
        reference="No: normal wear is repaired free of charge [doc:repair#wear].",
    )
    return REGISTRY["no_forbidden"].fn(
        CheckInput(Case(data), Reply(answer=answer), SuiteSettings())
    )


@pytest.mark.parametrize(
    ("lang", "answer"),
    [
        ("en", "No, you do not have to pay the 240 €: wear is repaired free [doc:repair#wear]."),
        ("en", "The 240 € quote does not apply to you: wear is free [doc:repair#wear]."),
        ("it", "Non devi pagare i 240 € del preventivo: l'usura è gratuita [doc:repair#wear]."),
        ("nl", "U hoeft die 240 € niet te betalen: slijtage is gratis [doc:repair#wear]."),
        ("de", "Die 240 € müssen Sie nicht bezahlen: Verschleiß ist kostenlos [doc:repair#wear]."),
        ("pt", "Não tem de pagar os 240 € do orçamento: o desgaste é gratuito [doc:repair#wear]."),
        (
            "es",
            "No tienes que pagar los 240 € del presupuesto: el desgaste es gratis [doc:repair#wear].",
        ),
    ],
)
def test_a_figure_said_not_to_be_owed_is_denied(lang: str, answer: str) -> None:
    assert forbidden(answer, lang).status == "pass"


@pytest.mark.parametrize(
    ("lang", "answer"),
    [
        ("en", "Yes, you pay the 240 € [doc:repair#wear]."),
        ("de", "Ja, die 240 € zahlen Sie selbst [doc:repair#wear]."),
        ("it", "Sì, paghi i 240 € [doc:repair#wear]."),
        # The negation denies the standing charge, far after the figure: 240 € is claimed.
        ("en", "It costs about 240 € a year, VAT included, not counting the standing charge."),
    ],
)
def test_a_figure_said_to_be_owed_or_beside_another_denial_is_claimed(
    lang: str, answer: str
) -> None:
    assert forbidden(answer, lang).status == "fail"
