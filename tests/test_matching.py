"""Facts in other words: contractions, inflection and gaps are tolerated; negation is not."""

from __future__ import annotations

from evals.checks.clauses import claims
from evals.checks.language import detect
from evals.checks.matching import find, states


def test_contractions_and_inflection_do_not_matter() -> None:
    assert states("You don't need a credit card.", "do not need a credit card")
    assert states("Archived employees aren't counted as seats.", "not counted as seats")
    assert states("Billing is reserved for admins.", "reserved for admin")


def test_a_few_words_between_a_facts_words_are_allowed_in_one_clause() -> None:
    assert states("You do not need a credit card for it.", "no credit card")
    assert not states("Nothing to pay, and the card, credit included, is fine.", "no credit card")


def test_a_fact_found_only_negated_does_not_count() -> None:
    hits = find("Seats are not charged pro rata.", "charged pro rata")
    assert hits and all(m.negated for m in hits)
    assert not states("Seats are not charged pro rata.", "charged pro rata")
    # A negation in another clause does not reach the fact.
    assert states(
        "No, you won't pay the full month: seats are charged pro rata.", "charged pro rata"
    )


def test_a_claim_named_to_correct_it_is_not_a_claim() -> None:
    assert claims("Pro costs 39 € per seat.", "costs 39")
    assert not claims("The old 39 € price no longer applies; Pro costs 45 €.", "39 € price")
    assert not claims("You won't pay the full month.", "full month")
    assert not claims(
        "Whether the increase is legally valid is a legal question.", "is legally valid"
    )
    # A correction in one half of a sentence does not excuse a claim in the other.
    assert claims(
        "SMS reminders were discontinued, but Enterprise customers can still book them.",
        "can still book",
    )


def test_the_language_of_an_answer_is_read_from_its_stop_words() -> None:
    assert detect("Ein zusätzlicher Platz kostet 45 € und wird anteilig berechnet.") == "de"
    assert detect("Oui : l'application enregistre les pointages sans connexion.") == "fr"
    assert detect("Sí, un administrador puede exportar los datos en CSV.") == "es"
    assert detect("Yes, you can export the data as CSV.") == "en"


def test_a_bare_negation_as_a_label_negates_nothing_after_it() -> None:
    assert not find("Nada: la congelación médica es gratuita.", "gratuita", lang="es")[0].negated
    assert not find(
        "Purtroppo no: la domenica il telefono è chiuso.", "telefono è chiuso", lang="it"
    )[0].negated
    # A label that names a thing keeps its clause: "Carrinha: não é possível" is negated.
    assert find("- Carrinha: não é possível", "carrinha é possível", lang="pt")[0].negated


def test_a_label_answered_by_a_bare_negation_denies_the_label() -> None:
    said = "Cancellation fee: none – the €15 a month only applies during the minimum term."
    assert find(said, "no fee", lang="en")
    assert find("Kosten: keine. Sie können jederzeit kündigen.", "keine Kosten", lang="de")


def test_an_adverb_of_contrast_inside_a_clause_breaks_nothing() -> None:
    assert find("La chat non è però disponibile la domenica.", "disponibile", lang="it")[0].negated
    assert find("Das ist jedoch nicht möglich.", "nicht möglich", lang="de")
    # Opening its clause after a mark, it still sets what follows apart.
    said = "Costa 5 €, però la consegna è gratuita."
    assert not find(said, "consegna gratuita", lang="it")[0].negated


def test_not_combinable_is_said_in_other_words_in_each_language() -> None:
    said = "Lo sconto famiglia e quello annuale non si possono sommare."
    assert find(said, "non sono cumulabili", lang="it")
    assert find("Die Rabatte kann man nicht addieren.", "nicht kombinierbar", lang="de")
    assert find("Deze kortingen zijn niet te combineren.", "niet combineerbaar", lang="nl")
