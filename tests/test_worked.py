"""A result the answer works out from cited inputs ("5 × 2,50 € [doc:a] = 12,50 €") is
sourced by them when the arithmetic holds, and unsourced when it does not."""

from __future__ import annotations

import pytest
from casekit import good_case

from evals.checks import REGISTRY, CheckInput, CheckResult
from evals.reply import Reply
from evals.suite.case import Case
from evals.suite.folder import SuiteSettings


def run(answer: str, question: str = "What does it cost?", lang: str | None = None) -> CheckResult:
    data = good_case(question=question)
    if lang:
        data["expect"]["language"] = lang
    case = Case(data)
    return REGISTRY["no_unsourced_number"].fn(
        CheckInput(case, Reply(answer=answer), SuiteSettings())
    )


@pytest.mark.parametrize(
    "answer",
    [
        "Five days cost 5 × 2,50 € [doc:pricing#plans] = 12,50 €.",
        "Two packs: 8 € [doc:pricing#plans] + 5 € [doc:pricing#plans] = 13 €.",
        "Per maand 18,50 € [doc:pricing#plans] plus 15 € [doc:pricing#plans] = 33,50 €. "
        "Over 24 maanden is dat 24 × 33,50 € = 804 €.",
        "It costs 12,99 € [doc:pricing#plans] with 20 % off [doc:pricing#plans]: "
        "12,99 € × 0,80 → 10,39 €.",
    ],
)
def test_a_result_worked_out_from_cited_inputs_needs_no_citation_of_its_own(answer: str) -> None:
    r = run(answer, "Wat kost het over 24 maanden?")
    assert r.status == "pass", r.detail


@pytest.mark.parametrize(
    ("answer", "bad"),
    [
        ("Five days cost 5 × 2,50 € [doc:pricing#plans] = 15 €.", "15 €"),
        ("Two packs: 8 € [doc:pricing#plans] + 5 € [doc:pricing#plans] = 14 €.", "14 €"),
        ("8 € [doc:pricing#plans] and 5 € [doc:pricing#plans]; you then pay 15 €.", "15 €"),
    ],
)
def test_a_result_the_arithmetic_does_not_give_stays_unsourced(answer: str, bad: str) -> None:
    r = run(answer)
    assert r.status == "fail" and bad in r.detail, r.detail


def test_a_total_given_bare_after_its_inputs_is_for_a_person() -> None:
    # No sign or word sets it after its inputs as their total: worked out in the head.
    r = run("8 € [doc:pricing#plans] and 5 € [doc:pricing#plans]; you then pay 13 €.")
    assert r.status == "review" and "13 €" in r.detail, r.detail


def test_a_date_moved_by_a_cited_term_is_worked_out_and_a_wrong_one_is_not() -> None:
    asked = "The code came on 20 November 2026. Does it still work?"
    right = "Codes last 7 days [doc:pricing#plans]: 20 November 2026 + 7 days = 27 November 2026."
    assert run(right, asked).status == "pass"
    # Moved on, then back by a term the next sentence cites: still worked out.
    chained = (
        "The term is 24 months [doc:pricing#plans] from 10 May 2025, so until 10 May 2027. "
        "Notice is 1 month [doc:pricing#plans], so cancel by 10 April 2027."
    )
    assert run(chained, "I signed on 10 May 2025.").status == "pass"
    wrong = "Codes last 7 days [doc:pricing#plans]: 20 November 2026 + 7 days = 28 November 2026."
    r = run(wrong, asked)
    assert r.status == "fail" and "28 November 2026" in r.detail


def test_a_forbidden_figure_as_a_term_of_a_worked_sum_is_no_claim() -> None:
    from evals.checks.values import parse_figures
    from evals.checks.worked import term_of_sum

    line = "Totaal: 24 × 18,50 € + 24 × 15 € = 444 € + 360 € = 804 €"
    terms = {f.text: term_of_sum(line, f) for f in parse_figures(line, "nl")}
    assert terms["444 €"] and terms["18,50 €"]
    # The result, and a figure said alone, are claims.
    assert not terms["804 €"]
    assert not term_of_sum(
        "Je betaalt 444 € in totaal.", parse_figures("Je betaalt 444 € in totaal.", "nl")[0]
    )


