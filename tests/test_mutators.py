"""Each mutation operator on hand-made answers: what it changes, and when it does not apply."""

from __future__ import annotations

from typing import Any

import pytest

from evals.checks.grading import grade, outcome
from evals.mutate.answer import Answer, CaseContext
from evals.mutate.operators import OPERATORS, invariant_ids, make_variants, mutant_ids
from evals.mutate.registry import Variant
from evals.mutate.text import citation_template, find_figures, split_sentences
from evals.reply import Reply
from evals.suite.case import Case
from evals.suite.folder import SuiteSettings

SETTINGS = SuiteSettings()

PLANS = [
    {
        "ref": "pricing#plans",
        "text": "The Starter plan costs 39 € per month. The Pro plan costs 45 € per month. "
        "The Business plan costs 90 € per month.",
    },
    {"ref": "pricing#trial", "text": "Every plan starts with a trial of 14 days."},
    {
        "ref": "legal#terms",
        "text": "Invoices are issued on 1 March 2025 and payable within 30 days.",
    },
]


def make_case(**over: Any) -> Case:
    data: dict[str, Any] = {
        "id": "c1",
        "question": "What does the Pro plan cost?",
        "retrieved": PLANS,
        "expect": {"facts": ["45 €"], "sources": ["pricing#plans"]},
        "reference": "The Pro plan costs 45 € per month [doc:pricing#plans].",
    }
    data.update(over)
    return Case(data)


def run_op(op: str, case: Case, answer: str | None = None) -> list[Variant]:
    ctx = CaseContext(case, SETTINGS)
    return OPERATORS[op].fn(case, Answer(answer or case.data["reference"], ctx), ctx)


def status_of(case: Case, text: str, abstained: bool | None = None) -> str:
    return outcome(grade(case, Reply(answer=text, abstained=abstained), SETTINGS)).status


def test_operator_ids_are_stable() -> None:
    assert mutant_ids() == [
        "number_swap",
        "negation",
        "fact_sentence_deleted",
        "forbidden_inserted",
        "citations_removed",
        "citation_moved",
        "citation_unretrieved",
        "refusal",
        "confident_answer",
        "entity_swap",
    ]
    assert invariant_ids() == ["whitespace", "punctuation", "letter_case", "sentence_order"]


def test_figures_are_typed_so_a_time_is_never_a_price() -> None:
    figs = find_figures("At 21:45 it costs 45 €, 20 %, 14 days, on 1 March 2025 or 2025-03-01.")
    assert [(f.kind, f.text) for f in figs] == [
        ("time", "21:45"),
        ("money", "45 €"),
        ("percent", "20 %"),
        ("qty:day", "14 days"),
        ("date", "1 March 2025"),
        ("date", "2025-03-01"),
    ]


def test_number_swap_prefers_the_wrong_plans_price_from_the_passages() -> None:
    [v] = run_op("number_swap", make_case())
    assert v.text == "The Pro plan costs 39 € per month [doc:pricing#plans]."
    assert "from the passages" in v.note


def test_number_swap_keeps_kinds_apart() -> None:
    case = make_case(
        expect={"facts": ["14 days"], "sources": ["pricing#trial"]},
        reference="The trial lasts 14 days [doc:pricing#trial] and invoices are due within 30 days "
        "[doc:legal#terms].",
    )
    texts = [v.text for v in run_op("number_swap", case)]
    # 14 days -> 30 days (a day count from the passages), never a price or a date
    assert texts[0].startswith("The trial lasts 30 days")
    assert all("€" not in t for t in texts)


def test_number_swap_falls_back_to_a_nearby_value() -> None:
    case = make_case(
        retrieved=[{"ref": "p", "text": "Support answers within 4 hours."}],
        expect={"facts": ["4 hours"]},
        reference="We answer within 4 hours [doc:p].",
    )
    [v] = run_op("number_swap", case)
    assert v.text == "We answer within 5 hours [doc:p]."
    assert "nearby" in v.note


