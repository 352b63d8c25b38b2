"""The things an answer names, read against the passages: a label or name no passage or
ticket names is undecided, one only an ARCHIVED passage names fails unless the answer says
it no longer applies, and things the passages name pass in any language."""

from __future__ import annotations

from typing import Any

from casekit import good_case

from evals.checks import REGISTRY, CheckInput, CheckResult
from evals.checks.things import archived
from evals.reply import Reply
from evals.suite.case import Case
from evals.suite.folder import SuiteSettings

CHANGE = {
    "ref": "plans#change",
    "text": "You can switch between Basic and Plus in the Acme app under My plan. The change "
    "applies from the next billing month. Sign in with your Acme ID.",
}
OLD_API = {
    "ref": "api#v1-archived",
    "text": "ARCHIVED. API v1: send your token in the X-Acme-Key header with every request.",
}
API = {
    "ref": "api#overview",
    "text": "API v2 uses OAuth tokens sent as a Bearer token in the Authorization header.",
}


def run(
    answer: str, *passages: dict[str, str], question: str = "How do I change plan?"
) -> CheckResult:
    data: dict[str, Any] = good_case(
        "plans-change",
        question=question,
        context={"plan": "basic"},
        retrieved=list(passages or (CHANGE,)),
        expect={"sources": [p["ref"] for p in passages or (CHANGE,)]},
        reference="Under My plan in the app [doc:plans#change].",
    )
    return REGISTRY["claims_grounded"].fn(
        CheckInput(Case(data), Reply(answer=answer), SuiteSettings())
    )


def test_a_passage_marked_archived_is_told_from_a_current_one() -> None:
    assert archived(OLD_API["text"]) and archived("GEARCHIVEERD. Prijslijst 2025")
    assert not archived(API["text"]) and not archived("Archived employees do not count.")


def test_a_quoted_label_no_passage_names_is_undecided() -> None:
    r = run("Open the Acme app, tap “Request change” and pick Plus [doc:plans#change].")
    assert r.status == "review" and r.score is None
    assert "Request change" in r.detail


def test_a_product_name_no_passage_names_is_undecided() -> None:
    r = run("Switch under My plan [doc:plans#change]; Plus also includes Spotify Premium.")
    assert r.status == "review" and "Spotify" in r.detail


def test_names_the_passages_give_pass_as_a_model_phrases_them() -> None:
    for right in (
        "Sure! In the Acme app go to My plan and choose Plus; the change applies from your "
        "next billing month [doc:plans#change].",
        "Open “My plan” in the app and switch from Basic to Plus; it takes effect next "
        "billing month [doc:plans#change]. You'll need your Acme ID to sign in.",
        # German capitalises every noun: capitals are no names there.
        "Sie können in der Acme-App unter My plan von Basic zu Plus wechseln; die Änderung "
        "gilt ab dem nächsten Abrechnungsmonat [doc:plans#change].",
        "Thanks for asking, Maria! You can switch to Plus under My plan [doc:plans#change].",
    ):
        question = "Hi, I'm Maria. How do I change plan?"
        r = run(right, question=question)
        assert r.status == "pass", (right, r.detail)


def test_a_header_only_an_archived_passage_names_fails_when_presented_as_current() -> None:
    wrong = "Send your token in the X-Acme-Key header with every request [doc:api#v1-archived]."
    r = run(wrong, API, OLD_API, question="Which header do I send my API key in?")
    assert r.status == "fail" and "X-Acme-Key" in r.detail


def test_an_archived_name_given_to_say_it_no_longer_applies_passes() -> None:
    right = (
        "The X-Acme-Key header was only valid for API v1, which is archived; v2 sends an "
        "OAuth token as a Bearer token in the Authorization header [doc:api#overview]."
    )
    r = run(right, API, OLD_API, question="Which header do I send my API key in?")
    assert r.status == "pass", r.detail


def test_a_hand_over_naming_a_team_is_no_invented_thing() -> None:
    r = run("I can't see your account, so I'll hand this over to our Claims team.")
    assert r.status == "pass", r.detail


