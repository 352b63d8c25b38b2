"""Every supported language read in full: its file, its figures, negations, corrections,
hand-overs and equivalences, with sentences written as an assistant writes them, correct
ones that must pass and wrong ones that must fail."""

from __future__ import annotations

import json
import re
import tomllib
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from casekit import good_case

from evals.checks import REGISTRY, CheckInput, CheckResult
from evals.checks.bare_no import answers_no
from evals.checks.clauses import claims, corrects, stated_text
from evals.checks.language import DEFAULT_LANGUAGES, detect
from evals.checks.lexicon import LANGUAGE_DIR, SUPPORTED, lexicon, parse_lexicon
from evals.checks.matching import states
from evals.checks.values import parse_figures
from evals.errors import InputError
from evals.reply import Reply
from evals.suite.case import Case
from evals.suite.folder import SuiteSettings

ROOT = Path(__file__).resolve().parent.parent


def run(name: str, answer: str, case: dict[str, Any]) -> CheckResult:
    inp = CheckInput(Case(case), Reply(answer=answer), SuiteSettings())
    return REGISTRY[name].fn(inp)


def test_the_supported_list_is_the_same_in_the_code_the_files_the_schema_docs_and_help() -> None:
    files = tuple(sorted(p.stem for p in LANGUAGE_DIR.glob("*.toml")))
    assert files == SUPPORTED
    assert set(DEFAULT_LANGUAGES) == set(SUPPORTED)
    schema = json.loads((ROOT / "schemas" / "case.schema.json").read_text("utf-8"))
    enum = schema["properties"]["expect"]["properties"]["language"]["enum"]
    assert tuple(enum) == SUPPORTED
    stated = ", ".join(SUPPORTED)
    docs = (ROOT / "docs" / "checks.md").read_text("utf-8")
    assert re.findall(r"Supported languages: ([a-z, ]+)\.", docs) == [stated]
    import tasks

    assert f"Languages read (expect.language): {stated}." in (tasks.validate.__doc__ or "")


@pytest.mark.parametrize("lang", SUPPORTED)
def test_each_language_file_holds_every_list_and_its_patterns_compile(lang: str) -> None:
    with (LANGUAGE_DIR / f"{lang}.toml").open("rb") as fh:
        lex = parse_lexicon(lang, tomllib.load(fh))
    assert lex.negators and lex.articles and lex.glue and lex.conjunctions
    assert lex.handover and lex.corrections and lex.not_true and lex.would
    assert {"day", "week", "hour", "working_day"} <= set(lex.units)
    assert {"time", "digit"} <= set(lex.counts)
    assert lex.day_suffixes and lex.day_words and lex.each_month
    assert lex.per_year and lex.totals
    for pattern in lex.corrections:
        re.compile(pattern)
    assert lexicon(lang) == lex  # loaded once and cached: the same object each time
    assert lexicon(lang) is lexicon(lang)


def test_a_language_without_a_file_is_refused_by_validate(tmp_path: Path) -> None:
    from evals.checks.loading import load_cases
    from evals.suite.folder import open_suite

    (tmp_path / "cases").mkdir()
    (tmp_path / "prompt.txt").write_text("p\n", "utf-8")
    case = {"id": "x", "question": "Hur mycket kostar det?", "expect": {"language": "sv"}}
    (tmp_path / "cases" / "x.json").write_text(json.dumps(case), "utf-8")
    with pytest.raises(InputError) as raised:
        load_cases(open_suite(tmp_path))
    text = str(raised.value)
    assert "/expect/language" in text and "'sv'" in text and "'it'" in text


