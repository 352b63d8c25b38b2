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


PIANI = {
    "ref": "listino#piani",
    "text": "Base: 39 € al mese. Plus: 59 € al mese, con assicurazione furto e riparazione rapida.",
}
ADDEBITI = {
    "ref": "fatture#addebiti",
    "text": "L'abbonamento viene addebitato il primo giorno di ogni mese sulla carta registrata.",
}
ARCHIVIO = {
    "ref": "listino#archivio-2025",
    "text": "ARCHIVIATO. Listino 2025: Base 35 € al mese, Plus 55 € al mese.",
}


def precision(answer: str, question: str) -> CheckResult:
    data = good_case(
        "addebito-doppio",
        question=question,
        context={"plan": "plus"},
        retrieved=[PIANI, ADDEBITI, ARCHIVIO],
        expect={"abstain": True, "language": "it"},
        reference="Passo la tua richiesta a un collega.",
    )
    inp = CheckInput(Case(data), Reply(answer=answer), SuiteSettings())
    return REGISTRY["citation_precision"].fn(inp)


def test_a_ref_cited_for_the_customers_own_figure_supports_it_when_it_states_it() -> None:
    q = "Ad ottobre mi avete addebitato 59 € due volte. Potete controllare?"
    right = (
        "Non posso vedere i tuoi pagamenti. L'abbonamento si addebita il primo giorno del mese "
        "[doc:fatture#addebiti] e il tuo Plus costa 59 € al mese [doc:listino#piani]. Passo la "
        "tua richiesta a un collega."
    )
    r = precision(right, q)
    assert r.status == "pass", r.detail
    # A retired list cited for the customer's own figure presents it as current, unless the
    # sentence says it no longer applies.
    q = "The flyer said Plus is 55 € a month, is that still right?"
    wrong = "Yes, Plus stays at 55 € a month [doc:listino#archivio-2025]."
    assert precision(wrong, q).status == "fail"
    right = "No: the 55 € [doc:listino#archivio-2025] is from the 2025 list, no longer valid."
    assert precision(right, q).status == "pass"


def test_a_sentence_without_figures_is_supported_by_a_passage_sharing_its_words() -> None:
    # Italian stems of one word differ in their endings (addebito, addebitato).
    q = "Quando addebitate l'abbonamento?"
    right = "Di norma l'addebito avviene il primo giorno del mese [doc:fatture#addebiti]."
    assert precision(right, q).status == "pass"
    wrong = "La bici può essere ritirata in officina [doc:fatture#addebiti]."
    assert precision(wrong, q).status == "fail"


def test_refs_side_by_side_each_stand_for_the_sentence_before_them() -> None:
    # citation_precision reads a ref the case does not expect against its stretch of the
    # answer: the second of two refs side by side was read against the empty gap between.
    data = good_case(
        "pricing-annual",
        question="Can we pay yearly?",
        retrieved=[PLANS, ANNUAL],
        expect={"sources": ["pricing#plans"]},
        reference="Paying annually saves 15 % [doc:pricing#annual].",
    )

    def precise(answer: str) -> str:
        inp = CheckInput(Case(data), Reply(answer=answer), SuiteSettings())
        return REGISTRY["citation_precision"].fn(inp).status

    for right in (
        "Paying annually saves 15 % [doc:pricing#plans] [doc:pricing#annual].",
        "Paying annually saves 15 % [doc:pricing#plans][doc:pricing#annual].",
    ):
        assert precise(right) == "pass", right
    assert precise("Starter costs 29 € a seat [doc:pricing#plans] [doc:pricing#annual].") == "fail"


def _precision(answer: str, passages: list[dict[str, str]]) -> CheckResult:
    data = good_case(
        "wear-covered",
        question="Is wear covered?",
        context={},
        retrieved=passages,
        expect={"sources": ["terms#deposit"]},
        reference="x",
    )
    return REGISTRY["citation_precision"].fn(
        CheckInput(Case(data), Reply(answer=answer), SuiteSettings())
    )


WEAR = [
    {"ref": "terms#deposit", "text": "We refund the deposit within 14 days after collection."},
    {"ref": "service#damage", "text": "Normal wear and tear is always covered by us."},
]


def test_a_ref_in_another_language_than_its_sentence_is_undecided_not_failed() -> None:
    answer = "De borg krijg je terug [doc:terms#deposit]; normale slijtage is altijd gedekt [doc:service#damage]."
    r = _precision(answer, WEAR)
    assert r.status == "review" and "service#damage" in r.detail


def test_a_ref_in_the_sentences_language_that_does_not_support_it_still_fails() -> None:
    answer = (
        "The deposit comes back [doc:terms#deposit]; the van has a roof rack [doc:service#damage]."
    )
    assert _precision(answer, WEAR).status == "fail"