def test_a_worked_result_a_later_sum_takes_as_its_term_is_an_input_not_a_claim() -> None:
    from evals.checks.values import parse_figures
    from evals.checks.worked import worked_input

    text = "Soit 6,50 € + 5,80 € = 12,30 € par mois [doc:a]. Sur un an, 12,30 € × 12 = 147,60 € [doc:a]."
    figs = parse_figures(text, "fr")
    first = next(f for f in figs if f.text == "12,30 €")
    assert worked_input(text, first, figs)
    # Worked out and left as the answer's figure, it is a claim.
    alone = "9 × 100 kr. = 900 kr. [doc:a]"
    figs = parse_figures(alone, "da")
    assert not worked_input(alone, next(f for f in figs if f.text.startswith("900")), figs)


@pytest.mark.parametrize(
    ("text", "lang", "step"),
    [
        (
            "So 3 × 9.50 € = 28.50 €, then 3 × 19 € [doc:a] = 57 €, making 85.50 € in all.",
            "en",
            "57 €",
        ),
        ("Dus 2 × 12 € [doc:a] = 24 €, samen met de 5 € [doc:b] kom je op 29 €.", "nl", "24 €"),
    ],
)
def test_a_worked_result_a_total_gathers_in_its_sentence_is_an_input(
    text: str, lang: str, step: str
) -> None:
    from evals.checks.values import parse_figures
    from evals.checks.worked import worked_input

    figs = parse_figures(text, lang)
    assert worked_input(text, next(f for f in figs if f.text == step), figs, lang)
    # The same result that ends its sentence, with the total only in the next one, is the
    # answer's own figure there.
    cut = text.replace(f"{step},", f"{step}.")
    figs = parse_figures(cut, lang)
    assert not worked_input(cut, next(f for f in figs if f.text == step), figs, lang)


@pytest.mark.parametrize(
    ("answer", "lang"),
    [
        (
            "- Toestel: 18,50 € [doc:pricing#plans] per maand\n- Abonnement: 15 € "
            "[doc:pricing#plans] per maand\n- Samen: 33,50 € per maand",
            "nl",
        ),
        (
            "Paket 9,50 € [doc:pricing#plans], Abend 2,50 € [doc:pricing#plans], insgesamt 12,00 €.",
            "de",
        ),
        (
            "Parcel 9.50 € [doc:pricing#plans] and evening 2.50 € [doc:pricing#plans]: 12 € in all.",
            "en",
        ),
    ],
)
def test_an_amount_after_a_word_that_totals_is_worked_out_from_what_came_before(
    answer: str, lang: str
) -> None:
    r = run(answer, lang=lang)
    assert r.status == "pass", r.detail


def test_a_total_word_before_a_wrong_sum_leaves_it_unsourced() -> None:
    r = run(
        "Paket 9,50 € [doc:pricing#plans], Abend 2,50 € [doc:pricing#plans], insgesamt 13,00 €."
    )
    assert r.status == "fail" and "13,00 €" in r.detail


def test_one_unit_said_with_the_indefinite_article_needs_no_source_unless_a_passage_gives_it() -> (
    None
):
    data = good_case(question="Quanto costa?")
    data["expect"]["language"] = "it"
    data["retrieved"] = [
        {"ref": "pricing#plans", "text": "Il pass costa 2,50 € al giorno per 500 MB."}
    ]
    answer = "Costa 2,50 € [doc:pricing#plans]: superati i 500 MB [doc:pricing#plans] in un giorno, si blocca."
    r = REGISTRY["no_unsourced_number"].fn(
        CheckInput(Case(data), Reply(answer=answer), SuiteSettings())
    )
    assert r.status == "pass", r.detail
    # Where a passage gives the one unit as its term, the answer's "un giorno" is that term.
    data["retrieved"] = [
        {"ref": "pricing#plans", "text": "La SIM arriva entro 1 giorno lavorativo."}
    ]
    said = "La SIM arriva entro un giorno lavorativo."
    r = REGISTRY["no_unsourced_number"].fn(
        CheckInput(Case(data), Reply(answer=said), SuiteSettings())
    )
    assert r.status == "fail", r.detail


