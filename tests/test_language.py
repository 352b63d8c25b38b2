"""Language resources from the libraries: stems, numbers in words, months, detection."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from evals.checks.language import (
    CLDR_FILE,
    babel_month_names,
    cldr_table,
    detect,
    month_names,
    stem,
)
from evals.checks.numerals import numerals
from evals.checks.values import contains_value, parse_figures, parse_one


@pytest.mark.parametrize(
    ("text", "lang", "same_as"),
    [
        ("It costs twenty-nine euros a seat.", "en", "29 €"),
        ("Pro is forty-five euros per seat.", "en", "45 €"),
        ("Backups follow within a fortnight.", "en", "14 days"),
        ("The data is kept for thirty days.", "en", "30 days"),
        ("Cuesta cuarenta y cinco euros.", "es", "45 €"),
        ("Es kostet neunundzwanzig Euro.", "de", "29 €"),
        ("Il dure quatorze jours.", "fr", "14 days"),
        ("Costa ventinove euro al mese.", "it", "29 €"),
        ("Het kost negenentwintig euro.", "nl", "29 €"),
    ],
)
def test_numbers_written_in_words_are_figures_in_the_texts_language(
    text: str, lang: str, same_as: str
) -> None:
    assert contains_value(text, parse_one(same_as), lang), (text, same_as)


def test_a_number_word_of_another_language_is_not_read() -> None:
    # "once" is eleven in Spanish, a word in English.
    assert numerals("We bill once a month.", "en") == ()
    assert [d for *_, d in numerals("Lo cobramos once veces.", "es")] == ["11"]


def test_a_figure_read_from_words_keeps_the_words_and_their_place() -> None:
    text = "Pro is forty-five euros [doc:pricing#plans]."
    (fig,) = parse_figures(text, "en")
    assert fig.text == "forty-five euros"
    assert text[fig.start : fig.end] == "forty-five euros"


def test_written_figures_win_over_number_words_inside_them() -> None:
    # "cent" is a hundred in French, but "15 pour cent" is 15 %.
    assert contains_value("Une remise de 15 pour cent.", parse_one("15 %"), "fr")


def test_month_names_come_from_cldr_for_any_language() -> None:
    assert month_names("it")["settembre"] == 9
    assert month_names("nl")["september"] == 9
    assert contains_value("fino al 30 settembre 2026", parse_one("30 September 2026"), "it")


def test_the_shipped_cldr_file_is_what_babel_gives() -> None:
    # Shipped so that grading loads no Babel data; this test says when Babel's CLDR data
    # changed (write it again with evals.checks.language.write_cldr_file()).
    shipped = json.loads(CLDR_FILE.read_text("utf-8"))
    assert shipped == cldr_table()


def test_a_language_not_shipped_is_read_from_babel() -> None:
    assert month_names("sv")["september"] == 9
    assert month_names("sv") == babel_month_names("sv")
    assert stem("flickorna", "sv") == stem("flickor", "sv")


def test_grading_english_loads_no_babel_data() -> None:
    # Babel's locale data cost every graded run 12 MB and a tenth of a second.
    probe = (
        "import sys\n"
        "from evals.checks.values import parse_figures\n"
        "from evals.checks.matching import tokens\n"
        "assert parse_figures('Pro costs 45 EUR from 1 March 2026.', 'en')\n"
        "assert tokens('The employees were paid thirty euros.', None)\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'babel'))\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_stems_join_inflections_in_each_language() -> None:
    assert stem("employees", "en") == stem("employee", "en")
    assert stem("tagen", "de") == stem("tage", "de")
    assert stem("semaines", "fr") == stem("semaine", "fr")


@pytest.mark.parametrize(
    ("text", "lang"),
    [
        ("Yes, you can export the data as CSV.", "en"),
        ("Ein zusätzlicher Platz kostet 45 € und wird anteilig berechnet.", "de"),
        ("Oui : l'application enregistre les pointages sans connexion.", "fr"),
        ("Sí, un administrador puede exportar los datos en CSV.", "es"),
        ("Sì, lo sconto vale solo con il pagamento annuale.", "it"),
        ("Ja, de korting geldt alleen bij jaarlijkse betaling.", "nl"),
    ],
)
def test_the_language_of_an_answer_is_detected(text: str, lang: str) -> None:
    assert detect(text) == lang


def test_a_text_without_words_has_no_language() -> None:
    assert detect("45 € [doc:pricing#plans]") is None


def test_the_compiled_stemmer_reads_every_word_of_the_example_suite_as_the_python_one() -> None:
    # snowballstemmer hands over to PyStemmer when it is installed (3 MB less than its
    # 36 pure-Python stemmers, and faster); no verdict may depend on which one stems a word.
    import importlib
    from pathlib import Path

    import regex
    import snowballstemmer
    import Stemmer
    from stop_words import get_stop_words

    assert snowballstemmer.stemmer is Stemmer.Stemmer
    root = Path(__file__).resolve().parent.parent / "evals"
    files = [*root.glob("cases/*.json"), *root.glob("labelled/*.jsonl"), root / "synonyms.toml"]
    words = {w.casefold() for f in files for w in regex.findall(r"\p{L}+", f.read_text("utf-8"))}
    names = {
        "en": "english",
        "de": "german",
        "fr": "french",
        "es": "spanish",
        "it": "italian",
        "nl": "dutch",
        "pt": "portuguese",
    }
    for lang, name in names.items():
        pure = importlib.import_module(f"snowballstemmer.{name}_stemmer")
        python = getattr(pure, f"{name.capitalize()}Stemmer")()
        compiled = Stemmer.Stemmer(name)
        read = words | set(get_stop_words(lang))
        assert len(read) > 1000
        assert [w for w in read if python.stemWord(w) != compiled.stemWord(w)] == []


def test_abbreviations_and_country_codes_do_not_mark_a_text_as_english() -> None:
    from evals.checks.language import detect, vocabulary

    # "kr." and "pr." are in the English stop-word list as country codes, not as English.
    danish = "Prisen er 2,10 kr. pr. kWh [doc:priser#el], og abonnementet koster 39 kr. om måneden."
    assert detect(danish) == "da"
    assert {"kr", "pr", "dk", "39"}.isdisjoint(vocabulary("en"))
    assert {"a", "of", "to", "it"} <= vocabulary("en") | vocabulary("it")
    assert detect("It costs 39 € per month [doc:pricing#plans].") == "en"


def test_numbers_in_words_align_to_the_same_spans_with_or_without_a_common_word() -> None:
    from evals.checks.numerals import _changed

    # Nothing in common in the middle: one replace, as difflib gives it.
    a, b = "one more Pro seat".split(), "1 more Pro seat".split()
    assert [o for o in _changed(a, b) if o[0] != "equal"] == [("replace", 0, 1, 0, 1)]
    a = "twenty nine euros and one seat".split()
    b = "29 euros and 1 seat".split()
    assert [o for o in _changed(a, b) if o[0] != "equal"] == [
        ("replace", 0, 2, 0, 1),
        ("replace", 4, 5, 3, 4),
    ]


@pytest.mark.parametrize(
    ("text", "lang"),
    [
        ("It costs twenty-nine euros, a hundred and five in all.", "en"),
        ("Il coûte vingt-et-un euros, quatre-vingt-dix au total, d'un mois.", "fr"),
        ("Cuesta treinta y un euros y mil doscientos en total.", "es"),
        ("Es kostet einundzwanzig Euro, zweihundert im Jahr, am ersten Tag.", "de"),
        ("Costa ventitré euro, centocinquanta l'anno, il primo giorno.", "it"),
        ("Het kost eenentwintig euro, tweehonderd per jaar, de eerste dag.", "nl"),
        ("Custa vinte e nove euros, duzentos por ano, no primeiro dia.", "pt"),
        ("Det koster halvtreds kroner, to hundrede om året, den første dag.", "da"),
    ],
)
def test_text2num_is_asked_only_of_texts_with_a_number_word_and_reads_the_same(
    text: str, lang: str
) -> None:
    from text_to_num import alpha2digit

    from evals.checks.numerals import _has_number_word

    # The word-by-word test in front of text2num must never hide a number it reads whole.
    assert alpha2digit(text, lang, threshold=0) != text
    assert _has_number_word(text, lang)
    assert numerals(text, lang) != ()
    plain = {"en": "The plan costs less with an annual contract.", "de": "Der Tarif ist gut."}
    for language, words in plain.items():
        assert not _has_number_word(words, language)
        assert alpha2digit(words, language, threshold=0) == words
