"""A word as the matching reads it: verb person endings, phrases read as another before their
negations, and compounds whose last part is a fact's word, in the languages that have them."""

from __future__ import annotations

import pytest

from evals.checks.lexicon import lexicon
from evals.checks.matching import NEG, states, tokens
from evals.checks.words import compound_read


@pytest.mark.parametrize(
    ("lang", "person", "infinitive"),
    [("nl", "telt", "tellen"), ("nl", "houdt", "houden"), ("de", "zählt", "zählen")],
)
def test_a_verbs_person_form_reads_as_its_infinitive(
    lang: str, person: str, infinitive: str
) -> None:
    assert tokens(person, lang) == tokens(infinitive, lang)


@pytest.mark.parametrize(
    ("form", "infinitive"),
    [
        ("meld", "melden"),
        ("meldt", "melden"),
        ("gemeld", "melden"),
        ("betaald", "betalen"),
        ("wordt", "worden"),
        ("antwoord", "antwoorden"),
    ],
)
def test_a_dutch_verbs_forms_meet_where_snowball_cuts_the_d_of_its_infinitive(
    form: str, infinitive: str
) -> None:
    assert tokens(form, "nl") == tokens(infinitive, "nl")


def test_a_dutch_stem_keeps_a_d_after_other_letters() -> None:
    assert tokens("vinden", "nl") == tokens("vindt", "nl") == ("vind",)
    assert tokens("melden", "nl") != tokens("vinden", "nl")


def test_a_person_ending_is_not_cut_from_a_short_word_nor_in_english() -> None:
    assert tokens("wat", "nl") == ("wat",)
    assert tokens("counts", "en") == tokens("count", "en") == ("count",)
    assert tokens("cost", "en") == ("cost",)


def test_the_weekend_that_does_not_count_states_the_days_that_do_not() -> None:
    assert states("Het weekend telt niet mee.", "tellen niet mee", lang="nl")
    assert not states("Het weekend telt gewoon mee.", "tellen niet mee", lang="nl")


@pytest.mark.parametrize(
    ("lang", "said"),
    [
        ("en", "Moving your eSIM profile costs nothing."),
        ("en", "Moving the eSIM costs you nothing at all."),
        ("nl", "Het overzetten van je eSIM kost je niets."),
        ("it", "Spostare il sopralluogo non costa nulla."),
        ("fr", "Le transfert de la carte ne vous coûte rien."),
        ("es", "El cambio no le cuesta nada."),
        ("pt", "A troca não lhe custa nada."),
        ("da", "Flytningen koster dig intet."),
    ],
)
def test_costs_nothing_is_read_as_free_of_charge_not_as_a_negation(lang: str, said: str) -> None:
    free = {
        "en": "free of charge",
        "nl": "gratis",
        "it": "gratuito",
        "fr": "gratuit",
        "es": "gratis",
        "pt": "gratuito",
        "da": "gratis",
    }[lang]
    assert states(said, free, lang=lang)
    assert NEG not in tokens(said, lang)


@pytest.mark.parametrize(
    ("lang", "said", "free"),
    [
        ("nl", "Het overzetten kost niet veel, 5 €.", "gratis"),
        ("en", "The transfer does not cost much, only 5 €.", "free of charge"),
        ("it", "Lo spostamento non è gratuito: costa 80 €.", "gratuito"),
        ("de", "Die Umstellung ist nicht kostenlos, sie kostet 10 €.", "kostenlos"),
    ],
)
def test_a_price_that_is_not_nothing_is_not_free(lang: str, said: str, free: str) -> None:
    assert not states(said, free, lang=lang)


@pytest.mark.parametrize(
    ("lang", "said", "fact"),
    [
        ("de", "Fensterglas ist bei jeder Polizze mitversichert.", "versichert"),
        ("nl", "U betaalt dan een opzegvergoeding van 90 €.", "vergoeding"),
        ("da", "Der er et grundgebyr på 49 kr.", "gebyr"),
    ],
)
def test_a_compound_states_the_fact_word_it_ends_with(lang: str, said: str, fact: str) -> None:
    assert states(said, fact, lang=lang)


@pytest.mark.parametrize(
    ("lang", "said", "fact"),
    [
        ("de", "Ihr Fahrrad ist unversichert.", "versichert"),
        ("nl", "Uw fiets is onverzekerd.", "verzekerd"),
        ("en", "The glass is underinsured.", "insured"),
    ],
)
def test_a_negating_first_part_or_a_language_without_compounds_states_nothing(
    lang: str, said: str, fact: str
) -> None:
    assert not states(said, fact, lang=lang)


