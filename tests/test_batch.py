"""`invoke run --batch`: one provider batch instead of live requests, through the real `openai`
client against the loopback Files and Batches server (tests/batch_server.py)."""

from __future__ import annotations

import itertools
import json
import re
import threading
import time
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from batch_server import BatchServer, LineFault
from openai import OpenAI
from openai_server import Fault, OpenAIServer, Scripted
from runkit import (
    API_KEY,
    GOOD,
    WRONG,
    case,
    make_project,
    records,
    rows,
    run,
    run_files,
    summary,
    use,
    write_case,
)

from evals.providers.batch import parse_results
from evals.run.batch_steps import backoff

ROOT = Path(__file__).resolve().parent.parent
SCHEMA = json.loads((ROOT / "schemas" / "run.schema.json").read_text("utf-8"))
FAST = "batch_poll_s = 0.01\nbatch_poll_max_s = 0.04"


def batch_project(tmp: Path, n: int, *, discount: float | None = 0.5, **kw: Any) -> Path:
    """A runkit project that polls fast, with a batch_discount in the model's price entry."""
    root = make_project(tmp, n, extra=kw.pop("extra", FAST), **kw)
    if discount is not None:
        with open(root / "pyproject.toml", "a", encoding="utf-8") as fh:
            fh.write(f"batch_discount = {discount}\n")
    return root


@pytest.fixture
def srv() -> Any:
    with BatchServer(polls_to_finish=3, responder=lambda body: GOOD) as s:
        yield s


def by_case(path: Path) -> dict[str, dict[str, Any]]:
    return {r["case"]: r for r in rows(path)}


def test_a_200_case_suite_ends_with_every_case_scored_or_an_error_row(tmp_path, monkeypatch, srv):
    root = batch_project(tmp_path, 200)
    use(monkeypatch, root, srv.base_url)
    srv.responder = lambda body: WRONG if "Customer 7:" in body["messages"][1]["content"] else GOOD
    srv.line_faults = {
        "case-010#0": LineFault.error("server_error", "the model crashed"),
        "case-020#0": LineFault.status(400, "context too long"),
        "case-030#0": LineFault.malformed(),
    }
    assert run(batch=True) == 3
    (path,) = run_files(root)
    got = by_case(path)
    assert sorted(got) == [f"case-{i:03d}" for i in range(200)]
    errors = {cid: r["error"] for cid, r in got.items() if r["status"] == "error"}
    assert errors.keys() == {"case-010", "case-020", "case-030"}
    assert "server_error: the model crashed" in errors["case-010"]
    assert "HTTP 400 in the batch: context too long" in errors["case-020"]
    assert "malformed reply: no choices" in errors["case-030"]
    for r in got.values():
        if r["status"] == "error":
            assert r["score"] is None and r["checks"] == {} and r["batch_id"]
        else:
            assert isinstance(r["score"], float) and r["batch_id"]
    assert got["case-007"]["status"] == "fail"
    assert summary(path)["counts"] == {
        "pass": 196,
        "fail": 1,
        "review": 0,
        "error": 3,
        "total": 200,
    }
    # One input file, one batch, every request in it once; nothing went to the live endpoint.
    assert (srv.files_uploaded, srv.batches_created, srv.chat_requests) == (1, 1, [])
    assert set(srv.line_counts.values()) == {1} and len(srv.line_counts) == 200
    for rec in records(path):
        jsonschema.validate(rec, SCHEMA)
    events = [r["event"] for r in records(path) if r["kind"] == "batch"]
    assert events == ["uploaded", "creating", "created", "ended"]


def who(body: dict[str, Any]) -> str:
    """The case a request is about: its "Customer N:" line."""
    found = re.search(r"Customer \d+:", body["messages"][1]["content"])
    assert found
    return found.group(0)


def test_the_batch_sends_exactly_the_bodies_a_live_run_sends(tmp_path, monkeypatch, srv):
    root = batch_project(tmp_path, 3)
    use(monkeypatch, root, srv.base_url)
    assert run(no_cache=True) == 0  # live, on the same server's chat endpoint
    live = {who(r.body): r.body for r in srv.chat_requests}
    assert len(live) == 3
    assert run(no_cache=True, batch=True) == 0
    lines = srv.uploaded_lines
    assert [x["custom_id"] for x in lines] == ["case-000#0", "case-001#0", "case-002#0"]
    for line in lines:
        assert line["method"] == "POST" and line["url"] == "/v1/chat/completions"
        assert line["body"] == live[who(line["body"])]


