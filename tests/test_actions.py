"""The assistant's own actions and promises are undecided: it can do nothing to an account.
Handing the request to a person is no action, in every language read."""

from __future__ import annotations

from casekit import good_case

from evals.checks import REGISTRY, CheckInput, CheckResult
from evals.checks.actions import acts
from evals.reply import Reply
from evals.suite.case import Case
from evals.suite.folder import SuiteSettings


def run(answer: str) -> CheckResult:
    data = good_case(
        "billing-double-charge",
        question="You charged me twice in October. Can you refund one?",
        retrieved=[
            {
                "ref": "billing#charges",
                "text": "The subscription is charged on the first day of each month.",
            }
        ],
        expect={"abstain": True},
        reference="I can't see payments, so I'll hand this over to a colleague.",
    )
    return REGISTRY["claims_grounded"].fn(
        CheckInput(Case(data), Reply(answer=answer), SuiteSettings())
    )


def test_an_action_on_the_account_or_a_promised_outcome_is_undecided() -> None:
    for wrong in (
        "I've refunded the second charge; you'll see it on your card in a few days.",
        "Sorry about that! I have already credited 59 € to your account.",
        "Good news: we'll make an exception and waive October for you.",
        "I've escalated it and a callback is on its way.",
    ):
        r = run(wrong)
        assert r.status == "review" and r.score is None, wrong
        assert "acted or promises" in r.detail


def test_a_hand_over_or_an_explanation_is_no_action() -> None:
    for right in (
        "I can't see your payments from here, so I'll hand this over to our billing team.",
        "I've forwarded your request to a colleague, who will check the October charge.",
        "The subscription is charged on the first of each month [doc:billing#charges]; a "
        "colleague will look into the second charge.",
        "We charge the subscription on the first of each month [doc:billing#charges].",
    ):
        r = run(right)
        assert r.status == "pass", (right, r.detail)


def test_actions_are_read_in_the_answers_own_language() -> None:
    assert acts("Ti ho già rimborsato il secondo addebito.")
    assert acts("Ich habe Ihnen den Betrag bereits erstattet.")
    assert acts("Já reembolsei o valor em duplicado.")
    assert acts("Ik heb het bedrag al terugbetaald.")
    assert acts("J'ai remboursé le deuxième prélèvement.")
    assert acts("Ya he reembolsado el segundo cargo.")
    for right in (
        "Passo la tua richiesta a un collega, che controllerà l'addebito.",
        "Ich leite Ihre Anfrage an unser Billing-Team weiter.",
        "Vou encaminhar o seu pedido a um colega.",
        "Ik geef uw vraag door aan een collega.",
    ):
        assert not acts(right), right
