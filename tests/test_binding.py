"""Figures bound to what they are about: a swapped figure fails, a named subject is held."""

from __future__ import annotations

from typing import Any

from casekit import good_case

from evals.checks import REGISTRY, CheckInput, CheckResult
from evals.reply import Reply
from evals.suite.case import Case
from evals.suite.folder import SuiteSettings

RETENTION = (
    "After the subscription ends, data is kept for 30 days and then deleted. "
    "Backups are overwritten within a further 14 days."
)


def retention_case(**expect: Any) -> dict[str, Any]:
    return good_case(
        "data-retention",
        question="How long until our data is gone, backups included?",
        retrieved=[{"ref": "data#retention", "text": RETENTION}],
        expect={"sources": ["data#retention"], **expect},
        reference="Data is kept for 30 days [doc:data#retention]; backups within 14 more days.",
    )


def run(name: str, answer: str, case: dict[str, Any]) -> CheckResult:
    return REGISTRY[name].fn(CheckInput(Case(case), Reply(answer=answer), SuiteSettings()))


def test_figures_swapped_between_their_subjects_are_not_supported() -> None:
    swapped = (
        "Your data is kept for 14 days [doc:data#retention], and backups are overwritten "
        "within 30 more days [doc:data#retention]."
    )
    r = run("figures_supported", swapped, retention_case())
    assert r.status == "fail"
    assert "something else" in r.detail and "kept for 30 days" in r.detail


def test_figures_stated_about_their_own_subjects_are_supported() -> None:
    right = (
        "Your data stays for thirty days [doc:data#retention], and the backups are gone "
        "within another fortnight [doc:data#retention]."
    )
    assert run("figures_supported", right, retention_case()).status == "pass"


def test_an_expected_figure_about_another_subject_fails_naming_it() -> None:
    case = retention_case(
        figures=[
            {"value": "30 days", "about": "data kept"},
            {"value": "14 days", "about": "backups overwritten"},
        ]
    )
    swapped = "Backups are overwritten within 30 days; your data is kept 14 days."
    r = run("figures_expected", swapped, case)
    assert r.status == "fail"
    assert 'not about "data kept"' in r.detail
    right = "Your data is kept 30 days, and backups are overwritten 14 days later."
    assert run("figures_expected", right, case).status == "pass"


def test_an_expected_figure_with_nothing_to_say_what_it_is_about_passes_and_says_so() -> None:
    case = retention_case(figures=[{"value": "30 days", "about": "data kept"}])
    r = run("figures_expected", "Thirty days.", case)
    assert r.status == "pass"
    assert "does not say what it is about" in r.detail


def test_a_derived_figure_is_supported_by_the_passage_it_comes_from() -> None:
    case = good_case(question="What do ten more Pro seats cost per month?")
    # 10 × 45 € from the passage's 45 € and the customer's ten seats; 22:00 to 06:00 is 8 h.
    product = "Ten seats cost 10 × 45 € = 450 € a month [doc:pricing#plans]."
    assert run("figures_supported", product, case).status == "pass"
    night = good_case(
        retrieved=[{"ref": "rules#night", "text": "The surcharge applies from 22:00 to 06:00."}]
    )
    span = "That is 8 hours of surcharge [doc:rules#night]."
    assert run("figures_supported", span, night).status == "pass"
    assert run("figures_supported", "That is 9 hours [doc:rules#night].", night).status == "fail"


def test_a_figure_is_bound_to_a_passage_once_for_every_case_that_shares_them() -> None:
    # A suite's cases share passages and a model repeats its answers: the binding of one
    # figure in one answer to one passage is worked out once.
    from evals.checks.binding import bind

    bind.cache_clear()
    answer = "Your data is kept for 30 days [doc:data#retention]."
    for i in range(3):
        data = retention_case()
        data["id"] = f"retention-{i}"
        data["question"] = f"Customer {i}: how long is our data kept?"
        inp = CheckInput(Case(data), Reply(answer=answer), SuiteSettings())
        assert REGISTRY["figures_supported"].fn(inp).status == "pass"
    info = bind.cache_info()
    assert info.misses == 1 and info.hits == 2


