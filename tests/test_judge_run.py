"""The judge through the runner and `invoke run --judge`: coverage, exit codes, cache damage."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from casekit import good_case, invoke, make_project, read_jsonl, write_case
from judgekit import (
    JUDGE,
    PROMPT,
    RUBRIC,
    ReferenceModel,
    grade,
    judge_project,
    load_case,
    make,
    rubric_case,
    verdict,
)
from openai_server import OpenAIServer, Scripted

from evals.config import load_settings
from evals.run.plan import RunPlan
from evals.run.runner import exit_code, run
from evals.run.summary import judge_coverage
from evals.suite.folder import open_suite


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return judge_project(tmp_path)


# -- through the runner --------------------------------------------------------------------


SCRIPT = {
    "c-good": verdict(5),
    "c-low": verdict(2, rubric_met=False),
    "c-range": verdict(6),
    "c-missing": '{"score": 4, "reasoning": "fine"}',
    "c-prose": "This answer is fine.",
    "c-slow": Scripted(verdict(5), latency_ms=2000),
}


def scripted_by_case(body: dict[str, Any]) -> str | Scripted:
    """Reply according to the case named in the question (each question names its case id)."""
    user = body["messages"][1]["content"]
    for cid, reply in SCRIPT.items():
        if f"[{cid}]" in user:
            return reply
    raise AssertionError("unknown case")


def coverage_suite(tmp_path: Path) -> Path:
    cases = [rubric_case(cid, rubric=f"[{cid}] {RUBRIC}") for cid in SCRIPT]
    cases.append(good_case("c-norubric"))
    suite = make_project(tmp_path, cases)
    (suite / "judge_prompt.txt").write_text(PROMPT, encoding="utf-8")
    return suite


def test_judge_coverage_in_a_run_is_exact_and_errors_make_the_run_exit_3(
    tmp_path: Path, openai_server: OpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    suite = coverage_suite(tmp_path)
    openai_server.responder = scripted_by_case
    judge = make(suite, openai_server, monkeypatch)
    s = open_suite(suite)
    from evals.checks.loading import load_cases

    plan = RunPlan(
        suite=s,
        cases=load_cases(s)[0],
        provider=ReferenceModel(),
        runs_dir=tmp_path / "runs",
        root=tmp_path,
        grader=judge,
    )
    result = run(plan)
    rows = {r["case"]: r for r in result.rows}
    assert judge_coverage(result.rows) == {
        "n_judged": 6,
        "n_scored": 2,
        "n_error": 4,
        "n_review": 5,
        "n_total": 7,
    }
    for cid in ("c-range", "c-missing", "c-prose", "c-slow"):
        assert rows[cid]["status"] == "error" and rows[cid]["score"] is None
        assert rows[cid]["checks"]["judge"]["score"] is None
        assert rows[cid]["error"].startswith("judge: ")
    assert "outside the scale" in rows["c-range"]["judge"]["error"]
    assert "missing field(s): grounded, rubric_met" in rows["c-missing"]["judge"]["error"]
    assert "not JSON" in rows["c-prose"]["judge"]["error"]
    assert "timed out" in rows["c-slow"]["judge"]["error"]
    assert rows["c-good"]["checks"]["judge"] == {
        "status": "pass",
        "score": 1.0,
        "detail": "score 5 on 1-5, grounded, rubric met",
    }
    assert rows["c-low"]["status"] == "fail" and rows["c-low"]["needs_review"] is True
    assert "judge" not in rows["c-norubric"]["checks"]
    assert result.summary["counts"]["error"] == 4
    assert exit_code(result.summary) == 3
    assert result.header["judge"]["model"] == JUDGE


def test_invoke_run_with_a_judge_exits_3_on_judge_errors_and_stamps_rows(
    tmp_path: Path, openai_server: OpenAIServer
) -> None:
    coverage_suite(tmp_path)
    openai_server.responder = scripted_by_case
    (tmp_path / "pyproject.toml").write_text(
        '[tool.evals]\nsuite = "suite"\ntimeout_s = 0.5\nmax_retries = 0\n', encoding="utf-8"
    )
    env = {"OPENAI_BASE_URL": openai_server.base_url, "OPENAI_API_KEY": "sk-dummy-e2e"}
    proc = invoke(tmp_path, "run", "--judge", JUDGE, env=env)
    assert proc.returncode == 3, proc.stdout + proc.stderr
    (path,) = sorted((tmp_path / "runs").glob("*.jsonl"))
    records = read_jsonl(path)
    header, rows = records[0], [r for r in records if r["kind"] == "case"]
    assert header["judge"]["model"] == JUDGE
    judged = [r for r in rows if "judge" in r["checks"]]
    assert len(judged) == 6
    for r in judged:
        assert set(r["judge"]) >= {"model", "prompt_sha", "verdict", "attempts", "error", "cached"}
        assert r["judge"]["prompt_sha"] == header["judge"]["prompt_sha"]
        assert isinstance(r["needs_review"], bool) and isinstance(r["review_reasons"], list)
        if r["judge"]["error"]:
            assert r["status"] == "error" and r["score"] is None
    assert sum(1 for r in judged if r["status"] == "error") == 4
    assert "sk-dummy-e2e" not in path.read_text("utf-8")
    # A re-run asks the judge only for what was not validly judged before.
    before = len(openai_server.chat_requests)
    proc = invoke(tmp_path, "run", "--judge", JUDGE, env=env)
    assert proc.returncode == 3
    asked = {
        re.search(r"\[(c-[a-z]+)\]", r.body["messages"][1]["content"]).group(1)  # type: ignore[union-attr]
        for r in openai_server.chat_requests[before:]
    }
    assert "c-good" not in asked and "c-low" not in asked


def test_a_case_file_with_a_rubric_but_no_judge_prompt_is_refused_up_front(
    tmp_path: Path, openai_server: OpenAIServer
) -> None:
    suite = make_project(tmp_path, [rubric_case()])
    write_case(suite, rubric_case("other"))
    env = {"OPENAI_BASE_URL": openai_server.base_url, "OPENAI_API_KEY": "sk-dummy"}
    proc = invoke(tmp_path, "run", "--judge", JUDGE, env=env)
    assert proc.returncode == 2
    assert "judge_prompt.txt is missing" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert not openai_server.chat_requests


def test_a_broken_verdict_cache_warns_and_the_judge_still_judges(
    project: Path,
    openai_server: OpenAIServer,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    cache = load_settings(project.parent).cache_path
    cache.parent.mkdir(parents=True, exist_ok=True)
    cache.write_bytes(b"not a database " * 100)
    openai_server.responder = lambda body: verdict(score=4)
    result, extra = grade(make(project, openai_server, monkeypatch), load_case(project))
    assert (result.status, result.score) == ("pass", 0.75)
    assert "judge verdict cache off" in capsys.readouterr().err


def test_a_damaged_cached_verdict_is_asked_again_not_an_error(
    project: Path, openai_server: OpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    import sqlite3

    openai_server.responder = lambda body: verdict(score=4)
    grade(make(project, openai_server, monkeypatch), load_case(project))
    db = sqlite3.connect(load_settings(project.parent).cache_path)
    with db:
        db.execute("UPDATE judge_verdicts SET verdict = 'not json'")
    db.close()
    result, extra = grade(make(project, openai_server, monkeypatch), load_case(project))
    assert (result.status, result.score) == ("pass", 0.75) and extra["judge"]["cached"] is False
    assert len(openai_server.chat_requests) == 2


def test_a_verdict_sent_as_text_parts_is_read_and_a_non_text_content_is_retried(
    project: Path, openai_server: OpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = verdict(score=5)
    parts = [{"type": "text", "text": text[:10]}, {"type": "text", "text": text[10:]}]
    openai_server.enqueue(Scripted(parts))
    result, extra = grade(make(project, openai_server, monkeypatch), load_case(project))
    assert (result.status, result.score) == ("pass", 1.0)
    openai_server.reset()
    openai_server.responder = lambda body: Scripted({"score": 5})  # type: ignore[arg-type]
    result, extra = grade(
        make(project, openai_server, monkeypatch, cache=False), load_case(project)
    )
    assert (result.status, result.score) == ("error", None)
    assert "not text" in result.detail and extra["judge"]["attempts"] == 3
