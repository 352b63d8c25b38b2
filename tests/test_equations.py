"""An equation the answer writes out is worked out as written: its result holds only when
the arithmetic does, in every language's operator words, with the working before or in
brackets after the result."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from casekit import good_case

from evals.checks import REGISTRY, CheckInput, CheckResult
from evals.checks.equations import bracketed_value, equation_value, holds
from evals.checks.values import parse_figures
from evals.reply import Reply
from evals.suite.case import Case
from evals.suite.folder import SuiteSettings

BOX = {
    "ref": "box#price",
    "text": "A box for 4 people costs 51,10 € a week; students get 20 % off.",
}
FEES = {"ref": "box#fees", "text": "Delivery costs 4,90 € and the cool bag deposit 12 €."}


def supported(answer: str) -> CheckResult:
    data: dict[str, Any] = good_case(
        "box-total",
        question="What do 4 weeks of the 4-person box cost me as a student?",
        context={},
        retrieved=[BOX, FEES],
        expect={"sources": ["box#price"]},
        reference="4 × 51,10 € [doc:box#price] = 204,40 €.",
    )
    return REGISTRY["figures_supported"].fn(
        CheckInput(Case(data), Reply(answer=answer), SuiteSettings())
    )


def sourced(answer: str, question: str, price: str) -> str:
    """`no_unsourced_number`'s verdict on the answer, the box passage saying `price`."""
    data: dict[str, Any] = good_case(
        "box-sourced",
        question=question,
        context={},
        retrieved=[{"ref": "box#price", "text": price}, FEES],
        expect={"sources": ["box#price"]},
        reference="x",
    )
    inp = CheckInput(Case(data), Reply(answer=answer), SuiteSettings())
    return REGISTRY["no_unsourced_number"].fn(inp).status


def value_before_sign(text: str) -> object:
    sign = text.rindex("=")
    fig = next(f for f in parse_figures(text) if f.start > sign)
    return equation_value(text, fig, sign, None)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("4 × 51,10 € = 204,40 €", "204.40"),
        ("Totaal: 2 x 17,50 € = 35 €", "35.00"),
        ("178 € + 53,40 € + 18 € = 249,40 €", "249.40"),
        ("53,40 € + 2 × 89 € = 231,40 €", "231.40"),
        ("39 € [doc:a] meno il 20 % [doc:b] = 31,20 €", "31.20"),
        ("12,99 € menos 20 % = 10,39 €", "10.392"),
        ("45 € abzüglich 10 % = 40,50 €", "40.50"),
        ("30 days + 14 days = 44 days", "44"),
    ],
)
def test_an_equation_is_worked_out_as_written(text: str, value: str) -> None:
    got = value_before_sign(text)
    assert isinstance(got, Decimal) and abs(got - Decimal(value)) < Decimal("0.001")


@pytest.mark.parametrize(
    "text",
    [
        "a 20 % discount = 9 €",  # words, not terms, before the sign
        "24 × 18,50 € + 24 × 15 € = 444 € + 360 € = 804 €",  # 804 is the chain's, read below
    ],
)
def test_no_equation_or_a_result_inside_a_chain_is_left_to_the_looser_reading(text: str) -> None:
    sign = text.index("=")
    fig = next(f for f in parse_figures(text) if f.start > sign)
    assert equation_value(text, fig, sign, None) is None


def test_a_result_with_its_working_in_brackets_after_it_is_worked_out() -> None:
    text = "Four weeks cost 204,40 € (4 × 51,10 € [doc:box#price])."
    fig = next(f for f in parse_figures(text) if f.kind == "money")
    got = bracketed_value(text, fig, None)
    assert got is not None and holds(got, fig)


@pytest.mark.parametrize(
    "answer",
    [
        "Four weeks: 4 × 51,10 € [doc:box#price] = 214,40 €.",
        "Con lo sconto studenti: 51,10 € [doc:box#price] meno il 20 % = 39,88 € a settimana.",
        "Com o desconto: 51,10 € [doc:box#price] menos 20 % = 40,88 € por semana; em 4 "
        "semanas, 4 × 40,88 € = 173,52 €.",
        "Vier Wochen kosten 224,40 € (4 × 51,10 € [doc:box#price]).",
    ],
)
def test_a_wrong_step_fails_though_its_inputs_are_cited(answer: str) -> None:
    result = supported(answer)
    assert result.status == "fail"
    assert "worked out wrong" in result.detail or "not stated" in result.detail


@pytest.mark.parametrize(
    "answer",
    [
        "Four weeks: 4 × 51,10 € [doc:box#price] = 204,40 €.",
        "Con lo sconto studenti: 51,10 € [doc:box#price] meno il 20 % = 40,88 € a settimana.",
        "Com o desconto: 51,10 € [doc:box#price] menos 20 % = 40,88 € por semana; em 4 "
        "semanas, 4 × 40,88 € = 163,52 €.",
        "Vier Wochen kosten 204,40 € (4 × 51,10 € [doc:box#price]).",
        "Met bezorging: 51,10 € [doc:box#price] + 4,90 € [doc:box#fees] = 56 € per week.",
    ],
)
def test_a_right_step_passes(answer: str) -> None:
    assert supported(answer).status == "pass"