@pytest.mark.parametrize(
    ("text", "lang", "kind", "unit", "value"),
    [
        ("La garanzia copre 48 ore.", "it", "duration", "minute", 2880),
        ("Il recesso vale entro trenta giorni.", "it", "duration", "day", 30),
        ("U krijgt binnen 48 uur antwoord.", "nl", "duration", "minute", 2880),
        ("De opzegtermijn is dertig dagen.", "nl", "duration", "day", 30),
        ("Opsigelsen er 30 dage.", "da", "duration", "day", 30),
        ("O reembolso chega em trinta dias.", "pt", "duration", "day", 30),
        ("We reply within 10 working days.", "en", "duration", "working-day", 10),
        ("Refunds take 10 business days.", "en", "duration", "working-day", 10),
        ("Die Erstattung dauert 10 Werktage.", "de", "duration", "working-day", 10),
        ("Il rimborso arriva in 10 giorni lavorativi.", "it", "duration", "working-day", 10),
        ("De terugbetaling duurt 10 werkdagen.", "nl", "duration", "working-day", 10),
        ("O reembolso leva 10 dias úteis.", "pt", "duration", "working-day", 10),
        ("You can pause it 2 times a year.", "en", "count", "time", 2),
        ("Enter the 6-digit code from the letter.", "en", "count", "digit", 6),
        ("Puoi sospenderlo due volte l'anno.", "it", "count", "time", 2),
        ("Je krijgt 20 procent korting.", "nl", "percent", "%", 20),
        ("Ha uno sconto del 20 per cento.", "it", "percent", "%", 20),
        ("Tem um desconto de 20 por cento.", "pt", "percent", "%", 20),
        ("Het bedrag wordt de 1e van elke maand afgeschreven.", "nl", "day", "day-of-month", 1),
        ("L'addebito avviene il primo giorno di ogni mese.", "it", "day", "day-of-month", 1),
        ("Der Betrag wird am 1. jedes Monats abgebucht.", "de", "day", "day-of-month", 1),
        ("O débito é feito no dia 5 de cada mês.", "pt", "day", "day-of-month", 5),
    ],
)
def test_figures_are_read_in_each_language(
    text: str, lang: str, kind: str, unit: str, value: int
) -> None:
    figs = [(f.kind, f.unit, f.value) for f in parse_figures(text, lang)]
    assert (kind, unit, Decimal(value)) in figs


def test_a_dutch_date_is_a_date_and_working_days_are_not_calendar_days() -> None:
    (date,) = parse_figures("Uw abonnement loopt tot 31 januari 2026.", "nl")
    assert (date.kind, date.value) == ("date", (2026, 1, 31))
    (work,) = parse_figures("within 10 working days", "en")
    (days,) = parse_figures("within 10 days", "en")
    assert not work.same(days)


def test_a_multiplication_and_once_are_no_counts() -> None:
    kinds = [(f.kind, f.unit) for f in parse_figures("3 times 24 € makes 72 €.", "en")]
    assert ("count", "time") not in kinds and kinds.count(("money", "EUR")) == 2
    assert parse_figures("Elles partent une fois la connexion rétablie.", "fr") == []


def test_danish_hours_are_read_in_danish_only() -> None:
    assert [f.unit for f in parse_figures("Vi svarer inden for 1 time.", "da")] == ["minute"]
    assert parse_figures("A 1 time fee.", "en") == []


@pytest.mark.parametrize(
    ("answer", "lang", "fact", "stated"),
    [
        ("La riparazione non è gratuita: costa 40 euro.", "it", "gratuita", False),
        ("La riparazione è gratuita entro la garanzia.", "it", "gratuita", True),
        ("De reparatie is niet gratis.", "nl", "gratis", False),
        ("De reparatie is gratis binnen de garantie.", "nl", "gratis", True),
        ("A reparação não é gratuita.", "pt", "gratuita", False),
        ("Reparationen er ikke gratis.", "da", "gratis", False),
        ("Die Kündigung ist 10 Arbeitstage vorher möglich.", "de", "10 Werktage vorher", True),
        ("You can shut down the old device any time.", "en", "switch off the old device", True),
        ("FIRST10 cannot be stacked with the youth fare.", "en", "cannot be combined", True),
        ("FIRST10 can be stacked with the youth fare.", "en", "cannot be combined", False),
        ("Spanish office: the Sin City branch is open.", "en", "city branch is open", True),
        ("So the gap between the two plans is 84 € a year.", "en", "difference of 84 €", True),
        ("- Carrinha: não é possível por agora.", "pt", "carrinha não é possível", True),
        ("Carrinha: sim. Carro: não é possível.", "pt", "carrinha não é possível", False),
        ("Ik moet mijn vorige antwoord corrigeren: het is 7 dagen.", "nl", "was fout", True),
        ("Devo correggere la mia risposta precedente.", "it", "era sbagliato", True),
        ("Quindi la consegna di sabato non si può aggiungere.", "it", "non è possibile", True),
        ("La consegna di sabato si può aggiungere.", "it", "non è possibile", False),
        ("No se puede cambiar la fecha después del envío.", "es", "no es posible cambiar", True),
        ("On peut annuler à tout moment.", "fr", "il est possible d’annuler", True),
    ],
)
def test_negation_and_equivalences_are_read_in_the_texts_language(
    answer: str, lang: str, fact: str, stated: bool
) -> None:
    assert states(answer, fact, lang=lang) is stated


