"""The LLM judge against a loopback OpenAI-compatible server: bad verdicts are errors, never scores."""

from __future__ import annotations

import asyncio
import json
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from casekit import good_case, invoke, make_project, read_jsonl, write_case
from openai_server import Fault, OpenAIServer, Scripted

from evals.case import Case
from evals.config import load_settings
from evals.errors import InputError
from evals.judge import Judge, family_warning, judge_coverage, make_judge, same_family
from evals.reply import Reply
from evals.runner import RunPlan, exit_code, run
from evals.suite import open_suite

JUDGE = "openai/gpt-4o-mini@2024-07-18"
PROMPT = "Grade the answer strictly.\n"
RUBRIC = "States the Pro price per seat and month and cites the pricing page."
GOOD_ANSWER = "An extra Pro seat costs 45 € per seat and month [doc:pricing#plans]."


def verdict(
    score: int = 5, grounded: bool = True, rubric_met: bool = True, reasoning: str = "ok"
) -> str:
    return json.dumps(
        {"score": score, "grounded": grounded, "rubric_met": rubric_met, "reasoning": reasoning}
    )


def rubric_case(case_id: str = "price-pro", **expect: Any) -> dict[str, Any]:
    base = {"facts": ["45 €"], "sources": ["pricing#plans"], "rubric": RUBRIC}
    return good_case(case_id, expect={**base, **expect})


@pytest.fixture
def project(tmp_path: Path) -> Path:
    suite = make_project(tmp_path, [rubric_case()])
    (suite / "judge_prompt.txt").write_text(PROMPT, encoding="utf-8")
    return suite


