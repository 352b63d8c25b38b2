"""Claims without figures: invented menu paths fail, promised outcomes in a hand-over are
undecided, and answers drawn from the passages pass."""

from __future__ import annotations

from typing import Any

from casekit import good_case

from evals.checks import REGISTRY, CheckInput, CheckResult
from evals.reply import Reply
from evals.suite.case import Case
from evals.suite.folder import SuiteSettings

PASSAGE = "Admins download invoices as PDF under Settings › Billing › Invoices."


def case(**over: Any) -> dict[str, Any]:
    return good_case(
        "invoices",
        question="Where do I download invoices?",
        retrieved=[{"ref": "billing#invoices", "text": PASSAGE}],
        expect={"sources": ["billing#invoices"]},
        reference="Under Settings › Billing › Invoices [doc:billing#invoices].",
        **over,
    )


def run(answer: str, data: dict[str, Any] | None = None) -> CheckResult:
    inp = CheckInput(Case(data or case()), Reply(answer=answer), SuiteSettings())
    return REGISTRY["claims_grounded"].fn(inp)


def test_an_invented_menu_path_fails_naming_the_step_no_passage_has() -> None:
    r = run("Go to Settings › Users › Security and click Reset.")
    assert r.status == "fail"
    assert '"Users", "Security"' in r.detail


def test_a_menu_path_from_the_passage_passes_whatever_stands_before_it() -> None:
    assert run("Admins get the PDFs under Settings › Billing › Invoices.").status == "pass"
    assert run("Los PDFs están en Settings > Billing > Invoices.").status == "pass"


def test_a_hand_over_that_promises_an_outcome_for_someone_else_is_undecided() -> None:
    promise = "I'll hand this over to our billing team and they'll email you the coupon today."
    r = run(promise)
    assert r.status == "review" and r.score is None
    assert "only a person" in r.detail


def test_a_plain_hand_over_or_a_promise_to_reply_passes() -> None:
    assert run("I'll hand this over to our billing team.").status == "pass"
    reply = "I'll hand this over to our billing team; they'll get back to you by email."
    assert run(reply).status == "pass"


def test_known_steps_in_an_order_no_passage_gives_fail() -> None:
    r = run("They are under Settings › Billing › Billing.")
    assert r.status == "fail" and "billing › billing" in r.detail
    assert run("They are under Billing › Invoices.").status == "pass"


def test_every_check_reads_the_same_sentence_boundaries() -> None:
    from evals.checks.clauses import clause_at, sentence_at
    from evals.checks.grounding import promises
    from evals.checks.text import sentences

    text = "Pro costs 4.50 € per seat, e.g. for a planner. Chat opens at 8 a.m. CET! Then: done"
    assert [s for _, s in sentences(text)] == [
        "Pro costs 4.50 € per seat, e.g. for a planner.",
        " Chat opens at 8 a.m. CET!",
        " Then: done",
    ]
    # A decimal point or an abbreviation does not cut a figure's clause from its subject.
    assert (
        clause_at(text, text.index("4.50")).strip()
        == "Pro costs 4.50 € per seat, e.g. for a planner."
    )
    assert sentence_at(text, text.index("CET")) == " Chat opens at 8 a.m. CET!"
    # A promise is read within its sentence, cut at ';' as before.
    said = promises("I'll pass this on, e.g. to billing; they'll email you the code today.")
    assert said == ["they'll email you the code today."]


def test_a_refund_or_parcel_promised_in_a_hand_over_is_a_promise_in_every_language() -> None:
    from evals.checks.grounding import promises

    for wrong in (
        "Non si preoccupi: Vela Le rimborserà le spese mediche. Passo la Sua richiesta a un collega.",
        "Når den er fundet, sender vi den til dig. Jeg sender din henvendelse videre.",
        "Die Kosten werden Ihnen erstattet werden. Ich leite Ihre Anfrage weiter.",
        "Vous serez remboursé, la société vous remboursera. Je transmets votre demande.",
        "La empresa le reembolsará el importe. Paso su consulta a un compañero.",
        "A Vela devolverá o valor. Vou encaminhar o seu pedido.",
        "Het bedrag wordt u binnen een week terugbetaald. Ik geef je vraag door aan een collega.",
    ):
        assert promises(wrong), wrong
    for right in (
        "Passo la Sua richiesta a un collega, che La contatterà.",
        "Jeg sender din henvendelse videre til en kollega, som vender tilbage til dig.",
        "Ich leite Ihre Anfrage an einen Kollegen weiter, der sich bei Ihnen meldet.",
    ):
        assert not promises(right), right


def test_a_promise_put_in_question_by_a_denied_whether_is_none() -> None:
    from evals.checks.grounding import promises

    for asked in (
        "In de informatie die ik heb staat niet of een bezoek in het buitenland wordt vergoed.",
        "I don't know whether they will refund the 340 €.",
        "Ich weiß nicht, ob Ihnen die Kosten erstattet werden.",
    ):
        assert not promises(asked), asked
    # Without the denial it is still a promise.
    assert promises("Het bedrag wordt u binnen een week terugbetaald, ook als u het niet vraagt.")


def test_a_german_passive_about_it_is_no_promise_to_the_customer() -> None:
    from evals.checks.grounding import promises

    assert promises("Ein Kollege wird Sie morgen anrufen.")
    assert not promises("Falls die Juni-Rate noch offen ist, wird sie also verrechnet.")