@pytest.mark.parametrize(
    ("clause", "lang"),
    [
        ("De gearchiveerde prijslijst van 2025 noemde 39 euro, die prijs geldt niet meer", "nl"),
        ("Il prezzo di 39 euro non è più valido", "it"),
        ("Il listino archiviato del 2025 indicava 39 euro", "it"),
        ("O preço de 39 euros já não é válido", "pt"),
        ("Prisen på 39 euro gælder ikke længere", "da"),
    ],
)
def test_corrections_of_a_retired_figure_are_read_in_each_language(clause: str, lang: str) -> None:
    assert corrects(clause, lang)


def test_a_correct_answer_naming_the_old_price_to_correct_it_passes_and_a_wrong_one_fails() -> None:
    case = good_case(
        question="Il commerciale mi ha detto 39 euro al mese per Plus, è giusto?",
        expect={"forbidden_figures": ["39 €"], "language": "it"},
    )
    right = "No: i 39 € del listino archiviato del 2025 non valgono più; Plus costa 45 €."
    wrong = "Sì, Plus costa 39 € al mese."
    assert run("no_forbidden", right, case).status == "pass"
    assert run("no_forbidden", wrong, case).status == "fail"


@pytest.mark.parametrize(
    ("answer", "lang", "phrase"),
    [
        (
            "Passo la sua richiesta a un collega dell'ufficio fatture.",
            "it",
            "passo la sua richiesta",
        ),
        ("Ik geef uw vraag door aan de afdeling facturatie.", "nl", "ik geef uw vraag door"),
    ],
)
def test_hand_over_phrases_of_the_cases_language_mark_a_hand_over(
    answer: str, lang: str, phrase: str
) -> None:
    assert phrase in lexicon(lang).handover
    case = good_case(expect={"abstain": True, "language": lang})
    assert run("abstention", answer, case).status == "pass"
    assert run("abstention", "Il piano Plus costa 45 € al mese.", case).status == "fail"


@pytest.mark.parametrize(
    ("text", "lang"),
    [
        ("La riparazione non è gratuita e il tecnico arriva entro due giorni.", "it"),
        ("De reparatie is niet gratis en de monteur komt binnen twee dagen.", "nl"),
        ("A reparação não é gratuita e o técnico chega em dois dias.", "pt"),
        ("Reparationen er ikke gratis, og teknikeren kommer inden for to dage.", "da"),
    ],
)
def test_each_language_is_detected(text: str, lang: str) -> None:
    assert detect(text) == lang


def test_a_bare_no_is_a_negation_and_a_hedged_one_is_not() -> None:
    for said in ("No.", "Unfortunately not.", "Sadly, no.", "No, it isn't."):
        assert answers_no(said, "en"), said
    for said in ("Not quite.", "Not always, it depends.", "No problem, here it is."):
        assert not answers_no(said, "en"), said
    assert answers_no("Purtroppo no.", "it") and answers_no("Helaas niet.", "nl")


def test_a_no_after_a_label_that_names_nothing_asked_is_a_bare_no() -> None:
    question = "Our household uses 3.200 kWh a year. Do we qualify for your volume discount?"
    assert answers_no("Short answer: no. The discount starts above 5,000 kWh.", "en", question)
    assert answers_no("Kurz gesagt: leider nein.", "de", "Bekomme ich den Rabatt?")
    # A label that names what was asked says no to that thing alone.
    asked = "Posso alugar uma carrinha? E um carro normal?"
    assert not answers_no("Carrinha: não. Carro normal: sim.", "pt", asked)
    case = good_case(question=question, expect={"facts": ["do not qualify"]})
    right = "Short answer: no. The 5 % discount only applies above 5,000 kWh a year."
    assert run("facts_present", right, case).status == "pass"


