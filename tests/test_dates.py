"""A date computed from the customer's start date and term needs no citation."""

from __future__ import annotations

from casekit import good_case

from evals.checks import REGISTRY, CheckInput, CheckResult
from evals.checks.dates import date_from_given
from evals.checks.values import parse_figures
from evals.reply import Reply
from evals.suite.case import Case
from evals.suite.folder import SuiteSettings


def run(answer: str) -> CheckResult:
    data = good_case(
        "contract-end",
        question="I have a Fixed 3 years contract. What does cancelling cost?",
        context={"start": "2026-01-01"},
    )
    inp = CheckInput(Case(data), Reply(answer=answer), SuiteSettings())
    return REGISTRY["no_unsourced_number"].fn(inp)


def test_the_end_of_the_customers_own_term_needs_no_citation() -> None:
    r = run("Your contract runs from 1 January 2026 until 1 January 2029.")
    assert r.status == "pass", r.detail


def test_a_date_the_customers_figures_do_not_give_still_needs_one() -> None:
    r = run("Your contract runs until 1 March 2029.")
    assert r.status == "fail" and "1 March 2029" in r.detail


def test_months_are_added_to_the_calendar_not_as_thirty_days() -> None:
    given = parse_figures("from 31 January 2026, a 1 month term")
    assert date_from_given(parse_figures("28 February 2026")[0], given)
    assert not date_from_given(parse_figures("2 March 2026")[0], given)


def test_a_date_on_the_day_a_passage_sets_in_every_month_is_stated_by_it() -> None:
    from evals.checks.passage_figures import passage_states
    from evals.checks.values import parse_figures

    passage = "O Passe Trimestral é válido 3 meses a partir do dia 1 do mês escolhido."
    first = parse_figures("from 1 January", "en")[0]
    assert passage_states(passage, first)
    fifteenth = parse_figures("from 15 January", "en")[0]
    assert not passage_states(passage, fifteenth)


def _notice(answer: str, lang: str, question: str) -> CheckResult:
    data = good_case("notice", question=question)
    data["expect"] = {"language": lang}
    data["retrieved"] = [
        {"ref": "notice#period", "text": "Opsigelsesvarsel: 1 måned til udgangen af en måned."}
    ]
    inp = CheckInput(Case(data), Reply(answer=answer), SuiteSettings())
    return REGISTRY["no_unsourced_number"].fn(inp)


def test_a_notice_that_runs_to_the_end_of_a_month_ends_on_its_last_day() -> None:
    question = "Jeg opsiger den 14. november 2026. Hvornår stopper mit abonnement?"
    answer = (
        "Varslet er 1 måned [doc:notice#period] til udgangen af en måned. Opsiger du den 14. "
        "november 2026, løber varslet til 14. december, og abonnementet stopper den 31. "
        "december 2026."
    )
    assert _notice(answer, "da", question).status == "pass"
    # Another day of that month, or a month's end the answer never speaks of, is unsourced.
    wrong = answer.replace("31. december", "30. december")
    assert "30. december" in _notice(wrong, "da", question).detail
    silent = answer.replace(" til udgangen af en måned", "")
    assert "31. december" in _notice(silent, "da", question).detail


def test_the_end_of_a_named_month_is_the_customers_last_day_of_it() -> None:
    from evals.checks.dates import month_ends

    cases = [
        ("We verhuizen en stoppen eind maart.", "nl", (None, 3, 31)),
        ("We stop at the end of March 2027.", "en", (2027, 3, 31)),
        ("Wir kündigen zum Ende Februar.", "de", (None, 2, 28)),
        ("Smettiamo a fine aprile.", "it", (None, 4, 30)),
    ]
    for text, lang, value in cases:
        assert [f.value for f in month_ends(text, lang)] == [value], text
    # A month named without a month-end word gives no day.
    assert month_ends("We stoppen in maart.", "nl") == ()


def test_a_refund_date_from_the_customers_month_end_needs_no_citation() -> None:
    from casekit import good_case

    from evals.checks import REGISTRY, CheckInput
    from evals.reply import Reply
    from evals.suite.case import Case
    from evals.suite.folder import SuiteSettings

    case = Case(
        good_case(
            "deposit-date",
            question="We stoppen eind maart. Wanneer krijgen we de borg terug?",
            retrieved=[
                {
                    "ref": "kosten",
                    "text": "De borg betalen we binnen 30 dagen na het einde van het contract terug.",
                }
            ],
            expect={"sources": ["kosten"]},
            reference="See the passage.",
        )
    )
    answer = "De borg komt binnen 30 dagen [doc:kosten]: bij een einde op 31 maart uiterlijk op 30 april."
    r = REGISTRY["no_unsourced_number"].fn(CheckInput(case, Reply(answer=answer), SuiteSettings()))
    assert r.status == "pass", r.detail
    wrong = answer.replace("30 april", "15 mei")
    assert (
        REGISTRY["no_unsourced_number"]
        .fn(CheckInput(case, Reply(answer=wrong), SuiteSettings()))
        .status
        == "fail"
    )


def test_a_notice_that_runs_to_a_months_end_ends_on_that_months_last_day() -> None:
    from casekit import good_case

    from evals.checks import REGISTRY, CheckInput
    from evals.reply import Reply
    from evals.suite.case import Case
    from evals.suite.folder import SuiteSettings

    passage = (
        "La disdetta richiede un preavviso di 1 mese: se disdici entro l'ultimo giorno di un "
        "mese, l'abbonamento termina alla fine del mese successivo."
    )
    case = Case(
        good_case(
            "notice",
            question="Se do la disdetta il 10 marzo, fino a quando pago?",
            retrieved=[{"ref": "term", "text": passage}],
            expect={"sources": ["term"]},
            reference="See the passage.",
        )
    )

    def run(answer: str) -> str:
        return (
            REGISTRY["figures_supported"]
            .fn(CheckInput(case, Reply(answer=answer), SuiteSettings()))
            .status
        )

    assert run("Paghi fino alla fine di aprile, cioè fino al 30 aprile [doc:term].") == "pass"
    assert run("Paghi fino al 31 maggio [doc:term].") == "fail"
    assert run("Paghi fino al 10 aprile [doc:term].") == "pass"  # the term alone, as written
