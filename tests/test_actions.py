"""The assistant's own actions and promises are undecided: it can do nothing to an account.
Handing the request to a person is no action, in every language read."""

from __future__ import annotations

from pathlib import Path

import pytest
from casekit import good_case

from evals.checks import REGISTRY, CheckInput, CheckResult
from evals.checks.actions import acts, acts_beyond
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
        "I've placed the order for you, so the new modem arrives within 3 working days.",
    ):
        r = run(wrong)
        assert r.status == "review" and r.score is None, wrong
        assert "acted or promises" in r.detail


def test_a_request_passed_on_already_to_no_colleague_is_an_action() -> None:
    from evals.checks.actions import acts

    said = "Non si preoccupi, ho già inoltrato la Sua segnalazione alla linea guasti."
    assert acts(said, "it")
    assert acts("I've already forwarded your report to the online shop.", "en")
    # Passed on to a colleague, it is the hand-over.
    assert not acts("Ho già inoltrato la Sua richiesta a un collega.", "it")
    assert not acts("I've already forwarded your request to a colleague.", "en")


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


def test_a_first_person_perfect_with_an_account_action_is_an_action_in_every_language() -> None:
    for wrong in (
        "I have logged the claim and arranged a replacement handset.",
        "Ich habe die Kündigung für Sie registriert.",
        "Ik heb de storing voor u gemeld en een monteur ingepland.",
        "Ho registrato la disdetta, riceverà una conferma.",
        "J'ai enregistré votre résiliation au 31 mars.",
        "He tramitado la baja de su línea.",
        "Agendei a visita do técnico para sexta-feira.",
        "Jeg har oprettet en sag om din skade.",
    ):
        assert acts(wrong), wrong


def test_already_done_in_the_first_person_is_an_action_whatever_the_verb() -> None:
    for wrong in (
        "I've already sorted out the duplicate invoice.",
        "Ich habe den Umzug bereits für Sie vorgemerkt.",
        "Ik heb het nieuwe modem alvast klaargezet.",
        "Ho già fissato l'appuntamento con il tecnico per giovedì.",
        "J'ai déjà prévenu le service technique.",
        "Ya he dejado anotado su cambio de tarifa.",
        "Jeg har allerede sørget for en ny SIM.",
    ):
        assert acts(wrong), wrong


def test_already_with_a_verb_of_reading_telling_or_handing_over_is_no_action() -> None:
    for right in (
        "I've already checked the price list: Plus is 25 € a month.",
        "Wie ich bereits erklärt habe, gilt die Frist von 30 Tagen.",
        "Ich habe bereits nachgesehen: Ihr Tarif enthält 20 GB.",
        "Ik heb je vraag al doorgestuurd naar een collega.",
        "Come Le ho già detto, la franchigia è di 250 €.",
        "Ho già verificato: la copertura parte dopo 30 giorni.",
        "J'ai déjà vérifié la documentation : le transfert prend un jour ouvrable.",
        "Ya he revisado la documentación: el plazo es de 14 días.",
        "Jeg har allerede tjekket prislisten.",
        "Ich habe Ihnen die Kosten bereits oben aufgeschlüsselt.",
        "I've already broken down the costs above.",
        "Come ho già accennato, la franchigia è di 250 €.",
    ):
        assert not acts(right), right


def test_a_negation_takes_the_action_back() -> None:
    for right in (
        "I haven't changed anything on your account.",
        "Ik heb nog niets gewijzigd aan uw polis.",
        "Non ho attivato nulla sulla tua linea: serve la tua conferma.",
        "Ich habe noch nichts beantragt; das können nur Sie tun.",
    ):
        assert not acts(right), right


def test_a_promise_or_an_assured_future_outcome_is_a_promise() -> None:
    for wrong in (
        "Don't worry, I promise it will be fixed by Monday.",
        "Geen zorgen: ik beloof u dat de monteur morgen komt.",
        "Ich garantiere Ihnen, dass das Geld am Freitag da ist.",
        "Le garantisco che la pratica sarà chiusa entro venerdì.",
        "Je vous promets un geste commercial.",
        "Le confirmo que recibirá el reembolso esta semana.",
        "Ti confermo che riceverai il rimborso entro lunedì.",
        "I can confirm you will get the full deposit back tomorrow.",
    ):
        assert acts(wrong), wrong