def test_a_sum_whose_terms_were_worked_out_before_is_worked_out_across_sentences() -> None:
    # "kr." before an operator ends no sentence: the equation is one.
    answer = (
        "Hvert ekstra abonnement får 20 % rabat [doc:pricing#plans]: 45 € [doc:pricing#plans] "
        "× 0,80 = 36 €. I alt om måneden: 45 € + 2 × 36 € = 117 €."
    )
    assert run(answer, lang="da").status == "pass"
    wrong = answer.replace("= 117 €", "= 127 €")
    r = run(wrong, lang="da")
    assert r.status == "fail" and "127 €" in r.detail, r.detail


def test_a_figure_after_the_sentences_one_citation_is_sourced_only_when_that_passage_states_it() -> (
    None
):
    said = "A Pro seat [doc:pricing#plans] is cheaper than Starter at 39 € per seat and month."
    assert run(said).status == "pass"
    invented = "A Pro seat [doc:pricing#plans] is cheaper than Starter at 35 € per seat and month."
    r = run(invented)
    assert r.status == "fail" and "35 €" in r.detail, r.detail


def _forbidden(answer: str, forbidden: str, expected: str, question: str) -> CheckResult:
    data = good_case(question=question)
    data["expect"]["figures"] = [expected]
    data["expect"]["forbidden_figures"] = [forbidden]
    data["expect"]["language"] = "nl"
    return REGISTRY["no_forbidden"].fn(
        CheckInput(Case(data), Reply(answer=answer), SuiteSettings())
    )


def test_a_forbidden_figure_that_is_a_step_to_the_expected_result_is_no_claim() -> None:
    question = "Wat kosten drie pakketten met avondbezorging?"
    right = (
        "Per pakket 9,50 € [doc:pricing#plans] plus 2,50 € [doc:pricing#plans], samen 12,00 € "
        "per pakket. Voor de drie pakketten komt dat op 36,00 € in totaal."
    )
    assert _forbidden(right, "12,00 €", "36,00 €", question).status == "pass"
    # The same step to a result that is not the expected one is the answer's claim.
    wrong = right.replace("36,00 €", "24,00 €").replace("drie", "twee")
    assert _forbidden(wrong, "12,00 €", "36,00 €", question).status == "fail"
    # And a forbidden figure no later result is worked from stays a claim.
    alone = "Drie pakketten met avondbezorging kosten samen 12,00 € [doc:pricing#plans]."
    assert _forbidden(alone, "12,00 €", "36,00 €", question).status == "fail"


def test_a_working_in_brackets_from_the_passage_and_the_customers_numbers_supports_it() -> None:
    from casekit import good_case

    from evals.checks import REGISTRY, CheckInput
    from evals.reply import Reply
    from evals.suite.case import Case
    from evals.suite.folder import SuiteSettings

    data = good_case(
        "late-fee",
        question="La mia fattura è scaduta da 10 giorni. Pago una mora?",
        retrieved=[{"ref": "pay#late", "text": "Dal 16° giorno di ritardo addebitiamo 5 €."}],
        expect={"sources": ["pay#late"], "language": "it"},
        reference="x",
    )

    def supported(answer: str) -> str:
        inp = CheckInput(Case(data), Reply(answer=answer), SuiteSettings())
        return REGISTRY["figures_supported"].fn(inp).status

    right = (
        "Le restano 6 giorni (16 − 10 = 6) [doc:pay#late] prima della mora di 5 € [doc:pay#late]."
    )
    assert supported(right) == "pass"
    assert supported(right.replace("6 giorni (16 − 10 = 6)", "7 giorni (16 − 10 = 7)")) == "fail"


def test_about_sets_a_result_after_its_inputs_and_half_a_cent_rounds_either_way() -> None:
    r = run(
        "Three at 19,90 € [doc:pricing#plans] with 15 % off [doc:pricing#plans]: 3 × 19,90 € × 0,85 ≈ 50,75 €."
    )
    assert r.status == "pass", r.detail
    r = run(
        "Three at 19,90 € [doc:pricing#plans] with 15 % off [doc:pricing#plans]: 3 × 19,90 € × 0,85 ≈ 52,75 €."
    )
    assert r.status != "pass", r.detail