def test_a_text_is_cut_into_clauses_once() -> None:
    # Every figure of an answer asks for the clauses of the answer and of its passage.
    from evals.checks.clauses import clauses

    text = "Data is kept for 30 days; backups within 14 days, but not longer."
    first = clauses(text)
    assert clauses(text) is first
    assert first == (
        (0, "Data is kept for 30 days"),
        (25, " backups within 14 days, "),
        (53, " not longer."),
    )


PLANS = (
    "Basic costs 29 € a month and Plus 39 € a month. The deposit for the router is 50 € on "
    "Basic and 100 € on Plus."
)
PAUSES = (
    "Pauses: up to 2 a year, for up to 30 days each time; request a pause at least 3 days "
    "before it starts."
)


def plans_case(text: str = PLANS, ref: str = "plans#prices") -> dict[str, Any]:
    return good_case(
        "plans-plus-price",
        question="I'm on Plus. What do I pay per month, and what deposit is there?",
        context={"plan": "plus"},
        retrieved=[{"ref": ref, "text": text}],
        expect={"sources": [ref]},
        reference="Plus is 39 € a month [doc:plans#prices].",
    )


def test_a_figure_the_passage_gives_another_plan_in_the_same_sentence_fails() -> None:
    for swapped in (
        "Plus costs 29 € a month [doc:plans#prices].",
        "Good news: on your Plus plan the router deposit is only 50 € [doc:plans#prices].",
    ):
        r = run("figures_supported", swapped, plans_case())
        assert r.status == "fail", swapped
        assert "something else" in r.detail


def test_a_figure_the_passage_gives_the_answers_own_plan_passes() -> None:
    for right in (
        "As a Plus customer you pay 39 € a month [doc:plans#prices], and the router deposit "
        "is 100 € [doc:plans#prices].",
        "Plus is 39 € per month [doc:plans#prices]; Basic would be 29 € [doc:plans#prices].",
        "You pay 100 € deposit on Plus (50 € on Basic) [doc:plans#prices].",
    ):
        assert run("figures_supported", right, plans_case()).status == "pass", right


def test_a_figure_whose_subject_heads_its_passage_sentence_is_bound_to_it() -> None:
    # The 30 days' own clause says only "each time"; the sentence's head says pauses.
    case = plans_case(PAUSES, "plans#pause")
    right = "A single pause lasts up to 30 days [doc:plans#pause]; you can pause twice a year."
    assert run("figures_supported", right, case).status == "pass"
    wrong = "Please request the pause at least 30 days before it starts [doc:plans#pause]."
    r = run("figures_supported", wrong, case)
    assert r.status == "fail" and "at least 3 days" in r.detail


def test_figures_are_shared_out_among_the_names_of_a_sentence_in_every_language() -> None:
    passages = {
        "nl": "Basic kost 29 € per maand, Plus 39 € per maand. De borg is 50 € bij Basic en "
        "100 € bij Plus.",
        "it": "Il piano Basic costa 29 € al mese, il piano Plus 39 € al mese. La cauzione è di "
        "50 € per Basic e di 100 € per Plus.",
        "de": "Basic kostet 29 € im Monat, Plus 39 € im Monat. Die Kaution beträgt 50 € bei "
        "Basic und 100 € bei Plus.",
    }
    right = {
        "nl": "Met Plus betaalt u 39 € per maand en een borg van 100 € [doc:plans#prices].",
        "it": "Con Plus paga 39 € al mese e una cauzione di 100 € [doc:plans#prices].",
        "de": "Mit Plus zahlen Sie 39 € im Monat und 100 € Kaution [doc:plans#prices].",
    }
    wrong = {
        "nl": [
            "Plus kost 29 € per maand [doc:plans#prices].",
            "Voor Plus geldt een borg van 50 € [doc:plans#prices].",
        ],
        "it": [
            "Il piano Plus costa 29 € al mese [doc:plans#prices].",
            "Per Plus la cauzione è di 50 € [doc:plans#prices].",
        ],
        "de": [
            "Plus kostet 29 € im Monat [doc:plans#prices].",
            "Bei Plus beträgt die Kaution 50 € [doc:plans#prices].",
        ],
    }
    for lang, text in passages.items():
        case = plans_case(text)
        case["expect"]["language"] = lang
        assert run("figures_supported", right[lang], case).status == "pass", lang
        for w in wrong[lang]:
            assert run("figures_supported", w, case).status == "fail", w