def test_a_compounds_last_part_alone_states_it_where_the_answer_names_the_first() -> None:
    said = "In uw eerste contractjaar loopt de polis door tot het einde van dat jaar."
    assert states(said, "einde van het contractjaar", lang="nl")
    # Without the contract year named, the end of "that year" is any year.
    assert not states(
        "De polis loopt door tot het einde van dat jaar.", "einde van het contractjaar", lang="nl"
    )


def test_compound_reading_leaves_short_words_and_negations_alone() -> None:
    seq = ("uw", "¬", "mitversichert", "glas")
    assert compound_read(seq, frozenset({"versichert"}), lexicon("de")) == (
        "uw",
        "¬",
        "versichert",
        "glas",
    )
    assert compound_read(seq, frozenset({"glas"}), lexicon("de")) == seq
    assert compound_read(seq, frozenset({"versichert"}), lexicon("en")) == seq


@pytest.mark.parametrize("lang", ["da", "de", "en", "es", "fr", "it", "nl", "pt"])
def test_each_language_lists_its_contrasts_and_reassurances_and_they_compile(lang: str) -> None:
    import regex

    lex = lexicon(lang)
    assert lex.contrasts and lex.reassurances
    for pattern in lex.contrasts:
        regex.compile(pattern)
    for pattern, phrase in lex.read_as:
        regex.compile(pattern)
        assert phrase and NEG not in tokens(phrase, lang, general=False)


@pytest.mark.parametrize(
    ("lang", "said", "free"),
    [
        ("en", "You won't pay anything for the replacement.", "free of charge"),
        ("en", "The replacement is completely free.", "free of charge"),
        ("nl", "U betaalt niets voor de installatie.", "gratis"),
        ("de", "Sie zahlen nichts für den Austausch.", "kostenlos"),
        ("it", "Non paghi nulla per la sostituzione.", "gratuito"),
        ("fr", "Vous ne payez rien pour le remplacement.", "gratuit"),
    ],
)
def test_paying_nothing_is_free_of_charge(lang: str, said: str, free: str) -> None:
    assert states(said, free, lang=lang)


def test_free_to_choose_or_a_free_trial_is_no_price() -> None:
    assert not states("You are free to choose any plan.", "free of charge", lang="en")
    assert not states("The free trial is 14 days.", "free of charge", lang="en")


@pytest.mark.parametrize(
    ("lang", "ended", "ends", "fact"),
    [
        ("en", "SMS reminders ended on 1 June.", "The trial ends on 1 June.", "discontinued"),
        ("de", "Die Aktion endete am 31. März.", "Die Aktion endet am 31. März.", "abgelaufen"),
        ("nl", "De actie eindigde op 31 maart.", "De actie eindigt op 31 maart.", "verlopen"),
        (
            "it",
            "La promozione è terminata il 31 marzo.",
            "La promozione termina il 31 marzo.",
            "scaduta",
        ),
        (
            "es",
            "La promoción terminó el 31 de marzo.",
            "La promoción termina el 31 de marzo.",
            "caducada",
        ),
    ],
)
def test_ended_on_a_date_says_it_no_longer_applies_ends_on_does_not(
    lang: str, ended: str, ends: str, fact: str
) -> None:
    assert states(ended, fact, lang=lang)
    assert not states(ends, fact, lang=lang)


@pytest.mark.parametrize(
    ("lang", "said"),
    [
        ("it", "è gratuita, a meno che non si tratti di un danno causato dal cliente"),
        ("pt", "é gratuita, a não ser que se trate de um dano causado pelo cliente"),
        ("es", "es gratuita, a no ser que se trate de un daño causado por el cliente"),
        ("fr", "est gratuite, à moins que le dommage ne soit causé par le client"),
        ("fr", "est gratuite, à moins qu’un dommage ne soit causé par le client"),
    ],
)
def test_unless_negates_nothing_in_the_case_it_names(lang: str, said: str) -> None:
    assert NEG not in tokens(said, lang)


def test_a_real_negation_after_unless_is_still_read() -> None:
    assert NEG in tokens("à moins que le client ne paie pas la facture", "fr")
    assert NEG in tokens("a não ser que o cliente não pague a fatura", "pt")
