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


def test_the_show_command_named_after_a_run_of_another_suite_names_that_suite(
    project: Path, capsys
) -> None:
    import shutil

    shutil.copytree(project / "suite", project / "other")
    run(suite=str(project / "other"))
    out = capsys.readouterr().out
    hint = "see why a case failed: invoke show CASE --suite other (e.g. invoke show case-001 --suite other)"
    assert hint in out
    # The command as printed shows that run.
    buf = io.StringIO()
    console = Console(file=buf, width=200, highlight=False, soft_wrap=True)
    assert guarded(lambda: cmd_show("case-001", console=console, suite="other")) == 0
    assert f"run file: {run_files(project)[-1]}" in buf.getvalue()


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


def test_a_lone_surrogate_in_an_answer_is_shown_as_a_replacement_character(project: Path) -> None:
    from casekit import invoke

    run()
    path = run_files(project)[0]
    recs = records(path)
    recs[1]["draft"] = "half a pair \ud800 here"  # json.dumps writes it as the escape \ud800
    path.write_text("".join(json.dumps(r) + "\n" for r in recs), encoding="utf-8")
    out = invoke(project, "show", recs[1]["case"], env={"PYTHONIOENCODING": "utf-8"})
    assert out.returncode == 0, out.stderr
    assert "Traceback" not in out.stderr
    assert "answer: half a pair \ufffd here" in out.stdout


def test_a_replayed_conversation_shows_every_turn_and_no_empty_latency(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from runkit import case, write_case

    root = make_project(tmp_path, 1)
    turns = [
        {"role": "user", "content": "Hi, what does Pro cost per seat?"},
        {"role": "assistant", "content": "Pro costs 45 EUR per seat [doc:pricing#plans]."},
    ]
    write_case(root, case(0, messages=turns, question="and one more seat on Pro?"))
    use(monkeypatch, root, None)
    answers = tmp_path / "answers.jsonl"
    answers.write_text(json.dumps({"case": "case-000", "answer": GOOD}) + "\n", encoding="utf-8")
    assert run(answers=str(answers), models=["acme/rag@2026-01-01"]) == 0
    code, out = shown("case-000")
    assert code == 0
    lines = out.splitlines()
    first = lines.index("customer: Hi, what does Pro cost per seat?")
    assert lines[first + 1] == (
        "assistant (earlier reply): Pro costs 45 EUR per seat [doc:pricing#plans]."
    )
    assert lines[first + 2] == "question: and one more seat on Pro?"
    assert "latency" not in out  # a saved answer has none; never "latency  ms"
    assert "tokens n/a in + n/a out" in out


def test_latest_is_the_newest_run_of_the_configured_suite_not_of_another(project: Path) -> None:
    import shutil

    from evals.errors import InputError
    from evals.run.latest import resolve_in_suite

    assert run() == 3
    (mine,) = run_files(project)
    shutil.copytree(project / "suite", project / "other")
    assert run(suite=str(project / "other")) == 3  # an imported suite's run, newer
    newest = max(run_files(project))
    assert newest != mine and records(newest)[0]["suite"] == "other"
    code, out = shown("case-001")
    assert code == 0 and f"run file: {mine}" in out
    assert resolve_in_suite("latest", project / "runs", project / "other", project, "--b RUN") == (
        newest
    )
    mine.unlink()
    code, _ = shown("case-001")
    assert code == 2
    with pytest.raises(InputError) as err:
        resolve_in_suite("latest", project / "runs", project / "suite", project, "--b RUN")
    assert err.value.lines() == [
        f"no run of the suite suite in {project / 'runs'} (the newest run, {newest.name}, is of "
        "other): name the run with --b RUN"
    ]


def test_a_very_long_answer_is_shown_cut_with_how_much_was_left_out() -> None:
    from evals.report.show import SHOW_CHARS, answer_text

    assert answer_text("Pro costs 45 €.").plain == "Pro costs 45 €."
    long = "Pro costs 45 € per seat. " * 2000
    shown_text = answer_text(long).plain
    assert shown_text.startswith(long[:SHOW_CHARS])
    rest = len(long) - SHOW_CHARS
    assert shown_text.endswith(
        f" ... ({rest:,} more characters not shown: the whole answer is in the run file)"
    )