def test_comparisons_and_lists_of_plans_keep_each_figure_with_its_plan() -> None:
    for right in (
        "Basic and Plus cost 29 € and 39 € a month respectively [doc:plans#prices].",
        "Plus costs 10 € more than Basic, so 39 € instead of 29 € a month [doc:plans#prices].",
        "Switching from Basic (29 €) to Plus (39 €) raises your deposit from 50 € to 100 € "
        "[doc:plans#prices].",
        "- Basic: 29 € per month, 50 € deposit\n- Plus: 39 € per month, 100 € deposit "
        "[doc:plans#prices]",
        "Compared with Basic at 29 €, Plus is 39 € a month [doc:plans#prices].",
    ):
        r = run("figures_supported", right, plans_case())
        assert r.status == "pass", (right, r.detail)
    r = run("figures_supported", "Basic costs 39 € a month [doc:plans#prices].", plans_case())
    assert r.status == "fail"


def test_a_price_list_written_one_plan_a_line_binds_each_price_to_its_line() -> None:
    lines = "Prices:\n- Basic: 29 € a month\n- Plus: 39 € a month\n- Premium: 49 € a month"
    case = plans_case(lines)
    assert (
        run("figures_supported", "Plus costs 29 € a month [doc:plans#prices].", case).status
        == "fail"
    )
    right = "On Premium you pay 49 € [doc:plans#prices], on Basic 29 € [doc:plans#prices]."
    assert run("figures_supported", right, case).status == "pass"


def test_a_unit_symbol_is_no_name_a_figure_is_about() -> None:
    rates = (
        "Rates from 1 November: Variable 0,27 € per kWh, Fixed 1 year 0,29 € per kWh, "
        "Fixed 3 years 0,31 € per kWh. Standing charge: 6,50 € per month."
    )
    case = plans_case(rates)
    right = (
        "Electricity on Variable now costs 0,27 € per kWh [doc:plans#prices], plus 6,50 € "
        "standing charge per month [doc:plans#prices]."
    )
    r = run("figures_supported", right, case)
    assert r.status == "pass", r.detail
    wrong = "On Variable you pay 0,29 € per kWh [doc:plans#prices]."
    assert run("figures_supported", wrong, case).status == "fail"


def test_a_figure_under_a_heading_of_its_line_is_about_the_heading() -> None:
    case = retention_case(figures=[{"value": "30 days", "about": "data kept"}])
    headed = "- Data kept: after the subscription ends, 30 days [doc:data#retention]"
    r = run("figures_expected", headed, case)
    assert r.status == "pass", r.detail
    # A heading that names a rival subject says nothing for this one.
    case = retention_case(
        figures=[
            {"value": "30 days", "about": "data kept"},
            {"value": "14 days", "about": "backups"},
        ]
    )
    r = run("figures_expected", "- Backups: 14 days, data kept: 30 days.", case)
    assert r.status in ("pass", "review")
    r = run("figures_expected", "- Backups: overwritten, then 30 days. Also 14 days.", case)
    assert 'not about "data kept"' in r.detail


PARCELS = (
    "Parcel prices: 6,80 € up to 2 kg, 9,50 € up to 10 kg and 14,90 € up to 23 kg. "
    "Business accounts get 10 % off from 50 parcels a month and 15 % from 200 parcels a month."
)


def parcel_case(language: str = "en") -> dict[str, Any]:
    return good_case(
        "parcel-prices",
        question="What does a 5 kg parcel cost?",
        retrieved=[{"ref": "pricing#parcels", "text": PARCELS}],
        expect={"sources": ["pricing#parcels"], "language": language},
        reference="A parcel up to 10 kg costs 9,50 € [doc:pricing#parcels].",
    )


