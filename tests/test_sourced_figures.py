"""Which figures of an answer need a citation of their own: a restated one does not, one
given first without its source does."""

from __future__ import annotations

from casekit import good_case

from evals.checks import REGISTRY, CheckInput, CheckResult
from evals.reply import Reply
from evals.suite.case import Case
from evals.suite.folder import SuiteSettings


def run(name: str, answer: str) -> CheckResult:
    inp = CheckInput(Case(good_case()), Reply(answer=answer), SuiteSettings())
    return REGISTRY[name].fn(inp)


def test_a_figure_restated_after_its_cited_statement_needs_no_second_citation() -> None:
    answer = (
        "The minimum is 30 € [doc:pricing#plans]. To lower it to 30 €, open Settings. "
        "About 675 € a year [doc:pricing#plans]: 2,500 × 0.27 € [doc:pricing#plans] = 675 €."
    )
    r = run("no_unsourced_number", answer)
    assert r.status == "pass", r.detail


def test_a_figure_given_first_without_its_source_fails_though_cited_later() -> None:
    answer = "That comes to 421.20 € in total. Times 12 it is 421.20 € [doc:pricing#plans]."
    r = run("no_unsourced_number", answer)
    assert r.status == "fail" and "421.20 €" in r.detail


def test_a_german_abbreviation_inside_a_sentence_does_not_end_it() -> None:
    answer = "Strom kostet 0,27 € pro kWh, inklusive MwSt. und Energiesteuer [doc:pricing#plans]."
    assert run("no_unsourced_number", answer).status == "pass"


def _conversation(**expect: object) -> Case:
    data = good_case(
        "fee",
        question="Sorry, it is Fixed 1 year with 8 months left.",
        expect={"sources": ["pricing#plans"], **expect},
    )
    data["messages"] = [
        {"role": "user", "content": "What does cancelling my Fixed 3 years cost?"},
        {
            "role": "assistant",
            "content": "With over 1.5 years left it is 100 € [doc:pricing#plans].",
        },
    ]
    return Case(data)


def test_a_figure_an_earlier_turn_gave_taken_back_still_needs_its_source() -> None:
    # An earlier reply is no source for itself: named to withdraw it, it is cited or fails.
    case = _conversation()
    answer = "Then you pay 50 € [doc:pricing#plans] instead of 100 €."
    r = REGISTRY["no_unsourced_number"].fn(CheckInput(case, Reply(answer=answer), SuiteSettings()))
    assert r.status == "fail" and "100 €" in r.detail


def test_a_forbidden_figure_stated_as_the_rule_for_another_condition_is_no_claim() -> None:
    case = _conversation(forbidden_figures=["100 €"], language="nl")
    answer = (
        "Dan betaal je 50 € [doc:pricing#plans]. Die 100 € geldt alleen bij een resterende "
        "looptijd van meer dan 1,5 jaar [doc:pricing#plans]."
    )
    r = REGISTRY["no_forbidden"].fn(CheckInput(case, Reply(answer=answer), SuiteSettings()))
    assert r.status == "pass", r.detail
    answer = "Dan betaal je 100 € opzegvergoeding [doc:pricing#plans]."
    r = REGISTRY["no_forbidden"].fn(CheckInput(case, Reply(answer=answer), SuiteSettings()))
    assert r.status == "fail"


def test_weekdays_cut_short_do_not_end_a_sentence() -> None:
    answer = "Samstags 9–17 Uhr, Mo. bis Fr. 8–20 Uhr [doc:pricing#plans]."
    assert run("no_unsourced_number", answer).status == "pass"
    answer = "Call us Mon. to Fri., 08:00 to 18:00 [doc:pricing#plans]."
    assert run("no_unsourced_number", answer).status == "pass"


def _discount_case() -> Case:
    data = good_case(question="What do 40 minutes cost me as a student?")
    data["retrieved"] = [
        {"ref": "prices#cars", "text": "Cars: 0,29 € per minute."},
        {"ref": "students#discount", "text": "Students get 20 % off, Monday to Friday."},
    ]
    return Case(data)


def test_a_worked_result_restated_after_another_figures_citation_is_sourced_by_its_inputs() -> None:
    answer = (
        "On a Tuesday: 40 × 0,29 € [doc:prices#cars] = 11,60 €; with the 20 % discount "
        "[doc:students#discount], 11,60 € × 0,80 = 9,28 €."
    )
    inp = CheckInput(_discount_case(), Reply(answer=answer), SuiteSettings())
    r = REGISTRY["figures_supported"].fn(inp)
    assert r.status == "pass", r.detail
    # A result the arithmetic does not give is still held to the next citation's passage.
    wrong = answer.replace("= 11,60 €;", "= 12,60 €;")
    inp = CheckInput(_discount_case(), Reply(answer=wrong), SuiteSettings())
    r = REGISTRY["figures_supported"].fn(inp)
    assert r.status == "fail" and "12,60 €" in r.detail


