"""A policy the answer inverts (included vs charged) is undecided; the same policy, or one
about another plan, passes."""

from __future__ import annotations

import pytest

from evals.checks.inverted import inverted

MAINTENANCE = {
    "it": "Con Plus ripariamo entro 48 ore. La manutenzione ordinaria è inclusa in tutti i piani.",
    "en": "Plus repairs within 48 hours. Routine maintenance is included in every plan.",
    "de": "Die regelmäßige Wartung ist in allen Tarifen inklusive.",
    "nl": "Het gewone onderhoud is bij alle abonnementen inbegrepen.",
}


@pytest.mark.parametrize(
    ("lang", "answer"),
    [
        (
            "it",
            "I freni rientrano nella manutenzione ordinaria, che non è inclusa e si paga a parte.",
        ),
        ("en", "Routine maintenance is charged separately on your plan."),
        ("de", "Die regelmäßige Wartung wird extra berechnet."),
        ("nl", "Het gewone onderhoud is niet inbegrepen."),
    ],
)
def test_an_inverted_policy_is_found_with_its_passage(lang: str, answer: str) -> None:
    found = inverted(answer, (MAINTENANCE[lang],), lang)
    assert found and "the passage" in found[0]


@pytest.mark.parametrize(
    ("lang", "answer"),
    [
        ("it", "La manutenzione ordinaria è inclusa, anche i freni."),
        ("en", "Routine maintenance is included, brakes too."),
        ("nl", "Het gewone onderhoud is inbegrepen."),
        # About something the passage does not cover.
        ("en", "Delivery is charged separately."),
    ],
)
def test_the_same_policy_or_another_thing_is_no_inversion(lang: str, answer: str) -> None:
    assert inverted(answer, (MAINTENANCE[lang],), lang) == []


def test_a_plan_the_passage_clause_does_not_name_is_another_claim() -> None:
    passage = "Payroll export is included in Pro and Enterprise."
    assert inverted("Payroll export is not included in Starter.", (passage,), "en") == []
    assert inverted("Payroll export is not included in Pro.", (passage,), "en")


def test_an_inverted_policy_is_a_claim_put_to_the_judge() -> None:
    from casekit import good_case

    from evals.checks import CheckInput
    from evals.checks.grounding import review_claims
    from evals.reply import Reply
    from evals.suite.case import Case
    from evals.suite.folder import SuiteSettings

    data = good_case(
        "maintenance",
        question="Is routine maintenance extra?",
        retrieved=[{"ref": "plans#maintenance", "text": MAINTENANCE["en"]}],
        expect={"sources": ["plans#maintenance"]},
    )
    answer = "Routine maintenance is charged separately on your plan [doc:plans#maintenance]."
    inp = CheckInput(Case(data), Reply(answer=answer), SuiteSettings())
    asked = review_claims(inp)
    assert len(asked) == 1 and asked[0].startswith("Routine maintenance is charged separately")


def test_one_shared_thing_is_enough_to_turn_a_free_part_into_a_charged_one() -> None:
    from evals.checks.inverted import inversions

    for lang, passage, wrong, right in (
        (
            "en",
            "Wear parts such as the chain, brake pads and tyres are replaced free of charge on every plan.",
            "The chain is charged separately.",
            "A worn chain is replaced free of charge.",
        ),
        (
            "it",
            "Le parti soggette a usura, come la catena e i freni, sono incluse in tutti i piani.",
            "La catena non è inclusa e si paga a parte.",
            "La catena è inclusa nel tuo piano.",
        ),
        (
            "nl",
            "Slijtdelen zoals de ketting en de remblokken zijn inbegrepen in elk abonnement.",
            "De ketting is niet inbegrepen.",
            "Een nieuwe ketting is inbegrepen in je abonnement.",
        ),
    ):
        assert inversions(wrong, (passage,), lang), (lang, wrong)
        assert not inversions(right, (passage,), lang), (lang, right)


def test_not_covered_beside_a_conditional_cover_needs_more_than_one_shared_word() -> None:
    from evals.checks.inverted import inversions

    passage = "Il furto è coperto con Tegola Comfort e Tegola Totale, solo se ci sono segni di effrazione."
    assert not inversions("Mi dispiace, il furto non è coperto.", (passage,), "it")


LEFTOVER = {
    "en": "Unused kilometres expire at the end of the month.",
    "de": "Nicht gefahrene Kilometer verfallen am Monatsende.",
    "nl": "Ongebruikte kilometers vervallen aan het einde van de maand.",
    "it": "I chilometri non percorsi scadono a fine mese.",
}


@pytest.mark.parametrize(
    ("lang", "wrong", "right"),
    [
        (
            "en",
            "Unused kilometres carry over to the next month.",
            "Unused kilometres do not carry over: they expire at the end of the month.",
        ),
        (
            "de",
            "Nicht genutzte Kilometer werden in den Folgemonat übertragen.",
            "Nicht genutzte Kilometer verfallen am Ende des Monats.",
        ),
        (
            "nl",
            "Ongebruikte kilometers worden meegenomen naar de volgende maand.",
            "Kilometers die u niet rijdt, vervallen aan het eind van de maand.",
        ),
        (
            "it",
            "I chilometri non percorsi vengono riportati al mese successivo.",
            "I chilometri non percorsi non vengono riportati: scadono a fine mese.",
        ),
    ],
)
def test_what_lapses_said_to_carry_over_is_an_inversion(lang: str, wrong: str, right: str) -> None:
    assert inverted(wrong, (LEFTOVER[lang],), lang)
    assert inverted(right, (LEFTOVER[lang],), lang) == []


def test_a_german_noun_is_no_plan_name_but_a_passages_plan_is() -> None:
    passage = (
        "Beim Tarif Flex werden ungenutzte Kilometer übertragen. Bei Basis verfallen Kilometer."
    )
    # "Folgemonat" is a noun no passage uses: it names no plan.
    assert inverted("Bei Flex verfallen Kilometer im Folgemonat.", (passage,), "de")
    # "Basis" is a plan the passage names, and its own clause says they lapse.
    assert inverted("Bei Basis verfallen die Kilometer.", (passage,), "de") == []


def test_a_condition_beside_a_condition_or_a_shared_ordinal_is_no_inversion() -> None:
    passage = (
        "La displasia dell'anca è coperta solo con Plus e Totaal, dopo una carenza di 12 mesi."
    )
    when_not = (
        "Se i primi sintomi compaiono durante la carenza, la displasia non è coperta neanche dopo."
    )
    assert inverted(when_not, (passage,), "it") == []
    # Said without any condition, "not covered" still turns the passage round.
    assert inverted("La displasia dell'anca non è coperta con Plus e Totaal.", (passage,), "it")
    # "de eerste dag" and "de eerste verschijnselen" share an ordinal, no thing.
    later = (
        "Een aandoening waarvan de eerste verschijnselen in een wachttijd optreden, is niet gedekt."
    )
    assert inverted("Ongevallen zijn vanaf de eerste dag gedekt.", (later,), "nl") == []
