"""Figures an answer computes: discounts and surcharges, totals over a count, differences,
each supported by the passages that hold their inputs and failed when the sum is wrong."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from casekit import good_case

from evals.checks import REGISTRY, CheckInput, CheckResult
from evals.checks.derived import computed
from evals.checks.values import Figure, parse_figures
from evals.reply import Reply
from evals.suite.case import Case
from evals.suite.folder import SuiteSettings

PRICES = {"ref": "plans#prices", "text": "Basic costs 29 € a month and Plus 45 € a month."}
STUDENTS = {"ref": "plans#students", "text": "Students get 20 % off every plan."}
WEEKEND = {"ref": "delivery#weekend", "text": "Delivery on a Saturday adds a 10 % surcharge."}
BIKE = {"ref": "rent#bike", "text": "An e-bike costs 24 € a week, helmet included."}
THEFT = {
    "ref": "cover#theft",
    "text": "A stolen bike is refunded at the value you declared, less a 100 € deductible.",
}


def case(question: str, *passages: dict[str, str]) -> dict[str, Any]:
    return good_case(
        "plans-computed",
        question=question,
        context={},
        retrieved=list(passages),
        expect={"sources": [p["ref"] for p in passages]},
        reference="See the passages.",
    )


def run(answer: str, data: dict[str, Any]) -> CheckResult:
    inp = CheckInput(Case(data), Reply(answer=answer), SuiteSettings())
    return REGISTRY["figures_supported"].fn(inp)


def money(value: str) -> Figure:
    return Figure("money", "EUR", Decimal(value))


def test_a_percentage_taken_off_or_added_on_is_computed_to_the_cent() -> None:
    stated = parse_figures("Plus costs 45 € a month; students get 15 % off.")
    assert computed(money("38.25"), stated)
    assert computed(money("6.75"), stated)  # the discount itself
    assert computed(money("51.75"), stated)  # a 15 % surcharge
    assert not computed(money("38"), stated)


def test_a_discounted_price_is_supported_by_the_price_and_the_discount_cited_together() -> None:
    data = case("I'm a student. What would Plus cost me?", PRICES, STUDENTS)
    right = (
        "As a student you get 20 % off [doc:plans#students], so Plus comes to 36 € a month "
        "instead of 45 € [doc:plans#prices][doc:plans#students]."
    )
    assert run(right, data).status == "pass"
    wrong = right.replace("36 €", "35 €")
    r = run(wrong, data)
    assert r.status == "fail" and "35 €" in r.detail


def test_a_surcharge_on_a_price_is_supported() -> None:
    data = case("What does Plus delivered on a Saturday cost?", PRICES, WEEKEND)
    right = (
        "Saturday delivery adds 10 % [doc:delivery#weekend], so you'd pay 49,50 € for Plus "
        "[doc:plans#prices] [doc:delivery#weekend]."
    )
    assert run(right, data).status == "pass"
    assert run(right.replace("49,50 €", "55 €"), data).status == "fail"


def test_a_total_over_the_customers_count_is_supported() -> None:
    data = case("I need the e-bike for three weeks in August, what's the total?", BIKE)
    right = (
        "For your three weeks that's 72 € in total (24 € a week, helmet included) [doc:rent#bike]."
    )
    assert run(right, data).status == "pass"
    wrong = "For your three weeks that's 96 € in total [doc:rent#bike]."
    assert run(wrong, data).status == "fail"


def test_a_difference_between_two_prices_is_supported() -> None:
    data = case("How much more is Plus than Basic?", PRICES)
    assert run("Plus is 16 € more per month than Basic [doc:plans#prices].", data).status == "pass"
    assert run("Plus is 10 € more per month than Basic [doc:plans#prices].", data).status == "fail"


def test_a_total_of_three_charges_of_one_passage_is_supported() -> None:
    fees = {
        "ref": "delivery#fees",
        "text": "Delivery costs 25 €, installation 40 € and removal of the old appliance 15 €.",
    }
    data = case("What do delivery, installation and removal cost together?", fees)
    assert run("All three together come to 80 € [doc:delivery#fees].", data).status == "pass"
    assert run("Together they come to 97 € [doc:delivery#fees].", data).status == "fail"
    assert (
        run("Levering, installatie en afvoer samen: 80 € [doc:delivery#fees].", data).status
        == "pass"
    )


def test_a_count_is_not_read_as_the_difference_of_two_limits() -> None:
    seats = {
        "ref": "plans#seats",
        "text": "Basic allows up to 20 seats; Plus starts from 50 seats.",
    }
    data = case("How many seats does Basic allow?", seats)
    assert run("Basic allows up to 30 seats [doc:plans#seats].", data).status == "fail"


def test_the_customers_own_figure_is_an_input_and_needs_no_source() -> None:
    data = case("My bike was stolen last night. I declared it at 850 €. What do I get?", THEFT)
    right = (
        "Sorry to hear that. You'd get 750 € back: the 850 € you declared less the 100 € "
        "deductible [doc:cover#theft]."
    )
    r = run(right, data)
    assert r.status == "pass", r.detail
    wrong = right.replace("750 €", "650 €")
    assert run(wrong, data).status == "fail"


def test_a_discount_cited_earlier_in_the_answer_is_an_input_of_the_price_after_it() -> None:
    data = case("I'm a student. What would Plus cost me?", PRICES, STUDENTS)
    right = (
        "Students get 20 % off every plan [doc:plans#students]. For Plus that makes 36 € a "
        "month [doc:plans#prices]."
    )
    assert run(right, data).status == "pass"
    # The base must come from the figure's own citation: 36 € is no figure of the students'.
    alone = "Students get 20 % off [doc:plans#prices]. Plus then costs 36 € [doc:plans#students]."
    assert run(alone, data).status == "fail"


def test_a_total_over_two_counts_is_supported() -> None:
    data = case("What do 10 Plus seats cost for a year?", PRICES)
    right = "For the year that is 10 × 45 € × 12 = 5.400 € [doc:plans#prices]."
    assert run(right, data).status == "pass"
    assert run(right.replace("5.400 €", "5.000 €"), data).status == "fail"


FEE = {"ref": "tarieven#stroom", "text": "De vaste leveringskosten zijn 6,50 € per maand."}


def test_a_yearly_figure_is_twelve_of_a_monthly_one_in_the_answers_language() -> None:
    data = case("Wat kosten de vaste kosten per jaar?", FEE)
    assert run("Je betaalt € 78 per jaar aan vaste kosten [doc:tarieven#stroom].", data).status == (
        "pass"
    )
    # Twelve months, not thirteen; and without a yearly word nothing is multiplied.
    assert run("Je betaalt € 84,50 per jaar [doc:tarieven#stroom].", data).status == "fail"
    assert run("Je betaalt € 78 [doc:tarieven#stroom].", data).status == "fail"
    english = {**FEE, "text": "The standing charge is 6.50 € per month."}
    data = case("What is the standing charge over a year?", english)
    assert run("That is 78 € a year [doc:tarieven#stroom].", data).status == "pass"


POWER = {"ref": "rates#power", "text": "Standing charge for electricity: 6,50 € a month."}
GAS = {"ref": "rates#gas", "text": "Standing charge for gas: 6,50 € a month."}


def test_a_sum_of_two_passages_taken_twelve_times_is_a_yearly_total() -> None:
    data = case("What are my standing charges a year?", POWER, GAS)
    right = (
        "Together 13 € a month [doc:rates#power] [doc:rates#gas], times 12 months that is 156 € "
        "per year [doc:rates#power] [doc:rates#gas]."
    )
    r = run(right, data)
    assert r.status == "pass", r.detail
    wrong = "That is 166 € per year [doc:rates#power] [doc:rates#gas]."
    assert run(wrong, data).status == "fail"


def test_a_duration_after_a_times_sign_is_a_multiplier_not_a_claim() -> None:
    data = case("What are my standing charges a year?", POWER)
    assert run("6,50 € [doc:rates#power] × 12 months = 78 € [doc:rates#power].", data).status == (
        "pass"
    )
    # Not after a times sign, a duration is a claim the passage must state.
    r = run("The charge is fixed for 12 months [doc:rates#power].", data)
    assert r.status == "fail"


SOLAR = {"ref": "solar#lease", "text": "Solar lease: 19 € per month per set of 6 panels, 10 years."}


def test_a_count_the_passage_prices_in_is_no_factor() -> None:
    data = case("What does the solar lease cost?", SOLAR)
    wrong = "That is 19 € per panel, so a set of 6 comes to 114 € per month [doc:solar#lease]."
    assert run(wrong, data).status == "fail"
    # A count of the customer's own is a factor still: two sets are 38 €.
    data = case("What do 2 sets cost a month?", SOLAR)
    assert run("Two sets cost 38 € per month [doc:solar#lease].", data).status == "pass"


def test_a_limit_beside_a_price_is_no_group_it_prices() -> None:
    seats = {"ref": "plans#seats", "text": "Pro costs 45 € per seat, at least 5 seats."}
    data = case("What do 5 seats cost?", seats)
    assert run("Five seats cost 225 € [doc:plans#seats].", data).status == "pass"


def test_a_product_less_a_one_off_fee_is_computed() -> None:
    # Seven unused months of a 100 € pass refunded, less a 30 € fee: 670 €.
    stated = parse_figures("Unused months are refunded at 100 € each, less a 30 € fee.")
    assert computed(money("670"), stated, factors=(7,))
    assert computed(money("730"), stated, factors=(7,))  # plus the fee: a one-off on top
    assert not computed(money("640"), stated, factors=(7,))


def test_a_zero_amount_is_stated_by_a_passage_that_calls_the_thing_free() -> None:
    install = {"ref": "meter#install", "text": "Installationen er gratis for private kunder."}
    data = case("Hvad koster installationen?", install)
    assert run("Pris: 0 kr. [doc:meter#install], installationen er gratis.", data).status == "pass"
    # A price where the passage says free is still not stated.
    assert run("Pris: 50 kr. [doc:meter#install].", data).status == "fail"
    # Zero against a passage that prices it is not stated either.
    assert run("It costs 0 € [doc:plans#prices].", case("Cost?", PRICES)).status == "fail"


def test_a_count_left_over_from_the_customers_own_is_computed_and_two_limits_are_not() -> None:
    from decimal import Decimal

    from evals.checks.derived import computed
    from evals.checks.values import Figure

    def km(v: int) -> Figure:
        return Figure("count", "kilometre", Decimal(v))

    assert computed(km(150), [km(1250)], [km(1400)])
    assert not computed(km(150), [km(1250), km(1400)], [])
