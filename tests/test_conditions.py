"""Opening times given without the days the passage gives them for, or claimed for every
day, are undecided; times with their days, in any language, pass."""

from __future__ import annotations

from casekit import good_case

from evals.checks import REGISTRY, CheckInput, CheckResult
from evals.reply import Reply
from evals.suite.case import Case
from evals.suite.folder import SuiteSettings

HOURS = {
    "ref": "support#hours",
    "text": "Support by chat and email is available Monday to Friday from 08:00 to 18:00 CET.",
}
ORARI = {
    "ref": "officina#orari",
    "text": "L'officina di Milano è aperta dal lunedì al venerdì 8:30–19:00 e il sabato "
    "9:00–13:00.",
}


def run(answer: str, passage: dict[str, str] = HOURS) -> CheckResult:
    data = good_case(
        "support-hours",
        question="When can I reach support?",
        retrieved=[passage],
        expect={"sources": [passage["ref"]]},
        reference="Monday to Friday, 08:00 to 18:00 CET [doc:support#hours].",
    )
    return REGISTRY["claims_grounded"].fn(
        CheckInput(Case(data), Reply(answer=answer), SuiteSettings())
    )


def test_times_without_their_days_or_claimed_for_every_day_are_undecided() -> None:
    for wrong in (
        "You can reach chat and email support from 08:00 to 18:00 CET [doc:support#hours].",
        "Chat and email support is there for you any day from 8 to 6 [doc:support#hours].",
    ):
        r = run(wrong)
        assert r.status == "review" and "drops the days" in r.detail, wrong
    r = run("Puoi passare in officina dalle 8:30 alle 19:00 [doc:officina#orari].", ORARI)
    assert r.status == "review"


def test_times_with_their_days_pass_in_any_language() -> None:
    for right, passage in (
        ("Chat and email: Mon–Fri, 8 a.m. to 6 p.m. CET [doc:support#hours].", HOURS),
        ("Chat and email are open on weekdays from 08:00 to 18:00 CET [doc:support#hours].", HOURS),
        (
            "Il chat e l'e-mail sono aperti dal lunedì al venerdì, 08:00–18:00 [doc:support#hours].",
            HOURS,
        ),
        ("Sabato l'officina apre 9:00–13:00, in settimana 8:30–19:00 [doc:officina#orari].", ORARI),
        (
            "Support is available Monday to Friday. Hours are 08:00 to 18:00 CET [doc:support#hours].",
            HOURS,
        ),
    ):
        r = run(right, passage)
        assert r.status == "pass", (right, r.detail)


FRIENDS = {
    "ref": "discount#friends",
    "text": "For each friend who becomes a customer and stays 3 months, you both get 25 € off "
    "your annual bill.",
}


def test_an_amount_given_as_automatic_where_the_passage_attaches_a_condition_is_undecided() -> None:
    wrong = (
        "As a new customer you automatically get 25 € off your annual bill [doc:discount#friends]."
    )
    r = run(wrong, FRIENDS)
    assert r.status == "review" and "unconditional" in r.detail
    nl = {
        "ref": "discount#friends",
        "text": "Voor elke vriend die klant wordt, krijgen jullie 25 € korting.",
    }
    r = run("Je krijgt automatisch 25 € korting [doc:discount#friends].", nl)
    assert r.status == "review"


def test_an_amount_given_with_its_condition_or_nothing_automatic_passes() -> None:
    right = "For each friend who becomes a customer you both get 25 € off [doc:discount#friends]."
    assert run(right, FRIENDS).status == "pass"
    # An amount the passage grants without condition may be automatic.
    plain = {"ref": "discount#friends", "text": "Every customer gets 25 € off the first bill."}
    assert run("You get 25 € off automatically [doc:discount#friends].", plain).status == "pass"