def test_number_swap_leaves_figures_from_the_question_alone() -> None:
    case = make_case(
        question="My shift starts at 21:45, what is the surcharge?",
        retrieved=[{"ref": "p", "text": "Night shifts carry 45 € or, archived, 39 €."}],
        expect={"mentions": ["45"]},
        reference="For the shift at 21:45 the surcharge is 45 € [doc:p].",
    )
    [v] = run_op("number_swap", case)
    assert v.text == "For the shift at 21:45 the surcharge is 39 € [doc:p]."


def test_number_swap_times_and_dates_keep_their_kind() -> None:
    case = make_case(
        retrieved=[{"ref": "p", "text": "Doors open at 09:00 and close at 18:30."}],
        expect={"facts": ["18:30"]},
        reference="We close at 18:30 [doc:p].",
    )
    [v] = run_op("number_swap", case)
    assert v.text == "We close at 09:00 [doc:p]."
    case = make_case(
        expect={"facts": ["1 March 2025"]},
        reference="Invoices go out on 1 March 2025 [doc:legal#terms].",
    )
    [v] = run_op("number_swap", case)
    assert v.text == "Invoices go out on 2 March 2025 [doc:legal#terms]."


def test_number_swap_does_not_apply_without_figures() -> None:
    assert (
        run_op("number_swap", make_case(), "Yes, the Pro plan is available [doc:pricing#plans].")
        == []
    )


def test_negation_is_inserted_next_to_the_fact() -> None:
    [v] = run_op("negation", make_case())
    assert v.text == "The Pro plan does not cost 45 € per month [doc:pricing#plans]."


def test_negation_is_removed_when_the_fact_sentence_has_one() -> None:
    case = make_case(
        expect={"facts": ["refund"]}, reference="Annual plans are not eligible for a refund."
    )
    [v] = run_op("negation", case)
    assert v.text == "Annual plans are eligible for a refund."


def test_fact_sentence_deleted_removes_every_sentence_with_that_fact() -> None:
    ref = "Hello. The Pro plan costs 45 € [doc:pricing#plans]. Again: 45 € a month. Thanks."
    [v] = run_op("fact_sentence_deleted", make_case(), ref)
    assert v.text == "Hello. Thanks."


def test_forbidden_phrase_is_inserted() -> None:
    case = make_case(expect={"facts": ["45 €"], "must_not_contain": ["free forever"]})
    [v] = run_op("forbidden_inserted", case)
    assert v.text.endswith("[doc:pricing#plans]. free forever.")
    assert run_op("forbidden_inserted", make_case()) == []


def test_citation_operators() -> None:
    case = make_case()
    [removed] = run_op("citations_removed", case)
    assert removed.text == "The Pro plan costs 45 € per month."
    [moved] = run_op("citation_moved", case)
    assert moved.text == "The Pro plan costs 45 € per month [doc:pricing#trial]."
    [fake] = run_op("citation_unretrieved", case)
    assert fake.text == "The Pro plan costs 45 € per month [doc:pricing#plans-archived]."
    assert run_op("citations_removed", case, "The Pro plan costs 45 €.") == []


def test_citation_moved_never_moves_to_another_expected_source() -> None:
    case = make_case(retrieved=PLANS[:2], expect={"sources": ["pricing#plans", "pricing#trial"]})
    assert run_op("citation_moved", case) == []


def test_citations_follow_a_custom_pattern() -> None:
    settings = SuiteSettings(citation_pattern=r"\(see ([a-z#]+)\)")
    assert citation_template(settings.citation_pattern) == "(see {ref})"
    case = make_case(reference="The Pro plan costs 45 € (see pricing#plans).")
    ctx = CaseContext(case, settings)
    [v] = OPERATORS["citation_unretrieved"].fn(case, Answer(case.data["reference"], ctx), ctx)
    assert v.text == "The Pro plan costs 45 € (see pricing#plansx)."


def test_refusal_for_answerable_and_confident_answer_for_abstain_cases() -> None:
    case = make_case()
    [r] = run_op("refusal", case)
    assert r.abstained is None and status_of(case, r.text) == "fail"
    assert run_op("confident_answer", case) == []
    abstain = make_case(expect={"abstain": True}, reference="I don't know; I'll hand this over.")
    assert run_op("refusal", abstain) == []
    [c] = run_op("confident_answer", abstain)
    assert c.text.startswith("The Starter plan costs 39 € per month. [doc:pricing#plans]")
    assert status_of(abstain, c.text) == "fail"  # recognised as an answer, not a refusal


