"""An expected figure whose own sentence names no subject takes it from the sentence before,
or (the answer's first figure of its kind) from the ticket it answers; never when a rival
subject stands there."""

from __future__ import annotations

import pytest

from evals.checks.binding import about_state
from evals.checks.given import figures


def state(
    answer: str, value: str, about: str, lang: str, rivals: tuple[str, ...] = (), ticket: str = ""
) -> str:
    fig = next(f for f in figures(answer, lang) if f.text.strip() == value)
    return about_state(answer, fig, about, list(rivals), lang, (), ticket)


@pytest.mark.parametrize(
    ("lang", "answer", "value", "about"),
    [
        (
            "nl",
            "De jaarpremie van Huis Max is € 264. Betaalt u per maand, dan betaalt u € 23,10 per maand.",
            "€ 23,10",
            "Max",
        ),
        (
            "en",
            "The yearly premium of Home Max is €264. Paying monthly, you pay €23.10 a month.",
            "€23.10",
            "Max",
        ),
        (
            "it",
            "Le avevo indicato una franchigia archiviata. Quella in vigore oggi è 250 €.",
            "250 €",
            "franchigia",
        ),
        (
            "de",
            "Ich hatte Ihnen einen alten Selbstbehalt genannt. Der heute gültige beträgt 250 €.",
            "250 €",
            "Selbstbehalt",
        ),
    ],
)
def test_the_subject_of_the_sentence_before_binds_a_figure_whose_own_names_none(
    lang: str, answer: str, value: str, about: str
) -> None:
    assert state(answer, value, about, lang) == "bound"


def test_a_rival_subject_in_the_sentence_before_leaves_the_figure_unbound() -> None:
    answer = "Oggi la franchigia è di 250 €. Le confermo quindi che riceverà 650 €."
    assert state(answer, "650 €", "rimborso", "it", ("franchigia",)) == "unknown"


@pytest.mark.parametrize(
    ("lang", "ticket", "answer", "value", "about"),
    [
        ("nl", "Wat kost het als ik nu opzeg?", "Kort gezegd: 100 €.", "100 €", "opzegvergoeding"),
        (
            "en",
            "How much is the deposit for the bike?",
            "In short: 250 €, paid once.",
            "250 €",
            "deposit",
        ),
        (
            "it",
            "Quanto costa il deposito?",
            "In breve: 250 €, una volta sola.",
            "250 €",
            "deposito",
        ),
    ],
)
def test_the_tickets_subject_binds_the_answers_first_figure(
    lang: str, ticket: str, answer: str, value: str, about: str
) -> None:
    assert state(answer, value, about, lang, ticket=ticket) == "bound"
    # Without the ticket nothing says what the figure is about.
    assert state(answer, value, about, lang) == "unknown"


def test_the_ticket_does_not_bind_a_later_figure_or_one_beside_a_rival() -> None:
    ticket = "How much is the deposit, and what is the monthly fee?"
    answer = "In short: 39 €. And then 250 €."
    assert state(answer, "250 €", "deposit", "en", ("monthly fee",), ticket) == "unknown"
    assert state(answer, "39 €", "deposit", "en", ("monthly fee",), ticket) == "unknown"


def test_a_ticket_that_asks_of_two_things_the_passages_give_figures_for_binds_neither() -> None:
    passage = "Data is kept for 30 days. Backups are overwritten within a further 14 days."
    fig = next(f for f in figures("Thirty days.", "en"))
    ticket = "How long until our data is gone, backups included?"
    assert (
        about_state("Thirty days.", fig, "data kept", [], "en", (), ticket, (passage,)) == "unknown"
    )
    alone = "How long is our data kept?"
    assert about_state("Thirty days.", fig, "data kept", [], "en", (), alone, (passage,)) == "bound"


def test_a_rival_in_the_other_item_of_the_sentence_does_not_unbind_the_figure() -> None:
    answer = (
        "Le avevo indicato una franchigia archiviata. Quella in vigore è 250 €, quindi il "
        "rimborso sarebbe di 650 €."
    )
    assert state(answer, "250 €", "franchigia", "it", ("rimborso",)) == "bound"
    assert state(answer, "650 €", "rimborso", "it", ("franchigia",)) == "bound"


def test_a_rival_subject_in_another_figures_item_is_that_figures_not_this_ones() -> None:
    # The SIM is the 7,50 €'s subject; the 2 working days are about something unsaid.
    answer = "Nu kost een nieuwe simkaart 7,50 € en heb je hem binnen 2 werkdagen."
    assert state(answer, "2 werkdagen", "bezorgd", "nl", rivals=("simkaart",)) != "other"
    # "24 maanden" is a figure of its own: its month is no subject of the 804 €.
    total = "Over 24 maanden is dat 24 × 33,50 € = 804 €."
    assert state(total, "804 €", "totaal", "nl", rivals=("per maand",)) != "other"
    # In the figure's own item the rival still says it is about the other thing.
    swapped = "Een nieuwe simkaart kost 2 werkdagen."
    assert state(swapped, "2 werkdagen", "bezorgd", "nl", rivals=("simkaart",)) == "other"


@pytest.mark.parametrize(
    ("lang", "answer", "value", "about"),
    [
        ("da", "- Ud og hjem: 90 kr. [doc:a] × 2 = 180 kr.", "180 kr", "i alt"),
        ("de", "Monatlich 109 € [doc:a] × 12 = 1.308 €.", "1.308 €", "insgesamt"),
        ("en", "Two nights: 2 × 45 € [doc:a] = 90 €.", "90 €", "in total"),
    ],
)
def test_the_result_of_the_answers_own_arithmetic_is_the_total_asked_for(
    lang: str, answer: str, value: str, about: str
) -> None:
    assert state(answer, value, about, lang) == "bound"


@pytest.mark.parametrize(
    ("lang", "answer", "value", "about"),
    [
        # No arithmetic before the sign: it restates a price, it does not total one.
        ("da", "Pr. overfart 90 kr. [doc:a], og ud og hjem = 180 kr.", "180 kr", "i alt"),
        # A result, but the subject asked for is not a total.
        ("en", "Two nights: 2 × 45 € [doc:a] = 90 €.", "90 €", "deposit"),
    ],
)
def test_a_figure_neither_summed_nor_named_for_a_total_is_not_bound_to_it(
    lang: str, answer: str, value: str, about: str
) -> None:
    assert state(answer, value, about, lang) == "unknown"


def test_a_subject_named_inside_a_general_phrase_is_named() -> None:
    # "im Jahr" reads as the group's "jährlich"; the subject "Jahr" is still named.
    answer = "Bei Monatszahlung zahlen Sie 109 € [doc:a] × 12 = 1.308 € im Jahr."
    assert state(answer, "1.308 €", "Jahr", "de") == "bound"
    assert state("Sie zahlen 1.308 € für den Pass.", "1.308 €", "Jahr", "de") == "unknown"