def run_with(answer: str, *passages: dict[str, str]) -> CheckResult:
    data = good_case(
        "hotline-hours",
        question="Can I still call?",
        retrieved=list(passages),
        expect={"sources": [passages[0]["ref"]]},
        reference="Every day from 7:00 to 23:00 [doc:service#line].",
    )
    return REGISTRY["claims_grounded"].fn(
        CheckInput(Case(data), Reply(answer=answer), SuiteSettings())
    )


LINE = {
    "ref": "service#line",
    "text": "The emergency line 0800 1234 is open every day from 7:00 to 23:00. Outside "
    "those hours leave a message.",
}
CLAIMS = {
    "ref": "claims#report",
    "text": "Report damage within 5 working days, in the app or on 0800 1234.",
}
LIJN = {
    "ref": "service#lijn",
    "text": "De hulplijn 0800 1234 is elke dag bereikbaar van 7:00 tot 23:00.",
}
MELDEN = {"ref": "schade#melden", "text": "Meld schade binnen 5 werkdagen via 0800 1234."}


def test_every_day_as_the_passage_says_it_is_no_dropped_condition() -> None:
    # Another passage sentence shares the phone number and names working days: the times
    # are those of the sentence that says every day.
    for right, passages in (
        (
            "The line 0800 1234 is open every day from 7:00 to 23:00 [doc:service#line].",
            (LINE, CLAIMS),
        ),
        ("Call 0800 1234 any day between 7:00 and 23:00 [doc:service#line].", (LINE, CLAIMS)),
        (
            "De hulplijn 0800 1234 is elke dag bereikbaar van 7:00 tot 23:00 [doc:service#lijn].",
            (LIJN, MELDEN),
        ),
        ("De lijn is dagelijks open van 7:00 tot 23:00 [doc:service#lijn].", (LIJN, MELDEN)),
    ):
        r = run_with(right, *passages)
        assert "drops the days" not in r.detail, (right, r.detail)


def test_every_day_where_the_passage_with_those_times_names_days_is_still_a_drop() -> None:
    shop = {
        "ref": "shop#hours",
        "text": "Le magasin est ouvert du lundi au samedi de 9:30 à 19:30.",
    }
    r = run_with(
        "Le magasin est ouvert tous les jours de 9:30 à 19:30 [doc:shop#hours].", shop, CLAIMS
    )
    assert r.status == "review" and "drops the days" in r.detail


STACKING = {
    "en": (
        {
            "d#student": "Students get 10 % off. The student discount cannot be combined with the loyalty discount.",
            "d#loyalty": "Customers of more than two years get a 15 % loyalty discount.",
        },
        "You get the student discount [doc:d#student] and the loyalty discount on top [doc:d#loyalty].",
        "You get either the student discount [doc:d#student] or the loyalty discount [doc:d#loyalty], not both.",
    ),
    "nl": (
        {
            "k#gezin": "Een gezinslijn krijgt 5 € korting. De gezinskorting is niet combineerbaar met de trouwkorting.",
            "k#trouw": "Na drie jaar krijg je 10 % trouwkorting.",
        },
        "Met 10 % trouwkorting [doc:k#trouw] gaat er nog 5 € gezinskorting af [doc:k#gezin].",
        "De gezinskorting [doc:k#gezin] komt niet bovenop de trouwkorting [doc:k#trouw].",
    ),
    "it": (
        {
            "s#annuale": "Pagando l'anno in anticipo hai il 10 % di sconto. Il pagamento annuale non è cumulabile con lo sconto fedeltà.",
            "s#fedelta": "Dopo due anni lo sconto fedeltà è del 15 %.",
        },
        "Con lo sconto fedeltà [doc:s#fedelta] hai anche il 10 % in più pagando l'anno in anticipo [doc:s#annuale].",
        "Lo sconto fedeltà [doc:s#fedelta] conviene: con il pagamento annuale [doc:s#annuale] avresti solo il 10 %.",
    ),
    "de": (
        {
            "r#alarm": "Für eine Alarmanlage gibt es 7 % Rabatt. Der Alarmrabatt ist nicht mit dem Treuerabatt kombinierbar.",
            "r#treue": "Nach fünf Jahren gibt es 10 % Treuerabatt.",
        },
        "Sie erhalten 10 % Treuerabatt [doc:r#treue] und zusätzlich 7 % Alarmrabatt [doc:r#alarm].",
        "Sie erhalten entweder 10 % Treuerabatt [doc:r#treue] oder 7 % Alarmrabatt [doc:r#alarm], nicht beide zusammen.",
    ),
}


