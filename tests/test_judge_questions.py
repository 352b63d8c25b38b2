"""The judge per fact: what the checks leave in review is asked item by item over HTTP, the
quote is checked against the text, and a bad quote or reply is an error, never a verdict."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from casekit import good_case, invoke, make_project, read_jsonl
from judgekit import JUDGE, ReferenceModel, make
from openai_server import Fault, OpenAIServer

from evals.checks.base import CheckInput
from evals.checks.grading import grade
from evals.checks.questions import open_questions, quote_problem
from evals.reply import Reply
from evals.run.plan import RunPlan
from evals.run.runner import exit_code, run
from evals.suite.case import Case
from evals.suite.folder import SuiteSettings, open_suite

PASSAGE = (
    "Payroll export (DATEV, Lexware) is part of Pro and Enterprise. Starter has no payroll "
    "export; admins on every plan can export timesheets as CSV under Settings › Data › Export."
)
# Stated in other words: the fact's words are there, the fact is not as written.
OTHER_WORDS = (
    "Payroll export comes with Pro and Enterprise rather than Starter [doc:payroll#export]."
)


def payroll_case(
    case_id: str = "datev", answer: str = OTHER_WORDS, **expect: Any
) -> dict[str, Any]:
    data = good_case(
        case_id,
        question="Can we send hours to DATEV on Starter?",
        retrieved=[{"ref": "payroll#export", "text": PASSAGE}],
        expect={
            "facts": [["payroll export is not part of Starter"]],
            "sources": ["payroll#export"],
            **expect,
        },
        reference=answer,
    )
    data.pop("known_wrong", None)
    return data


def reply_with(stated: bool, quote: str = "", reasoning: str = "checked") -> str:
    return json.dumps({"stated": stated, "quote": quote, "reasoning": reasoning})


def run_with_judge(
    tmp_path: Path, srv: OpenAIServer, monkeypatch: pytest.MonkeyPatch, cases: list[dict[str, Any]]
) -> tuple[dict[str, dict[str, Any]], dict[str, Any], int]:
    tmp_path.mkdir(parents=True, exist_ok=True)
    suite = tmp_path / "suite"
    if not suite.exists():
        make_project(tmp_path, cases)
        (suite / "judge_prompt.txt").write_text("Grade strictly.\n", encoding="utf-8")
    judge = make(suite, srv, monkeypatch)
    s = open_suite(suite)
    from evals.checks.loading import load_cases
    from evals.commands.execution import suite_precedents

    loaded = load_cases(s)[0]
    plan = RunPlan(
        suite=s,
        cases=loaded,
        precedents=suite_precedents(s, loaded),
        provider=ReferenceModel(),
        runs_dir=tmp_path / "runs",
        root=tmp_path,
        grader=judge,
    )
    result = run(plan)
    return {r["case"]: r for r in result.rows}, result.summary, exit_code(result.summary)


# -- the quote, read as the checks read text -----------------------------------------------


def _inp(answer: str, facts: list[list[str]]) -> CheckInput:
    data = payroll_case(answer=answer)
    data["expect"]["facts"] = facts
    return CheckInput(Case(data, Path("datev.json")), Reply(answer))


def test_the_checks_leave_a_fact_in_other_words_as_one_question() -> None:
    inp = _inp(OTHER_WORDS, [["payroll export is not part of Starter"]])
    results = grade(inp.case, inp.reply, SuiteSettings())
    assert results["facts_present"].status == "review"
    (q,) = open_questions(inp, results)
    assert (q.check, q.statement, q.source) == (
        "facts_present",
        "payroll export is not part of Starter",
        "answer",
    )


def test_a_quote_holds_in_other_case_and_with_a_cut_but_not_when_invented() -> None:
    inp = _inp(OTHER_WORDS, [["payroll export is not part of Starter"]])
    (q,) = open_questions(inp, grade(inp.case, inp.reply, SuiteSettings()))
    assert (
        quote_problem(inp, q, "payroll export comes with Pro and Enterprise rather than Starter")
        is None
    )
    assert quote_problem(inp, q, "Payroll export comes with ... rather than Starter") is None
    # A quote that leaves out what the fact is about ("Starter") carries no fact, nor one
    # that leaves out how ("comes with", read as the fact's "part of").
    assert "does not carry" in (
        quote_problem(inp, q, "Payroll export ... rather than Starter") or ""
    )
    carries = quote_problem(inp, q, "PAYROLL EXPORT comes with pro")
    assert carries is not None and "does not carry" in carries
    invented = quote_problem(inp, q, "payroll export is not part of Starter")
    assert invented is not None and "not in the answer" in invented
    # Pieces must come in the answer's order.
    assert quote_problem(inp, q, "rather than Starter ... Payroll export") is not None
    assert quote_problem(inp, q, "  ") == "the quote is empty"


def test_a_quote_in_a_negated_clause_is_no_evidence_unless_the_fact_is_negative() -> None:
    answer = "Your data is not kept for 30 days after you cancel; it is deleted at once."
    inp = _inp(answer, [["data stays available for 30 days after cancelling"]])
    from evals.checks.questions import Question

    q = Question("facts_present", "x", "data stays 30 days", ("data stays available for 30 days",))
    problem = quote_problem(inp, q, "kept for 30 days after you cancel")
    assert problem is not None and "negated" in problem
    problem = quote_problem(inp, q, "not kept for 30 days")
    assert problem is not None and "negated" in problem
    negative = Question("facts_present", "x", "data is not kept", ("data is not kept",))
    assert quote_problem(inp, negative, "Your data is not kept for 30 days") is None


def test_a_quote_must_carry_the_facts_words_figures_and_polarity_inside_one_clause() -> None:
    from evals.checks.questions import Question

    inp = _inp("The trial is long. Our webinar lasts 14 days.", [["the trial lasts 14 days"]])
    q = Question("facts_present", "x", "the trial lasts 14 days", ("the trial lasts 14 days",))
    assert "does not carry" in (quote_problem(inp, q, "The") or "")
    assert "does not carry" in (quote_problem(inp, q, "Our webinar lasts 14 days") or "")
    assert "more than one clause" in (quote_problem(inp, q, "The trial ... lasts 14 days") or "")
    inp = _inp("You need a credit card to start.", [["no credit card is needed"]])
    q = Question("facts_present", "x", "no credit card is needed", ("no credit card is needed",))
    assert "negation" in (quote_problem(inp, q, "You need a credit card") or "")
    inp = _inp("No credit card is needed for the trial.", [["no credit card is needed"]])
    assert quote_problem(inp, q, "No credit card is needed") is None


# -- through the runner, over HTTP ----------------------------------------------------------


def test_a_fact_the_judge_quotes_from_the_answer_passes_and_is_cached(
    tmp_path: Path, openai_server: OpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    openai_server.responder = lambda body: reply_with(
        True, "Payroll export comes with ... rather than Starter"
    )
    rows, summary, code = run_with_judge(tmp_path, openai_server, monkeypatch, [payroll_case()])
    row = rows["datev"]
    assert row["status"] == "pass" and row["score"] == 1.0 and code == 0
    fact = row["checks"]["facts_present"]
    assert fact["status"] == "pass" and "decided by the judge" in fact["detail"]
    assert "rather than Starter" in fact["detail"]
    (asked,) = row["judge_questions"]
    assert asked["statement"] == "payroll export is not part of Starter"
    assert asked["stated"] is True and asked["error"] is None and asked["cached"] is False
    assert row["judge_usage"]["prompt_tokens"] > 0
    assert summary["judge_questions"] == {
        "n_rows": 1,
        "n_questions": 1,
        "stated": 1,
        "not_stated": 0,
        "error": 0,
        "claims": 0,
    }
    assert summary["n_judge_calls"] == 1
    # The question, not the case verdict: the case has no rubric, so only the fact is asked.
    (request,) = openai_server.chat_requests
    assert request.body["response_format"]["json_schema"]["name"] == "answer"
    assert OTHER_WORDS in request.body["messages"][1]["content"]
    # A second run takes the answer from the cache.
    rows, _, _ = run_with_judge(tmp_path, openai_server, monkeypatch, [payroll_case()])
    assert len(openai_server.chat_requests) == 1
    assert rows["datev"]["judge_questions"][0]["cached"] is True


def test_a_fact_the_judge_says_is_not_stated_fails(
    tmp_path: Path, openai_server: OpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    openai_server.responder = lambda body: reply_with(False)
    rows, _, code = run_with_judge(tmp_path, openai_server, monkeypatch, [payroll_case()])
    row = rows["datev"]
    assert row["status"] == "fail" and code == 1
    assert row["checks"]["facts_present"]["status"] == "fail"
    assert row["checks"]["facts_present"]["score"] == 0.0


@pytest.mark.parametrize(
    ("reply", "error"),
    [
        (reply_with(True, "payroll export is not part of Starter"), "not in the answer"),
        (reply_with(True, "Payroll export comes with ... rather than Starter"), None),
        (reply_with(True, "Pro and Enterprise"), "does not carry the fact's"),
        ('{"stated": "yes", "quote": "x", "reasoning": "r"}', "no valid verdict after 3"),
        ("Yes, it says so.", "not JSON"),
    ],
)
def test_an_invented_quote_or_an_invalid_reply_is_an_error_never_a_score(
    tmp_path: Path,
    openai_server: OpenAIServer,
    monkeypatch: pytest.MonkeyPatch,
    reply: str,
    error: str | None,
) -> None:
    openai_server.responder = lambda body: reply
    rows, summary, code = run_with_judge(tmp_path, openai_server, monkeypatch, [payroll_case()])
    row = rows["datev"]
    if error is None:
        assert row["status"] == "pass"
        return
    assert row["status"] == "error" and row["score"] is None and code == 3
    assert row["checks"]["facts_present"]["status"] == "error"
    assert error in row["checks"]["facts_present"]["detail"]
    assert error in row["judge_questions"][0]["error"]
    assert summary["counts"]["error"] == 1
    # An answer that did not hold is not cached: the next run asks again.
    before = len(openai_server.chat_requests)
    run_with_judge(tmp_path, openai_server, monkeypatch, [payroll_case()])
    assert len(openai_server.chat_requests) > before


def test_a_provider_failure_while_asking_is_an_error_row(
    tmp_path: Path, openai_server: OpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    openai_server.enqueue(*[Fault.server_error()] * 4)
    rows, _, code = run_with_judge(tmp_path, openai_server, monkeypatch, [payroll_case()])
    row = rows["datev"]
    assert row["status"] == "error" and code == 3
    assert "HTTP 500" in row["checks"]["facts_present"]["detail"]
    assert "sk-test" not in json.dumps(row)


def test_a_promise_is_asked_against_the_passages_not_the_answer(
    tmp_path: Path, openai_server: OpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    promise = "I'll hand this over to our billing team and they'll email you the coupon code today."
    case = good_case(
        "coupon",
        question="Where is the coupon code I was promised on the phone?",
        retrieved=[
            {
                "ref": "billing#coupons",
                "text": "Coupon codes are sent by the billing team by email.",
            }
        ],
        expect={"abstain": True},
        reference=promise,
    )
    case.pop("known_wrong", None)
    # The judge quotes the answer, not a passage: that backs nothing.
    openai_server.responder = lambda body: reply_with(True, "they'll email you the coupon code")
    rows, _, _ = run_with_judge(tmp_path, openai_server, monkeypatch, [case])
    row = rows["coupon"]
    assert row["status"] == "error"
    assert "not in the passages or the ticket" in row["checks"]["claims_grounded"]["detail"]
    assert row["judge_questions"][0]["source"] == "sources"
    openai_server.responder = lambda body: reply_with(True, "sent by the billing team by email")
    rows, _, _ = run_with_judge(tmp_path / "b", openai_server, monkeypatch, [case])
    assert rows["coupon"]["checks"]["claims_grounded"]["status"] == "pass"
    openai_server.responder = lambda body: reply_with(False)
    rows, _, _ = run_with_judge(tmp_path / "c", openai_server, monkeypatch, [case])
    assert rows["coupon"]["status"] == "fail"


def test_without_a_judge_the_fact_stays_in_review_and_invoke_run_says_so(
    tmp_path: Path, openai_server: OpenAIServer
) -> None:
    make_project(tmp_path, [payroll_case()])
    (tmp_path / "suite" / "judge_prompt.txt").write_text("Grade.\n", encoding="utf-8")
    answers = tmp_path / "answers.jsonl"
    answers.write_text(json.dumps({"case": "datev", "answer": OTHER_WORDS}) + "\n", "utf-8")
    proc = invoke(tmp_path, "run", "--answers", str(answers), "--model", "acme/bot@2026-01-01")
    assert proc.returncode == 3, proc.stdout + proc.stderr
    openai_server.responder = lambda body: reply_with(
        True, "Payroll export comes with ... rather than Starter"
    )
    env = {"OPENAI_BASE_URL": openai_server.base_url, "OPENAI_API_KEY": "sk-dummy-q"}
    proc = invoke(
        tmp_path,
        "run",
        "--answers",
        str(answers),
        "--model",
        "acme/bot@2026-01-01",
        "--judge",
        JUDGE,
        env=env,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    newest = sorted((tmp_path / "runs").glob("*.jsonl"))[-1]
    (row,) = [r for r in read_jsonl(newest) if r["kind"] == "case"]
    assert row["status"] == "pass" and row["judge_questions"][0]["stated"] is True
    assert "judge per fact: 1 question(s) on 1 case(s)" in proc.stdout + proc.stderr
    assert "1 stated, 0 not stated, 0 error" in proc.stdout + proc.stderr
    shown = invoke(tmp_path, "show", "datev")
    assert (
        "judge per fact, facts_present: payroll export is not part of Starter: stated: "
        "\u201cPayroll export comes with ... rather than Starter\u201d" in shown.stdout
    )
    proc = invoke(tmp_path, "report", "--html", str(tmp_path / "r.html"))
    page = (tmp_path / "r.html").read_text("utf-8")
    assert "Judge per fact" in page and "rather than Starter" in page
    assert 'id="card-questions"' in page


def test_an_answer_a_person_labelled_is_not_put_to_the_judge(
    tmp_path: Path, openai_server: OpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    make_project(tmp_path, [payroll_case()])
    (tmp_path / "suite" / "judge_prompt.txt").write_text("Grade.\n", encoding="utf-8")
    (tmp_path / "suite" / "labelled").mkdir()
    label = {"case": "datev", "answer": OTHER_WORDS, "label": "pass", "why": "read it"}
    (tmp_path / "suite" / "labelled" / "a.jsonl").write_text(json.dumps(label) + "\n", "utf-8")
    openai_server.responder = lambda body: reply_with(False)
    rows, summary, code = run_with_judge(tmp_path, openai_server, monkeypatch, [])
    assert rows["datev"]["status"] == "pass" and "precedent" in rows["datev"]
    assert "judge_questions" not in rows["datev"] and not openai_server.chat_requests
    assert summary["labels"]["n"] == 1 and code == 0


def test_a_judge_quoting_the_api_key_gets_it_masked_in_every_file_and_message(
    tmp_path: Path, openai_server: OpenAIServer
) -> None:
    key = "sk-quoted-0123456789abcdefXYZ"
    make_project(tmp_path, [payroll_case()])
    (tmp_path / "suite" / "judge_prompt.txt").write_text("Grade.\n", encoding="utf-8")
    answers = tmp_path / "answers.jsonl"
    answers.write_text(json.dumps({"case": "datev", "answer": OTHER_WORDS}) + "\n", "utf-8")
    openai_server.responder = lambda body: reply_with(True, f"Bearer {key}", "it says so")
    env = {"OPENAI_BASE_URL": openai_server.base_url, "OPENAI_API_KEY": key}
    model = ("--answers", str(answers), "--model", "acme/bot@2026-01-01")
    proc = invoke(tmp_path, "run", *model, "--judge", JUDGE, env=env)
    # The quote is not in the answer: the item is an error, named with the quote masked.
    assert proc.returncode == 3, proc.stdout + proc.stderr
    newest = sorted((tmp_path / "runs").glob("*.jsonl"))[-1]
    (row,) = [r for r in read_jsonl(newest) if r["kind"] == "case"]
    assert row["status"] == "error" and row["judge_questions"][0]["quote"] == "Bearer ***"
    assert "***" in row["judge_questions"][0]["error"]
    outputs = [proc.stdout + proc.stderr, newest.read_text("utf-8")]
    outputs.append(invoke(tmp_path, "show", "datev", env=env).stdout)
    outputs.append(invoke(tmp_path, "report", "--review", env=env).stdout)
    assert invoke(tmp_path, "report", "--html", str(tmp_path / "r.html"), env=env).returncode == 0
    outputs.append((tmp_path / "r.html").read_text("utf-8"))
    cache = tmp_path / ".evals-cache"
    outputs += [p.read_bytes().decode("latin-1") for p in cache.rglob("*") if p.is_file()]
    for text in outputs:
        assert key not in text and key[:16] not in text


def test_max_cost_gates_every_question_to_the_judge_even_at_concurrency_8(
    tmp_path: Path, openai_server: OpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    from openai_server import Scripted

    def priced(body: dict[str, Any]) -> Scripted:
        # Billed as many input tokens as the harness estimates (4 characters each).
        chars = sum(len(m.get("content") or "") for m in body["messages"])
        usage = {"prompt_tokens": chars // 4, "completion_tokens": 5}
        return Scripted(reply_with(False), usage={**usage, "total_tokens": chars // 4 + 5})

    openai_server.responder = priced
    cases = [payroll_case(f"datev-{i:02d}") for i in range(12)]
    make_project(tmp_path, cases)
    suite = tmp_path / "suite"
    (suite / "judge_prompt.txt").write_text("Grade strictly.\n", encoding="utf-8")
    prices = {JUDGE: {"input": 1000.0, "output": 0.0}}
    judge = make(suite, openai_server, monkeypatch, cache=False, prices=prices)
    from evals.checks.loading import load_cases

    s = open_suite(suite)
    loaded = load_cases(s)[0]
    plan = RunPlan(
        suite=s,
        cases=loaded,
        provider=ReferenceModel(),
        runs_dir=tmp_path / "runs",
        root=tmp_path,
        grader=judge,
        concurrency=8,
        max_cost=2.0,
    )
    result = run(plan)
    asked = [r.body for r in openai_server.chat_requests]
    paid = sum(sum(len(m["content"]) for m in b["messages"]) // 4 for b in asked) / 1000
    # Without the gate all 12 questions go out at once (each about $0.4): past the cap.
    assert 0 < len(asked) < 12 and paid <= 2.0, (len(asked), paid)
    assert result.summary["stopped_reason"].startswith("budget:")
    assert exit_code(result.summary) == 3
    refused = [r for r in result.rows if r["status"] == "error"]
    for row in refused:
        (q,) = row["judge_questions"]
        assert q["error"].startswith("not asked: budget: the next judge request")
    # A question never sent decides nothing: no row is passed or failed on it.
    decided = [r for r in result.rows if r["status"] in ("pass", "fail")]
    assert all(r["judge_questions"][0]["error"] is None for r in decided)