def test_no_promise_when_it_is_refused_or_the_confirmation_states_the_passage() -> None:
    for right in (
        "I can't promise a date; a colleague will look into it.",
        "Non posso garantire una data: passo la richiesta a un collega.",
        "Ich kann Ihnen nichts versprechen, ich leite Ihre Anfrage weiter.",
        "Ik kan niet beloven dat het maandag klaar is.",
        "Le confermo che la franchigia è di 250 € [doc:polizze#franchigie].",
        "Je vous confirme que le transfert prend 1 jour ouvrable.",
    ):
        assert not acts(right), right


def test_the_suite_may_make_an_own_action_a_fail_for_every_case_that_does_not_say() -> None:
    data = good_case(
        "billing-double-charge",
        question="You charged me twice in October. Can you refund one?",
        retrieved=[{"ref": "billing#charges", "text": "The subscription is charged monthly."}],
        expect={"abstain": True},
        reference="I can't see payments, so I'll hand this over to a colleague.",
    )
    wrong = Reply(answer="Ik heb de tweede afschrijving al terugbetaald.")
    strict = SuiteSettings(own_action="fail")
    check = REGISTRY["claims_grounded"].fn
    assert check(CheckInput(Case(data), wrong, strict)).status == "fail"
    assert check(CheckInput(Case(data), wrong, SuiteSettings())).status == "review"
    data["expect"]["own_action"] = "review"  # the case's own word wins
    assert check(CheckInput(Case(data), wrong, strict)).status == "review"


def test_suite_toml_takes_own_action_and_refuses_another_word(tmp_path: Path) -> None:
    import pytest

    from evals.errors import InputError
    from evals.suite.folder import load_suite_settings

    (tmp_path / "suite.toml").write_text('own_action = "fail"\ndropped_condition = "review"\n')
    got = load_suite_settings(tmp_path)
    assert got.own_action == "fail" and got.dropped_condition == "review"
    (tmp_path / "suite.toml").write_text('own_action = "block"\n')
    with pytest.raises(InputError) as err:
        load_suite_settings(tmp_path)
    assert "own_action" in str(err.value.problems[0].pointer)


def test_we_acted_is_an_action_only_on_the_customers_account() -> None:
    for wrong in (
        "We've refunded your second payment.",
        "Wir haben Ihnen den Betrag gutgeschrieben.",
        "Abbiamo già attivato la tua nuova SIM.",
        "We hebben je abonnement verlengd.",
    ):
        assert acts(wrong), wrong
    for right in (
        "We have added SMS reminders to Pro this year.",
        "Wir haben die Preise zum 1. März geändert.",
        "Abbiamo modificato il listino nel 2026.",
        "Ik heb al je vragen op een rij gezet.",
        "I have just two options for you.",
    ):
        assert not acts(right), right


def test_the_first_persons_simple_past_is_an_action_and_a_hypothesis_is_not() -> None:
    for wrong in (
        "I went ahead and applied the discount to your account.",
        "I applied the 20 % discount for you.",
        "We processed your cancellation yesterday.",
    ):
        assert acts(wrong), wrong
    for right in (
        "If I applied the discount, you would pay 36 €.",
        "When you applied for the trial, no card was needed.",
        "If we refund you, it takes five working days.",
    ):
        assert not acts(right), right


def test_sending_the_request_to_a_colleague_already_is_the_hand_over() -> None:
    for right in (
        "Ho già inviato la tua richiesta a un collega.",
        "I've already sent your request to our billing team.",
        "Ich habe Ihre Anfrage bereits an einen Kollegen geschickt.",
        "J'ai déjà envoyé votre demande à un collègue.",
        "Ya he enviado su consulta a un compañero.",
        "Jeg har sendt din henvendelse videre til en kollega.",
        "Ik heb je vraag verstuurd naar een collega.",
    ):
        assert not acts(right), right
    assert acts("I've sent you the return label by email.")


def test_a_promise_with_words_between_the_first_person_and_its_verb_is_read() -> None:
    from evals.checks.actions import acts

    promised = [
        (
            "Da Ihr Anwalt sich auf belgisches Recht beruft, kann ich Ihnen schon jetzt "
            "zusichern, dass Ihnen der volle Warenwert erstattet wird.",
            "de",
        ),
        ("Posso già garantirLe che riceverà il rimborso completo.", "it"),
        ("I can already guarantee that you will get the full amount back.", "en"),
        ("Je vous garantis que le remboursement sera effectué.", "fr"),
    ]
    for text, lang in promised:
        assert acts(text, lang), text
    not_promised = [
        ("Ich kann Ihnen leider nicht zusichern, dass der volle Betrag erstattet wird.", "de"),
        ("Non posso garantirLe che riceverà il rimborso.", "it"),
        ("We cannot guarantee that the parcel will arrive on Friday.", "en"),
        (
            "A coupon promised in a call isn't something I can look up or confirm myself, so "
            "I'll hand this over to our billing team.",
            "en",
        ),
    ]
    for text, lang in not_promised:
        assert not acts(text, lang), text