def test_two_things_applied_together_that_a_passage_says_cannot_be_combined_are_found() -> None:
    from evals.checks.conditions import stacked

    pattern = SuiteSettings().citation_pattern
    for lang, (passages, wrong, right) in STACKING.items():
        assert stacked(wrong, passages, pattern, lang), (lang, wrong)
        assert not stacked(right, passages, pattern, lang), (lang, right)


def test_a_comparison_or_a_supposed_example_applies_nothing_together() -> None:
    from evals.checks.conditions import stacked

    pattern = SuiteSettings().citation_pattern
    passages = {
        "sconto": "Lo sconto per più animali non è cumulabile con la promozione del primo mese.",
        "premi": "Plus per un cane costa 24,90 € al mese.",
    }
    wrong = "Con lo sconto [doc:sconto] ha in più la promozione del primo mese gratis."
    assert stacked(wrong, passages, pattern, "it")
    compared = (
        "Con lo sconto [doc:sconto] paga 28,80 € in più rispetto ai 270 € [doc:premi] "
        "della promozione."
    )
    assert not stacked(compared, passages, pattern, "it")
    supposed = "Un esempio: con lo sconto [doc:sconto] e in più la promozione pagherebbe meno."
    assert not stacked(supposed, passages, pattern, "it")


WHOLE = {
    "en": (
        "The deposit of 150 € is refunded within 14 days, minus the cost of any missing accessories.",
        "You get the full deposit back within 14 days [doc:d].",
        "You get the deposit back within 14 days, minus any missing accessories [doc:d].",
    ),
    "nl": (
        "De borg wordt binnen 14 dagen terugbetaald, min de kosten van ontbrekende accessoires.",
        "Je krijgt je volledige borg binnen 14 dagen terug [doc:d].",
        "Je krijgt je borg terug als alle accessoires er zijn [doc:d].",
    ),
    "it": (
        "La cauzione viene restituita entro 14 giorni, al netto degli accessori mancanti.",
        "Le restituiamo la cauzione per intero entro 14 giorni [doc:d].",
        "La cauzione Le viene restituita al netto degli accessori mancanti [doc:d].",
    ),
    "de": (
        "Die Kaution wird innerhalb von 14 Tagen abzüglich fehlender Zubehörteile erstattet.",
        "Sie erhalten die Kaution vollständig zurück [doc:d].",
        "Sie erhalten die Kaution abzüglich fehlender Zubehörteile zurück [doc:d].",
    ),
}


def test_an_amount_given_whole_where_the_passage_takes_something_off_is_found() -> None:
    from evals.checks.conditions import whole_despite_deduction

    for lang, (passage, wrong, right) in WHOLE.items():
        assert whole_despite_deduction(wrong, (passage,), lang), (lang, wrong)
        assert not whole_despite_deduction(right, (passage,), lang), (lang, right)


def test_less_than_a_duration_is_no_deduction() -> None:
    from evals.checks.conditions import whole_despite_deduction

    passage = "Se annulla il sopralluogo meno di 24 ore prima, si pagano 80 €."
    answer = "Tegola decide entro 20 giorni dal ricevimento della documentazione completa."
    assert not whole_despite_deduction(answer, (passage,), "it")


