"""A fact's words in another form send it to review, never to a pass."""

from __future__ import annotations

from casekit import good_case

from evals.checks import REGISTRY, CheckInput, CheckResult
from evals.checks.akin import akin, akin_found
from evals.reply import Reply
from evals.suite.case import Case
from evals.suite.folder import SuiteSettings


def run(answer: str, fact: str, lang: str) -> CheckResult:
    case = good_case(expect={"facts": [fact], "language": lang})
    inp = CheckInput(Case(case), Reply(answer=answer), SuiteSettings())
    return REGISTRY["facts_present"].fn(inp)


def test_inflections_and_compound_parts_are_akin() -> None:
    assert akin("sospend", "sospension")
    assert akin("vergoeding", "opzegvergoeding")
    assert not akin("plan", "planner")  # too short to be read as a part
    assert not akin("14", "114")
    assert akin_found("Die Grundgebühr bleibt.", "gebühr bleibt", lang="de")


def test_a_fact_in_other_forms_is_undecided_and_quotes_the_answers_words() -> None:
    r = run(
        "La sospensione dell'abbonamento non è più prevista.",
        "non è più possibile sospendere l'abbonamento",
        "it",
    )
    assert r.status == "review", r.detail
    assert "sospensione" in r.detail and "sospend " not in r.detail


def test_a_fact_whose_words_are_absent_still_fails() -> None:
    r = run("Puoi cambiare piano quando vuoi.", "non è più possibile sospendere", "it")
    assert r.status == "fail"


def test_a_bare_no_said_in_other_words_is_undecided_unless_the_answer_says_yes() -> None:
    r = run("Sabato pomeriggio è chiusa. Il sabato apre 9:00–13:00.", "no", "it")
    assert r.status == "review" and "yes" in r.detail
    assert run("Sì, puoi passare alle 15.", "no", "it").status == "fail"
    assert run("Ja hoor, je kunt bellen tot 20:00.", "nee", "nl").status == "fail"
    # Said as a no, it is stated.
    assert run("No, il sabato pomeriggio è chiusa.", "no", "it").status == "pass"


def test_a_fact_with_more_than_a_no_is_not_read_as_a_bare_no() -> None:
    assert run("Il sabato apre 9:00–13:00.", "non il pomeriggio", "it").status == "fail"
