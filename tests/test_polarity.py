"""A thing called free that a passage gives a price fails; free things, priced things given
their price, and a "not free" pass, in the languages read."""

from __future__ import annotations

from casekit import good_case

from evals.checks import REGISTRY, CheckInput, CheckResult
from evals.checks.polarity import priced_as_free
from evals.reply import Reply
from evals.suite.case import Case
from evals.suite.folder import SuiteSettings

ACCESSORIES = {
    "ref": "extras#list",
    "text": "Accessories: a second battery at 9 € a month, a front basket at 3 € a month, a "
    "D-lock included free of charge on every plan.",
}
ACCESSORI = {
    "ref": "accessori#lista",
    "text": "Accessori disponibili: seconda batteria a 9 € al mese, cestino anteriore a 3 € al "
    "mese, lucchetto ad arco incluso gratuitamente in tutti i piani.",
}


def run(answer: str, passage: dict[str, str]) -> CheckResult:
    data = good_case(
        "extras",
        question="Can I get a child seat? What does it cost?",
        context={"plan": "plus"},
        retrieved=[passage],
        expect={"sources": [passage["ref"]]},
        reference="See the list.",
    )
    return REGISTRY["claims_grounded"].fn(
        CheckInput(Case(data), Reply(answer=answer), SuiteSettings())
    )


def test_a_priced_accessory_called_free_fails_naming_its_price() -> None:
    for wrong, passage in (
        (
            "There's no child seat, but you can have the front basket, free on every plan "
            "[doc:extras#list].",
            ACCESSORIES,
        ),
        (
            "Il seggiolino non c'è, ma puoi avere il cestino anteriore, incluso gratuitamente in "
            "tutti i piani [doc:accessori#lista].",
            ACCESSORI,
        ),
        ("The second battery comes at no extra cost [doc:extras#list].", ACCESSORIES),
    ):
        r = run(wrong, passage)
        assert r.status == "fail", wrong
        assert "a passage gives it a price" in r.detail


def test_free_things_and_priced_things_with_their_price_pass() -> None:
    for right, passage in (
        (
            "A child seat isn't on the list. The D-lock is included free of charge on every "
            "plan, and a front basket is 3 € a month [doc:extras#list].",
            ACCESSORIES,
        ),
        (
            "Il lucchetto ad arco è gratuito; il cestino anteriore costa 3 € al mese "
            "[doc:accessori#lista].",
            ACCESSORI,
        ),
        ("The front basket is not free: it costs 3 € a month [doc:extras#list].", ACCESSORIES),
        ("Feel free to ask about the basket: 3 € a month [doc:extras#list].", ACCESSORIES),
    ):
        r = run(right, passage)
        assert r.status == "pass", (right, r.detail)


def test_a_free_claim_is_read_against_the_current_passages_only() -> None:
    now = "Since 2026 the front basket is included free of charge on every plan."
    retired = "ARCHIVED. Price list 2025: front basket at 3 € a month."
    said = "The front basket is free on every plan."
    assert priced_as_free(said, (retired,), "en")
    data = good_case(
        "extras",
        question="Is the basket extra?",
        retrieved=[{"ref": "extras#now", "text": now}, {"ref": "extras#2025", "text": retired}],
        expect={"sources": ["extras#now"]},
        reference="It is free [doc:extras#now].",
    )
    inp = CheckInput(Case(data), Reply(answer=said + " [doc:extras#now]"), SuiteSettings())
    assert REGISTRY["claims_grounded"].fn(inp).status == "pass"


VISITS = {
    "en": (
        "If the fault lies in our network, the technician's visit is free. If the cause is "
        "your own equipment, we charge 75 € per visit.",
        "A technician's visit is always free of charge [doc:p].",
        "The technician's visit is free when the fault lies in our network [doc:p].",
    ),
    "nl": (
        "Ligt een storing aan ons netwerk, dan is het bezoek van de technieker gratis. Ligt "
        "de oorzaak bij je eigen toestellen, dan rekenen we 75 € per bezoek aan.",
        "Het bezoek van de technieker is altijd gratis [doc:p].",
        "Het bezoek van de technieker is gratis als de storing aan ons netwerk ligt [doc:p].",
    ),
    "it": (
        "Se il guasto dipende dalla nostra rete, la visita del tecnico è gratuita. Se la causa "
        "è un tuo apparecchio, la visita costa 75 €.",
        "La visita del tecnico è sempre gratuita [doc:p].",
        "La visita del tecnico è gratuita se il guasto dipende dalla nostra rete [doc:p].",
    ),
    "de": (
        "Liegt die Störung an unserem Netz, ist der Technikerbesuch kostenlos. Liegt die "
        "Ursache bei Ihren eigenen Geräten, berechnen wir 75 € pro Technikerbesuch.",
        "Der Technikerbesuch ist immer kostenlos [doc:p].",
        "Der Technikerbesuch ist kostenlos, wenn die Störung an unserem Netz liegt [doc:p].",
    ),
}