def test_cached_cases_are_not_sent_and_their_rows_come_from_the_cache(tmp_path, monkeypatch, srv):
    root = batch_project(tmp_path, 4)
    use(monkeypatch, root, srv.base_url)
    assert run(batch=True) == 0
    for i in (4, 5):
        write_case(root, case(i))
    assert run(batch=True) == 0
    path = run_files(root)[-1]
    got = by_case(path)
    assert [x["custom_id"] for x in srv.uploaded_lines[4:]] == ["case-004#0", "case-005#0"]
    assert all(got[f"case-{i:03d}"]["cached"] for i in range(4))
    assert not any(got[f"case-{i:03d}"]["cached"] for i in (4, 5))
    assert "batch_id" not in got["case-000"] and got["case-004"]["batch_id"]
    s = summary(path)
    assert s["cached"] == 4 and s["spent_usd"] == pytest.approx(
        got["case-004"]["cost_usd"] + got["case-005"]["cost_usd"]
    )
    # All of it cached: no file, no batch.
    assert run(batch=True) == 0
    assert (srv.files_uploaded, srv.batches_created) == (2, 2)
    assert not any(r["kind"] == "batch" for r in records(run_files(root)[-1]))


def test_the_batch_discount_prices_every_answer_and_is_stamped(tmp_path, monkeypatch, srv, capsys):
    usage = {"prompt_tokens": 1000, "completion_tokens": 500, "total_tokens": 1500}
    srv.responder = lambda body: Scripted(GOOD, usage=usage)
    root = batch_project(tmp_path, 2, price=(1.0, 2.0), discount=0.5)
    use(monkeypatch, root, srv.base_url)
    assert run(batch=True, no_cache=True) == 0
    path = run_files(root)[-1]
    live_cost = (1000 * 1.0 + 500 * 2.0) / 1e6
    assert [r["cost_usd"] for r in rows(path)] == [live_cost * 0.5] * 2
    header = records(path)[0]
    assert header["settings"]["batch"]["discount"] == 0.5
    assert header["settings"]["price"]["batch_discount"] == 0.5
    assert summary(path)["cost_usd"] == pytest.approx(live_cost)  # two answers at half price


def test_without_a_batch_discount_costs_are_the_live_price_with_a_warning(
    tmp_path, monkeypatch, srv, capsys
):
    usage = {"prompt_tokens": 1000, "completion_tokens": 500, "total_tokens": 1500}
    srv.responder = lambda body: Scripted(GOOD, usage=usage)
    root = batch_project(tmp_path, 1, price=(1.0, 2.0), discount=None)
    use(monkeypatch, root, srv.base_url)
    assert run(batch=True) == 0
    assert rows(run_files(root)[-1])[0]["cost_usd"] == (1000 * 1.0 + 500 * 2.0) / 1e6
    assert "no batch_discount" in capsys.readouterr().err


def test_a_bad_batch_discount_is_refused_naming_the_file_and_field(
    tmp_path, monkeypatch, srv, capsys
):
    root = batch_project(tmp_path, 1, discount=1.5)
    use(monkeypatch, root, srv.base_url)
    assert run(batch=True) == 2
    err = capsys.readouterr().err.strip()
    assert err == (
        f"{root / 'pyproject.toml'}: /tool/evals/prices/acme~1chat-small@2024-07-18/"
        "batch_discount: batch_discount 1.5: must be a number more than 0 and at most 1"
    )
    assert srv.requests == [] and not run_files(root)


