"""The example suite in evals/: its references pass, its known-wrong drafts fail, its coverage holds."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from evals.checks import contains_phrase
from evals.checks.grading import grade, outcome
from evals.checks.loading import load_cases
from evals.commands.suite import validate_suite
from evals.reply import Reply
from evals.suite.case import Case
from evals.suite.folder import Suite, open_suite

SUITE_DIR = Path(__file__).resolve().parent.parent / "evals"
SUITE = open_suite(SUITE_DIR)
CASES, _ = load_cases(SUITE)
BY_ID = {c.id: c for c in CASES}


def _status(
    case: Case, suite: Suite, answer: str, abstained: bool | None = None
) -> tuple[str, list[str]]:
    result = outcome(grade(case, Reply(answer=answer, abstained=abstained), suite.settings))
    return result.status, result.failed


def _known_wrong() -> list[tuple[str, int]]:
    return [(c.id, i) for c in CASES for i in range(len(c.data.get("known_wrong", [])))]


def test_suite_is_valid_and_every_case_file_loads() -> None:
    assert validate_suite(SUITE) == []
    assert len(CASES) == len(SUITE.case_files())


@pytest.mark.parametrize("case_id", sorted(BY_ID))
def test_reference_passes_every_deterministic_check(case_id: str) -> None:
    case = BY_ID[case_id]
    status, failed = _status(case, SUITE, case.data["reference"])
    assert status == "pass", f"{case_id}: reference fails {failed}"


@pytest.mark.parametrize(("case_id", "index"), _known_wrong())
def test_known_wrong_draft_fails_at_least_one_check(case_id: str, index: int) -> None:
    case = BY_ID[case_id]
    kw = case.data["known_wrong"][index]
    status, failed = _status(case, SUITE, kw["draft"], kw.get("abstained"))
    assert status == "fail" and failed, f"{case_id}: known_wrong[{index}] passes every check"


def test_every_case_has_a_reference_and_a_known_wrong_with_a_reason() -> None:
    for case in CASES:
        assert case.data.get("reference"), case.id
        assert case.data.get("known_wrong"), case.id
        assert all(kw.get("why") for kw in case.data["known_wrong"]), case.id
        assert case.data.get("source") and case.data.get("category"), case.id


def test_suite_covers_the_required_kinds_of_case() -> None:
    assert len(CASES) >= 24
    abstain = [c for c in CASES if c.expect.get("abstain") is True]
    assert len(abstain) >= 3
    locales = {c.context.get("locale", "en") for c in CASES}
    assert "de" in locales and len(locales - {"en"}) >= 2, "German and one more language"
    assert any(len(re.findall(r"\?", c.question)) >= 2 for c in CASES), (
        "a ticket with two questions"
    )
    archived = [c for c in CASES if any("ARCHIVED" in p["text"] for p in c.retrieved)]
    assert len(archived) >= 3, "traps where an archived passage is retrieved"


def test_abstain_references_use_a_refusal_phrase_and_answerable_ones_do_not() -> None:
    phrases = SUITE.settings.refusal_phrases
    for case in CASES:
        refuses = any(contains_phrase(case.data["reference"], p) for p in phrases)
        assert refuses == bool(case.expect.get("abstain")), case.id


def test_number_trap_case_rejects_the_wrong_price_despite_the_time_21_45() -> None:
    trap = [c for c in CASES if "21:45" in c.question and "45 €" in c.data["reference"]]
    assert trap, "the 21:45 / 45 € trap case exists"
    case = trap[0]
    assert "45 €" in (case.expect.get("figures") or []), "the price is expected as a value"
    wrong = case.data["reference"].replace("45 €", "29 €")
    assert "21:45" in wrong
    status, failed = _status(case, SUITE, wrong)
    # 21:45 is a time, not an amount: the figure check is not fooled by it.
    assert status == "fail" and "figures_expected" in failed


def test_a_bare_45_pattern_would_let_the_wrong_price_through() -> None:
    """Why the trap case uses a word boundary and the currency: the weak pattern passes 29 €."""
    case = next(c for c in CASES if "21:45" in c.question)
    weak = Case({**case.data, "expect": {**case.expect, "mentions": ["45"]}})
    wrong = case.data["reference"].replace("45 €", "29 €")
    assert "45 €" not in wrong and "21:45" in wrong
    results = grade(weak, Reply(answer=wrong), SUITE.settings)
    assert results["mentions_expected"].status == "pass"


def test_every_figure_in_a_reference_is_pinned_by_a_check() -> None:
    """Changing any number in a reference makes its case fail.

    Numbers inside citations and numbers the customer wrote (in the ticket or an earlier
    turn) are left alone: echoing the customer's own figure is not a claim the answer makes.
    """
    cite = re.compile(SUITE.settings.citation_pattern)
    for case in CASES:
        ref = case.data["reference"]
        spans = [m.span() for m in cite.finditer(ref)]
        given = {n for text in case.user_texts for n in re.findall(r"\d+", text)}
        for m in re.finditer(r"\d+", ref):
            if any(s <= m.start() < e for s, e in spans) or m.group() in given:
                continue
            if str(int(m.group()) + 1) in given:
                continue  # the changed figure is the customer's own: echoing it is no claim
            wrong = ref[: m.start()] + str(int(m.group()) + 1) + ref[m.end() :]
            status, _ = _status(case, SUITE, wrong)
            assert status == "fail", f"{case.id}: changing {m.group()!r} goes unnoticed"
