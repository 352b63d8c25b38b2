"""A case's status and score from its checks; failures and errors are never blended away."""

from __future__ import annotations

from casekit import good_case

from evals.checks import CheckInput, CheckResult, check, errored, failed, passed
from evals.checks.grading import checks_for, grade, outcome, run_check
from evals.reply import Reply
from evals.suite.case import Case
from evals.suite.folder import SuiteSettings


def test_implied_checks_follow_expect_fields() -> None:
    names = checks_for(Case(good_case()))
    assert names == [
        "mentions_expected",
        "no_forbidden",
        "retrieval_recall",
        "citations_resolve",
        "citation_precision",
        "no_unsourced_number",
        "figures_supported",
        "claims_grounded",
    ]


def test_figures_and_language_expectations_add_their_checks() -> None:
    case = Case(
        good_case(expect={"figures": ["45 €"], "language": "de", "forbidden_figures": ["39 €"]})
    )
    names = checks_for(case)
    assert {"figures_expected", "no_forbidden", "answer_language"} <= set(names)


def test_a_hand_over_needs_no_citation_but_what_it_cites_is_checked() -> None:
    case = Case(good_case(expect={"abstain": True}))
    names = checks_for(case)
    assert "abstention" in names and "sources_cited" not in names
    uncited = grade(case, Reply(answer="I'll hand this over to our billing team."), SuiteSettings())
    assert uncited["citations_resolve"].status == "skip"
    assert outcome(uncited).status == "pass"
    made_up = grade(case, Reply(answer="I'll hand this over [doc:nowhere#x]."), SuiteSettings())
    assert made_up["citations_resolve"].status == "fail"


def test_explicit_checks_win() -> None:
    assert checks_for(Case(good_case(checks=["max_words"]))) == ["max_words"]


def test_all_pass_is_pass_with_mean_score() -> None:
    o = outcome({"a": passed("ok"), "b": passed("ok", 1.0)})
    assert (o.status, o.score) == ("pass", 1.0)


def test_any_fail_fails_and_score_is_the_mean() -> None:
    o = outcome({"a": passed("ok"), "b": failed("no", 0.5)})
    assert (o.status, o.score, o.failed) == ("fail", 0.75, ["b"])


def test_forbidden_phrase_zeroes_the_case() -> None:
    o = outcome({"a": passed("ok"), "no_forbidden": failed("hit")})
    assert (o.status, o.score) == ("fail", 0.0)


def test_any_error_makes_the_case_an_error_with_no_score() -> None:
    o = outcome({"a": passed("ok"), "b": errored("boom")})
    assert (o.status, o.score) == ("error", None)


def test_only_skips_is_an_error_not_a_pass() -> None:
    o = outcome({"a": CheckResult("skip", None, "n/a")})
    assert (o.status, o.score) == ("error", None)


def test_exception_in_a_check_is_its_error() -> None:
    @check("explodes_for_test")
    def explodes(inp: CheckInput) -> CheckResult:
        raise RuntimeError("lookup table missing")

    r = run_check("explodes_for_test", CheckInput(Case(good_case()), Reply("x"), SuiteSettings()))
    assert (r.status, r.score) == ("error", None)
    assert r.detail == "RuntimeError: lookup table missing"


def test_out_of_range_score_is_an_error() -> None:
    @check("bad_score_for_test")
    def bad(inp: CheckInput) -> CheckResult:
        return CheckResult("pass", 1.5, "too good")

    r = run_check("bad_score_for_test", CheckInput(Case(good_case()), Reply("x"), SuiteSettings()))
    assert r.status == "error"


def test_reference_of_the_trap_case_passes_and_known_wrong_fails() -> None:
    case = Case(good_case())
    good = outcome(grade(case, Reply(case.data["reference"]), SuiteSettings()))
    bad = outcome(grade(case, Reply(case.data["known_wrong"][0]["draft"]), SuiteSettings()))
    assert good.status == "pass"
    assert bad.status == "fail"


def test_grading_a_reply_reads_the_case_language_once(monkeypatch) -> None:
    # Every language-aware check asks for it; it was detected again for each of them.
    from evals.checks import base

    calls: list[str] = []
    real = base.case_language

    def counted(case: Case) -> str | None:
        calls.append(case.id)
        return real(case)

    monkeypatch.setattr(base, "case_language", counted)
    case = Case(good_case(expect={**good_case()["expect"], "abstain": False}))
    results = grade(case, Reply(answer=good_case()["reference"]), SuiteSettings())
    assert len(results) >= 8 and all(r.status != "error" for r in results.values())
    assert calls == ["price-pro"]


def test_an_answer_is_read_for_refusal_phrases_once_however_many_checks_ask() -> None:
    from evals.checks.base import says_refusal

    says_refusal.cache_clear()
    case = Case(good_case(expect={**good_case()["expect"], "abstain": False}))
    grade(case, Reply(answer=good_case()["reference"]), SuiteSettings())
    info = says_refusal.cache_info()
    assert info.misses == 1 and info.hits >= 1  # abstention and claims_grounded both ask


