"""Which checks a case runs, running them safely, and a case's status and score."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from evals.checks.base import REGISTRY, CheckInput, CheckResult, errored, skipped
from evals.checks.prompt_register import prompt_register
from evals.checks.register import case_language, implied
from evals.reply import Reply
from evals.suite.case import Case
from evals.suite.folder import SuiteSettings

# Checks that are not in the deterministic registry but may be named in `checks`.
EXTERNAL_CHECKS = {"judge"}


# A case's implied checks, by its content hash: asked three or four times for each answer
# (which checks run, which are external, which the judge may take), and the register they
# imply reads the case's drafts.
_IMPLIED: dict[tuple[str, str], tuple[str, ...]] = {}
_IMPLIED_KEPT = 8192
_SHA_LENGTH = 64


def implied_checks(case: Case) -> list[str]:
    """The checks a case runs when it lists none, derived from its `expect` fields."""
    # The reference and the right drafts are no graded fields, but the register is read
    # from them: they are part of the key.
    if len(case.sha) != _SHA_LENGTH:
        return _implied(case)  # a view with no content hash ("-"): read it as it is
    drafts = repr((case.data.get("reference"), case.data.get("known_right")))
    key = (case.sha, drafts)
    known = _IMPLIED.get(key)
    if known is None:
        known = tuple(_implied(case))
        if len(_IMPLIED) >= _IMPLIED_KEPT:
            _IMPLIED.clear()
        _IMPLIED[key] = known
    return list(known)


def _implied(case: Case) -> list[str]:
    expect = case.expect
    names: list[str] = []
    if expect.get("facts"):
        names.append("facts_present")
    if expect.get("figures"):
        names.append("figures_expected")
    if expect.get("mentions"):
        names.append("mentions_expected")
    if expect.get("must_not_contain") or expect.get("forbidden_figures"):
        names.append("no_forbidden")
    if expect.get("sources"):
        # Whether an answer must cite the expected sources is the prompt's rule, not a fact of
        # the case: `sources_cited` runs when a case lists it in `checks`. Every figure's
        # source is checked by no_unsourced_number and figures_supported.
        names.append("retrieval_recall")
    if case.retrieved:
        names += ["citations_resolve", "citation_precision", "no_unsourced_number"]
        names += ["figures_supported", "claims_grounded"]
    if "abstain" in expect:
        names.append("abstention")
    if expect.get("claim_support"):
        names.append("claim_support")
    if expect.get("language"):
        names.append("answer_language")
    if implied(case):
        # expect.register, or the one the case's own correct drafts address the customer in
        names.append("address_register")
    if expect.get("max_words"):
        names.append("max_words")
    if expect.get("rubric"):
        names.append("judge")
    return names


def added_checks(case: Case, settings: SuiteSettings | None = None) -> list[str]:
    """The checks switched on on top of a case's own: the suite's `add_checks` (every case),
    then the case's `expect.add_checks`."""
    own = case.expect.get("add_checks") if isinstance(case.expect, dict) else None
    names = [*(settings.add_checks if settings else ()), *(own if isinstance(own, list) else ())]
    return list(dict.fromkeys(n for n in names if isinstance(n, str)))


def checks_for(case: Case, settings: SuiteSettings | None = None) -> list[str]:
    """The case's explicit `checks`, else the implied ones; then the added ones (those of
    `settings` only when given), which never replace either."""
    explicit = case.data.get("checks")
    names = list(explicit) if explicit is not None else implied_checks(case)
    if (
        explicit is None
        and settings is not None
        and "address_register" not in names
        and prompt_register(settings.prompt, case_language(case))
    ):
        names.append("address_register")  # the register prompt.txt asks for in its language
    return names + [n for n in added_checks(case, settings) if n not in names]


def deterministic_checks(case: Case, settings: SuiteSettings | None = None) -> list[str]:
    """The case's checks without the external ones (the judge), which `grade` cannot run."""
    return [n for n in checks_for(case, settings) if n not in EXTERNAL_CHECKS]


def external_checks(case: Case) -> list[str]:
    """The case's checks that need a grader outside `grade` (the judge)."""
    return [n for n in checks_for(case) if n in EXTERNAL_CHECKS]


def grader_only(case: Case) -> bool:
    """A case only an external grader scores: no deterministic check applies to it."""
    names = checks_for(case)
    return bool(names) and all(n in EXTERNAL_CHECKS for n in names)


#: Why a rubric goes ungraded: said in the check's detail and in the run's summary.
NOT_GRADED = "not graded: no judge in this run (grade the rubric with --judge MODEL)"


def not_graded(case: Case, graded: set[str]) -> dict[str, CheckResult]:
    """A `skip` for each external check of the case that no grader of this run grades."""
    return {n: skipped(NOT_GRADED) for n in external_checks(case) if n not in graded}


def run_check(name: str, inp: CheckInput) -> CheckResult:
    """Run one check; an exception or a malformed result is that check's error."""
    spec = REGISTRY.get(name)
    if spec is None:
        return errored(f"unknown check {name!r}")
    try:
        result = spec.fn(inp)
    except Exception as exc:  # a broken check is an error, never a pass or a fail
        return errored(f"{type(exc).__name__}: {exc}")
    if not isinstance(result, CheckResult):
        return errored(f"check returned {type(result).__name__}, not CheckResult")
    if result.status in ("pass", "fail") and (
        result.score is None or not 0.0 <= result.score <= 1.0
    ):
        return errored(f"check returned score {result.score!r} outside [0, 1]")
    return result


def grade(case: Case, reply: Reply, settings: SuiteSettings) -> dict[str, CheckResult]:
    """Every deterministic check of the case on this reply."""
    inp = CheckInput(case=case, reply=reply, settings=settings)
    return {name: run_check(name, inp) for name in deterministic_checks(case, settings)}


@dataclass(frozen=True)
class Outcome:
    status: str  # pass | fail | review | error
    score: float | None
    failed: list[str]
    review: list[str] = field(default_factory=list)


def outcome(results: dict[str, CheckResult]) -> Outcome:
    """Pass when every check passes; any error makes the case an error with no score.

    A failing check decides a case even when another check is undecided; a case with an
    undecided (`review`) check and no failing one is `review`, with no score: a person or
    the judge decides it. The score is the mean of the scored checks, and 0 when a
    forbidden phrase appears.
    """
    errors = [n for n, r in results.items() if r.status == "error"]
    failed = [n for n, r in results.items() if r.status == "fail"]
    review = [n for n, r in results.items() if r.status == "review"]
    if errors:
        return Outcome("error", None, failed + errors, review)
    if review and not failed:
        return Outcome("review", None, [], review)
    scored = [r.score for r in results.values() if r.status in ("pass", "fail")]
    if not scored:
        return Outcome("error", None, [])
    if results.get("no_forbidden") and results["no_forbidden"].status == "fail":
        return Outcome("fail", 0.0, failed)
    score = sum(s for s in scored if s is not None) / len(scored)
    return Outcome("fail" if failed else "pass", round(score, 6), failed, review)


def results_json(results: dict[str, CheckResult]) -> dict[str, Any]:
    """Check results as the row's `checks` object."""
    return {name: r.to_json() for name, r in results.items()}
