"""The judge's tokens and cost: counted apart and together with the answers, printed at the
end of a run and in `invoke report`, and capped by `--max-cost` (over loopback HTTP)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from openai_server import OpenAIServer, Scripted
from runkit import GOOD, MODEL, case, make_project, records, run, run_files, use, write_case

from evals.cli import guarded
from evals.report.command import cmd_report

JUDGE = "acme/judge-large@2024-08-06"
VERDICT = json.dumps({"score": 5, "grounded": True, "rubric_met": True, "reasoning": "fine"})
#: $1 per judging at the judge's price below (1,000 input tokens at $1,000 per million).
JUDGE_USAGE = {"prompt_tokens": 1000, "completion_tokens": 10, "total_tokens": 1010}
ANSWER_USAGE = {"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110}


def judged_project(tmp: Path, n: int, judge_price: str = "input = 1000.0\noutput = 0.0") -> Path:
    extra = f'[tool.evals.prices."{JUDGE}"]\n{judge_price}\n' if judge_price else ""
    root = make_project(tmp, 0, concurrency=1, extra=extra)
    for i in range(n):
        write_case(root, case(i, expect={**case(i)["expect"], "rubric": "States the price."}))
    (root / "suite" / "judge_prompt.txt").write_text("Grade strictly.\n", encoding="utf-8")
    return root


def respond(body: dict[str, Any]) -> Scripted:
    """The judge (asked for structured output) gets a verdict; the model under test an answer."""
    if "response_format" in body:
        return Scripted(VERDICT, usage=dict(JUDGE_USAGE))
    return Scripted(GOOD, usage=dict(ANSWER_USAGE))


def judge_calls(srv: OpenAIServer) -> int:
    return sum(1 for r in srv.chat_requests if "response_format" in r.body)


@pytest.fixture
def server(openai_server: OpenAIServer) -> OpenAIServer:
    openai_server.responder = respond
    return openai_server


def test_judge_tokens_and_cost_are_recorded_apart_and_in_the_total(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, server: OpenAIServer, capsys
) -> None:
    root = judged_project(tmp_path, 3)
    use(monkeypatch, root, server.base_url)
    assert run(judge=JUDGE) == 0
    (path,) = run_files(root)
    header, *rows, summary = records(path)
    assert header["settings"]["judge_price"] == {"input": 1000.0, "output": 0.0}
    for row in rows:
        assert row["judge_usage"] == {"prompt_tokens": 1000, "completion_tokens": 10}
        assert row["judge_cost_usd"] == pytest.approx(1.0)
        # The answer's own cost stays the answer's: 100 in, 10 out at $1/$2 per million.
        assert row["cost_usd"] == pytest.approx(0.00012)
    assert summary["judge_usage"] == {"prompt_tokens": 3000, "completion_tokens": 30}
    assert summary["judge_cost_usd"] == pytest.approx(3.0)
    assert summary["n_judge_calls"] == 3 == judge_calls(server)
    assert summary["cost_usd"] == pytest.approx(0.00036)
    assert summary["total_cost_usd"] == pytest.approx(3.00036)
    out = capsys.readouterr().out
    assert "judge: 3,000 in + 30 out over 3 call(s); cost: $3.0000" in out
    assert "total cost (answers + judge): $3.0004" in out
    assert guarded(lambda: cmd_report(str(path))) == 0
    report = capsys.readouterr().out
    assert "judge: 3,000 in + 30 out over 3 call(s); cost: $3.0000" in report
    assert "total cost (answers + judge): $3.0004" in report
    page = tmp_path / "report.html"
    assert guarded(lambda: cmd_report(str(path), html=str(page))) == 0
    html = page.read_text("utf-8")
    assert 'id="card-judge-cost"' in html and 'id="card-total-cost"' in html
    assert "$3.0004" in html


def test_a_judge_without_a_price_makes_the_total_unknown_not_zero(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, server: OpenAIServer, capsys
) -> None:
    root = judged_project(tmp_path, 2, judge_price="")
    use(monkeypatch, root, server.base_url)
    assert run(judge=JUDGE) == 0
    *_, summary = records(run_files(root)[0])
    assert summary["judge_usage"] == {"prompt_tokens": 2000, "completion_tokens": 20}
    assert summary["judge_cost_usd"] is None and summary["total_cost_usd"] is None
    assert "total cost (answers + judge): unknown" in capsys.readouterr().out


def test_max_cost_caps_the_judge_spending_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, server: OpenAIServer
) -> None:
    root = judged_project(tmp_path, 6)
    use(monkeypatch, root, server.base_url)
    # Each case costs about $1 (its judging); the answers alone would cost $0.0007 for all six.
    assert run(judge=JUDGE, max_cost=2.5) == 3
    *rows, summary = records(run_files(root)[0])[1:]
    assert summary["completed"] is False
    assert summary["stopped_reason"].startswith("budget:")
    assert judge_calls(server) == len(rows) == 2
    assert summary["total_cost_usd"] <= 2.5


def test_max_cost_gates_the_judging_of_cached_answers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, server: OpenAIServer
) -> None:
    root = judged_project(tmp_path, 6)
    use(monkeypatch, root, server.base_url)
    assert run() == 0  # answers only: they are now in the cache
    assert run(judge=JUDGE, max_cost=2.5) == 3
    *rows, summary = records(run_files(root)[-1])[1:]
    assert all(r["cached"] for r in rows)
    assert judge_calls(server) == len(rows) == 2
    assert summary["stopped_reason"].startswith("budget:")


def test_max_cost_with_an_unpriced_judge_is_refused_before_any_request(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, server: OpenAIServer, capsys
) -> None:
    root = judged_project(tmp_path, 2, judge_price="")
    use(monkeypatch, root, server.base_url)
    assert run(judge=JUDGE, max_cost=5.0) == 2
    assert "no price for the judge 'acme/judge-large@2024-08-06'" in capsys.readouterr().err
    assert server.chat_requests == []
    assert MODEL  # the model under test has a price; only the judge's is missing