def _fee_case() -> Case:
    data = good_case(question="Mon forfait coûte 20 € par mois. Combien coûte la résiliation ?")
    data["expect"] = {"language": "fr"}
    data["retrieved"] = [
        {
            "ref": "resiliation#frais",
            "text": "Pour un engagement de 24 mois, vous ne payez que 25 % des mensualités "
            "restantes.",
        }
    ]
    return Case(data)


def test_a_figure_a_percentage_would_give_is_held_to_one_only_when_the_answer_takes_one() -> None:
    invented = "S'y ajoutent des frais de résiliation de 15 € [doc:resiliation#frais]."
    inp = CheckInput(_fee_case(), Reply(answer=invented), SuiteSettings())
    assert REGISTRY["figures_supported"].fn(inp).status == "fail"
    # The same 15 € as 20 € less 25 %, said so, is worked from the passage.
    for said in (
        "Vous payez 25 % de moins, soit 15 € par mois [doc:resiliation#frais].",
        "Avec la réduction, cela fait 15 € par mois [doc:resiliation#frais].",
    ):
        inp = CheckInput(_fee_case(), Reply(answer=said), SuiteSettings())
        assert REGISTRY["figures_supported"].fn(inp).status == "pass", said


def _late_pickup() -> Case:
    return Case(
        good_case(
            "late-pickup",
            question="I only got there at 18:50 to pick up my daughter. What will that cost?",
            retrieved=[
                {
                    "ref": "pickup#late",
                    "text": "We are open until 18:30. After 18:30 we charge 15 € per started "
                    "quarter of an hour.",
                }
            ],
            expect={"sources": ["pickup#late"]},
            reference="See the passage.",
        )
    )


def test_the_minutes_between_a_sourced_clock_time_and_the_customers_need_no_citation() -> None:
    answer = (
        "We are open until 18:30 [doc:pickup#late]. You came at 18:50, so 20 minutes late: "
        "2 started quarters, 2 × 15 € [doc:pickup#late] = 30 €."
    )
    r = REGISTRY["no_unsourced_number"].fn(
        CheckInput(_late_pickup(), Reply(answer=answer), SuiteSettings())
    )
    assert r.status == "pass", r.detail


def test_minutes_that_are_no_span_of_those_times_still_need_one() -> None:
    answer = "We are open until 18:30 [doc:pickup#late]. You came at 18:50, so 25 minutes late."
    r = REGISTRY["no_unsourced_number"].fn(
        CheckInput(_late_pickup(), Reply(answer=answer), SuiteSettings())
    )
    assert r.status == "fail" and "25 minutes" in r.detail


def test_a_number_with_space_grouped_thousands_is_one_number_not_the_customers_one() -> None:
    from evals.checks.given import from_ticket
    from evals.checks.values import parse_figures

    # "une voiture" reads as 1, which makes no "1 700 €" the customer's.
    case = Case(good_case("fr", question="J'ai 23 ans. Si j'abîme une voiture, je paie combien ?"))
    fig = parse_figures("la franchise est de 1 700 €", "fr")[0]
    assert not from_ticket(fig, case)
    assert from_ticket(parse_figures("vous avez 23 ans", "fr")[0], case)


def test_a_sum_written_out_then_is_its_result_before_another_figures_citation() -> None:
    from evals.checks import REGISTRY, CheckInput

    case = Case(
        good_case(
            "family",
            question="Wat betalen we samen?",
            retrieved=[
                {"ref": "premies", "text": "Volwassene 14,50 €, kind 7,90 € per maand."},
                {"ref": "korting", "text": "Vanaf de derde verzekerde 10 % gezinskorting."},
            ],
            expect={"sources": ["premies", "korting"]},
            reference="See the passages.",
        )
    )
    right = (
        "2 × 14,50 € voor u en uw vrouw plus 7,90 € voor uw dochter [doc:premies] is 36,90 €; "
        "daarop krijgt u 10 % gezinskorting [doc:korting]."
    )
    r = REGISTRY["figures_supported"].fn(CheckInput(case, Reply(answer=right), SuiteSettings()))
    assert r.status == "pass", r.detail
    wrong = right.replace("is 36,90 €", "is 38,90 €")
    r = REGISTRY["figures_supported"].fn(CheckInput(case, Reply(answer=wrong), SuiteSettings()))
    assert r.status == "fail"
