"""The LLM judge against a loopback OpenAI-compatible server: bad verdicts are errors, never scores."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from casekit import good_case
from judgekit import (
    GOOD_ANSWER,
    JUDGE,
    PROMPT,
    RUBRIC,
    grade,
    judge_project,
    load_case,
    make,
    verdict,
)
from openai_server import Fault, OpenAIServer

from evals.config import load_settings
from evals.errors import InputError
from evals.judge.client import family_warning, make_judge, same_family
from evals.suite.case import Case
from evals.suite.folder import open_suite


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return judge_project(tmp_path)


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
    assert body["model"] == "gpt-4o-mini-2024-07-18"  # the dated snapshot, not the alias
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
        "judge says grounded and rubric met, but facts_present failed"
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


def test_comments_in_the_judge_prompt_are_never_sent_and_an_unclosed_one_is_bad_input(
    project: Path, openai_server: OpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    from evals.judge.prompt import read_judge_prompt

    path = project / "judge_prompt.txt"
    path.write_text("<!-- for the team:\n adapt this -->\n" + PROMPT + "<!-- end -->\n", "utf-8")
    judge = make(project, openai_server, monkeypatch)
    grade(judge, load_case(project))
    sent = openai_server.chat_requests[0].body["messages"][0]["content"]
    assert sent == PROMPT and "for the team" not in sent
    path.write_text(PROMPT + "<!-- never closed\n", "utf-8")
    with pytest.raises(InputError, match="never closed"):
        read_judge_prompt(open_suite(project))
    path.write_text("<!-- only a comment -->\n", "utf-8")
    with pytest.raises(InputError, match="holds only comments"):
        read_judge_prompt(open_suite(project))
