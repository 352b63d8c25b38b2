"""The judge per claim: each sentence `claims_grounded` leaves in review is asked of the
passages over HTTP; the quote must hold in one current passage or customer turn, and a bad
quote, reply or transport is an error, never a verdict."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from casekit import good_case, invoke
from openai_server import Fault, OpenAIServer
from test_judge_questions import reply_with, run_with_judge

from evals.checks.base import CheckInput
from evals.checks.grading import grade
from evals.checks.questions import CLAIM, PASSAGES, open_questions, quote_problem
from evals.reply import Reply
from evals.suite.case import Case
from evals.suite.folder import SuiteSettings

HOURS = {
    "ref": "support#hours",
    "text": "Support by chat and email is available Monday to Friday from 08:00 to 18:00 CET.",
}
OLD_HOURS = {
    "ref": "support#hours-2023",
    "text": "ARCHIVED. Support by chat and email was available every day from 08:00 to 18:00.",
}
# Opening times without their days: the check cannot tell a shortening from a dropped
# condition, so it leaves the sentence in review.
SHORT = "Chat and email support is there for you from 08:00 to 18:00 CET [doc:support#hours]."
EVERY_DAY = "Chat and email support is there for you any day from 8 to 6 [doc:support#hours]."
PASSAGE_SENTENCE = "Support by chat and email is available Monday to Friday from 08:00 to 18:00 CET"


def hours_case(case_id: str, answer: str, **over: Any) -> dict[str, Any]:
    fields: dict[str, Any] = {
        "question": "When can I reach support by chat?",
        "retrieved": [HOURS, OLD_HOURS],
        "expect": {"sources": ["support#hours"]},
        "reference": answer,
        **over,
    }
    data = good_case(case_id, **fields)
    data.pop("known_wrong", None)
    return data


def _inp(answer: str, **over: Any) -> CheckInput:
    return CheckInput(Case(hours_case("hours", answer, **over)), Reply(answer))


def claim_of(body: dict[str, Any]) -> str:
    text = body["messages"][1]["content"]
    return text.split("<statement>\n", 1)[1].split("\n</statement>", 1)[0]


# -- the question and its quote --------------------------------------------------------------


def test_a_sentence_left_in_review_is_one_claim_asked_of_the_passages() -> None:
    inp = _inp(SHORT)
    results = grade(inp.case, inp.reply, SuiteSettings())
    assert results["claims_grounded"].status == "review"
    (q,) = open_questions(inp, results)
    assert (q.check, q.kind, q.source) == ("claims_grounded", CLAIM, PASSAGES)
    # The citation is cut, the sentence otherwise as the answer wrote it.
    assert q.statement == "Chat and email support is there for you from 08:00 to 18:00 CET."
    assert q.to_json()["kind"] == "claim"


def test_a_decided_claims_check_asks_nothing() -> None:
    answer = (
        "Chat and email support is there Monday to Friday, 08:00 to 18:00 CET [doc:support#hours]."
    )
    inp = _inp(answer)
    results = grade(inp.case, inp.reply, SuiteSettings())
    assert results["claims_grounded"].status == "pass"
    assert open_questions(inp, results) == []


def test_a_claim_is_quoted_from_one_current_passage_or_the_customer() -> None:
    inp = _inp(
        SHORT,
        messages=[
            {"role": "user", "content": "I work night shifts."},
            {"role": "assistant", "content": "Support is open around the clock."},
        ],
    )
    (q,) = open_questions(inp, grade(inp.case, inp.reply, SuiteSettings()))
    assert quote_problem(inp, q, PASSAGE_SENTENCE.upper()) is None
    assert quote_problem(inp, q, "chat and email ... from 08:00 to 18:00") is None
    assert quote_problem(inp, q, "I work night shifts") is None
    # An archived passage, an earlier assistant turn or the answer itself backs no claim.
    for quote in (
        "available every day from 08:00 to 18:00",
        "Support is open around the clock",
        "there for you from 08:00 to 18:00",
    ):
        problem = quote_problem(inp, q, quote)
        assert problem is not None and "not in the current passages" in problem, quote
    # A quote joined across two passages is in neither.
    problem = quote_problem(inp, q, "18:00 CET ... ARCHIVED")
    assert problem is not None and "not in the current passages" in problem


def test_a_claim_quoted_from_a_negated_clause_is_no_evidence() -> None:
    inp = _inp(
        "I've refunded the double charge to your card [doc:billing#refunds].",
        retrieved=[
            {"ref": "billing#refunds", "text": "Support agents cannot issue refunds to your card."}
        ],
        expect={"sources": ["billing#refunds"]},
    )
    results = grade(inp.case, inp.reply, SuiteSettings())
    assert results["claims_grounded"].status == "review"
    (q,) = open_questions(inp, results)
    problem = quote_problem(inp, q, "issue refunds to your card")
    assert problem is not None and "negated" in problem


# -- through the runner, over HTTP ------------------------------------------------------------


def test_a_claim_the_passages_state_passes_and_is_cached(
    tmp_path: Path, openai_server: OpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    openai_server.responder = lambda body: reply_with(True, PASSAGE_SENTENCE)
    cases = [hours_case("hours", SHORT)]
    rows, summary, code = run_with_judge(tmp_path, openai_server, monkeypatch, cases)
    row = rows["hours"]
    assert row["status"] == "pass" and code == 0
    claim = row["checks"]["claims_grounded"]
    assert claim["status"] == "pass" and "decided by the judge" in claim["detail"]
    assert PASSAGE_SENTENCE in claim["detail"]
    (asked,) = row["judge_questions"]
    assert asked["kind"] == "claim" and asked["source"] == "passages"
    assert asked["stated"] is True and asked["cached"] is False and asked["error"] is None
    assert summary["judge_questions"]["claims"] == 1
    (request,) = openai_server.chat_requests
    content = request.body["messages"][1]["content"]
    assert (
        claim_of(request.body) == "Chat and email support is there for you from 08:00 to 18:00 CET."
    )
    assert "Quote the passage sentence that does." in content
    # The retired passage is not offered as evidence.
    assert HOURS["text"] in content and OLD_HOURS["text"] not in content
    assert row["judge_usage"]["prompt_tokens"] > 0
    rows, _, _ = run_with_judge(tmp_path, openai_server, monkeypatch, cases)
    assert len(openai_server.chat_requests) == 1
    assert rows["hours"]["judge_questions"][0]["cached"] is True
    assert rows["hours"]["checks"]["claims_grounded"]["status"] == "pass"


def test_a_claim_the_passages_do_not_state_fails(
    tmp_path: Path, openai_server: OpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    openai_server.responder = lambda body: reply_with(False)
    rows, _, code = run_with_judge(
        tmp_path, openai_server, monkeypatch, [hours_case("every-day", EVERY_DAY)]
    )
    row = rows["every-day"]
    assert row["status"] == "fail" and code == 1
    claim = row["checks"]["claims_grounded"]
    assert claim["status"] == "fail" and claim["score"] == 0.0
    assert (
        "no passage states (the judge): Chat and email support is there for you any day"
        in (claim["detail"])
    )


def test_each_claim_of_an_answer_is_asked_and_one_unstated_fails_the_check(
    tmp_path: Path, openai_server: OpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    answer = (
        "Chat and email support is there for you from 08:00 to 18:00 CET [doc:support#hours]. "
        "I've also extended your support plan to the weekend."
    )

    def by_claim(body: dict[str, Any]) -> str:
        if "weekend" in claim_of(body):
            return reply_with(False)
        return reply_with(True, PASSAGE_SENTENCE)

    openai_server.responder = by_claim
    rows, _, _ = run_with_judge(tmp_path, openai_server, monkeypatch, [hours_case("two", answer)])
    row = rows["two"]
    assert [q["stated"] for q in row["judge_questions"]] == [True, False]
    assert row["checks"]["claims_grounded"]["status"] == "fail"
    assert "extended your support plan" in row["checks"]["claims_grounded"]["detail"]


@pytest.mark.parametrize(
    ("reply", "error"),
    [
        # Quoted from the answer, not from a passage.
        (reply_with(True, "there for you from 08:00 to 18:00 CET"), "not in the current passages"),
        # Quoted from the retired passage only.
        (reply_with(True, "available every day from 08:00"), "not in the current passages"),
        ("The passage says so.", "not JSON"),
        ('{"stated": true, "quote": "", "reasoning": "r"}', "no valid verdict after 3"),
    ],
)
def test_an_invented_quote_or_an_invalid_reply_is_an_error_never_a_score(
    tmp_path: Path,
    openai_server: OpenAIServer,
    monkeypatch: pytest.MonkeyPatch,
    reply: str,
    error: str,
) -> None:
    openai_server.responder = lambda body: reply
    cases = [hours_case("hours", SHORT)]
    rows, summary, code = run_with_judge(tmp_path, openai_server, monkeypatch, cases)
    row = rows["hours"]
    assert row["status"] == "error" and row["score"] is None and code == 3
    claim = row["checks"]["claims_grounded"]
    assert claim["status"] == "error" and claim["score"] is None and error in claim["detail"]
    assert error in row["judge_questions"][0]["error"]
    assert summary["counts"]["error"] == 1 and summary["judge_questions"]["error"] == 1
    # Not cached: the next run asks again.
    before = len(openai_server.chat_requests)
    run_with_judge(tmp_path, openai_server, monkeypatch, cases)
    assert len(openai_server.chat_requests) > before


def test_a_server_error_while_asking_a_claim_is_an_error_row(
    tmp_path: Path, openai_server: OpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    openai_server.enqueue(*[Fault.server_error()] * 4)
    rows, _, code = run_with_judge(
        tmp_path, openai_server, monkeypatch, [hours_case("hours", SHORT)]
    )
    row = rows["hours"]
    assert row["status"] == "error" and code == 3
    assert "HTTP 500" in row["checks"]["claims_grounded"]["detail"]
    assert row["checks"]["claims_grounded"]["score"] is None
    assert "sk-test" not in json.dumps(row)


def test_a_claim_is_shown_where_the_questions_per_fact_are(
    tmp_path: Path, openai_server: OpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    openai_server.responder = lambda body: reply_with(True, PASSAGE_SENTENCE)
    run_with_judge(tmp_path, openai_server, monkeypatch, [hours_case("hours", SHORT)])
    shown = invoke(tmp_path, "show", "hours")
    assert (
        "judge per claim, claims_grounded: Chat and email support is there for you from 08:00 "
        "to 18:00 CET. (asked of the passages): stated: \u201c" + PASSAGE_SENTENCE
    ) in " ".join(shown.stdout.split()), shown.stdout + shown.stderr
    invoke(tmp_path, "report", "--html", str(tmp_path / "r.html"))
    page = (tmp_path / "r.html").read_text("utf-8")
    assert "Judge per fact and claim" in page and "per claim, claims_grounded" in page
    assert "1 stated, 0 not stated, 0 error; on 1 case(s); 1 per claim" in page


def test_the_claims_asked_count_against_max_cost(
    tmp_path: Path, openai_server: OpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    from openai_server import Scripted
    from runkit import make_project, records, run, run_files, use, write_case

    judge = "acme/judge-large@2024-08-06"
    # $1 per question at this price: 1,000 input tokens at $1,000 per million.
    price = f'[tool.evals.prices."{judge}"]\ninput = 1000.0\noutput = 0.0\n'
    root = make_project(tmp_path, 0, concurrency=1, extra=price)
    for i in range(6):
        # Each ticket its own, so no question is answered from another's cache entry.
        question = f"Ticket {i}: when can I reach support by chat?"
        write_case(root, hours_case(f"hours-{i}", SHORT, question=question))
    (root / "suite" / "judge_prompt.txt").write_text("Grade strictly.\n", encoding="utf-8")

    def respond(body: dict[str, Any]) -> Scripted:
        if "response_format" in body:
            usage = {"prompt_tokens": 1000, "completion_tokens": 10, "total_tokens": 1010}
            return Scripted(reply_with(True, PASSAGE_SENTENCE), usage=usage)
        usage = {"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110}
        return Scripted(SHORT, usage=usage)

    openai_server.responder = respond
    use(monkeypatch, root, openai_server.base_url)
    assert run(judge=judge, max_cost=2.5) == 3
    *rows, summary = records(run_files(root)[0])[1:]
    assert summary["stopped_reason"].startswith("budget:")
    assert all(r["judge_questions"][0]["kind"] == "claim" for r in rows)
    assert all(r["judge_cost_usd"] == pytest.approx(1.0) for r in rows)
    assert len(rows) < 6 and summary["total_cost_usd"] <= 2.5