def test_entity_swap_picks_a_name_seen_in_the_same_place() -> None:
    [v] = run_op("entity_swap", make_case())
    # "Pro plan" -> "Starter plan": both stand before "plan" in the passages
    assert v.text == "The Starter plan costs 45 € per month [doc:pricing#plans]."


def test_entity_swap_ignores_capitals_that_only_start_sentences() -> None:
    case = make_case(
        retrieved=[{"ref": "p", "text": "Refunds take 5 days. Invoices follow."}],
        reference="Refunds take 5 days [doc:p].",
    )
    assert run_op("entity_swap", case) == []


def test_invariants_keep_the_meaning() -> None:
    case = make_case(
        reference="The Pro plan costs 45 € per month [doc:pricing#plans]. "
        "It includes 5 users [doc:pricing#plans]."
    )
    [ws] = run_op("whitespace", case)
    assert (
        ws.text == "\n  The Pro plan costs 45 € per month [doc:pricing#plans].\n"
        "It includes 5 users [doc:pricing#plans].  \n"
    )
    [p] = run_op("punctuation", case)
    assert p.text.endswith("[doc:pricing#plans]")
    [lc] = run_op("letter_case", make_case(reference="The Pro plan [doc:Pricing]."))
    assert lc.text == "the pro plan [doc:Pricing]."
    [so] = run_op("sentence_order", case)
    assert (
        so.text == "It includes 5 users [doc:pricing#plans]. "
        "The Pro plan costs 45 € per month [doc:pricing#plans]."
    )


def test_sentence_order_leaves_steps_and_detached_citations_alone() -> None:
    steps = "First open Settings. Then choose Billing."
    assert run_op("sentence_order", make_case(), steps) == []
    detached = "The Pro plan costs 45 € a month. See the price list [doc:pricing#plans]."
    assert run_op("sentence_order", make_case(), detached) == []


def test_a_citation_after_the_full_stop_stays_with_its_sentence() -> None:
    text = "It costs 45 €. [doc:a] It has 5 users. [doc:b]"
    case = make_case()
    ctx = CaseContext(case, SETTINGS)
    ans = Answer(text, ctx)
    assert [text[s:e].strip() for s, e in split_sentences(text, ans.cites)] == [
        "It costs 45 €. [doc:a]",
        "It has 5 users. [doc:b]",
    ]


@pytest.mark.parametrize("op", ["whitespace", "punctuation", "letter_case", "sentence_order"])
def test_invariants_never_fail_sound_checks(op: str) -> None:
    case = make_case(
        expect={
            "facts": ["45 €", "5 users"],
            "mentions": [r"(?i)\bpro\b", r"\b45\s?€"],
            "sources": ["pricing#plans"],
            "must_not_contain": ["39 €"],
        },
        reference="The Pro plan costs 45 € per month [doc:pricing#plans]. It includes 5 users "
        "[doc:pricing#plans].",
        # "5 users" is in no passage (figures_supported would say so); the invariants are
        # about the form of an answer, so the claim-support check stays out of this one.
        checks=[
            "facts_present",
            "mentions_expected",
            "no_forbidden",
            "sources_cited",
            "citations_resolve",
            "no_unsourced_number",
        ],
    )
    assert status_of(case, case.data["reference"]) == "pass"
    variants = run_op(op, case)
    assert variants
    for v in variants:
        assert status_of(case, v.text, v.abstained) == "pass", v.text


def test_every_mutant_of_a_well_checked_case_fails() -> None:
    case = make_case(
        expect={
            "facts": ["costs 45 €"],
            "mentions": [r"(?i)\bpro\b"],
            "sources": ["pricing#plans"],
            "must_not_contain": ["39 €"],
        },
    )
    ctx = CaseContext(case, SETTINGS)
    made = make_variants(case, case.data["reference"], ctx).by_operator
    for op in mutant_ids():
        for v in made[op]:
            assert status_of(case, v.text, v.abstained) == "fail", (op, v.text)
    assert made["number_swap"] and made["entity_swap"] and made["negation"]