def test_a_greeting_and_a_sign_off_name_no_product_thing() -> None:
    letter = (
        "Dear Customer Care Team,\n\nThank you for your message. You can switch to Plus in "
        "the Acme app under My plan [doc:plans#change].\n\nKind regards,\nThe Acme Support Desk"
    )
    assert run(letter).status == "pass"
    assert run("Plus includes Spotify [doc:plans#change].").status == "review"
    assert run("Hi! Plus includes Spotify.").status == "review"


def test_an_archived_passage_is_known_by_its_mark_in_each_language() -> None:
    from evals.checks.things import archived

    for mark in ("ARCHIVED.", "ARCHIEF.", "GEARCHIVEERD:", "ARCHIVIO.", "ARQUIVADO.", "ARKIVERET."):
        assert archived(f"{mark} Price list 2025: 5,80 € up to 2 kg."), mark
    assert not archived("Prices: 6,80 € up to 2 kg. The archived list no longer applies.")


def test_a_country_or_region_is_a_place_not_a_thing_the_product_names() -> None:
    # CLDR's names in the answer's language and in English: "Portugal", "Suiza", "Europe".
    for answer in (
        "Switch under My plan [doc:plans#change]; it works the same in Portugal and Switzerland.",
        "Switch under My plan [doc:plans#change]. It works the same in the European Union.",
    ):
        assert run(answer).status == "pass", answer
    # A product name beside a place is still asked about.
    r = run(
        "Switch under My plan [doc:plans#change]. In Portugal, Plus comes with Spotify Premium."
    )
    assert r.status == "review" and "Spotify" in r.detail and "Portugal" not in r.detail


def test_an_italian_verb_with_the_formal_you_attached_is_no_name() -> None:
    from evals.checks.things import named

    assert named("Posso aiutarLa in altro? Desidero confermarLe la tariffa.", "it") == []
    assert [n.text for n in named("Open it in the eBay app.", "en")] == ["eBay"]


def test_place_names_of_several_words_are_blanked_longest_first_in_any_case() -> None:
    from evals.checks.things import blank_places

    text = "We ship to the UNITED STATES and Bosnia & Herzegovina, not to South Americans."
    got = blank_places(text, "en")
    assert "UNITED STATES" not in got and "Bosnia & Herzegovina" not in got
    assert len(got) == len(text)
    # A name must end where its word ends: "South Americans" is no "South America".
    assert "South Americans" in got
    assert blank_places("Versand in die Vereinigte Staaten.", "de").split() == [
        "Versand",
        "in",
        "die",
        ".",
    ]


def test_a_quoted_label_that_negates_the_tickets_words_is_not_named_by_them() -> None:
    allergens = {
        "ref": "allergens#traces",
        "text": "Every recipe card lists the 14 allergens. We cannot guarantee any recipe is "
        "free of traces.",
    }
    question = "Mio figlio è allergico alla frutta a guscio: come faccio?"
    r = run('Nell\'app attiva il filtro "Senza frutta a guscio".', allergens, question=question)
    assert r.status == "review" and "Senza frutta a guscio" in r.detail
    r = run(
        "Evita le ricette con frutta a guscio [doc:allergens#traces].", allergens, question=question
    )
    assert r.status == "pass"


def test_a_languages_name_is_no_product_thing() -> None:
    r = run("The Portuguese passage says you switch under My plan [doc:plans#change].")
    assert r.status == "pass", r.detail


def test_a_name_the_system_prompt_gives_is_known_but_makes_no_archived_thing_current() -> None:
    from evals.checks.things import unsupported

    prompt = "You are the support assistant of Pootje, a pet insurance with Basis and Plus."
    answer = "I'm sorry: no Pootje plan covers pregnancy [doc:cover]."
    current = "Pregnancy and birth are excluded in every plan."
    assert unsupported(answer, current, "", "en")[0] == ["Pootje"]
    assert unsupported(answer, current, "", "en", prompt=prompt) == ([], [])
    # A thing only an archived passage names stays stale, whatever the prompt says of it.
    stale = "Book the Flex-ticket in the app [doc:fares]."
    retired = "ARCHIVED. The Flex-ticket costs 5 € more."
    got = unsupported(stale, current, retired, "en", prompt="Flex-ticket questions: see fares.")
    assert got[1] == ["Flex-ticket"]