def test_max_cost_sends_only_what_the_estimate_fits_and_refuses_the_rest(
    tmp_path, monkeypatch, srv
):
    # 283 prompt characters a request -> ~71 input tokens at $1000/M x 0.5: ~$0.035 each,
    # and no output size known yet (no max_tokens, no answer): two fit in $0.08.
    root = batch_project(tmp_path, 10, price=(1000.0, 1000.0), discount=0.5)
    use(monkeypatch, root, srv.base_url)
    assert run(batch=True, max_cost=0.08) == 3
    path = run_files(root)[-1]
    s = summary(path)
    assert s["completed"] is False
    assert s["stopped_reason"].startswith(
        "budget: the batch of 10 request(s) would cost about $0.35"
    )
    assert "input only" in s["stopped_reason"] and s["stopped_reason"].endswith("2 sent")
    assert len(srv.uploaded_lines) == 2 and len(rows(path)) == 2
    # Resumed with room for the rest: they go as a second batch, sized by the answers so far.
    assert run(resume=path.name, models=[], max_cost=1.0) == 0
    assert len(srv.uploaded_lines) == 10 and len(rows(path)) == 10
    sent = 10
    # A budget below one request: nothing is uploaded at all.
    assert run(batch=True, max_cost=0.000001, no_cache=True) == 3
    assert len(srv.uploaded_lines) == sent and srv.batches_created == 2
    assert "0 sent" in summary(run_files(root)[-1])["stopped_reason"]


def test_epochs_are_separate_requests_of_one_batch(tmp_path, monkeypatch, srv):
    root = batch_project(tmp_path, 2)
    use(monkeypatch, root, srv.base_url)
    assert run(batch=True, epochs=2) == 0
    ids = [x["custom_id"] for x in srv.uploaded_lines]
    assert ids == ["case-000#0", "case-001#0", "case-000#1", "case-001#1"]
    assert sorted((r["case"], r["epoch"]) for r in rows(run_files(root)[-1])) == [
        ("case-000", 0),
        ("case-000", 1),
        ("case-001", 0),
        ("case-001", 1),
    ]


def test_the_judge_grades_batch_answers_with_live_requests(tmp_path, monkeypatch, srv):
    root = batch_project(tmp_path, 0)
    for i in range(3):
        expect = {"mentions": [r"\b45 EUR"], "sources": ["pricing#plans"], "rubric": "Says 45 EUR."}
        write_case(root, case(i, expect=expect))
    (root / "suite" / "judge_prompt.txt").write_text("Grade strictly.\n", encoding="utf-8")
    verdicts = iter(
        [json.dumps({"score": 5, "grounded": True, "rubric_met": True, "reasoning": "ok"})] * 2
        + ["not a verdict"] * 9
    )
    srv.responder = lambda body: next(verdicts) if body.get("response_format") else GOOD
    use(monkeypatch, root, srv.base_url)
    assert run(batch=True, judge="openai/gpt-4o-mini@2024-07-18", concurrency=1) == 3
    path = run_files(root)[-1]
    got = rows(path)
    assert len(srv.uploaded_lines) == 3  # the answers came from the batch ...
    judged = [r for r in srv.chat_requests if r.body.get("response_format")]
    assert len(judged) == len(srv.chat_requests) >= 3  # ... the verdicts from live requests
    assert sorted(r["checks"]["judge"]["status"] for r in got) == ["error", "pass", "pass"]
    bad = next(r for r in got if r["checks"]["judge"]["status"] == "error")
    assert bad["status"] == "error" and bad["score"] is None and bad["draft"] == GOOD
    assert summary(path)["judge"]["n_error"] == 1


def test_batch_needs_an_openai_compatible_endpoint(tmp_path, monkeypatch, capsys):
    root = batch_project(tmp_path, 1)
    use(monkeypatch, root, None)
    answers = tmp_path / "answers.jsonl"
    answers.write_text(json.dumps({"case": "case-000", "answer": GOOD}) + "\n", encoding="utf-8")
    for opts, said in (
        ({"models": ["local/extractive@2026-11-01"]}, "is the offline model"),
        ({"target": "app:answer", "models": []}, "--target is answered here"),
        ({"answers": str(answers)}, "--answers is answered here"),
    ):
        assert run(batch=True, **opts) == 2
        err = capsys.readouterr().err.strip()
        assert err.startswith("--batch needs an OpenAI-compatible endpoint") and said in err
        assert "\n" not in err
    assert not run_files(root)


def test_a_lost_create_response_finds_the_batch_instead_of_paying_twice(tmp_path, monkeypatch, srv):
    root = batch_project(tmp_path, 3, max_retries=2)
    use(monkeypatch, root, srv.base_url)
    srv.create_faults = ["drop-after-create"]
    assert run(batch=True) == 0
    assert srv.batches_created == 1 and set(srv.line_counts.values()) == {1}
    assert any(r.method == "GET" and r.path.startswith("/v1/batches?") for r in srv.requests)
    assert len(rows(run_files(root)[-1])) == 3


