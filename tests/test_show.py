"""`invoke show CASE`: one case of a run in the terminal, and the run's closing line naming it."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from openai_server import OpenAIServer, Scripted
from reviewkit import REASON, REVIEW_ANSWER, review_suite, run_review
from rich.console import Console
from runkit import GOOD, WRONG, make_project, records, run, run_files, use

from evals.cli import guarded
from evals.report.show import cmd_show


def shown(case: str, run_ref: str | None = None) -> tuple[int, str]:
    buf = io.StringIO()
    console = Console(file=buf, width=200, highlight=False, soft_wrap=True)
    code = guarded(lambda: cmd_show(case, run_ref, console=console))
    return code, buf.getvalue()


def respond(body: dict) -> str | Scripted:
    q = body["messages"][1]["content"]
    if "Customer 1:" in q:
        return WRONG + " See also [doc:nowhere]."
    if "Customer 2:" in q:
        return Scripted(None, finish_reason="content_filter")
    return GOOD


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, openai_server: OpenAIServer) -> Path:
    root = make_project(tmp_path, 3)
    use(monkeypatch, root, openai_server.base_url)
    openai_server.responder = respond
    return root


def test_a_failed_case_shows_its_question_answer_checks_and_citations(project: Path) -> None:
    assert run() == 3
    code, out = shown("case-001")
    assert code == 0
    assert "FAIL" in out and "case-001" in out
    assert "question: Customer 1: what does one more Pro seat cost per month?" in out
    assert "answer: One more Pro seat costs 39 EUR per month" in out
    lines = out.splitlines()
    failing = [i for i, line in enumerate(lines) if line.strip().startswith("FAIL ")]
    passing = [i for i, line in enumerate(lines) if line.strip().startswith("PASS ")]
    assert failing and passing and max(failing) < min(passing)  # failing checks first
    assert any("mentions_expected:" in line for line in lines if "FAIL" in line)
    assert "cited: pricing#plans, nowhere" in out
    assert "cited but never retrieved: nowhere" in out


def test_an_errored_case_shows_its_error(project: Path) -> None:
    run()
    code, out = shown("case-002")
    assert code == 0
    assert "ERROR" in out and "error: " in out and "content_filter" in out
    assert "(no answer)" in out


def test_a_case_in_review_shows_which_check_could_not_decide_and_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "p"
    root.mkdir()
    review_suite(root, ("price-review",))
    assert run_review(root, {"price-review": REVIEW_ANSWER}).returncode == 3
    monkeypatch.chdir(root)
    code, out = shown("price-review")
    assert code == 0
    lines = out.splitlines()
    head = next(i for i, line in enumerate(lines) if line.startswith("REVIEW  score n/a"))
    assert lines[head + 1] == (
        f"in review: scope_bound: {REASON} (not scored: a person, or the judge, decides)"
    )
    checks = [line.strip() for line in lines if line.startswith("  ")]
    # The undecided check before the passing one, with its reason.
    assert checks[0] == f"REVIEW scope_bound: {REASON}"
    assert checks[1].startswith("PASS  mentions_expected")


def test_the_run_can_be_named_and_a_wrong_id_gets_the_closest(project: Path) -> None:
    run()
    first = run_files(project)[0]
    code, out = shown("case-000", first.stem)
    assert code == 0 and "PASS" in out
    code, _ = shown("case-00")
    assert code == 2


def test_the_closing_lines_name_the_show_command(project: Path, capsys) -> None:
    run()
    out = capsys.readouterr().out
    assert "see why a case failed: invoke show CASE (e.g. invoke show case-001)" in out


def test_terminal_escapes_in_a_run_file_are_not_passed_through(project: Path) -> None:
    run()
    path = run_files(project)[0]
    recs = records(path)
    recs[1]["draft"] = "fine \x1b]0;owned\x07 answer \x1b[2J"
    path.write_text("".join(json.dumps(r) + "\n" for r in recs), encoding="utf-8")
    code, out = shown(recs[1]["case"])
    assert code == 0
    assert "\x1b" not in out and "\x07" not in out
    assert "fine ?]0;owned? answer ?[2J" in out


def test_a_sealed_run_has_nothing_to_show(project: Path) -> None:
    run()
    path = run_files(project)[0]
    recs = records(path)
    recs[0]["sealed"] = {"pile_id": "p", "digest": "0" * 64}
    path.write_text("".join(json.dumps(r) + "\n" for r in recs), encoding="utf-8")
    code, _ = shown("case-000")
    assert code == 2
