"""A worked total that adds in an amount a passage charges only under a condition the answer
never states and the ticket does not meet is left for a person."""

from __future__ import annotations

from casekit import good_case

from evals.checks import REGISTRY, CheckInput, CheckResult
from evals.reply import Reply
from evals.suite.case import Case
from evals.suite.folder import SuiteSettings

ATRASO = {
    "ref": "pt-taxas#atraso",
    "text": "Por cada período de 30 minutos iniciado após a hora de fim da reserva, cobramos "
    "15 €. Se o próximo cliente perder a reserva por causa do atraso, acresce uma taxa de 50 €.",
}
LOCK = {
    "ref": "bikes#fees",
    "text": "A city bike costs 12 € per day. If the bike comes back without its lock, we "
    "charge 25 € for a new one.",
}


def run_ticket(answer: str, question: str, passage: dict[str, str]) -> CheckResult:
    data = good_case(
        "late-return",
        question=question,
        retrieved=[passage],
        expect={"sources": [passage["ref"]]},
        reference="See the fees [doc:" + passage["ref"] + "].",
    )
    return REGISTRY["claims_grounded"].fn(
        CheckInput(Case(data), Reply(answer=answer), SuiteSettings())
    )


def test_a_total_that_adds_a_charge_the_passage_makes_only_under_a_condition_is_undecided() -> None:
    late = "E se eu entregar o carro 40 minutos depois da hora da reserva?"
    wrong = (
        "São dois períodos iniciados: 2 × 15 € [doc:pt-taxas#atraso] = 30 €. A isto soma-se a "
        "taxa de 50 € [doc:pt-taxas#atraso], o que dá 30 € + 50 € = 80 €."
    )
    r = run_ticket(wrong, late, ATRASO)
    assert r.status == "review" and "o que dá 30 € + 50 € = 80 €" in r.detail
    assert '(the passage: "Se o próximo' in r.detail
    bike = "I'd like a city bike for 3 days. What will that cost me?"
    wrong = (
        "Three days are 3 × 12 € = 36 € [doc:bikes#fees], plus the 25 € fee: 36 € + 25 € = 61 €."
    )
    assert run_ticket(wrong, bike, LOCK).status == "review"
    # Naming half the condition's words reads as stating it (a limit of the check): "lock"
    # and "bike" are two of "bike comes back without its lock".
    named = "Three days are 3 × 12 € = 36 € [doc:bikes#fees]; with the lock, 36 € + 25 € = 61 €."
    assert run_ticket(named, bike, LOCK).status == "pass"


def test_a_total_with_its_condition_stated_or_met_in_the_ticket_passes() -> None:
    late = "E se eu entregar o carro 40 minutos depois da hora da reserva?"
    right = (
        "Paga 2 × 15 € [doc:pt-taxas#atraso] = 30 €. Se o próximo cliente perder a reserva "
        "por causa do atraso, acresce 50 € [doc:pt-taxas#atraso]: 30 € + 50 € = 80 €."
    )
    assert run_ticket(right, late, ATRASO).status == "pass"
    # The customer says the next booking was lost: the condition is theirs already.
    lost = "Devolvi o carro 40 minutos tarde e o próximo cliente perdeu a reserva. Quanto pago?"
    right = (
        "São 2 × 15 € [doc:pt-taxas#atraso] = 30 € pelo atraso e a taxa de 50 € "
        "[doc:pt-taxas#atraso], ou seja 30 € + 50 € = 80 €."
    )
    assert run_ticket(right, lost, ATRASO).status == "pass"
    lost_lock = "I returned the city bike after 2 days but lost its lock. What do I owe?"
    right = "2 × 12 € = 24 € for the days, and 24 € + 25 € = 49 € with the lock [doc:bikes#fees]."
    assert run_ticket(right, lost_lock, LOCK).status == "pass"


def test_a_condition_in_another_language_than_the_answer_is_not_read_as_dropped() -> None:
    from evals.checks.conditioned_totals import summed_without_condition

    passage = (
        "If you cancel within the minimum term, you pay the monthly fees still due plus a "
        "collection fee of 49 €."
    )
    answer = "Je zit op maand 4 van 6.\n1. Resterend: 2 × 19,50 € = 39 €.\n2. Totaal: 39 € + 49 € = 88 €."
    assert summed_without_condition(answer, (passage,), "Ik wil opzeggen.", "nl") == []