def test_facts_matched_only_inside_the_tickets_own_figures_are_not_anchors() -> None:
    case = make_case(
        question="My shift starts at 21:45, what is the surcharge?",
        retrieved=[{"ref": "p", "text": "Night shifts carry 45 € or, archived, 39 €."}],
        expect={"mentions": ["45"]},
        reference="For the shift at 21:45 the surcharge is 45 € [doc:p].",
    )
    [v] = run_op("negation", case)
    assert v.text == "For the shift at 21:45 the surcharge is not 45 € [doc:p]."
    ctx = CaseContext(case, SETTINGS)
    spans = Answer(case.data["reference"], ctx).fact_spans
    assert [(label, case.data["reference"][s:e]) for label, s, e in spans] == [
        ("mention /45/", "45")
    ]
    assert spans[0][1] > case.data["reference"].index("€") - 4


def test_negate_speaks_the_answers_language() -> None:
    from evals.mutate.words import negate

    assert negate("We refund within 14 days.", 17) == "We do not refund within 14 days."
    assert negate("Das ist möglich.", 8) == "Das ist nicht möglich."
    assert negate("Un administrador puede exportar en CSV.", 30) == (
        "Un administrador no puede exportar en CSV."
    )
    assert negate("Le pointage hors ligne est possible.", 30) == (
        "Le pointage hors ligne n'est pas possible."
    )
    assert negate("Il ne peut pas pointer.", 10) == "Il peut pointer."
    assert negate("Please ask an admin.", 10) == "Please do not ask an admin."


def test_negation_leaves_the_no_of_unless_alone_and_flips_the_claim() -> None:
    from evals.mutate.words import negate

    it = "La riparazione è gratuita, a meno che non si tratti di un danno tuo."
    assert negate(it, 5, "it") == (
        "La riparazione non è gratuita, a meno che non si tratti di un danno tuo."
    )
    pt = "A reparação é gratuita, a não ser que o dano seja seu."
    assert negate(pt, 5, "pt") == "A reparação não é gratuita, a não ser que o dano seja seu."
    assert negate("Il reso non è gratuito.", 5, "it") == "Il reso è gratuito."


def test_negation_of_a_fact_that_names_its_subject_first_goes_to_the_verb() -> None:
    case = make_case(
        expect={"mentions": [r"(?i)\bpro\b[^.]*\bcosts\s+45\s?€"]},
        reference="An extra Pro seat costs 45 € per month [doc:pricing#plans].",
    )
    [v] = run_op("negation", case)
    assert v.text == "An extra Pro seat does not cost 45 € per month [doc:pricing#plans]."


def test_entity_swap_never_lists_a_name_beside_itself() -> None:
    retrieved = [
        {"ref": "p", "text": "Im Tarif Starter kostet ein Platz 29 € pro Platz und Monat."},
        {"ref": "q", "text": "Im Tarif Pro kostet ein Platz 45 € pro Platz und Monat."},
    ]
    case = make_case(
        retrieved=retrieved,
        expect={"mentions": [r"\b45\s?€"], "sources": ["q"]},
        reference="Im Tarif Pro kostet ein Platz 45 € pro Platz und Monat [doc:q].",
    )
    notes = [v.note for v in run_op("entity_swap", case)]
    assert "Platz -> Monat" not in notes and "Monat -> Platz" not in notes
    assert notes == ["Tarif Pro -> Tarif Starter"]


def test_a_fact_written_with_other_typography_is_still_located_and_deleted() -> None:
    case = make_case(
        expect={"facts": ["45 €", "don't need a card"], "sources": ["pricing#plans"]},
        reference="The Pro plan costs 45€ per month [doc:pricing#plans]. "
        "You don\u2019t need a card [doc:pricing#trial].",
    )
    variants = run_op("fact_sentence_deleted", case)
    assert [v.text for v in variants] == [
        "You don\u2019t need a card [doc:pricing#trial].",
        "The Pro plan costs 45€ per month [doc:pricing#plans].",
    ]
    assert all(status_of(case, v.text) == "fail" for v in variants)


