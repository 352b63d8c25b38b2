"""`invoke calibrate --judge`: the judge per fact against labelled answers, over HTTP."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from casekit import make_project
from judgekit import JUDGE
from openai_server import OpenAIServer
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
    assert "error: datev (labelled/fresh.jsonl:4)" in out and "not in the answer" in out
    assert code == 3  # a question without a valid quoted answer: incomplete
    # The answers that held are cached: a second calibration asks only the failed one again.
    before = len(openai_server.chat_requests)
    guarded(lambda: cmd_calibrate(judge=JUDGE))
    assert len(openai_server.chat_requests) - before == 1  # the error; the rest are cached
