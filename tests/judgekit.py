"""Shared builders for the judge tests: a verdict, a rubric case, a project, a judge."""

from __future__ import annotations

import asyncio
import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from casekit import good_case, make_project
from openai_server import OpenAIServer

from evals.config import load_settings
from evals.judge.client import Judge, make_judge
from evals.reply import Reply
from evals.suite.case import Case
from evals.suite.folder import open_suite

JUDGE = "openai/gpt-4o-mini@2024-07-18"
PROMPT = "Grade the answer strictly.\n"
RUBRIC = "States the Pro price per seat and month and cites the pricing page."
GOOD_ANSWER = "An extra Pro seat costs 45 € per seat and month [doc:pricing#plans]."


class ReferenceModel:
    """A system under test that answers every case with its reference answer."""

    model = "test/reference@2026-01-01"

    def stamp(self) -> dict[str, Any]:
        return {"kind": "reference"}

    async def answer(self, case: Case, prompt: str, epoch: int) -> Reply:
        return Reply(case.data["reference"])

    async def aclose(self) -> None:
        return None


def verdict(
    score: int = 5, grounded: bool = True, rubric_met: bool = True, reasoning: str = "ok"
) -> str:
    return json.dumps(
        {"score": score, "grounded": grounded, "rubric_met": rubric_met, "reasoning": reasoning}
    )


def rubric_case(case_id: str = "price-pro", **expect: Any) -> dict[str, Any]:
    base = {"facts": ["45 €"], "sources": ["pricing#plans"], "rubric": RUBRIC}
    return good_case(case_id, expect={**base, **expect})


def judge_project(tmp_path: Path) -> Path:
    """A project whose suite has one rubric case and a judge prompt."""
    suite = make_project(tmp_path, [rubric_case()])
    (suite / "judge_prompt.txt").write_text(PROMPT, encoding="utf-8")
    return suite


def make(
    suite: Path, srv: OpenAIServer, monkeypatch: pytest.MonkeyPatch, cache: bool = True, **over: Any
) -> Judge:
    """A judge on the test server: timeout 1 s (under the 2 s slow fault), one SDK retry."""
    monkeypatch.setenv("OPENAI_BASE_URL", srv.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-secret")
    cfg = replace(load_settings(suite.parent), timeout_s=1.0, max_retries=1, **over)
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
