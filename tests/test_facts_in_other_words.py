"""Facts stated in other words the language files know (no suite synonyms): what no longer
applies or was wrong, what is free, what does not count; a retired or general figure named to
contrast it; a negative fact met by a yes, or by a "no" that only reassures. Each class both
ways: the wrong answer caught and correct answers, phrased as a model phrases them, passing."""

from __future__ import annotations

from typing import Any

import pytest

from evals.checks import REGISTRY, CheckInput, CheckResult
from evals.reply import Reply
from evals.suite.case import Case
from evals.suite.folder import SuiteSettings


def case(question: str, lang: str, **expect: Any) -> dict[str, Any]:
    return {
        "id": "a-case",
        "category": "facts",
        "question": question,
        "retrieved": [{"ref": "doc#a", "text": "A passage."}],
        "expect": {"language": lang, **expect},
        "reference": "A reference.",
    }


def run(name: str, answer: str, data: dict[str, Any]) -> CheckResult:
    return REGISTRY[name].fn(CheckInput(Case(data), Reply(answer=answer), SuiteSettings()))


RETIRED = [
    (
        "it",
        ["non è più valido", "non vale più"],
        "Quel prezzo era del vecchio listino, ormai scaduto. Oggi costa 18 €.",
        "Sì, quel prezzo è ancora valido: lo paga anche oggi.",
    ),
    (
        "nl",
        ["geldt niet meer", "is verlopen"],
        "Helaas klopt dat niet meer: die actie liep af op 31 december.",
        "Ja, die actie geldt nog steeds voor nieuwe klanten.",
    ),
    (
        "de",
        ["nicht mehr gültig"],
        "Leider gilt dieses Angebot nicht mehr, es ist seit März vorbei.",
        "Ja, das Angebot gilt weiterhin.",
    ),
    (
        "fr",
        ["n'est plus valable"],
        "Cette promotion a expiré le 30 juin.",
        "Oui, cette promotion est toujours valable.",
    ),
    (
        "es",
        ["ya no es válido"],
        "Esa tarifa está caducada desde enero.",
        "Sí, esa tarifa sigue siendo válida.",
    ),
    (
        "pt",
        ["já não é válido"],
        "Esse preço não vale mais desde janeiro.",
        "Sim, esse preço continua válido.",
    ),
    (
        "en",
        ["no longer valid"],
        "That offer has expired, I'm afraid.",
        "Yes, that offer still applies.",
    ),
]


@pytest.mark.parametrize(("lang", "fact", "right", "wrong"), RETIRED)
def test_no_longer_valid_is_stated_in_the_languages_own_other_words(
    lang: str, fact: list[str], right: str, wrong: str
) -> None:
    data = case("Is the offer from the old flyer still valid?", lang, facts=[fact])
    assert run("facts_present", right, data).status == "pass"
    assert run("facts_present", wrong, data).status != "pass"


@pytest.mark.parametrize(
    ("lang", "fact", "right"),
    [
        ("it", "era sbagliata", "No, mi scusi, non è corretto: la franchigia è di 250 €."),
        ("en", "was wrong", "I'm sorry, my earlier answer was incorrect: it is 250 €."),
        ("nl", "was fout", "Excuses, mijn vorige antwoord was niet juist: het is 250 €."),
        ("de", "war falsch", "Entschuldigung, meine Auskunft war nicht richtig: es sind 250 €."),
        ("it", "era sbagliata", "Scusi, mi sono sbagliato: la franchigia è di 250 €."),
        ("es", "estaba equivocado", "Perdona, me equivoqué: la franquicia es de 250 €."),
        ("fr", "une erreur", "Pardon, je me suis trompé : la franchise est de 250 €."),
    ],
)
def test_saying_an_earlier_answer_was_wrong_in_other_words(
    lang: str, fact: str, right: str
) -> None:
    data = case("Was your earlier answer right?", lang, facts=[[fact]])
    assert run("facts_present", right, data).status == "pass"
    assert run("facts_present", "The deductible is 250 €.", data).status != "pass"