def test_a_decimal_comma_in_a_passage_list_does_not_part_its_items() -> None:
    # The list's commas part the prices; the commas inside "9,50" do not.
    right = "Een pakket tot 10 kg kost 9,50 € [doc:pricing#parcels], inclusief btw."
    assert run("figures_supported", right, parcel_case("nl")).status == "pass"
    right_en = "Up to 10 kg the parcel is 9,50 € [doc:pricing#parcels]."
    assert run("figures_supported", right_en, parcel_case()).status == "pass"


def test_a_price_of_another_weight_band_in_the_same_list_still_fails() -> None:
    swapped = "A parcel up to 10 kg costs 14,90 € [doc:pricing#parcels]."
    r = run("figures_supported", swapped, parcel_case())
    assert r.status == "fail" and "something else" in r.detail


def test_a_figure_after_the_first_of_a_clause_keeps_the_clause_head() -> None:
    # "Business accounts get 10 % ... and 15 % ...": the 15 % is a business account's too.
    right = "Your business account qualifies for 15 % off [doc:pricing#parcels]."
    assert run("figures_supported", right, parcel_case()).status == "pass"


def test_two_figures_in_one_answer_clause_each_keep_their_own_words() -> None:
    passage = (
        "The annual premium is 120 € for Base and 180 € for Comfort. Paid monthly, Base "
        "costs 10,50 € a month and Comfort 15,75 € a month."
    )
    case = good_case(
        "premiums",
        question="What does Comfort cost?",
        retrieved=[{"ref": "policies#premiums", "text": passage}],
        expect={"sources": ["policies#premiums"]},
        reference="Comfort costs 180 € a year [doc:policies#premiums].",
    )
    right = (
        "Comfort is at the normal price: 180 € a year or 15,75 € a month [doc:policies#premiums]."
    )
    assert run("figures_supported", right, case).status == "pass"


def test_an_answer_in_another_language_than_its_passage_is_bound_by_names_only() -> None:
    passage = (
        "Within one country delivery takes 1 working day. Between two of the four countries "
        "delivery takes 3 working days."
    )
    case = good_case(
        "delivery",
        question="Wie lange dauert ein Paket von Eupen nach Mailand?",
        retrieved=[{"ref": "delivery#times", "text": passage}],
        expect={"sources": ["delivery#times"], "language": "de"},
        reference="Zwischen Belgien und Italien dauert die Zustellung 3 Werktage [doc:delivery#times].",
    )
    right = "Von Belgien nach Italien rechnen Sie mit 3 Werktagen [doc:delivery#times]."
    assert run("figures_supported", right, case).status == "pass"


def test_across_languages_only_names_spelled_alike_tell_whose_a_figure_is() -> None:
    passage = (
        "Within the Netherlands or Belgium delivery takes 1 working day and within Italy or "
        "Portugal 2 working days. Between two of the four countries delivery takes 3 working days."
    )
    case = good_case(
        "route",
        question="Wie lange dauert ein Paket von Eupen nach Mailand?",
        retrieved=[{"ref": "delivery#times", "text": passage}],
        expect={"sources": ["delivery#times"], "language": "de"},
        reference="Zwischen Belgien und Italien: 3 Werktage [doc:delivery#times].",
    )
    # "Italien" and "Italy" share a stem, but a German answer's names are compared with an
    # English passage's only where they are spelled the same.
    right = (
        "Zwischen Belgien und Italien beträgt die Zustellzeit als Richtwert 3 Werktage "
        "[doc:delivery#times]."
    )
    assert run("figures_supported", right, case).status == "pass"
    plans = "Basic costs 29 € a month, Plus 39 € a month."
    priced = good_case(
        "plans",
        question="Was kostet Plus?",
        retrieved=[{"ref": "pricing#plans", "text": plans}],
        expect={"sources": ["pricing#plans"], "language": "de"},
        reference="Plus kostet 39 € im Monat [doc:pricing#plans].",
    )
    swapped = "Plus kostet 29 € im Monat [doc:pricing#plans]."
    assert run("figures_supported", swapped, priced).status == "fail"