def test_a_leading_no_does_not_satisfy_a_negative_fact_the_rest_contradicts() -> None:
    case = good_case(
        question="Do I need a credit card for the trial?",
        expect={"facts": ["no credit card needed"]},
    )
    assert run("facts_present", "No. The trial runs without one.", case).status == "pass"
    wrong = "No. Actually you do need a credit card to start the trial."
    assert run("facts_present", wrong, case).status == "fail"
    assert run("facts_present", "Not quite. It depends on the plan.", case).status != "pass"


def test_a_fact_listing_items_matches_the_answers_list() -> None:
    case = good_case(expect={"facts": ["amsterdam utrecht rotterdam"]})
    right = "We deliver to Amsterdam, Utrecht and Rotterdam [doc:pricing#plans]."
    assert run("facts_present", right, case).status == "pass"
    assert run("facts_present", "We deliver to Amsterdam and Utrecht.", case).status != "pass"
    case = good_case(expect={"facts": ["milano roma torino"], "language": "it"})
    assert run("facts_present", "Consegniamo a Milano, Roma e Torino.", case).status == "pass"


@pytest.mark.parametrize(
    "wrong",
    [
        "It is not true that no credit card is needed.",
        "Is it true that no credit card is needed? I cannot say.",
        "If no credit card were needed you would start today, but you need one.",
    ],
)
def test_a_fact_negated_from_outside_questioned_or_supposed_is_not_stated(wrong: str) -> None:
    case = good_case(expect={"facts": ["no credit card is needed"]})
    assert run("facts_present", wrong, case).status == "fail"
    right = "No credit card is needed: the trial starts without one."
    assert run("facts_present", right, case).status == "pass"


def test_an_italian_fact_under_non_e_vero_che_is_not_stated() -> None:
    case = good_case(
        question="Quanto dura la prova?",
        expect={"facts": ["la prova dura 14 giorni"], "language": "it"},
    )
    assert run("facts_present", "Non è vero che la prova dura 14 giorni.", case).status == "fail"
    assert run("facts_present", "La prova dura 14 giorni, senza carta.", case).status == "pass"


def test_stated_text_blanks_only_what_is_not_stated() -> None:
    text = "Is the trial 14 days? Good question. The trial lasts 14 days."
    kept = stated_text(text, "en")
    assert len(kept) == len(text) and kept.endswith("The trial lasts 14 days.")
    assert "14" not in kept[: text.index("Good")]
    # Answered yes right after, the question states what it asks.
    assert stated_text("Is the trial 14 days? Yes.", "en").startswith("Is the trial 14 days?")
    assert claims("The trial lasts 14 days.", "trial lasts 14 days", lang="en")


def test_a_retired_figure_denied_or_named_as_archived_is_no_current_claim() -> None:
    case = good_case(
        question="Ho il Plus, non il Base. Cambia qualcosa?",
        expect={"forbidden_figures": ["300 €"], "language": "it"},
    )
    for right in (
        "Sì: con il Plus la franchigia è di 50 €, non 300 € [doc:pricing#plans].",
        "I 300 € erano del listino 2025, ormai archiviato [doc:pricing#plans].",
    ):
        assert run("no_forbidden", right, case).status == "pass", right
    assert run("no_forbidden", "Con il Plus la franchigia è di 300 €.", case).status == "fail"


def test_a_review_detail_quotes_the_answers_own_words_not_stems() -> None:
    case = good_case(
        question="Is there phone support on Pro?",
        expect={"facts": ["phone support only on enterprise plans"]},
    )
    r = run("facts_present", "Sorry, phone support is Enterprise-only on our side.", case)
    assert r.status in ("review", "fail")
    if r.status == "review":
        assert "Enterprise" in r.detail and "enterpris," not in r.detail
        assert "onli" not in r.detail
    synonyms = SuiteSettings(synonyms=(("switch off", "deactivate"),))
    inp = CheckInput(
        Case(good_case(expect={"facts": ["admins switch off automatic approval in settings"]})),
        Reply(answer="In Settings an admin can deactivate it."),
        synonyms,
    )
    r = REGISTRY["facts_present"].fn(inp)
    assert r.status == "review" and "(its words Settings, admin, deactivate are there)" in r.detail


