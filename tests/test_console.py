"""What `invoke run` prints and exits with when a check cannot decide: a case in review is
counted beside errors, named with its reason, never scored, and not a pass."""

from __future__ import annotations

import io
from pathlib import Path

from casekit import read_jsonl
from reviewkit import PASS_ANSWER, REASON, REVIEW_ANSWER, review_suite, run_file, run_review

from evals.run.console import case_line, print_summary
from evals.run.progress import RunProgress
from evals.run.runner import exit_code
from evals.run.summary import summarise


def test_a_case_in_review_is_counted_beside_errors_named_with_why_and_exits_3(
    tmp_path: Path,
) -> None:
    review_suite(tmp_path, ("price-pass", "price-review"))
    res = run_review(tmp_path, {"price-pass": PASS_ANSWER, "price-review": REVIEW_ANSWER})
    assert res.returncode == 3, res.stdout + res.stderr
    out = res.stdout
    assert f"REVIEW price-review  undecided: scope_bound: {REASON}" in out
    assert "cases: 1 pass, 0 fail, 1 in review, 0 error, 2 total" in out
    assert "mean score 1.000 over 1/2 scored" in out  # the row in review is never scored
    assert (
        f"see what a case in review needs: invoke show price-review (scope_bound: {REASON})" in out
    )
    assert "exit 3: some case errored, awaits review" in out
    assert "see why a case failed" not in out  # nothing failed
    rows = [r for r in read_jsonl(run_file(tmp_path)) if r["kind"] == "case"]
    review = next(r for r in rows if r["case"] == "price-review")
    assert review["status"] == "review" and review["score"] is None
    assert review["review_checks"] == ["scope_bound"] and review["failed_checks"] == []


def test_a_failed_case_still_exits_1_beside_a_case_in_review(tmp_path: Path) -> None:
    review_suite(tmp_path)
    res = run_review(tmp_path)
    assert res.returncode == 1, res.stdout + res.stderr
    # A failing check decides its case; the undecided one is named beside it.
    assert "FAIL  price-fail  failed: mentions_expected (undecided: scope_bound)" in res.stdout
    assert "cases: 1 pass, 1 fail, 1 in review, 0 error, 3 total" in res.stdout
    assert "invoke show price-fail" in res.stdout and "invoke show price-review" in res.stdout


def summary_of(*statuses: str, completed: bool = True) -> dict:
    rows = [
        {
            "kind": "case",
            "case": f"c{i}",
            "status": s,
            "score": None if s in ("error", "review") else 1.0,
        }
        for i, s in enumerate(statuses)
    ]
    return summarise(rows, completed=completed)


def test_exit_code_error_beats_fail_beats_review_beats_pass() -> None:
    assert exit_code(summary_of("pass", "pass")) == 0
    assert exit_code(summary_of("pass", "review")) == 3
    assert exit_code(summary_of("fail", "review")) == 1
    assert exit_code(summary_of("fail", "review", "error")) == 3
    assert exit_code(summary_of("pass", "review", completed=False)) == 3


def test_progress_lines_count_rows_in_review_beside_errors() -> None:
    out = io.StringIO()
    progress = RunProgress(2, stream=out, tty=False)
    checks = {"scope_bound": {"status": "review", "score": None, "detail": "cannot bind 15 %"}}
    progress.row(
        {"case": "a", "status": "review", "checks": checks, "review_checks": ["scope_bound"]}
    )
    progress.row({"case": "b", "status": "error", "error": "HTTP 500"})
    text = out.getvalue()
    assert "REVIEW a  undecided: scope_bound: cannot bind 15 %" in text
    assert "progress: 2/2 done, 1 errors, 1 in review," in text


def test_a_review_row_from_an_older_writer_without_review_checks_still_names_its_check() -> None:
    row = {
        "case": "a",
        "status": "review",
        "checks": {
            "facts_present": {"status": "pass", "score": 1.0, "detail": "all"},
            "claims": {"status": "review", "score": None, "detail": "no passage\nsays it"},
        },
    }
    assert case_line(row) == "REVIEW a  undecided: claims: no passage says it"


def test_the_summary_has_a_review_column_only_when_a_check_could_not_decide() -> None:
    def printed(rows: list[dict]) -> str:
        out = io.StringIO()
        print_summary(summarise(rows, completed=True), "runs/x.jsonl", out)
        return out.getvalue()

    decided = printed(
        [
            {
                "kind": "case",
                "case": "a",
                "status": "pass",
                "score": 1.0,
                "checks": {"x": {"status": "pass", "score": 1.0, "detail": ""}},
            }
        ]
    )
    assert "review" not in decided and "cases: 1 pass, 0 fail, 0 error, 1 total" in decided
    undecided = printed(
        [
            {
                "kind": "case",
                "case": "a",
                "status": "review",
                "score": None,
                "checks": {"x": {"status": "review", "score": None, "detail": "?"}},
            }
        ]
    )
    (line,) = [x for x in undecided.splitlines() if x.strip().startswith("x ")]
    assert [c.strip() for c in line.split("│")][-3:] == ["1", "0", "0"]  # review, error, skip
    assert "cases: 0 pass, 0 fail, 1 in review, 0 error, 1 total" in undecided
    assert "mean score n/a over 0/1 scored" in undecided