DEPOSITS = "The deposit (100 € for Base and Plus, 250 € for Cargo) is returned within 14 days."


def deposit_case() -> dict[str, Any]:
    return good_case(
        "deposit-plus",
        question="I want to cancel my Plus. When do I get the deposit back?",
        retrieved=[{"ref": "contract#end", "text": DEPOSITS}],
        expect={"sources": ["contract#end"]},
        reference="The deposit of 100 € [doc:contract#end] is returned within 14 days.",
    )


def test_a_figure_whose_answer_names_no_plan_is_held_to_the_plan_the_ticket_names() -> None:
    wrong = "Your deposit of 250 € [doc:contract#end] comes back within 14 days."
    r = run("figures_supported", wrong, deposit_case())
    assert r.status == "fail" and "something else" in r.detail, r.detail
    right = "Your deposit of 100 € [doc:contract#end] comes back within 14 days."
    assert run("figures_supported", right, deposit_case()).status == "pass"


def test_a_ticket_that_names_both_plans_does_not_say_which_figure_is_meant() -> None:
    case = deposit_case()
    case["question"] = "Is the deposit for Cargo higher than for Plus?"
    answer = "Yes: the deposit is 250 € [doc:contract#end], returned within 14 days."
    assert run("figures_supported", answer, case).status == "pass"


def test_a_worked_result_is_about_what_its_terms_are_about() -> None:
    case = good_case(
        "code-valid",
        question="I got the code on 20 November 2026. Until when can I use it?",
        retrieved=[
            {"ref": "codes#valid", "text": "A code arrives within 2 days and stays valid 7 days."}
        ],
        expect={
            "sources": ["codes#valid"],
            "figures": [
                {"value": "27 November 2026", "about": "valid"},
                {"value": "2 days", "about": "arrives"},
            ],
        },
        reference="The code is valid until 27 November 2026 [doc:codes#valid].",
    )
    worked = (
        "A code arrives within 2 days, and stays valid for 7 days [doc:codes#valid]. "
        "So: 20 November 2026 + 7 days = 27 November 2026."
    )
    assert run("figures_expected", worked, case).status == "pass"
    bare = "A code arrives by post. On 27 November 2026 the shop opens."
    assert run("figures_expected", bare, case).status != "pass"


def test_a_capitalised_first_word_of_a_passage_sentence_does_not_own_its_figure() -> None:
    case = good_case(
        "roaming-over",
        question="How much data can I use in the EU with Onda 20 GB?",
        retrieved=[
            {
                "ref": "roaming#eu",
                "text": "With Onda 20 GB you can use up to 9 GB a month in the EU at no "
                "extra cost, with Onda 50 GB up to 18 GB at 0 € extra. Beyond that limit, "
                "we charge 0,20 € per GB.",
            }
        ],
        expect={"sources": ["roaming#eu"]},
        reference="Up to 9 GB [doc:roaming#eu]; beyond that 0,20 € per GB [doc:roaming#eu].",
    )
    answer = (
        "With Onda 20 GB you get up to 9 GB a month in the EU [doc:roaming#eu]; beyond that "
        "limit it is 0,20 € per GB [doc:roaming#eu]."
    )
    r = run("figures_supported", answer, case)
    assert r.status == "pass", r.detail


DEPOSIT = (
    "Je betaalt eenmalig 50 € borg. Je krijgt de borg binnen 14 dagen terug. Is de modem "
    "beschadigd, dan houden we 20 € van de borg in."
)


def test_an_answers_words_after_a_second_figure_of_its_kind_are_that_figures() -> None:
    case = good_case(
        "modem-deposit",
        question="Mijn modem is beschadigd. Hoeveel borg krijg ik terug?",
        retrieved=[{"ref": "modem#borg", "text": DEPOSIT}],
        expect={"sources": ["modem#borg"], "language": "nl"},
        reference="x",
    )
    right = "Van de 50 € borg gaat 20 € af omdat de modem beschadigd is [doc:modem#borg]."
    assert run("figures_supported", right, case).status == "pass"
    swapped = "Van de 20 € borg gaat 50 € af omdat de modem beschadigd is [doc:modem#borg]."
    assert run("figures_supported", swapped, case).status == "fail"