def test_currency_codes_hyphens_and_spaced_thousands_keep_their_kind() -> None:
    kinds = {
        f.text: (f.kind, f.value)
        for f in find_figures("EUR 45, a 30-day trial, 2 000 € a year, 30 jours, 15 pour cent")
    }
    assert kinds == {
        "EUR 45": ("money", "45"),
        "30-day": ("qty:day", "30"),
        "2 000 €": ("money", "2000"),
        "30 jours": ("qty:jour", "30"),
        "15 pour cent": ("percent", "15"),
    }
    case = make_case(
        retrieved=[
            {"ref": "p", "text": "Starter costs EUR 29 per seat. Pro costs EUR 45 per seat."}
        ],
        expect={"mentions": [r"\bEUR 45\b"], "sources": ["p"]},
        reference="Pro costs EUR 45 per seat [doc:p].",
    )
    [v] = run_op("number_swap", case)
    assert v.text == "Pro costs EUR 29 per seat [doc:p]." and "money" in v.note


GERMAN_ANNUAL = make_case(
    question="Wie viel spare ich jährlich?",
    retrieved=[{"ref": "pricing#annual", "text": "Bei jährlicher Zahlung sparen Sie 15 %."}],
    expect={"facts": ["15 %"], "sources": ["pricing#annual"]},
    reference="Wenn Sie jährlich zahlen, sparen Sie 15 % [doc:pricing#annual].",
    context={"locale": "de"},
)


def test_negation_never_writes_english_into_a_german_answer() -> None:
    from evals.mutate.registry import NotApplicable

    # No German auxiliary to negate: skipped, with the reason, rather than "Wenn Sie not ...".
    try:
        variants = run_op("negation", GERMAN_ANNUAL)
    except NotApplicable as why:
        assert "'de'" in str(why)
    else:
        raise AssertionError(f"expected a skip, got {[v.text for v in variants]}")
    german = make_case(
        reference="Der Zuschlag gilt ab 22:00 [doc:pricing#plans].",
        expect={"facts": ["22:00"], "sources": ["pricing#plans"]},
        context={"locale": "de-DE"},
    )
    [v] = run_op("negation", german)
    assert v.text == "Der Zuschlag gilt nicht ab 22:00 [doc:pricing#plans]."


def test_the_case_language_comes_from_locale_then_tags_then_the_text() -> None:
    from evals.mutate.answer import case_language

    assert case_language(make_case(context={"locale": "fr_CA"})) == "fr"
    assert case_language(make_case(tags=["billing", "spanish"])) == "es"
    assert case_language(make_case(question="Was kostet ein Platz und wie ist die Frist?")) == "de"
    assert case_language(make_case()) == "en"


def test_with_a_language_negate_uses_only_its_words() -> None:
    from evals.mutate.words import negate

    assert negate("Wenn Sie jährlich zahlen, sparen Sie 15 %.", 30, "de") is None
    assert negate("Der Export ist möglich.", 10, "de") == "Der Export ist nicht möglich."
    assert negate("Sie bekommen keinen Zuschlag.", 10, "de") == "Sie bekommen Zuschlag."
    assert negate("Los datos se borran a los 30 días.", 20, "es") == (
        "Los datos no se borran a los 30 días."
    )
    assert negate("Los datos no se borran.", 10, "es") == "Los datos se borran."
    assert negate("Vous payez 45 € par mois.", 12, "fr") is None
    # English rules only: "son" is a Spanish verb, not a place for "no" in English.
    assert negate("My son costs nothing.", 3, "en") == "My son does not cost nothing."


def test_a_language_without_negation_rules_is_skipped_with_the_reason(tmp_path) -> None:
    from evals.mutate.engine import GoodAnswer, mutate_case

    case = make_case(context={"locale": "it"})
    report = mutate_case(case, SETTINGS, [GoodAnswer("reference", case.data["reference"])])
    assert report.operator_status("negation") == "n/a"
    assert any("negation not applied" in n and "'it'" in n for n in report.notes)


