"""How the answer addresses the customer: the register a case expects (its own field, or
the one its reference uses) is held in every language that has two, and correct answers
phrased as a model phrases them pass."""

from __future__ import annotations

from typing import Any

import pytest
from casekit import good_case

from evals.checks import REGISTRY, CheckInput, CheckResult
from evals.checks.grading import implied_checks
from evals.checks.register import address, register_of
from evals.reply import Reply
from evals.suite.case import Case
from evals.suite.folder import SuiteSettings


def case(lang: str, reference: str, **expect: Any) -> dict[str, Any]:
    return good_case(
        "address",
        question="?",
        reference=reference,
        expect={"facts": ["x"], "language": lang, **expect},
    )


def run(data: dict[str, Any], answer: str) -> CheckResult:
    inp = CheckInput(Case(data), Reply(answer=answer), SuiteSettings())
    return REGISTRY["address_register"].fn(inp)


# (language, a formal sentence, an informal one), written as an assistant writes them
SENTENCES = [
    (
        "fr",
        "Votre résiliation prend effet à la fin du mois ; vous recevrez une confirmation.",
        "Ta résiliation prend effet à la fin du mois ; tu recevras une confirmation.",
    ),
    (
        "nl",
        "U kunt uw abonnement op elk moment opzeggen met een maand opzegtermijn.",
        "Je kunt je abonnement op elk moment opzeggen met een maand opzegtermijn.",
    ),
    (
        "de",
        "Gerne helfe ich weiter: Ihre Kündigung ist bis zum 30. möglich, dann erhalten Sie eine Bestätigung.",
        "Gerne helfe ich dir weiter: deine Kündigung ist bis zum 30. möglich.",
    ),
    (
        "it",
        "Buongiorno, La informo che la Sua polizza copre anche i vetri.",
        "Ciao, ti confermo che la tua polizza copre anche i vetri e puoi chiedere il rimborso.",
    ),
    (
        "es",
        "Usted puede cancelar la suscripción en cualquier momento.",
        "Puedes cancelar tu suscripción en cualquier momento, te llega un correo.",
    ),
    (
        "pt",
        "Você pode cancelar a assinatura a qualquer momento.",
        "Podes cancelar a tua assinatura a qualquer momento.",
    ),
    (
        "da",
        "Tak for Deres henvendelse, vi sender Dem en bekræftelse.",
        "Tak for din henvendelse, vi sender dig en bekræftelse.",
    ),
]


@pytest.mark.parametrize(("lang", "formal", "informal"), SENTENCES)
def test_the_other_register_fails_and_the_expected_one_passes(
    lang: str, formal: str, informal: str
) -> None:
    assert register_of(formal, lang) == "formal"
    assert register_of(informal, lang) == "informal"
    by_reference = case(lang, formal)
    assert run(by_reference, informal).status == "fail"
    assert run(by_reference, formal).status == "pass"
    told = case(lang, "Eine Antwort ohne Anrede.", register="informal")
    assert run(told, formal).status == "fail"
    assert run(told, informal).status == "pass"


def test_a_lower_case_homograph_of_a_formal_pronoun_is_no_formal_address() -> None:
    # "sie" (they), "le" (the), "de" (the): only capitalised inside a sentence is formal.
    assert address("Die Techniker kommen, sobald sie Zeit haben.", "de") == (0, 0)
    assert address("Le franchigie sono indicate nelle condizioni.", "it") == (0, 0)
    assert address("Sie erhalten eine Bestätigung.", "de") == (0, 0)
    assert address("Dann erhalten Sie eine Bestätigung.", "de") == (1, 0)


def test_both_registers_in_one_answer_are_undecided() -> None:
    data = case("nl", "U krijgt een bevestiging per e-mail.")
    assert run(data, "U krijgt een bevestiging; je hoeft niets te doen.").status == "review"


def test_a_case_whose_drafts_disagree_or_address_no_one_expects_no_register() -> None:
    mixed = case("fr", "Votre numéro est transféré en un jour.")
    mixed["known_right"] = [{"draft": "Ton numéro est transféré en un jour.", "why": "tu"}]
    assert "address_register" not in implied_checks(Case(mixed))
    assert "address_register" not in implied_checks(Case(case("fr", "Le transfert prend un jour.")))
    assert "address_register" in implied_checks(Case(case("fr", "Votre numéro est transféré.")))
    # English has one form of address: never checked.
    assert "address_register" not in implied_checks(Case(case("en", "Your number moves in a day.")))
    assert "address_register" in implied_checks(
        Case(case("nl", "Het nummer gaat over.", register="formal"))
    )


def test_an_answer_that_addresses_no_one_passes() -> None:
    data = case("de", "Dann erhalten Sie eine Bestätigung.")
    assert run(data, "Die Frist beträgt 30 Tage.").status == "pass"
