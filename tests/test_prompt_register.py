"""The register a suite's prompt asks for in each language is read from the pronouns it names,
and holds every case that says none of its own."""

from __future__ import annotations

import pytest
from casekit import good_case

from evals.checks.grading import checks_for, grade
from evals.checks.prompt_register import prompt_registers
from evals.reply import Reply
from evals.suite.case import Case
from evals.suite.folder import SuiteSettings


@pytest.mark.parametrize(
    ("prompt", "wanted"),
    [
        (
            'Answer in this register: Italian with "Lei", German with "Sie", Dutch with "u", '
            'Danish with "du". English as usual.',
            {"it": "formal", "de": "formal", "nl": "formal", "da": "informal"},
        ),
        (
            "Italian formal (Lei), Dutch informal (je), Portuguese formal (você / o senhor, a "
            "senhora), Spanish formal (usted).",
            {"it": "formal", "nl": "informal", "pt": "formal", "es": "formal"},
        ),
        (
            'Address them formally (você, Lei, u, usted, vous, Sie; in Danish "du").',
            {
                "pt": "formal",
                "it": "formal",
                "nl": "formal",
                "es": "formal",
                "fr": "formal",
                "de": "formal",
                "da": "informal",
            },
        ),
        ('Dutch: informal "je". Italian: informal "tu".', {"nl": "informal", "it": "informal"}),
    ],
)
def test_the_register_each_language_is_asked_in_is_read_from_the_prompt(
    prompt: str, wanted: dict[str, str]
) -> None:
    assert prompt_registers(prompt) == wanted


def test_a_sentence_to_copy_and_a_pronoun_of_several_languages_say_nothing() -> None:
    # The hand-over lines hold pronouns, but they are sentences, not what to write.
    prompt = (
        'Hand over with: fr "Je transmets votre demande à un collègue." / nl "Ik geef uw '
        'vraag door aan een collega, dank u wel."'
    )
    assert prompt_registers(prompt) == {}
    # "tu" is informal in four languages: without a language's name it is none's.
    assert prompt_registers('Never be stiff ("tu").') == {}
    # A language named both ways has no register from the prompt.
    assert prompt_registers('Dutch with "u"; Dutch with "je" for young customers.') == {}


def _case() -> Case:
    data = good_case(question="Kan ik mijn abonnement pauzeren?")
    data["expect"] = {"language": "nl"}
    data["reference"] = "Ja, dat kan in de app [doc:pricing#plans]."
    data.pop("known_wrong", None)
    return Case(data)


def test_a_case_with_no_register_of_its_own_is_held_to_the_prompts() -> None:
    settings = SuiteSettings(prompt='Dutch with "u".')
    assert "address_register" in checks_for(_case(), settings)
    assert "address_register" not in checks_for(_case(), SuiteSettings())
    informal = Reply(answer="Ja, je kunt je abonnement pauzeren in de app [doc:pricing#plans].")
    formal = Reply(answer="Ja, u kunt uw abonnement pauzeren in de app [doc:pricing#plans].")
    assert grade(_case(), informal, settings)["address_register"].status == "fail"
    assert grade(_case(), formal, settings)["address_register"].status == "pass"


def test_a_case_whose_register_contradicts_the_prompt_sends_the_prompts_register_to_review() -> (
    None
):
    settings = SuiteSettings(prompt='Dutch with "u".')
    data = _case().data
    data["expect"] = {"language": "nl", "register": "informal"}
    case = Case(data)
    formal = Reply(answer="Ja, u kunt uw abonnement pauzeren in de app [doc:pricing#plans].")
    informal = Reply(answer="Ja, je kunt je abonnement pauzeren in de app [doc:pricing#plans].")
    got = grade(case, formal, settings)["address_register"]
    assert got.status == "review"
    assert "the case and the prompt disagree" in got.detail
    # The case's own register still passes; with no prompt the case's word is the rule.
    assert grade(case, informal, settings)["address_register"].status == "pass"
    assert grade(case, formal, SuiteSettings())["address_register"].status == "fail"