@pytest.mark.parametrize(
    "answer",
    [
        # The working in brackets a few words after the result, its amounts bare: one
        # sourced before, one worked out from those (39,00 € less the 50 %).
        "The recipes are 6 × 6,50 € [doc:box#price] = 39,00 € and delivery 4,90 € "
        "[doc:box#fees]; with 50 % [doc:box#price] off you pay twenty-four euros and forty "
        "for the first box (19,50 + 4,90).",
    ],
)
def test_a_result_in_words_with_its_bare_working_after_it_is_sourced(answer: str) -> None:
    question, price = (
        "What do I pay for the first box?",
        "A recipe costs 6,50 €; new customers get 50 % off.",
    )
    assert sourced(answer, question, price) == "pass"
    wrong = answer.replace("twenty-four euros and forty", "twenty-six euros and forty")
    assert sourced(wrong, question, price) == "fail"


def test_a_term_of_a_sum_worked_out_from_what_was_sourced_before_needs_no_citation() -> None:
    question, price = (
        "What do I pay for the first box?",
        "A recipe costs 5,90 €; new customers get 50 % off.",
    )
    right = (
        "8 × 5,90 € [doc:box#price] = 47,20 €. With 50 % off [doc:box#price]: "
        "23,60 € + 4,90 € [doc:box#fees] = 28,50 €."
    )
    assert sourced(right, question, price) == "pass"
    assert sourced(right.replace("23,60 €", "21,60 €"), question, price) == "fail"


@pytest.mark.parametrize(
    ("answer", "status"),
    [
        (
            "The minimum term is 6 months [doc:box#price]; you are at 4, so 2 months are left.",
            "pass",
        ),
        (
            "The minimum term is 6 months [doc:box#price]; you are at 4, so 3 months are left.",
            "fail",
        ),
        # Two of the passage's figures taken apart: no conclusion from the customer's number,
        # only arithmetic in the head, which a person weighs.
        (
            "A recipe is 5,90 € [doc:box#price], delivery 4,90 € [doc:box#fees], so you pay 1 €.",
            "review",
        ),
        (
            "A recipe is 5,90 € [doc:box#price], delivery 4,90 € [doc:box#fees], so you pay 2 €.",
            "fail",
        ),
    ],
)
def test_a_conclusion_from_a_sourced_figure_and_the_customers_number_is_sourced(
    answer: str, status: str
) -> None:
    question = "I am in month 4 of my subscription. How long until the minimum term ends?"
    price = "The minimum term is 6 months. A recipe costs 5,90 €."
    assert sourced(answer, question, price) == status


def test_a_result_worked_out_in_the_head_from_sourced_figures_is_for_a_person() -> None:
    question, price = (
        "Is the pack of 10 cheaper?",
        "A session is 549 kr.; a pack of 10 is 4,690 kr.",
    )
    right = (
        "A session is 549 kr. [doc:box#price], so ten of them come to 5,490 kr. The pack is "
        "4,690 kr. [doc:box#price]: that's 800 kr. less."
    )
    assert sourced(right, question, price) == "review"
    # A figure no arithmetic of the sourced ones gives is unsourced.
    assert sourced(right.replace("800 kr.", "900 kr."), question, price) == "fail"


def test_an_equation_of_the_customers_and_the_answers_numbers_works_out_a_duration() -> None:
    from casekit import good_case

    from evals.checks import REGISTRY, CheckInput
    from evals.reply import Reply
    from evals.suite.case import Case
    from evals.suite.folder import SuiteSettings

    case = Case(
        good_case(
            "flex-hours",
            question="We have the 40-hour bundle and used 46 hours. What do we pay?",
            retrieved=[
                {
                    "ref": "p",
                    "text": "The bundle is 40 hours for 520 €; each extra hour costs 11.50 €.",
                }
            ],
            expect={"sources": ["p"]},
            reference="See the passage.",
        )
    )

    def run(answer: str) -> str:
        inp = CheckInput(case, Reply(answer=answer), SuiteSettings())
        return REGISTRY["no_unsourced_number"].fn(inp).status

    right = "The bundle is 40 hours [doc:p]. Extra hours: 46 − 40 = 6 hours. Each costs 11.50 € [doc:p]."
    assert run(right) == "pass"
    assert run(right.replace("= 6 hours", "= 8 hours")) == "fail"
    # A bare number neither the customer nor a source gave is no input.
    assert run(right.replace("46 − 40", "48 − 42")) != "pass"


def test_a_term_of_a_working_in_brackets_that_gives_an_earlier_figure_is_a_step() -> None:
    from evals.checks.equations import inside_working
    from evals.checks.values import parse_figures

    said = "Il prezzo è 239 €, cioè 20 € in più rispetto a quanto ti avevo detto (239 € − 219 €)."
    figs = parse_figures(said, "it")
    old = next(f for f in figs if f.text == "219 €")
    assert inside_working(said, old, figs, "it")
    # A bracket whose working gives no figure before it is no step of one.
    wrong = said.replace("20 €", "30 €")
    figs = parse_figures(wrong, "it")
    assert not inside_working(wrong, next(f for f in figs if f.text == "219 €"), figs, "it")
