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