@pytest.mark.parametrize(
    ("text", "lang"),
    [
        ("Ja, dat klopt: Plus kost 29 € per maand.", "nl"),
        ("Helaas niet. Het eigen risico is 50 euro per schadegeval.", "nl"),
        ("Sì, il Plus costa 59 € al mese.", "it"),
        ("Rispondiamo entro 48 ore.", "it"),
        ("Wir antworten innerhalb von 2 Werktagen.", "de"),
        ("Desværre ikke: selvrisikoen er 50 euro pr. skade.", "da"),
        ("Infelizmente não: a franquia é de 50 € por sinistro.", "pt"),
        ("Yes, Plus costs 29 € per month.", "en"),
    ],
)
def test_short_answers_are_detected_in_their_language(text: str, lang: str) -> None:
    assert detect(text) == lang


def test_a_leading_no_ends_its_sentence_but_a_numbered_no_does_not() -> None:
    from evals.checks.text import sentences

    said = [s.strip() for _, s in sentences("No. The trial lasts 14 days. See No. 5 below.")]
    assert said == ["No.", "The trial lasts 14 days.", "See No. 5 below."]


# One ticket per language, as a subscription service gets them: a correct answer (as an
# assistant writes it: other words, figures in words, the retired figure named to correct it)
# and a wrong one (the retired figure as current, the fact negated, the wrong duration).
LANGUAGE_CASES = [
    (
        "it",
        "Entro quanto mi ridate la cauzione? Il volantino diceva 5 giorni.",
        ["cauzione restituita"],
        ["14 days"],
        ["5 days"],
        "La cauzione ti viene restituita entro quattordici giorni dalla riconsegna; i 5 giorni "
        "del volantino non valgono più.",
        "La cauzione non viene restituita: la tratteniamo per 5 giorni.",
    ),
    (
        "nl",
        "Hoe snel krijg ik mijn borg terug? Op de oude folder stond 5 dagen.",
        ["borg terug"],
        ["14 days"],
        ["5 days"],
        "Je krijgt je borg binnen veertien dagen terug; de 5 dagen uit de gearchiveerde folder "
        "gelden niet meer.",
        "Je krijgt je borg niet terug binnen 14 dagen, maar binnen 5 dagen.",
    ),
    (
        "de",
        "Wie lange dauert die Rückzahlung der Kaution? Früher hieß es 5 Tage.",
        ["kaution zurück"],
        ["10 working days"],
        ["5 days"],
        "Sie bekommen die Kaution innerhalb von 10 Arbeitstagen zurück; die 5 Tage gelten nicht mehr.",
        "Die Kaution bekommen Sie in 5 Tagen zurück.",
    ),
    (
        "pt",
        "Quando recebo a caução de volta? Disseram-me 5 dias.",
        ["caução devolvida"],
        ["14 days"],
        ["5 days"],
        "A caução é devolvida em catorze dias; os 5 dias já não são válidos.",
        "A caução não é devolvida: fica retida 5 dias.",
    ),
    (
        "da",
        "Hvornår får jeg mit depositum tilbage? Der stod 5 dage før.",
        ["depositum tilbage"],
        ["14 days"],
        ["5 days"],
        "Du får dit depositum tilbage inden for fjorten dage; de 5 dage gælder ikke længere.",
        "Du får ikke dit depositum tilbage inden for 14 dage, men efter 5 dage.",
    ),
    (
        "fr",
        "Quand la caution est-elle remboursée ? On m'a dit 5 jours.",
        ["caution remboursée"],
        ["14 days"],
        ["5 days"],
        "La caution est remboursée sous quatorze jours ; les 5 jours ne sont plus valables.",
        "La caution n'est pas remboursée avant 5 jours.",
    ),
    (
        "es",
        "¿Cuándo me devuelven la fianza? Me dijeron 5 días.",
        ["fianza devuelta"],
        ["14 days"],
        ["5 days"],
        "La fianza es devuelta en catorce días; los 5 días ya no son válidos.",
        "La fianza no es devuelta: se retiene 5 días.",
    ),
    (
        "en",
        "When do I get my deposit back? The old flyer said 5 days.",
        ["deposit returned"],
        ["10 business days"],
        ["5 days"],
        "Your deposit is returned within ten working days; the 5 days on the flyer no longer apply.",
        "Your deposit is returned within 5 days.",
    ),
]


