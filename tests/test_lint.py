"""`invoke validate` warns about expectations that are brittle in known ways, and still exits 0."""

from __future__ import annotations

from pathlib import Path

from casekit import good_case, invoke, make_project

from evals.checks.lint import brittle
from evals.suite.case import Case


def _case(**expect: object) -> Case:
    data = good_case()
    data["expect"] = {"sources": ["pricing#plans"], **expect}
    return Case(data, Path("cases/price-pro.json"))


def test_bare_numbers_whole_sentences_and_figures_as_facts_are_warned_about() -> None:
    found = [str(w) for w in brittle(_case(facts=["45", "45 €", "a b c d e f g h i j k"]))]
    assert any("'45' is a bare number" in w for w in found), found
    assert any('"45 €" is a figure' in w for w in found), found
    assert any("is a whole sentence" in w for w in found), found


def test_a_forbidden_phrase_that_the_cases_own_passage_states_is_warned_about() -> None:
    # The passage gives Starter's 39 €: an answer comparing the plans would fail for it.
    case = _case(must_not_contain=["39 €"])
    assert any("'39 €' is stated by passage pricing#plans" in str(w) for w in brittle(case))


def test_a_ticket_in_a_language_the_checks_do_not_read_is_warned_about() -> None:
    data = good_case(question="Hej! Hur mycket kostar det att avsluta abonnemanget nu?")
    data["expect"] = {"facts": ["avsluta"]}
    (found,) = [str(w) for w in brittle(Case(data, Path("cases/sv.json")))]
    assert "/question" in found and "'sv'" in found and "read with English words" in found
    data["expect"]["language"] = "da"  # said outright: read as the suite says
    assert brittle(Case(data, Path("cases/sv.json"))) == []
    data = good_case(question="Quanto costa disdire l'abbonamento adesso?")
    data["expect"] = {"facts": ["disdetta"]}
    assert brittle(Case(data, Path("cases/it.json"))) == []


def test_a_sound_case_gets_no_warning() -> None:
    assert brittle(_case(facts=[["costs 45", "is 45"]], figures=["45 €"])) == []


def test_validate_prints_warnings_and_exits_0(tmp_path: Path) -> None:
    data = good_case()
    data["expect"] = {**data.get("expect", {}), "facts": ["45"]}
    suite = make_project(tmp_path, [data])
    r = invoke(tmp_path, "validate", "--suite", str(suite))
    assert r.returncode == 0, r.stderr
    assert "warning: '45' is a bare number" in r.stderr
    assert "brittle expectation(s) warned about" in r.stdout


def test_a_forbidden_figure_a_current_passage_states_is_a_warning() -> None:
    from casekit import good_case

    from evals.checks.lint import brittle
    from evals.suite.case import Case

    data = good_case(
        "insurance-800",
        question="What does extra insurance for 800 € cost?",
        retrieved=[
            {
                "ref": "insurance#cover",
                "text": "Extra cover costs 1,5 % of the value, at least 3,00 €.",
            },
            {"ref": "pricing#2025", "text": "ARCHIVED. Extra cover cost 2,00 € flat in 2025."},
        ],
        expect={"forbidden_figures": ["3,00 €", "2,00 €"], "sources": ["insurance#cover"]},
        reference="It costs 12,00 € [doc:insurance#cover].",
    )
    found = [p for p in brittle(Case(data)) if "forbidden_figures" in p.pointer]
    # The archived passage states its figure on purpose (the trap): no warning for it.
    assert [p.pointer for p in found] == ["/expect/forbidden_figures/0"]
    assert "insurance#cover" in found[0].message


def test_a_case_register_the_prompt_contradicts_is_warned_about() -> None:
    data = good_case(question="Kan ik mijn abonnement pauzeren?")
    data["expect"] = {"language": "nl", "register": "informal"}
    case = Case(data)
    found = [str(p) for p in brittle(case, 'Dutch with "u".')]
    assert any("/expect/register" in p and "asks for formal" in p for p in found), found
    # The prompt asking the same, or nothing, is no warning.
    assert not any("register" in str(p) for p in brittle(case, 'Dutch: informal "je".'))
    assert not any("register" in str(p) for p in brittle(case))


def test_words_after_a_forbidden_figure_are_warned_about_as_not_read() -> None:
    found = [str(w) for w in brittle(_case(forbidden_figures=["1.000 € zurück", "12 €"]))]
    assert any("only '1.000 €' is read as the figure, not 'zurück'" in w for w in found), found
    assert not any("'12 €' is read" in w for w in found), found