CAPS = (
    "Basis rimborsa il 50 % del conto, fino a 2.000 € per animale per anno solare. Plus "
    "rimborsa l'80 %, fino a 5.000 € per animale per anno solare. Totaal rimborsa il 100 %, "
    "fino a 10.000 € per animale per anno solare. La franchigia annua è di 150 € per animale "
    "con Basis, 100 € con Plus e 50 € con Totaal."
)


def caps_case() -> dict[str, Any]:
    return good_case(
        "franchigia",
        question="Quanto costa la franchigia con Totaal?",
        retrieved=[{"ref": "copertura#piani", "text": CAPS}],
        expect={"sources": ["copertura#piani"]},
        reference="La franchigia con Totaal è di 50 € [doc:copertura#piani].",
    )


def test_words_every_figure_of_a_passage_shares_bind_no_rival() -> None:
    # "per animale per anno solare" stands beside each cap: it does not make 50 € a cap.
    right = "La franchigia è di 50 € per animale per anno solare [doc:copertura#piani]."
    assert run("figures_supported", right, caps_case()).status == "pass"


def test_a_passage_clause_that_names_its_subject_with_a_pronoun_has_the_sentence_before() -> None:
    passage = (
        "En France, la franchise est de 1 200 € par sinistre. Pour les conducteurs de moins de "
        "25 ans, elle est de 1 700 €."
    )
    case = good_case(
        "franchise",
        question="J'ai 23 ans. Quelle est ma franchise ?",
        retrieved=[{"ref": "assurance", "text": passage}],
        expect={"sources": ["assurance"]},
        reference="1 700 € [doc:assurance].",
    )
    right = "Comme vous avez moins de 25 ans, votre franchise est de 1 700 € [doc:assurance] par sinistre."
    assert run("figures_supported", right, case).status == "pass"


def test_the_customers_figure_cited_to_a_passage_is_held_to_that_passages_subject() -> None:
    passage = "Cleaning costs 90 €. The zone exit fee is 35 €."
    case = good_case(
        "unknown-charge",
        question="I was charged 35 € yesterday. What is it?",
        retrieved=[{"ref": "fees", "text": passage}],
        expect={"sources": ["fees"]},
        reference="35 € is the zone exit fee [doc:fees].",
    )
    assert (
        run("figures_supported", "The 35 € [doc:fees] is the zone exit fee.", case).status == "pass"
    )
    wrong = run("figures_supported", "The 35 € [doc:fees] is what the cleaning costs.", case)
    assert wrong.status == "fail" and "something else" in wrong.detail
    # Not cited, the customer's figure needs no source and is not judged.
    assert run("figures_supported", "The 35 € is what the cleaning costs.", case).status == "skip"


CREDITS = (
    "Elk lidmaatschap bevat per maand tegoed: Flex desk 4 uur, Fixed desk 8 uur, Private "
    "office 12 uur per persoon. Alleen bij een Private office mag je maximaal 4 uur meenemen."
)


def credits_case() -> dict[str, Any]:
    return good_case(
        "credits",
        question="Ik heb een Fixed desk. Hoeveel uur vergaderruimte heb ik?",
        retrieved=[{"ref": "rooms", "text": CREDITS}],
        expect={"sources": ["rooms"]},
        reference="8 uur [doc:rooms].",
    )


def test_a_name_the_answers_sentence_gives_before_its_first_figure_binds_it() -> None:
    wrong = "Met je Fixed desk heb je 4 uur tegoed per maand [doc:rooms], dus na 2 uur nog 2 uur."
    r = run("figures_supported", wrong, credits_case())
    assert r.status == "fail" and "something else" in r.detail
    right = "Met je Fixed desk heb je 8 uur tegoed per maand [doc:rooms], dus na 2 uur nog 6 uur."
    assert run("figures_supported", right, credits_case()).status == "pass"