def test_always_free_where_a_passage_prices_the_thing_in_some_case_is_undecided() -> None:
    from evals.checks.polarity import always_free

    for lang, (passage, wrong, right) in VISITS.items():
        assert always_free(wrong, (passage,), lang), (lang, wrong)
        assert not always_free(right, (passage,), lang), (lang, right)


def test_always_free_where_no_passage_prices_it_is_no_dropped_condition() -> None:
    from evals.checks.polarity import always_free

    free = "Installation is free with every new subscription."
    assert not always_free("Installation is always free [doc:p].", (free,), "en")
    priced_other = free + " A replacement SIM card costs 10 €."
    assert not always_free("Installation is always free [doc:p].", (priced_other,), "en")


def test_free_for_every_one_of_its_kind_drops_the_case_a_passage_prices() -> None:
    from evals.checks.polarity import always_free

    passage = "Delivery costs 3,90 € per box. Boxes for 4 people with 5 recipes are delivered free."
    assert always_free("All boxes for 4 people are delivered free [doc:p].", (passage,), "en")
    it = "La consegna costa 3,90 € a box. Le box per 4 persone con 5 ricette hanno consegna gratuita."
    assert always_free("Tutte le box per 4 persone hanno consegna gratuita.", (it,), "it")
    right = "Boxes for 4 people with 5 recipes are delivered free [doc:p]."
    assert not always_free(right, (passage,), "en")


def test_every_thing_free_in_the_passages_own_words_is_no_dropped_condition() -> None:
    from evals.checks.polarity import always_free

    passage = (
        "Every parcel is insured up to 250 € at no extra cost. Extra insurance costs 1,5 % of "
        "the declared value."
    )
    said = "Every parcel is insured up to 250 € at no extra cost [doc:p]."
    assert not always_free(said, (passage,), "en")


def test_a_free_claim_whose_sentence_limits_the_price_to_another_case_is_no_price_turned_free() -> (
    None
):
    passage = "Front basket: 3 € a month. D-lock: included free."
    assert priced_as_free("The front basket is free; the D-lock costs 3 €.", (passage,), "en")
    cancel = (
        "Cancelling: within the minimum term you pay a collection fee of 49 €. "
        "Cancelling after the minimum term needs one month's notice."
    )
    said = (
        "Cancelling after the minimum term is free; the 49 € collection fee is only for "
        "cancelling within it."
    )
    assert not priced_as_free(said, (cancel,), "en")


def test_what_a_free_marker_introduces_with_a_colon_is_free_item_by_item() -> None:
    roaming = (
        "Nei Paesi dell'Unione Europea usa il suo piano senza costi aggiuntivi: Mobile Start "
        "include 8 GB al mese, Mobile Plus 15 GB e Mobile Max 25 GB. Fuori dall'UE può "
        "attivare il Pass Mondo: 2 GB a 12 €, valido 7 giorni."
    )
    right = "In Spagna, Paese UE, con Mobile Plus può usare 15 GB al mese senza costi extra."
    assert priced_as_free(right, (roaming,), "it") == []
    wrong = "Fuori dall'UE il Pass Mondo è senza costi extra."
    assert priced_as_free(wrong, (roaming,), "it")


def test_a_free_claim_said_of_the_price_itself_names_no_priced_thing() -> None:
    passages = ("Een extra accu kost 29 € per maand.", "Reparatie bij normale slijtage is gratis.")
    right = "Kosten: gratis bij normale slijtage, anders 45 € per uur plus onderdelen."
    assert priced_as_free(right, passages, "nl") == []
    assert priced_as_free("De extra accu is gratis.", passages, "nl")
