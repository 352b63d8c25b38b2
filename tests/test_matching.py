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