@pytest.mark.parametrize(
    ("lang", "question", "facts", "figures", "banned", "right", "wrong"), LANGUAGE_CASES
)
def test_each_language_passes_a_correct_answer_and_fails_a_wrong_one(
    lang: str,
    question: str,
    facts: list[str],
    figures: list[str],
    banned: list[str],
    right: str,
    wrong: str,
) -> None:
    case = good_case(
        question=question,
        retrieved=[],
        expect={"facts": facts, "figures": figures, "forbidden_figures": banned, "language": lang},
    )
    names = ("facts_present", "figures_expected", "no_forbidden", "answer_language")
    verdicts = {n: run(n, right, case) for n in names}
    assert all(r.status == "pass" for r in verdicts.values()), verdicts
    # Every wrong answer states the retired 5 days as current ("not before 5 days" too).
    assert run("no_forbidden", wrong, case).status == "fail"


def test_an_expected_figure_only_asked_about_is_not_stated() -> None:
    case = good_case(expect={"figures": ["14 days"]})
    asked = "Is it true that the trial lasts 14 days? I cannot say."
    assert run("figures_expected", asked, case).status == "fail"
    assert run("figures_expected", "Yes: the trial lasts 14 days.", case).status == "pass"


@pytest.mark.parametrize("lang", SUPPORTED)
def test_a_phrasing_sits_in_one_equivalence_group_of_its_language(lang: str) -> None:
    from evals.checks.matching import tokens

    seen: dict[tuple[str, ...], int] = {}
    for i, group in enumerate(lexicon(lang).equivalences):
        # Two phrasings at least that read differently: else the group joins nothing.
        assert len({tokens(p, lang, general=False) for p in group}) >= 2, group
        for phrasing in group:
            key = tokens(phrasing, lang, general=False)
            assert seen.setdefault(key, i) == i, f"{lang}: {phrasing!r} in two groups"


@pytest.mark.parametrize("lang", SUPPORTED)
def test_a_negated_equivalence_is_long_enough_not_to_swallow_a_negation(lang: str) -> None:
    # "without charge" would read "not charged pro rata" as "free of charge pro rata".
    from evals.checks.matching import NEG, tokens

    for group in lexicon(lang).equivalences:
        for phrasing in group:
            words = tokens(phrasing, lang, general=False)
            if NEG in words:
                assert len([w for w in words if w != NEG]) >= 2, f"{lang}: {phrasing!r}"


def test_an_ordinal_in_words_is_no_duration() -> None:
    assert parse_figures("La disdetta ha effetto alla fine del terzo mese.", "it") == []
    (three,) = parse_figures("La durata minima è di tre mesi.", "it")
    assert (three.kind, three.value) == ("duration", Decimal(3))


def test_a_sentence_that_only_supposes_after_the_answer_is_not_stated() -> None:
    text = (
        "Die Restlaufzeit beträgt mehr als 1,5 Jahre, deshalb zahlen Sie 100 €. "
        "Erst bei einer Restlaufzeit bis 1,5 Jahre wären es 50 €."
    )
    kept = stated_text(text, "de")
    assert "100 €" in kept and "50 €" not in kept
    # Said first, a supposing sentence is the answer itself: it stays.
    alone = "Erst bei einer Restlaufzeit bis 1,5 Jahre wären es 50 €."
    assert stated_text(alone, "de") == alone


@pytest.mark.parametrize(
    ("lang", "text", "phrase"),
    [
        ("nl", "Of je meterstand klopt, kan ik niet zien.", "je meterstand klopt"),
        ("nl", "Ik kan niet zien of je meterstand klopt.", "je meterstand klopt"),
        ("it", "Non posso verificare se la lettura è corretta.", "la lettura è corretta"),
        ("en", "I cannot check if the reading is correct.", "the reading is correct"),
    ],
)
def test_what_the_answer_says_it_cannot_tell_is_no_claim(lang: str, text: str, phrase: str) -> None:
    assert not claims(text, phrase, lang=lang)


def test_a_dutch_or_inside_a_sentence_still_claims() -> None:
    assert claims("Stroom of gas: je meterstand klopt.", "je meterstand klopt", lang="nl")
