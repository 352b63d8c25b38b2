"""A scope the answer widens beyond the limit a passage sets ("unlimited calls, also abroad"
where the passage says within Belgium) is undecided; restating the limit, a concession
("ook al"), or an extension the passages state pass, in the languages read."""

from __future__ import annotations

from evals.checks.scope import widened

CASES = {
    "nl": (
        "Bij elk abonnement zijn bellen en sms'en in België onbeperkt.",
        "Bellen en sms'en is onbeperkt, ook in het buitenland.",
        "Bellen en sms'en is onbeperkt in België, ook in het weekend.",
    ),
    "en": (
        "Calls and texts are unlimited within Belgium on every plan.",
        "Calls and texts are unlimited on every plan, also when you are travelling abroad.",
        "Calls and texts are unlimited within Belgium on every plan, also at weekends.",
    ),
    "it": (
        "Le chiamate e gli SMS sono illimitati in Italia con ogni piano.",
        "Le chiamate e gli SMS sono illimitati con ogni piano, anche all'estero.",
        "Le chiamate e gli SMS sono illimitati in Italia con ogni piano, anche di notte.",
    ),
    "de": (
        "Die Reparatur ist nur bei Tegola Totale im Preis enthalten.",
        "Die Reparatur ist im Preis enthalten, auch bei Tegola Comfort.",
        "Die Reparatur ist nur bei Tegola Totale im Preis enthalten, auch am Wochenende.",
    ),
    "fr": (
        "Les appels sont illimités en Belgique avec chaque abonnement.",
        "Les appels sont illimités avec chaque abonnement, aussi vers l'étranger.",
        "Les appels sont illimités en Belgique avec chaque abonnement.",
    ),
}


def test_a_claim_widened_past_the_passages_limit_is_found_and_one_that_keeps_it_is_not() -> None:
    for lang, (passage, wrong, right) in CASES.items():
        assert widened(wrong, (passage,), passage, lang), (lang, wrong)
        assert not widened(right, (passage,), passage, lang), (lang, right)


def test_a_concession_or_an_extension_the_passages_state_is_no_widening() -> None:
    passage = "Calls are unlimited within Belgium. Roaming in the EU works as at home."
    known = passage
    assert not widened(
        "Calls are unlimited, even if you call Belgium from the EU.", (passage,), known, "en"
    )
    assert not widened(
        "Calls are unlimited within Belgium, and also in the EU roaming works as at home.",
        (passage,),
        known,
        "en",
    )
    nl = "Opzeggen kan binnen de eerste maand gratis. Daarna betaal je 90 €."
    assert not widened(
        "Je kan gratis opzeggen, ook al zit je al twee weken in je abonnement.", (nl,), nl, "nl"
    )


def test_a_passage_that_sets_no_limit_gives_no_widening() -> None:
    passage = "Appointments are available Monday to Saturday."
    assert not widened(
        "Appointments run Monday to Saturday, so a Saturday would also be possible.",
        (passage,),
        passage,
        "en",
    )


PLANS = {
    "en": (
        "Pro and Enterprise export approved timesheets to the payroll software.",
        "Payroll export of timesheets is reserved for Enterprise.",
        "Payroll export of timesheets is only on Pro and Enterprise, not on Starter.",
    ),
    "it": (
        "Con Plus e Cargo la manutenzione ordinaria della bici è inclusa nel canone.",
        "La manutenzione ordinaria della bici è inclusa solo con Cargo.",
        "La manutenzione ordinaria della bici è inclusa solo con Plus e Cargo.",
    ),
    "nl": (
        "Bij Tegola Comfort en Tegola Totale is glasschade verzekerd zonder eigen risico.",
        "Glasschade is alleen bij Tegola Totale verzekerd zonder eigen risico.",
        "Glasschade is alleen bij Tegola Comfort en Tegola Totale verzekerd zonder eigen risico.",
    ),
    "de": (
        "Tegola Comfort und Tegola Totale versichern Glasbruch ohne Selbstbehalt.",
        "Glasbruch ohne Selbstbehalt versichert nur Tegola Totale.",
        "Glasbruch ohne Selbstbehalt versichern nur Tegola Comfort und Tegola Totale.",
    ),
}


