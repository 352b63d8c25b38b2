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
