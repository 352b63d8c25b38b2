"""A citation belongs to its figure: the refs right after it must state it; a ref that does
later in the sentence does not rescue it, and refs side by side count together."""

from __future__ import annotations

from casekit import good_case

from evals.checks import REGISTRY, CheckInput, CheckResult
from evals.reply import Reply
from evals.suite.case import Case
from evals.suite.folder import SuiteSettings

PLANS = {"ref": "pricing#plans", "text": "Starter costs 29 € per seat and month."}
ANNUAL = {
    "ref": "pricing#annual",
    "text": "Paying annually saves 15 %. Annual plans are billed in advance for twelve months.",
}


def run(name: str, answer: str) -> CheckResult:
    data = good_case(
        "pricing-starter-annual",
        question="What does Starter cost, and can we pay yearly?",
        context={"plan": "starter"},
        retrieved=[PLANS, ANNUAL],
        expect={"sources": ["pricing#plans", "pricing#annual"]},
        reference="Starter costs 29 € per seat and month [doc:pricing#plans].",
    )
    return REGISTRY[name].fn(CheckInput(Case(data), Reply(answer=answer), SuiteSettings()))


def test_a_figure_cited_to_the_wrong_passage_is_not_rescued_by_a_later_citation() -> None:
    wrong = (
        "Starter costs 29 € per seat and month [doc:pricing#annual], billed in advance for the "
        "year if you like [doc:pricing#plans]."
    )
    r = run("figures_supported", wrong)
    assert r.status == "fail"
    assert "29 € (cited pricing#annual)" in r.detail


def test_refs_side_by_side_after_a_figure_count_together() -> None:
    for right in (
        "Starter costs 29 € per seat and month [doc:pricing#annual][doc:pricing#plans].",
        "Starter costs 29 € per seat and month [doc:pricing#annual], [doc:pricing#plans].",
        "Starter is 29 € per seat and month [doc:pricing#plans], and paying annually saves "
        "15 % [doc:pricing#annual].",
    ):
        assert run("figures_supported", right).status == "pass", right


def test_figures_that_share_the_citation_after_them_are_each_held_to_it() -> None:
    right = "Starter costs 29 € per seat and month, or 15 % less paid yearly [doc:pricing#plans][doc:pricing#annual]."
    assert run("figures_supported", right).status == "pass"
    wrong = "Starter costs 29 € per seat and month, or 15 % less paid yearly [doc:pricing#plans]."
    r = run("figures_supported", wrong)
    assert r.status == "fail" and "15 % (cited pricing#plans)" in r.detail