def test_a_claim_limited_to_one_of_the_names_the_passage_lists_for_it_is_found() -> None:
    from evals.checks.scope import narrowed

    for lang, (passage, wrong, right) in PLANS.items():
        assert narrowed(wrong, (passage,), lang), (lang, wrong)
        assert not narrowed(right, (passage,), lang), (lang, right)


def test_a_limit_about_another_thing_than_the_passages_list_is_no_narrowing() -> None:
    from evals.checks.scope import narrowed

    passage = "Voor glasschade geldt bij Tegola Comfort en Tegola Totale geen eigen risico."
    assert not narrowed(
        "Alleen Tegola Totale dekt fietsdiefstal, tot 1.500 € per fiets.", (passage,), "nl"
    )
    # A brand shared by the listed names is no name of its own.
    prices = "Lumo Mini costa 8 € al mese, Lumo Plus costa 12 € al mese e Lumo Max 20 €."
    answer = "La rateizzazione è disponibile solo per chi ha un'offerta mobile Lumo attiva."
    assert not narrowed(answer, (prices,), "it")


def test_an_outcome_said_to_happen_automatically_that_no_passage_states_is_found() -> None:
    from evals.checks.scope import automatic_unstated

    trial = "If no plan is chosen when the trial ends, the account becomes read-only."
    for lang, wrong, known in (
        ("en", "Afterwards the account switches to Starter automatically.", trial),
        (
            "nl",
            "Het dubbele bedrag wordt automatisch teruggestort.",
            "Een dubbele betaling wordt onderzocht.",
        ),
        (
            "it",
            "Il secondo addebito viene stornato automaticamente.",
            "Un doppio addebito viene verificato.",
        ),
        ("fr", "La remise s'applique automatiquement.", "La remise est accordée sur demande."),
    ):
        assert automatic_unstated(wrong, known, lang, True), (lang, wrong)
    # A passage that says something happens automatically, in any language, or an answer
    # in another language than its passages: not for this signal.
    auto = "On Pro, Rotaboard calculates the night surcharge automatically."
    assert not automatic_unstated("The surcharge is calculated automatically.", auto, "en", True)
    assert not automatic_unstated("Le pointage est transmis automatiquement.", trial, "fr", False)
    assert not automatic_unstated(
        "The account becomes read-only after the trial.", trial, "en", True
    )


def test_a_thing_said_to_switch_itself_on_is_an_outcome_whatever_it_costs() -> None:
    from evals.checks.scope import automatic_unstated

    known = "Le Pass Monde coûte 10 € pour 1 Go, à activer dans l'appli avant de partir."
    wrong = "Le Pass Monde s'active automatiquement sur place, pour 10 € les 1 Go."
    assert automatic_unstated(wrong, known, "fr", True)
    wrong_it = "Il pacchetto si attiva automaticamente all'arrivo, a 10 €."
    assert automatic_unstated(
        wrong_it, "Il pacchetto costa 10 €, da attivare nell'app.", "it", True
    )
    # An amount granted automatically is the unconditional test's, not this one's.
    assert not automatic_unstated("Vous recevez automatiquement 25 € de remise.", known, "fr", True)


def test_a_widened_scope_is_review_and_its_sentence_is_put_to_the_judge() -> None:
    from casekit import good_case

    from evals.checks import REGISTRY, CheckInput
    from evals.checks.grounding import review_claims
    from evals.reply import Reply
    from evals.suite.case import Case
    from evals.suite.folder import SuiteSettings

    data = good_case(
        "calls",
        question="Are calls unlimited?",
        retrieved=[{"ref": "plans#calls", "text": CASES["en"][0]}],
        expect={"sources": ["plans#calls"]},
        reference="Calls and texts are unlimited within Belgium [doc:plans#calls].",
    )
    wrong = "Calls and texts are unlimited on every plan, also when you are travelling abroad."
    inp = CheckInput(Case(data), Reply(answer=wrong), SuiteSettings())
    got = REGISTRY["claims_grounded"].fn(inp)
    assert got.status == "review" and "scope" in got.detail
    assert review_claims(inp) == [wrong]


def test_not_either_widens_nothing() -> None:
    passage, _, _ = CASES["nl"]
    said = "Bellen is onbeperkt, maar sms'en in het buitenland kan ook niet gratis."
    assert not widened(said, (passage,), passage, "nl")
    de = "Die Reparatur ist nur bei Tegola Totale im Preis enthalten."
    assert not widened("Die Reparatur ist im Preis, auch nicht bei Comfort.", (de,), de, "de")