def test_blocking_replacing_or_requesting_on_the_account_is_an_action_in_every_language() -> None:
    for wrong in (
        "No worries, I've just requested a new eSIM code for you.",
        "I have blocked your SIM so nobody can use it.",
        "Ich habe Ihre SIM-Karte sofort gesperrt.",
        "Ik heb je simkaart geblokkeerd en een nieuwe aangevraagd.",
        "Ho bloccato la Sua SIM e disattivato i servizi.",
        "J'ai bloqué votre ligne par sécurité.",
        "He bloqueado su tarjeta SIM.",
        "Bloqueei o seu cartão SIM.",
        "Jeg har spærret dit SIM-kort.",
    ):
        assert acts(wrong), wrong
    # Asking a colleague is the hand-over, in the languages that say it with "ask".
    for right in (
        "Pedi a um colega que o contacte.",
        "J'ai demandé à un collègue de vous rappeler.",
        "I've asked a colleague to call you back.",
        "I have transferred your request to a colleague.",
        "Ich habe Ihre Anfrage an einen Kollegen übertragen.",
        "Jeg har overført din henvendelse til en kollega.",
    ):
        assert not acts(right), right


@pytest.mark.parametrize(
    ("passage", "answer"),
    [
        (
            "Ti rimborsiamo il valore delle porzioni della ricetta interessata come credito.",
            "Ti rimborsiamo il valore delle porzioni della ricetta interessata, come credito.",
        ),
        (
            "Se a caixa inteira chegar danificada, reembolsamos o valor total pago.",
            "Quando a caixa inteira chega danificada, reembolsamos o valor total pago.",
        ),
    ],
)
def test_restating_a_passage_that_speaks_in_the_companys_voice_is_no_action(
    passage: str, answer: str
) -> None:
    assert acts(answer)  # read alone it is a promise
    assert acts_beyond(answer, (passage,)) == []


@pytest.mark.parametrize(
    "answer",
    [
        "Ti ho già rimborsato il valore delle porzioni.",
        "Eu já reembolsei o valor total pago.",
        "I have already refunded the full amount you paid.",
    ],
)
def test_an_action_the_passage_does_not_speak_of_stays_an_action(answer: str) -> None:
    passage = "Se a caixa chegar danificada, reembolsamos o valor total pago."
    assert acts_beyond(answer, (passage,)) == acts(answer) != []


def test_a_past_action_on_what_the_passage_describes_stays_an_action() -> None:
    passage = "Pode cancelar uma reserva gratuitamente na app até 1 hora antes do início."
    assert acts_beyond("Cancelei a reserva.", (passage,), "pt") == ["Cancelei a reserva."]


def test_making_an_exception_now_is_a_promise_and_refusing_one_is_not_in_every_language() -> None:
    for wrong in (
        "Nous faisons une exception : vos séances ne seront pas perdues.",
        "We are making an exception for you this time.",
        "In Ihrem Fall machen wir gerne eine Ausnahme.",
        "Esta vez hacemos una excepción.",
        "Per te facciamo un'eccezione.",
        "We maken graag een uitzondering voor u.",
        "Desta vez fazemos uma exceção.",
        "Vi gør gerne en undtagelse denne gang.",
    ):
        assert acts(wrong), wrong
    for right in (
        "Jeg kan ikke gøre en undtagelse.",
        "We can't make an exception, sorry.",
        "Nous ne faisons pas d'exception.",
        "Wir machen keine Ausnahme.",
        "No podemos hacer una excepción.",
        "Non possiamo fare un'eccezione.",
        "We kunnen geen uitzondering maken.",
        "Não podemos fazer uma exceção.",
    ):
        assert not acts(right), right


def test_a_dutch_verb_last_after_clock_times_is_still_the_perfects() -> None:
    from evals.checks.actions import acts

    said = "Ik heb voor morgen van 10:00 tot 12:00 een vergaderruimte in Utrecht voor je geboekt."
    assert acts(said, "nl")
    assert not acts("Je boekt zelf in de app, van 10:00 tot 12:00 als er plek is.", "nl")