@pytest.mark.parametrize(
    ("lang", "sentence", "flipped"),
    [
        ("it", "La riparazione è gratuita per il piano Plus.", "La riparazione non è gratuita"),
        ("it", "La riparazione non è gratuita.", "La riparazione è gratuita."),
        ("pt", "A bateria extra custa 9 € por mês.", "A bateria extra não custa 9 €"),
        ("pt", "O Cargo não tem bateria extra.", "O Cargo tem bateria extra."),
        ("nl", "De reparatie is gratis binnen 48 uur.", "De reparatie is niet gratis"),
        ("nl", "U betaalt geen opzegkosten.", "U betaalt opzegkosten."),
        ("da", "Reparationen er gratis.", "Reparationen er ikke gratis."),
    ],
)
def test_negation_is_written_in_the_case_language(lang: str, sentence: str, flipped: str) -> None:
    from evals.mutate.words import negate

    out = negate(sentence, 3, lang)
    assert out is not None and out.startswith(flipped), out


def test_negation_makes_no_variant_where_no_verb_can_take_it() -> None:
    from evals.mutate.words import negate

    # The old fallback put "not" before any word: "Sorry to hear that.not  Report the theft".
    assert negate("Sorry to hear that. Report the theft to the police.", 20, "en") is None
    assert negate("Grazie per la pazienza!", 3, "it") is None


def test_number_swap_leaves_numbers_inside_names_and_swaps_dates_as_dates() -> None:
    case = make_case(
        question="Il volantino dice 35 € al mese. È ancora valido?",
        retrieved=[
            {
                "ref": "listino#archivio-2025",
                "text": "ARCHIVIATO. Listino 2025, valido fino al 31 gennaio 2026. Base: 35 €.",
            },
            {"ref": "listino#piani", "text": "Dal 1° febbraio 2026 il piano Base costa 39 €."},
        ],
        expect={"facts": ["39 €"], "sources": ["listino#piani"], "language": "it"},
        reference="No: quel prezzo viene dal listino 2025, valido fino al 31 gennaio 2026 "
        "[doc:listino#archivio-2025]. Oggi il piano Base costa 39 € al mese [doc:listino#piani].",
    )
    notes = [v.note for v in run_op("number_swap", case)]
    assert not any(n.startswith("2025 ->") for n in notes), notes
    dates = [n for n in notes if "(date," in n]
    assert dates and dates[0].startswith("31 gennaio 2026 -> 1° febbraio 2026"), notes


@pytest.mark.parametrize(
    "text",
    ["31 januari 2026", "1° aprile 2026", "15 de março de 2026", "3. Oktober 2026"],
)
def test_dates_of_every_language_are_one_date_figure(text: str) -> None:
    [fig] = find_figures(f"Tot {text} geldig.")
    assert (fig.kind, fig.text) == ("date", text)


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("entro 5 giorni lavorativi", "qty:giorni"),
        ("binnen 48 uur", "qty:uur"),
        ("innerhalb von 10 Arbeitstagen", "qty:arbeitstagen"),
        ("a 6-digit code", "qty:digit"),
    ],
)
def test_durations_and_counts_of_every_language_keep_their_unit(text: str, kind: str) -> None:
    [fig] = find_figures(text)
    assert fig.kind == kind


def test_entity_swap_takes_a_sibling_plan_not_a_word_after_a_comma() -> None:
    passages = [
        {
            "ref": "pt/acessorios",
            "text": "Segunda bateria: 9 € por mês. Disponível apenas para Base e Plus.",
        },
        {
            "ref": "pt/precos",
            "text": "Os planos custam: Base 39 € por mês, Plus 59 € por mês, Cargo 89 € por mês, "
            "IVA incluído.",
        },
    ]
    case = make_case(
        question="Posso ter uma segunda bateria no Cargo?",
        retrieved=passages,
        expect={"facts": ["9 €"], "sources": ["pt/acessorios"], "language": "pt"},
        reference="Não: a segunda bateria é só para Base e Plus [doc:pt/acessorios], não para o "
        "Cargo. Custa 9 € por mês [doc:pt/acessorios].",
    )
    notes = [v.note for v in run_op("entity_swap", case)]
    # "IVA" follows "mês," as "Plus" does: a clause boundary, not a shared context.
    assert notes and all("IVA" not in n for n in notes), notes


