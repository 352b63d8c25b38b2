"""`invoke calibrate --judge`: the judge per fact and per claim against labelled answers, over
HTTP."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from casekit import make_project
from judgekit import JUDGE
from openai_server import OpenAIServer
from test_judge_claims import EVERY_DAY, PASSAGE_SENTENCE, SHORT, claim_of, hours_case
from test_judge_questions import OTHER_WORDS, payroll_case

from evals.calibrate.judge import cmd_calibrate
from evals.cli import guarded

LABELLED = [
    # Correct, in other words: the judge quotes it (agrees).
    (OTHER_WORDS, "pass"),
    # Wrong, its one open item is why: the judge says not stated (agrees).
    ("Payroll export is available on Starter too [doc:payroll#export].", "fail"),
    # Correct, but the judge says not stated (disagrees).
    (
        "On Starter you won't find payroll export; it is a Pro and Enterprise feature "
        "[doc:payroll#export].",
        "pass",
    ),
    # Correct, and the judge "quotes" words the answer does not have (an error).
    ("Starter lacks payroll export, you need Pro [doc:payroll#export].", "pass"),
]


def answer_by_text(body: dict[str, Any]) -> str:
    if body["response_format"]["json_schema"]["name"] == "verdict":  # the case-level verdict
        return json.dumps({"score": 5, "grounded": True, "rubric_met": True, "reasoning": "ok"})
    text = body["messages"][1]["content"]
    if "rather than Starter" in text:
        reply = {"stated": True, "quote": "Payroll export comes with Pro ... rather than Starter"}
    elif "lacks payroll" in text:
        reply = {"stated": True, "quote": "payroll export is not part of Starter"}
    else:
        reply = {"stated": False, "quote": ""}
    return json.dumps({**reply, "reasoning": "read it"})


@pytest.fixture
def project(tmp_path: Path) -> Path:
    suite = make_project(tmp_path, [{**payroll_case(), "human": {"label": "pass"}}])
    (suite / "judge_prompt.txt").write_text("Grade strictly.\n", encoding="utf-8")
    (suite / "labelled").mkdir()
    lines = [
        json.dumps({"case": "datev", "answer": a, "label": lab, "why": "labelled by hand"})
        for a, lab in LABELLED
    ]
    (suite / "labelled" / "fresh.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return tmp_path


def test_calibrate_reports_the_judge_per_fact_with_kappa_and_its_interval(
    project: Path,
    openai_server: OpenAIServer,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(project)
    monkeypatch.setenv("OPENAI_BASE_URL", openai_server.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-dummy")
    openai_server.responder = answer_by_text
    code = guarded(lambda: cmd_calibrate(judge=JUDGE))
    captured = capsys.readouterr()
    out = captured.out
    assert "judge per fact" in out, captured.err
    # The case's reference is OTHER_WORDS too: five questions, on five answers.
    assert "5 question(s) on 5 answer(s); 4 with a label that decides the item" in out
    assert "1 without a valid quoted answer (errors)" in out
    # Pairs: (pass, pass) twice, (fail, fail), (pass, fail): p_o 3/4, p_e 3/4*1/2 + 1/4*1/2.
    assert "agreement: 75.0% (3/4)" in out
    assert "Cohen's kappa: 0.500 (95% CI" in out and "n = 4" in out
    assert "disagrees: datev (labelled/fresh.jsonl:3)" in out and "judge not stated" in out
    assert "error: 1x " in out and "(datev (labelled/fresh.jsonl:4) " in out
    assert "not in the answer" in out
    assert code == 3  # a question without a valid quoted answer: incomplete
    # The answers that held are cached: a second calibration asks only the failed one again.
    before = len(openai_server.chat_requests)
    guarded(lambda: cmd_calibrate(judge=JUDGE))
    assert len(openai_server.chat_requests) - before == 1  # the error; the rest are cached


# -- the judge per claim ----------------------------------------------------------------------

CLAIMS_LABELLED = [
    # Correct, the times without their days: the judge quotes the passage (agrees).
    (SHORT, "pass"),
    # Wrong, its one open claim is why: the judge says no passage states it (agrees).
    (EVERY_DAY, "fail"),
    # Correct, but the judge says not stated (disagrees).
    ("You can chat with us or email from 08:00 to 18:00 CET [doc:support#hours].", "pass"),
    # Correct, and the judge quotes the retired passage (an error).
    ("Write to us by chat or email from 08:00 to 18:00 CET [doc:support#hours].", "pass"),
]


def answer_by_claim(body: dict[str, Any]) -> str:
    if body["response_format"]["json_schema"]["name"] == "verdict":
        return json.dumps({"score": 5, "grounded": True, "rubric_met": True, "reasoning": "ok"})
    claim = claim_of(body)
    if claim.startswith("Chat and email support is there for you from"):
        reply = {"stated": True, "quote": PASSAGE_SENTENCE}
    elif claim.startswith("Write to us"):
        reply = {"stated": True, "quote": "was available every day from 08:00 to 18:00"}
    else:
        reply = {"stated": False, "quote": ""}
    return json.dumps({**reply, "reasoning": "read it"})


def test_calibrate_reports_the_judge_per_claim_beside_the_judge_per_fact(
    tmp_path: Path,
    openai_server: OpenAIServer,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    reference = "Chat and email: Monday to Friday, 08:00 to 18:00 CET [doc:support#hours]."
    case = {**hours_case("hours", reference), "human": {"label": "pass"}}
    suite = make_project(tmp_path, [case])
    (suite / "judge_prompt.txt").write_text("Grade strictly.\n", encoding="utf-8")
    (suite / "labelled").mkdir()
    lines = [
        json.dumps({"case": "hours", "answer": a, "label": lab, "why": "labelled by hand"})
        for a, lab in CLAIMS_LABELLED
    ]
    (suite / "labelled" / "fresh.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("OPENAI_BASE_URL", openai_server.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-dummy")
    openai_server.responder = answer_by_claim
    code = guarded(lambda: cmd_calibrate(judge=JUDGE))
    captured = capsys.readouterr()
    out = captured.out
    facts, claims = out.split("judge per claim", 1)
    assert "no labelled answer leaves a fact, figure or promise in review" in facts, out
    assert "4 question(s) on 4 answer(s); 3 with a label that decides the item" in claims
    assert "1 without a valid quoted answer (errors)" in claims
    # Pairs: (pass, pass), (fail, fail), (pass, fail).
    assert "agreement: 66.7% (2/3)" in claims and "n = 3" in claims
    assert "disagrees: hours (labelled/fresh.jsonl:3)" in claims and "judge not stated" in claims
    assert "error: 1x " in claims and "(hours (labelled/fresh.jsonl:4)" in claims
    assert "not in the current passages" in claims
    assert code == 3, out