def test_times_given_for_a_range_of_days_where_the_passage_gives_them_every_day() -> None:
    from evals.checks.conditions import narrowed_days

    passages = ("Lockers are open every day from 06:00 to 23:00.",)
    narrowed = [
        ("Pode levantar a sua encomenda de segunda a sexta-feira, das 06:00 às 23:00.", "pt"),
        ("Monday to Friday 06:00–23:00.", "en"),
        ("Van maandag tot vrijdag, 06:00 tot 23:00.", "nl"),
        ("Sie können das Paket werktags von 06:00 bis 23:00 abholen.", "de"),
    ]
    for text, lang in narrowed:
        assert narrowed_days(text, passages, lang), text
    kept = [
        ("Os cacifos estão abertos todos os dias das 06:00 às 23:00.", "pt"),
        ("On Saturday the lockers are open from 06:00 to 23:00 too.", "en"),
    ]
    for text, lang in kept:
        assert not narrowed_days(text, passages, lang), text
    # A passage that itself names the days is not widened by the answer's range.
    weekdays = ("Support is available Monday to Friday from 08:00 to 18:00.",)
    assert not narrowed_days("Monday to Friday, 08:00 to 18:00.", weekdays, "en")


def test_a_day_named_with_its_plural_or_definite_ending_names_its_days() -> None:
    passage = {
        "ref": "centre#tider",
        "text": "Centret har åbent mandag til fredag kl. 05:30-23:00 og lørdag kl. 07:00-21:00.",
    }
    right = "Om lørdagen har vi åbent kl. 07:00-21:00 [doc:centre#tider]."
    assert run(right, passage).status == "pass"
    wrong = "Vi har åbent kl. 07:00-21:00 [doc:centre#tider]."
    assert run(wrong, passage).status == "review"


def test_a_whole_day_is_no_amount_given_whole() -> None:
    from evals.checks.conditions import whole_despite_deduction

    passages = (
        "Per elke volledige dag zonder verbinding krijg je 5 € tegoed. Het tegoed wordt "
        "verrekend met je volgende factuur.",
    )
    right = "Je krijgt 5 € tegoed per volledige dag: 3 × 5 € = 15 €."
    assert whole_despite_deduction(right, passages, "nl") == []
    deposit = ("De borg van 50 € krijg je terug, min eventuele schade.",)
    assert whole_despite_deduction("Je krijgt de volledige borg van 50 € terug.", deposit, "nl")


def test_a_deduction_said_of_it_is_read_with_the_passages_topic() -> None:
    from evals.checks.conditions import whole_despite_deduction

    passage = (
        "A deposit is charged with the first monthly fee: Basic 100 €. It is refunded within 14 "
        "days after we have checked the returned device. We deduct open fees and 25 € for a "
        "missing charger.",
    )
    wrong = "Your full 100 € deposit is paid back within 14 days."
    assert whole_despite_deduction(wrong, passage, "en")
    right = "Your 100 € deposit is paid back within 14 days, less any open fees."
    assert not whole_despite_deduction(right, passage, "en")


def test_a_whole_said_of_things_given_back_is_no_amount_given_whole() -> None:
    from evals.checks.conditions import whole_despite_deduction

    passage = (
        "Die Kaution beträgt 150 €. Für ein fehlendes Schloss werden 35 € und für ein "
        "fehlendes Ladegerät 60 € abgezogen.",
    )
    right = "Geben Sie Rad, Schloss und Ladegerät also am besten vollständig zurück."
    assert whole_despite_deduction(right, passage, "de") == []
    assert whole_despite_deduction("Sie erhalten die Kaution vollständig zurück.", passage, "de")


def test_a_german_separable_verb_of_deduction_is_a_deduction() -> None:
    from evals.checks.conditions import whole_despite_deduction

    passage = ("Die Kaution beträgt 150 €. Wir ziehen 35 € für ein fehlendes Schloss ab.",)
    assert whole_despite_deduction("Sie erhalten die Kaution vollständig zurück.", passage, "de")
