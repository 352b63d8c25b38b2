"""The README's figures about the example suite are the suite's: each is recomputed here from
the case files, the labelled answers, the checks and the committed baseline run."""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SUITE = ROOT / "evals"


@cache
def readme() -> str:
    return " ".join((ROOT / "README.md").read_text("utf-8").split())  # line breaks as spaces


def figure(pattern: str) -> int:
    """The number the README states where `pattern` (with one `(\\d+)` group) matches."""
    found = re.findall(pattern, readme())
    assert len(found) == 1, f"{pattern!r} is in the README {len(found)} times"
    return int(found[0].replace(",", ""))


@cache
def cases() -> list[dict]:
    return [json.loads(p.read_text("utf-8")) for p in sorted((SUITE / "cases").glob("*.json"))]


def tagged(tag: str) -> int:
    return sum(tag in c.get("tags", []) for c in cases())


def test_case_and_draft_counts_are_the_suites() -> None:
    assert figure(r"\| `evals/cases/\*\.json` \| (\d+) cases") == len(cases())
    right = sum(len(c.get("known_right", [])) for c in cases())
    wrong = sum(len(c.get("known_wrong", [])) for c in cases())
    assert figure(r"\((\d+) in all, each must pass\)") == right
    assert figure(r"\((\d+) in all, each must fail\)") == wrong
    assert figure(r"passes all (\d+) `known_right` drafts") == right
    assert figure(r"fails all (\d+) `known_wrong` ones") == wrong
    labelled = sum(
        1
        for p in (SUITE / "labelled").glob("*.jsonl")
        for line in p.read_text("utf-8").split("\n")
        if line.strip()
    )
    assert figure(r"`evals/labelled/` holds (\d+) more labelled answers") == labelled


@pytest.mark.parametrize(
    ("pattern", "count"),
    [
        (r"\*\*Most-asked questions\*\* \((\d+)\)", lambda: tagged("most-asked")),
        (r"\*\*Hand-over cases\*\* \((\d+),", lambda: sum(c["expect"].get("abstain") is True for c in cases())),
        (r"\*\*Two questions in one ticket\*\* \((\d+)\)", lambda: tagged("two-questions")),
        (r"\*\*Conversations\*\* \((\d+)\)", lambda: sum(bool(c.get("messages")) for c in cases())),
        (r"\*\*Other languages\*\* \((\d+)\)", lambda: sum(c["expect"].get("language", "en") != "en" for c in cases())),
    ],
)  # fmt: skip
def test_what_the_cases_cover_is_counted_from_the_cases(pattern: str, count) -> None:
    assert figure(pattern) == count()


def test_the_calibration_table_is_what_calibrate_checks_computes() -> None:
    from evals.calibrate.grading import calibrate_checks
    from evals.suite.folder import open_suite

    c = calibrate_checks(open_suite(SUITE))
    right = [g for g in c.scored if g.item.label == "pass"]
    wrong = [g for g in c.scored if g.item.label == "fail"]
    assert figure(r"\| answers graded \| (\d+) \| \d+ \|") == len(right)
    assert figure(r"\| answers graded \| \d+ \| (\d+) \|") == len(wrong)
    assert figure(r"(\d+) false alarms") == sum(g.verdict == "fail" for g in right)
    assert figure(r"(\d+) caught \(sensitivity") == sum(g.verdict == "fail" for g in wrong)


def test_the_offline_baseline_figures_are_the_committed_baselines() -> None:
    name = (ROOT / "runs" / "BASELINE").read_text("utf-8").strip()
    lines = (ROOT / "runs" / name).read_text("utf-8").split("\n")
    summary = [json.loads(x) for x in lines if x.strip()][-1]
    assert summary["kind"] == "summary"
    assert figure(r"`local/extractive@2026-11-01` passes (\d+) of the") == summary["counts"]["pass"]
    assert figure(r"passes \d+ of the (\d+) cases \(mean score") == summary["counts"]["total"]
    mean = re.findall(r"\(mean score (0\.\d+) over \d+/\d+ scored\)", readme())
    assert mean == [f"{summary['score_mean']:.3f}"]


def test_the_test_counts_in_the_docs_are_what_bench_test_suite_counts() -> None:
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "bench_test_suite", ROOT / "bench" / "test_suite.py"
    )
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    fast, whole = (bench.count(args) for _, args in bench.SELECTIONS)
    tests_md = " ".join((ROOT / "docs" / "tests.md").read_text("utf-8").split())
    # "about N" holds while N is within a tenth of the count.
    for stated, actual in (
        (figure(r"The whole suite \(about ([\d,]+) tests\)"), whole),
        (figure(r"the fast subset \(about ([\d,]+) tests"), fast),
    ):
        assert abs(stated - actual) <= actual / 10, (stated, actual)
    printed = re.findall(
        r'pytest -m "not slow": ([\d,]+) tests \.venv/bin/pytest: ([\d,]+) tests', tests_md
    )
    assert len(printed) == 1
    for stated, actual in zip(printed[0], (fast, whole), strict=True):
        assert abs(int(stated.replace(",", "")) - actual) <= actual / 10, (stated, actual)