@pytest.mark.parametrize(
    ("lang", "fact", "right", "wrong"),
    [
        (
            "en",
            "free of charge",
            "Setting up the eSIM on your new phone costs nothing.",
            "Setting up the eSIM costs 10 €.",
        ),
        ("nl", "gratis", "Het overzetten naar eSIM kost u niets.", "Het overzetten kost 10 €."),
        ("it", "gratuito", "Lo spostamento non costa nulla.", "Lo spostamento costa 80 €."),
        ("de", "kostenlos", "Die Umstellung kostet Sie nichts.", "Die Umstellung kostet 10 €."),
    ],
)
def test_costs_nothing_states_free_of_charge(lang: str, fact: str, right: str, wrong: str) -> None:
    data = case("What does it cost?", lang, facts=[[fact]])
    assert run("facts_present", right, data).status == "pass"
    assert run("facts_present", wrong, data).status == "fail"


def test_days_that_are_skipped_state_that_they_do_not_count() -> None:
    data = case("Do weekends count?", "en", facts=[["weekends do not count"]])
    right = "Only working days count: weekends are skipped."
    assert run("facts_present", right, data).status == "pass"
    assert run("facts_present", "Weekends count too.", data).status != "pass"


def test_the_days_of_the_week_stay_days_for_the_checks_that_read_them() -> None:
    # No group reads "Saturday and Sunday" as "weekend": opening times name their days.
    from evals.checks.matching import tokens

    assert {"saturday", "sunday"} <= set(tokens("Closed on Saturday and Sunday.", "en"))


@pytest.mark.parametrize(
    ("lang", "answer", "banned"),
    [
        ("it", "Ora costa 18 € invece dei 14,99 € del vecchio volantino.", "14,99 €"),
        (
            "de",
            "Bei Comfort fällt kein Selbstbehalt an, anders als die sonst üblichen 150 €.",
            "150 €",
        ),
        ("nl", "U betaalt nu 45 € in plaats van 39 €.", "39 €"),
        ("fr", "Vous payez 45 € au lieu des 39 € de l'ancienne grille.", "39 €"),
        ("en", "You pay 45 € rather than the 39 € on the old flyer.", "39 €"),
    ],
)
def test_a_figure_named_to_contrast_it_is_no_claim(lang: str, answer: str, banned: str) -> None:
    data = case("What do I pay?", lang, forbidden_figures=[banned])
    assert run("no_forbidden", answer, data).status == "pass"


@pytest.mark.parametrize(
    ("lang", "answer", "banned"),
    [
        ("en", "You pay 45 € instead of 36 € this month.", "45 €"),
        ("de", "Sie zahlen 150 € statt 0 €.", "150 €"),
        ("it", "Paghi 39 € invece di 45 €.", "39 €"),
    ],
)
def test_the_figure_before_a_contrast_is_still_claimed(lang: str, answer: str, banned: str) -> None:
    data = case("What do I pay?", lang, forbidden_figures=[banned])
    assert run("no_forbidden", answer, data).status == "fail"


def test_a_forbidden_phrase_after_a_contrast_is_no_claim_but_before_it_is() -> None:
    data = case("How much data?", "it", must_not_contain=["200 gb"])
    said = "Hai giga illimitati invece dei 200 GB del volantino."
    assert run("no_forbidden", said, data).status == "pass"
    assert run("no_forbidden", "Hai 200 GB invece dei giga illimitati.", data).status == "fail"


NOT_COVERED = case(
    "Is mijn e-bike verzekerd tegen diefstal?", "nl", facts=[["niet verzekerd", "niet gedekt"]]
)


def test_a_yes_with_the_affirmative_of_a_negative_fact_fails_it() -> None:
    wrong = "Ja, uw e-bike is verzekerd tegen diefstal, tot 1.500 €."
    result = run("facts_present", wrong, NOT_COVERED)
    assert result.status == "fail" and "negated" in result.detail


@pytest.mark.parametrize(
    "right",
    [
        "Nee, helaas. Met Comfort is uw e-bike niet verzekerd tegen diefstal.",
        "Helaas: fietsen zijn alleen bij Totale gedekt, bij Comfort is uw e-bike niet gedekt.",
        "Nee, helaas niet.",
    ],
)
def test_a_negative_fact_stated_or_a_plain_no_passes(right: str) -> None:
    assert run("facts_present", right, NOT_COVERED).status == "pass"