# -- a suite's own checks switched on on top of the implied ones ---------------------------

SIGN_OFF = """
from evals.checks import check, failed, passed

@check()
def signs_off(inp):
    ok = inp.reply.answer.rstrip().endswith("Kind regards.")
    return passed("signed off") if ok else failed("no sign-off: the answer ends without 'Kind regards.'")
"""


def _suite_with_own_check(tmp_path, suite_toml: str, *cases: dict, code: str = SIGN_OFF):
    import json
    from pathlib import Path

    from evals.checks.loading import load_cases
    from evals.suite.folder import open_suite

    root = Path(tmp_path) / "s"
    (root / "cases").mkdir(parents=True)
    (root / "prompt.txt").write_text("Answer.\n", "utf-8")
    (root / "checks.py").write_text(code, "utf-8")
    (root / "suite.toml").write_text(suite_toml, "utf-8")
    for data in cases:
        (root / "cases" / f"{data['id']}.json").write_text(json.dumps(data), "utf-8")
    suite = open_suite(root)
    return suite, {c.id: c for c in load_cases(suite, strict=False)[0]}, load_cases


def test_add_checks_in_suite_toml_runs_a_suite_check_on_every_case_beside_the_implied_ones(
    tmp_path,
) -> None:
    listed = good_case("listed", checks=["mentions_expected"])
    suite, cases, _ = _suite_with_own_check(
        tmp_path, 'add_checks = ["signs_off"]\n', good_case("implied"), listed
    )
    implied = checks_for(Case(good_case("implied")))
    assert checks_for(cases["implied"], suite.settings) == [*implied, "signs_off"]
    # A case's own `checks` list is kept, not replaced: the added check joins it.
    assert checks_for(cases["listed"], suite.settings) == ["mentions_expected", "signs_off"]
    right = Reply(
        "An extra Pro seat costs 45 € per seat and month [doc:pricing#plans]. Kind regards."
    )
    wrong = Reply("An extra Pro seat costs 45 € per seat and month [doc:pricing#plans].")
    results = grade(cases["implied"], right, suite.settings)
    assert list(results) == [*implied, "signs_off"]
    assert outcome(results).status == "pass"
    results = grade(cases["implied"], wrong, suite.settings)
    assert results["signs_off"].status == "fail" and results["mentions_expected"].status == "pass"
    assert outcome(results).failed == ["signs_off"]


def test_expect_add_checks_switches_a_suite_check_on_for_one_case(tmp_path) -> None:
    one = good_case("one", expect={**good_case()["expect"], "add_checks": ["signs_off"]})
    suite, cases, _ = _suite_with_own_check(tmp_path, "", one, good_case("other"))
    assert checks_for(cases["one"], suite.settings)[-1] == "signs_off"
    assert "signs_off" not in checks_for(cases["other"], suite.settings)
    wrong = Reply("An extra Pro seat costs 45 € per seat and month [doc:pricing#plans].")
    assert grade(cases["one"], wrong, suite.settings)["signs_off"].status == "fail"
    assert "signs_off" not in grade(cases["other"], wrong, suite.settings)


def test_an_added_check_that_no_checks_py_registers_is_named_with_its_pointer(tmp_path) -> None:
    one = good_case("one", expect={**good_case()["expect"], "add_checks": ["sings_off"]})
    suite, _, load_cases = _suite_with_own_check(tmp_path, 'add_checks = ["sign_off"]\n', one)
    problems = {(p.pointer, p.message.split(" (")[0]) for p in load_cases(suite, strict=False)[1]}
    assert problems == {
        ("/add_checks/0", "unknown check 'sign_off'"),
        ("/expect/add_checks/0", "unknown check 'sings_off'"),
    }


def test_the_add_checks_example_in_docs_checks_md_runs_as_written(tmp_path) -> None:
    import re
    from pathlib import Path

    docs = (Path(__file__).parent.parent / "docs" / "checks.md").read_text("utf-8")
    section = docs.split("## A suite's own checks: on top of the implied ones", 1)[1]
    section = section.split("\n## ", 1)[0]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    toml = re.search(r"```toml\n(.*?)```", section, re.S).group(1)
    handover = good_case("handover", expect={"abstain": True})
    suite, cases, _ = _suite_with_own_check(
        tmp_path, toml, good_case("implied"), handover, code=code
    )
    signed = Reply(
        "An extra Pro seat costs 45 € per seat and month [doc:pricing#plans]. Kind regards."
    )
    unsigned = Reply("An extra Pro seat costs 45 € per seat and month [doc:pricing#plans].")
    assert grade(cases["implied"], signed, suite.settings)["signs_off"].status == "pass"
    assert grade(cases["implied"], unsigned, suite.settings)["signs_off"].status == "fail"
    handed = Reply("I'll hand this over to a colleague.")
    assert grade(cases["handover"], handed, suite.settings)["signs_off"].status == "skip"