def test_a_batch_that_could_not_be_created_is_created_from_the_same_file_on_resume(
    tmp_path, monkeypatch, srv, capsys
):
    root = batch_project(tmp_path, 3, max_retries=0)
    use(monkeypatch, root, srv.base_url)
    srv.create_faults = [Fault.server_error()]
    assert run(batch=True) == 3
    (path,) = run_files(root)
    s = summary(path)
    assert s["stopped_reason"].startswith("the batch was not created: creating the batch failed")
    assert rows(path) == [] and srv.batches_created == 0
    assert run(resume=path.name, models=[]) == 0
    assert (srv.files_uploaded, srv.batches_created) == (1, 1)
    assert len(rows(path)) == 3


def test_an_unreachable_endpoint_stops_before_any_row(tmp_path, monkeypatch):
    root = batch_project(tmp_path, 2, max_retries=0)
    with OpenAIServer() as plain:  # no Files endpoint: the upload gets a 404
        use(monkeypatch, root, plain.base_url)
        assert run(batch=True) == 3
    s = summary(run_files(root)[-1])
    assert s["stopped_reason"].startswith("the batch was not sent: uploading the batch input")
    assert "HTTP 404" in s["stopped_reason"] and s["counts"]["total"] == 0


def test_a_cancelled_batch_leaves_error_rows_for_what_it_had_not_answered(
    tmp_path, monkeypatch, capsys
):
    root = batch_project(tmp_path, 6)
    with BatchServer(polls_to_finish=10_000, responder=lambda body: GOOD) as srv:
        use(monkeypatch, root, srv.base_url)
        codes: list[int] = []
        worker = threading.Thread(target=lambda: codes.append(run(batch=True)))
        worker.start()
        deadline = time.monotonic() + 20
        while not srv.polls and time.monotonic() < deadline:
            time.sleep(0.01)
        (batch_id,) = srv.batches
        OpenAI(base_url=srv.base_url, api_key=API_KEY).batches.cancel(batch_id)
        worker.join(timeout=20)
    assert codes == [3]
    got = rows(run_files(root)[-1])
    answered = [r for r in got if r["status"] == "pass"]
    cancelled = [r for r in got if r["status"] == "error"]
    assert len(answered) + len(cancelled) == 6 and cancelled
    assert all("was cancelled before this request was answered" in r["error"] for r in cancelled)
    assert "sends them again as a new batch" in capsys.readouterr().out


def test_backoff_doubles_the_wait_up_to_its_cap():
    assert list(itertools.islice(backoff(5, 60), 6)) == [5, 10, 20, 40, 60, 60]
    assert list(itertools.islice(backoff(0.5, 0.2), 2)) == [0.2, 0.2]


def test_result_files_name_every_failure_skip_unreadable_lines_and_warn_of_conflicting_ones():
    ok = {"status_code": 200, "body": {"choices": []}}
    raw = "\n".join(
        [
            json.dumps({"custom_id": "a#0", "response": ok, "error": None}),
            "not json",
            json.dumps({"custom_id": "b#0", "response": None, "error": {"code": "batch_expired"}}),
            json.dumps({"custom_id": "c#0", "response": {"status_code": 429, "body": {}}}),
            json.dumps({"response": ok}),
            json.dumps({"custom_id": "a#0", "response": None, "error": {"message": "second"}}),
        ]
    ).encode()
    got, warnings = parse_results(raw, "out.jsonl")
    assert got["a#0"].body is not None and got["a#0"].error is None  # the first line wins
    assert got["b#0"].error == "the batch reported an error: batch_expired"
    assert got["c#0"].error == "HTTP 429 in the batch"
    assert warnings == [
        "out.jsonl: line 2: invalid JSON: Expecting value; skipped",
        "out.jsonl: line 5: names no custom_id; skipped",
        "out.jsonl: line 6: a second, different result for a#0; the first is kept",
    ]
    # The same line twice (a provider's retry) is no conflict.
    again = raw + b"\n" + raw.split(b"\n")[0]
    assert parse_results(again, "out.jsonl")[1] == warnings