def make(
    suite: Path, srv: OpenAIServer, monkeypatch: pytest.MonkeyPatch, cache: bool = True, **over: Any
) -> Judge:
    """A judge on the test server: short timeout, one SDK retry."""
    monkeypatch.setenv("OPENAI_BASE_URL", srv.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-secret")
    cfg = replace(load_settings(suite.parent), timeout_s=0.4, max_retries=1, **over)
    return make_judge(JUDGE, open_suite(suite), cfg, use_cache=cache)


def load_case(suite: Path, case_id: str = "price-pro") -> Case:
    path = suite / "cases" / f"{case_id}.json"
    return Case(json.loads(path.read_text("utf-8")), path)


def grade(judge: Judge, case: Case, answer: str = GOOD_ANSWER) -> tuple[Any, dict[str, Any]]:
    async def go() -> tuple[Any, dict[str, Any]]:
        try:
            return await judge.grade(case, Reply(answer))
        finally:
            await judge.aclose()

    return asyncio.run(go())


# -- unusable verdicts: retried, then an error with the reason, never a score ---------------


@pytest.mark.parametrize(
    ("bad", "reason"),
    [
        (verdict(score=7), "/score: 7 is outside the scale 1 to 5"),
        (verdict(score=0), "/score: 0 is outside the scale 1 to 5"),
        ('{"score": 4, "rubric_met": true, "reasoning": "fine"}', "missing field(s): grounded"),
        ("The answer looks correct and well sourced. Score: 4/5.", "the reply is not JSON"),
        (verdict(score="4"), '/score: "4" is not of type integer'),  # type: ignore[arg-type]
        (
            '{"score": 4, "grounded": true, "rubric_met": true, "reasoning": "x", "conf": 1}',
            "unexpected field(s): conf",
        ),
    ],
)
def test_an_unusable_verdict_is_retried_then_an_error_with_its_reason(
    project: Path,
    openai_server: OpenAIServer,
    monkeypatch: pytest.MonkeyPatch,
    bad: str,
    reason: str,
) -> None:
    openai_server.responder = lambda body: bad
    result, extra = grade(make(project, openai_server, monkeypatch), load_case(project))
    assert result.status == "error"
    assert result.score is None
    assert reason in result.detail
    assert "after 3 attempts" in result.detail
    assert len(openai_server.chat_requests) == 3
    assert extra["judge"]["verdict"] is None
    assert extra["judge"]["attempts"] == 3
    assert reason in extra["judge"]["error"]
    assert extra["needs_review"] is True
    assert extra["review_reasons"][0].startswith("judge error:")


def test_the_retry_message_tells_the_judge_what_was_wrong(
    project: Path, openai_server: OpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    openai_server.enqueue(verdict(score=9), "Looks fine to me.", verdict(score=4))
    result, extra = grade(make(project, openai_server, monkeypatch), load_case(project))
    reqs = [r.body["messages"] for r in openai_server.chat_requests]
    assert len(reqs) == 3
    # The second request carries the bad reply and a correction naming the problem.
    assert reqs[1][-2] == {"role": "assistant", "content": verdict(score=9)}
    assert reqs[1][-1]["role"] == "user"
    assert "/score: 9 is outside the scale 1 to 5" in reqs[1][-1]["content"]
    assert "the reply is not JSON" in reqs[2][-1]["content"]
    # A valid verdict on the third attempt is scored: (4 - 1) / (5 - 1).
    assert (result.status, result.score) == ("pass", 0.75)
    assert extra["judge"]["attempts"] == 3


def test_a_timeout_is_an_error_after_the_sdk_retries_and_never_scored(
    project: Path, openai_server: OpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    openai_server.enqueue(Fault.slow(2.0), Fault.slow(2.0))
    result, extra = grade(make(project, openai_server, monkeypatch), load_case(project))
    assert result.status == "error" and result.score is None
    assert "timed out" in result.detail and "after 1 retries" in result.detail
    assert len(openai_server.chat_requests) == 2  # first try + one SDK retry
    assert extra["judge"]["verdict"] is None and extra["needs_review"] is True


def test_a_server_error_that_persists_is_an_error(
    project: Path, openai_server: OpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    openai_server.enqueue(Fault.server_error(), Fault.server_error())
    result, _ = grade(make(project, openai_server, monkeypatch), load_case(project))
    assert (result.status, result.score) == ("error", None)
    assert "HTTP 500 (InternalServerError): injected server_error" in result.detail
    assert "sk-test" not in result.detail


def test_a_malformed_body_or_no_choices_is_asked_again_unchanged(
    project: Path, openai_server: OpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    openai_server.enqueue(Fault.malformed(), Fault.no_choices(), verdict(score=5))
    result, extra = grade(make(project, openai_server, monkeypatch), load_case(project))
    assert (result.status, result.score) == ("pass", 1.0)
    first = openai_server.chat_requests[0].body["messages"]
    assert [r.body["messages"] for r in openai_server.chat_requests] == [first] * 3
    assert extra["judge"]["attempts"] == 3


# -- valid verdicts ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("reply", "score"),
    [
        ("```json\n" + verdict(score=4) + "\n```", 4),  # one fenced block, nothing else
        ("```\r\n" + verdict(score=2) + "\r\n```\n", 2),
        ("\n\n   " + json.dumps(json.loads(verdict(score=5)), indent=4) + "  \n", 5),
        ('{"score": 4.0, "grounded": true, "rubric_met": true, "reasoning": "ok"}', 4),
    ],
)
def test_a_fenced_or_padded_verdict_and_an_integral_float_score_are_valid(
    project: Path,
    openai_server: OpenAIServer,
    monkeypatch: pytest.MonkeyPatch,
    reply: str,
    score: int,
) -> None:
    openai_server.responder = lambda body: reply
    result, extra = grade(make(project, openai_server, monkeypatch), load_case(project))
    assert result.status in ("pass", "fail") and result.score == (score - 1) / 4
    assert extra["judge"]["verdict"]["score"] == score
    assert isinstance(extra["judge"]["verdict"]["score"], int)
    assert extra["judge"]["attempts"] == 1


@pytest.mark.parametrize(
    "reply",
    [
        "Here is my verdict:\n```json\n" + verdict(score=4) + "\n```",  # prose around it
        "```json\n" + verdict(score=7) + "\n```",  # fenced but out of range
        "```json\n" + verdict(score=4) + "\n```\n```json\n" + verdict(score=1) + "\n```",
        '{"score": 4.5, "grounded": true, "rubric_met": true, "reasoning": "ok"}',
        '{"score": true, "grounded": true, "rubric_met": true, "reasoning": "ok"}',
        '{"score": NaN, "grounded": true, "rubric_met": true, "reasoning": "ok"}',
        '{"score": 4, "grounded": "yes", "rubric_met": true, "reasoning": "ok"}',
        '{"score": 4, "grounded": true, "rubric_met": true, "reasoning": ""}',
        "[" + verdict(score=4) + "]",
    ],
)
def test_nothing_outside_the_schema_is_ever_scored(
    project: Path,
    openai_server: OpenAIServer,
    monkeypatch: pytest.MonkeyPatch,
    reply: str,
) -> None:
    openai_server.responder = lambda body: reply
    result, extra = grade(make(project, openai_server, monkeypatch), load_case(project))
    assert (result.status, result.score) == ("error", None)
    assert extra["judge"]["verdict"] is None and extra["needs_review"] is True


def test_a_server_echoing_the_key_gets_it_masked_in_verdicts_and_errors(
    project: Path, openai_server: OpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    key = "sk-test-not-a-secret"
    openai_server.enqueue(
        f"not json, your key is {key}",
        f"still not json {key}",
        verdict(score=4, reasoning=f"Authorization: Bearer {key}"),
    )
    result, extra = grade(make(project, openai_server, monkeypatch), load_case(project))
    assert result.status == "pass"
    assert key not in json.dumps(extra) and "Bearer ***" in extra["judge"]["verdict"]["reasoning"]
    openai_server.reset()
    openai_server.responder = lambda body: f"never json {key}"
    result, extra = grade(
        make(project, openai_server, monkeypatch, cache=False), load_case(project)
    )
    assert result.status == "error" and key not in result.detail and "***" in result.detail


def test_a_long_reasoning_is_accepted_and_scored(
    project: Path, openai_server: OpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    reasoning = ("The answer states 45 € per seat and month and cites pricing#plans. " * 50)[:3000]
    assert len(reasoning) == 3000
    openai_server.responder = lambda body: verdict(score=4, reasoning=reasoning)
    result, extra = grade(make(project, openai_server, monkeypatch), load_case(project))
    assert (result.status, result.score) == ("pass", 0.75)
    assert extra["judge"]["verdict"]["reasoning"] == reasoning
    assert extra["judge"]["attempts"] == 1
    assert extra["needs_review"] is False and extra["review_reasons"] == []


def test_a_reasoning_over_the_generous_limit_is_an_error_not_a_zero(
    project: Path, openai_server: OpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    openai_server.responder = lambda body: verdict(reasoning="x" * 20_001)
    result, _ = grade(make(project, openai_server, monkeypatch), load_case(project))
    assert (result.status, result.score) == ("error", None)
    assert "/reasoning: 20001 characters, over the limit of 20000" in result.detail


def test_the_request_asks_for_the_verdict_schema_on_the_suite_scale(
    project: Path, openai_server: OpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    (project / "suite.toml").write_text("judge_scale = [0, 10]\njudge_threshold = 6\n", "utf-8")
    openai_server.responder = lambda body: verdict(score=8)
    result, _ = grade(make(project, openai_server, monkeypatch), load_case(project))
    body = openai_server.chat_requests[0].body
    fmt = body["response_format"]
    assert fmt["type"] == "json_schema"
    assert fmt["json_schema"]["name"] == "verdict" and fmt["json_schema"]["strict"] is True
    schema = fmt["json_schema"]["schema"]
    assert schema["required"] == ["score", "grounded", "rubric_met", "reasoning"]
    assert (schema["properties"]["score"]["minimum"], schema["properties"]["score"]["maximum"]) == (
        0,
        10,
    )
    assert "maxLength" not in json.dumps(schema)  # strict endpoints refuse length limits
    assert body["model"] == "gpt-4o-mini"
    assert body["messages"][0] == {"role": "system", "content": PROMPT}
    user = body["messages"][1]["content"]
    for shown in (
        "What does one more Pro seat cost",
        'ref="pricing#plans"',
        "Pro: 45 €",
        GOOD_ANSWER,
        "- 45 €",
        RUBRIC,
        "from 0",
    ):
        assert shown in user
    assert (result.status, result.score) == ("pass", 0.8)


def test_a_verdict_passes_only_when_grounded_rubric_met_and_above_the_threshold(
    project: Path, openai_server: OpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    case = load_case(project)
    outcomes = {}
    for v in (verdict(4), verdict(3), verdict(5, grounded=False), verdict(5, rubric_met=False)):
        openai_server.responder = lambda body, v=v: v
        result, extra = grade(make(project, openai_server, monkeypatch, cache=False), case)
        outcomes[v] = (result.status, result.score, extra["needs_review"])
    assert list(outcomes.values()) == [
        ("pass", 0.75, False),
        ("fail", 0.5, True),  # at the threshold: fails and is flagged
        ("fail", 1.0, True),  # not grounded while every check passed: a disagreement
        ("fail", 1.0, True),
    ]


def test_needs_review_flags_a_judge_that_disagrees_with_the_checks(
    project: Path, openai_server: OpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    case = load_case(project)
    openai_server.responder = lambda body: verdict(5)
    # The judge calls it fine, but the fact and the citation are missing.
    _, extra = grade(
        make(project, openai_server, monkeypatch, cache=False), case, "A Pro seat is affordable."
    )
    assert extra["needs_review"] is True
    assert extra["review_reasons"] == [
        "judge says grounded and rubric met, but facts_present, sources_cited failed"
    ]
    openai_server.responder = lambda body: verdict(4, grounded=False)
    _, extra = grade(make(project, openai_server, monkeypatch, cache=False), case)
    assert extra["review_reasons"] == [
        "every deterministic check passed, but the judge says not grounded"
    ]
    openai_server.responder = lambda body: verdict(2, rubric_met=False)
    _, extra = grade(
        make(project, openai_server, monkeypatch, cache=False), case, "A Pro seat is affordable."
    )
    assert extra["review_reasons"] == ["judge score 2 is at or below the review threshold 3"]


# -- cache ---------------------------------------------------------------------------------


def test_a_rejudge_hits_the_cache_and_errors_are_never_cached(
    project: Path, openai_server: OpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    case = load_case(project)
    openai_server.enqueue("not json", "still not json", "nope")
    first, _ = grade(make(project, openai_server, monkeypatch), case)
    assert first.status == "error"
    openai_server.responder = lambda body: verdict(4)
    second, extra2 = grade(make(project, openai_server, monkeypatch), case)
    assert second.status == "pass" and extra2["judge"]["cached"] is False
    assert len(openai_server.chat_requests) == 4  # the error was asked again
    third, extra3 = grade(make(project, openai_server, monkeypatch), case)
    assert (third.status, third.score) == (second.status, second.score)
    assert extra3["judge"] == {**extra2["judge"], "cached": True, "attempts": 0}
    assert len(openai_server.chat_requests) == 4
    # A different answer is a different key.
    grade(make(project, openai_server, monkeypatch), case, "Something else.")
    assert len(openai_server.chat_requests) == 5


def test_changing_the_judge_prompt_or_the_scale_rejudges(
    project: Path, openai_server: OpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    case = load_case(project)
    openai_server.responder = lambda body: verdict(4)
    _, before = grade(make(project, openai_server, monkeypatch), case)
    grade(make(project, openai_server, monkeypatch), case)
    assert len(openai_server.chat_requests) == 1
    (project / "judge_prompt.txt").write_text(PROMPT + "Be harsher.\n", "utf-8")
    _, after = grade(make(project, openai_server, monkeypatch), case)
    assert len(openai_server.chat_requests) == 2
    assert after["judge"]["cached"] is False
    assert after["judge"]["prompt_sha"] != before["judge"]["prompt_sha"]
    (project / "suite.toml").write_text("judge_scale = [1, 10]\n", "utf-8")
    _, scaled = grade(make(project, openai_server, monkeypatch), case)
    assert len(openai_server.chat_requests) == 3
    assert scaled["judge"]["schema_sha"] != after["judge"]["schema_sha"]


def test_no_cache_asks_every_time(
    project: Path, openai_server: OpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", openai_server.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    openai_server.responder = lambda body: verdict(4)
    for _ in range(2):
        j = make_judge(JUDGE, open_suite(project), load_settings(project.parent), use_cache=False)
        grade(j, load_case(project))
    assert len(openai_server.chat_requests) == 2


# -- wiring --------------------------------------------------------------------------------


def test_make_judge_refuses_a_floating_alias_a_missing_prompt_and_a_bad_scale(
    project: Path, openai_server: OpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    cfg = load_settings(project.parent)
    with pytest.raises(InputError, match="not date-pinned"):
        make_judge("openai/gpt-4o-mini", open_suite(project), cfg)
    (project / "suite.toml").write_text("judge_scale = [5, 1]\n", "utf-8")
    with pytest.raises(InputError, match="judge_scale"):
        make_judge(JUDGE, open_suite(project), cfg)
    (project / "judge_prompt.txt").unlink()
    with pytest.raises(InputError, match="judge_prompt.txt is missing"):
        make_judge(JUDGE, open_suite(project), cfg)


def test_the_header_stamp_names_model_prompt_schema_and_scale(
    project: Path, openai_server: OpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    import hashlib

    stamp = make(project, openai_server, monkeypatch).stamp()
    assert stamp["model"] == JUDGE
    assert stamp["prompt_sha"] == hashlib.sha256(PROMPT.encode()).hexdigest()
    assert len(stamp["schema_sha"]) == 64
    assert (stamp["scale"], stamp["threshold"], stamp["max_attempts"]) == ([1, 5], 3, 3)


def test_judge_on_facts_extends_the_judge_to_cases_with_facts(
    project: Path, openai_server: OpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    facts_only = Case(good_case("facts-only", expect={"facts": ["45 €"]}))
    explicit = Case(good_case("explicit", expect={"facts": ["45 €"]}, checks=["facts_present"]))
    assert make(project, openai_server, monkeypatch).applies_to(load_case(project))
    assert not make(project, openai_server, monkeypatch).applies_to(facts_only)
    (project / "suite.toml").write_text("judge_on_facts = true\n", "utf-8")
    judge = make(project, openai_server, monkeypatch)
    assert judge.applies_to(facts_only)
    assert not judge.applies_to(explicit)  # explicit checks are taken as written


def test_a_judge_from_the_family_under_test_is_named() -> None:
    assert same_family("openai/gpt-4o@2024-08-06", "gpt-4o-mini-2024-07-18")
    assert same_family("openai/gpt-4.1@2025-04-14", "openai/gpt-4o@2024-08-06")  # same vendor
    assert same_family("anthropic/claude-3-5-haiku@2024-10-22", "openai/gpt-4o@2024-08-06") is None
    warning = family_warning("openai/gpt-4o@2024-08-06", "gpt-4o-mini-2024-07-18")
    assert warning and "'gpt-4o'" in warning


# -- through the runner --------------------------------------------------------------------


class ReferenceModel:
    """A system under test that answers every case with its reference answer."""

    model = "test/reference@2026-01-01"

    def stamp(self) -> dict[str, Any]:
        return {"kind": "reference"}

    async def answer(self, case: Case, prompt: str, epoch: int) -> Reply:
        return Reply(case.data["reference"])

    async def aclose(self) -> None:
        return None


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
    from evals.validate import load_cases

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