@pytest.mark.parametrize(
    ("lang", "question", "fact", "answer"),
    [
        (
            "nl",
            "Is mijn e-bike verzekerd tegen diefstal?",
            "niet verzekerd",
            "Nee, geen zorgen: de diefstal wordt volledig vergoed.",
        ),
        (
            "en",
            "Is my bike insured against theft?",
            "not insured",
            "No, don't worry, the theft is fully covered up to 1,500 €.",
        ),
        (
            "de",
            "Ist mein Fenster versichert?",
            "nicht versichert",
            "Nein, keine Sorge, das ist bei Comfort inbegriffen.",
        ),
    ],
)
def test_a_no_that_only_reassures_does_not_state_a_negative_fact(
    lang: str, question: str, fact: str, answer: str
) -> None:
    data = case(question, lang, facts=[[fact]])
    assert run("facts_present", answer, data).status != "pass"


def test_a_yes_taken_back_in_its_first_sentence_is_no_yes() -> None:
    data = case("Moet ik een opzegvergoeding betalen?", "nl", facts=[["geen opzegvergoeding"]])
    said = "Goed nieuws: nee. De opzegvergoeding van 100 € vervalt bij een verhuizing."
    assert run("facts_present", said, data).status != "fail"


def test_a_review_detail_quotes_the_answers_own_words_not_stems_or_a_groups_head() -> None:
    data = case("Is payroll export on Starter?", "en", facts=[["not part of the starter plan"]])
    said = "Payroll export comes with Pro; the Starter plan has the CSV export."
    result = run("facts_present", said, data)
    assert result.status == "review"
    assert "comes with" in result.detail and "Starter" in result.detail
    assert "part of" not in result.detail.split("(its words")[-1]
    assert "starter," not in result.detail and "includ" not in result.detail


def test_a_quoted_clause_keeps_no_gap_where_its_citation_stood() -> None:
    data = case("Can I still get the 39 € price?", "en", facts=[["no longer valid"]])
    said = "The 39 € quote came from the 2025 list, valid until 28 February [doc:pricing#old]."
    result = run("facts_present", said, data)
    assert result.status == "review"
    assert '"The 39 € quote came from the 2025 list, valid until 28 February."' in result.detail


@pytest.mark.parametrize(
    "lang, fact, right, wrong",
    [
        ("en", "up to 10 kg", "Each parcel may weigh no more than 10 kg.", "Not 10 kg."),
        ("de", "bis zu 10 kg", "Ein Paket darf nicht mehr als 10 kg wiegen.", "Nicht 10 kg."),
        ("it", "fino a 10 kg", "Il pacco può pesare non più di 10 kg.", "Non 10 kg."),
        ("nl", "tot 10 kg", "Een pakket mag niet meer dan 10 kg wegen.", "Niet 10 kg."),
    ],
)
def test_a_limit_said_with_a_negation_states_the_limit(
    lang: str, fact: str, right: str, wrong: str
) -> None:
    # The fact's words are "10 kg": a negation before them still denies it.
    data = case("How heavy may a parcel be?", lang, facts=[[fact]])
    assert run("facts_present", right, data).status == "pass"
    assert run("facts_present", wrong, data).status != "pass"


@pytest.mark.parametrize(
    "lang, fact, right",
    [
        ("pt", "estava errada", "Peço desculpa, a informação que lhe dei antes não estava certa."),
        ("nl", "klopte dat niet", "Mijn eerdere antwoord was fout, excuses daarvoor."),
        ("en", "was wrong", "Sorry, my earlier answer was a mistake."),
    ],
)
def test_an_earlier_answer_said_to_be_wrong_in_the_past_tense(
    lang: str, fact: str, right: str
) -> None:
    data = case("Was your earlier answer right?", lang, facts=[[fact]])
    assert run("facts_present", right, data).status == "pass"


@pytest.mark.parametrize(
    ("lang", "fact", "right"),
    [
        ("de", "abzüglich offener Raten", "Abgezogen werden offene Raten und Schäden."),
        ("it", "al netto dei canoni non pagati", "Vengono trattenuti i canoni non pagati."),
        ("nl", "minus openstaande maandbedragen", "Openstaande maandbedragen worden ingehouden."),
        ("pt", "descontadas as mensalidades em atraso", "As mensalidades em atraso são retidas."),
    ],
)
def test_an_amount_taken_off_is_stated_by_the_languages_other_words_for_it(
    lang: str, fact: str, right: str
) -> None:
    data = case("What do I get back?", lang, facts=[[fact]])
    assert run("facts_present", right, data).status == "pass"
    assert run("facts_present", "Sie bekommen alles zurück.", data).status == "fail"