def test_a_negation_in_a_verb_second_language_goes_where_a_speaker_puts_it() -> None:
    from evals.mutate.words import negate

    # After the subject that follows the verb, not between them.
    assert negate("Nu kost Max 64,50 € per maand.", 20, "nl") == (
        "Nu kost Max niet 64,50 € per maand."
    )
    assert negate("Van maandag tot donderdag zijn dat 3 volledige dagen.", 40, "nl") == (
        "Van maandag tot donderdag zijn dat niet 3 volledige dagen."
    )
    # A negation at the clause's end is removed, never doubled; "no longer" becomes "still".
    assert negate("Dat kan niet.", 8, "nl") == "Dat kan."
    assert negate("Die prijs geldt niet meer.", 15, "nl") == "Die prijs geldt nog steeds."
    assert negate("Der Preis gilt nicht mehr.", 15, "de") == "Der Preis gilt noch."
    # Verb-last clauses and an article after the verb leave no place: no variant.
    assert negate("Nadat we de fiets hebben gecontroleerd, krijg je de borg.", 30, "nl") is None
    assert negate("Op zondag is de klantenservice gesloten.", 30, "nl") is None
    assert negate("Das ist möglich.", 10, "de") == "Das ist nicht möglich."


def test_an_italian_negation_goes_before_the_verbs_clitic() -> None:
    from evals.mutate.words import negate

    assert negate("Il servizio c'è anche la domenica.", 20, "it") == (
        "Il servizio non c'è anche la domenica."
    )


def test_a_negation_a_second_negative_word_agrees_with_is_not_dropped() -> None:
    from evals.mutate.words import negate

    assert negate("A 10 giorni non paga nessuna indennità.", 20, "it") is None
    assert negate("Il reso non è gratuito.", 5, "it") == "Il reso è gratuito."


def test_german_nouns_are_no_names_to_swap_but_priced_or_listed_plans_are() -> None:
    from evals.mutate.words import name_candidates

    names = name_candidates(
        (
            "Die Selbstbeteiligung bei Diebstahl beträgt 150 €. Die Kaution wird in jeder Stadt "
            "erstattet. Im Tarif Power kostet das Rad 49 €, Cargo 69 €.",
        )
    )
    assert "Selbstbeteiligung" not in names.contexts and "Kaution" not in names.contexts
    assert {"Tarif Power", "Cargo"} <= set(names.contexts)


def test_not_yet_and_not_only_give_no_variant() -> None:
    from evals.mutate.words import negate

    assert negate("Noch nicht: Die Mindestlaufzeit beträgt 12 Monate.", 30, "de") is None
    assert negate("Non ancora: l'upgrade è possibile dopo 12 mesi.", 30, "it") is None
    assert negate("Theft is only covered if you report it within 3 days.", 20, "en") is None


def test_a_german_list_of_nouns_is_no_list_of_names() -> None:
    from evals.mutate.words import name_candidates

    names = name_candidates(
        ("Die Gebühr beträgt 5 € pro Gerät und Monat, bei Plus 49 € und Pro 0 €.",)
    )
    assert "Monat" not in names.contexts and "Gerät" not in names.contexts
    assert {"Plus", "Pro"} <= set(names.contexts)


def test_a_bare_no_without_its_verb_and_a_hyphened_noun_give_no_odd_variant() -> None:
    from evals.mutate.words import name_candidates, negate

    assert negate("Nee, helaas niet samen.", 10, "nl") is None
    names = name_candidates(("Die Gebühr enthält die Kfz-Steuer, bei Electric 29 €.",))
    assert "Kfz-Steuer" not in names.contexts and "Electric" in names.contexts


def test_a_models_number_is_part_of_its_name_but_a_price_or_a_year_is_not() -> None:
    from evals.mutate.words import name_candidates

    names = name_candidates(
        (
            "La Gas 24 costa 900 € dopo 3 anni, la Aria 8 costa 3.200 €. "
            "Il piano Plus costa 39 € al mese. Listino 2025 archiviato, come da Listino 2025.",
        )
    )
    assert {"Gas 24", "Aria 8", "Plus"} <= set(names.contexts)
    assert "Gas" not in names.contexts and "Plus 39" not in names.contexts
    assert not any("2025" in n for n in names.contexts)
