"""The OpenAI-compatible provider, through the real `openai` client against the loopback server."""

from __future__ import annotations

import json
import re

from openai_server import Fault, Scripted
from runkit import API_KEY, GOOD, MODEL, WRONG, make_project, records, rows, run, run_files, use

from evals.providers.openai_compat import same_model, user_message
from evals.suite.case import Case


def test_request_is_system_prompt_plus_case_with_refs_at_temperature_zero(
    tmp_path, monkeypatch, openai_server
):
    root = make_project(tmp_path, 1, prompt="Be exact. Cite [doc:REF].\n")
    use(monkeypatch, root, openai_server.base_url)
    openai_server.responder = lambda body: GOOD
    assert run() == 0
    (req,) = openai_server.chat_requests
    body = req.body
    assert body["model"] == "chat-small"  # vendor prefix and @date stripped
    assert body["temperature"] == 0.0
    system, user = body["messages"]
    assert system == {"role": "system", "content": "Be exact. Cite [doc:REF].\n"}
    assert user["role"] == "user"
    assert "Customer 0: what does one more Pro seat cost per month?" in user["content"]
    assert "- plan: pro" in user["content"]
    assert "[doc:pricing#plans]\nStarter: 39 EUR per seat." in user["content"]
    assert "[doc:billing#dates]" in user["content"]
    assert req.headers["authorization"] == f"Bearer {API_KEY}"
    header = records(run_files(root)[0])[0]
    assert header["settings"]["provider"]["generation"] == {"temperature": 0.0}
    assert header["settings"]["provider"]["endpoint_model"] == "chat-small"
    # acme's server knows no dates: the @date labels the run, and the run says so.
    assert header["model_date_is_label"] is True
    assert all(r["model_date_is_label"] is True for r in records(run_files(root)[0])[1:-1])


def test_row_records_usage_latency_resolved_model_and_cost(tmp_path, monkeypatch, openai_server):
    root = make_project(tmp_path, 1, price=(1.0, 2.0))
    use(monkeypatch, root, openai_server.base_url)
    usage = {"prompt_tokens": 1000, "completion_tokens": 500, "total_tokens": 1500}
    openai_server.responder = lambda body: Scripted(
        GOOD, model="chat-small-2024-07-18", usage=usage
    )
    assert run() == 0
    (row,) = rows(run_files(root)[0])
    assert row["usage"] == usage
    assert row["resolved_model"] == "chat-small-2024-07-18"
    assert row["latency_ms"] >= 0  # measured, never negative (the clock may step back)
    assert row["cost_usd"] == (1000 * 1.0 + 500 * 2.0) / 1e6
    assert row["model"] == MODEL and row["status"] == "pass"


def test_warns_once_when_the_endpoint_reports_another_model(
    tmp_path, monkeypatch, openai_server, capsys
):
    root = make_project(tmp_path, 3)
    use(monkeypatch, root, openai_server.base_url)
    openai_server.responder = lambda body: Scripted(GOOD, model="chat-large-2025-01-01")
    assert run() == 0
    err = capsys.readouterr().err
    assert err.count("reports model 'chat-large-2025-01-01'") == 1


def test_same_model_ignores_vendor_prefix_and_matching_snapshot_date():
    assert same_model("openai/gpt-4o-mini@2024-07-18", "gpt-4o-mini-2024-07-18")
    assert same_model("openai/gpt-4o-mini@2024-07-18", "gpt-4o-mini")
    assert same_model("gpt-4o-2024-08-06", "gpt-4o-2024-08-06")
    assert not same_model("openai/gpt-4o-mini@2024-07-18", "gpt-4o-mini-2024-09-01")
    assert not same_model("openai/gpt-4o-mini@2024-07-18", "gpt-4o")


def test_faults_that_clear_are_retried_by_the_sdk_and_the_case_scored(
    tmp_path, monkeypatch, openai_server
):
    root = make_project(tmp_path, 1, max_retries=4, timeout_s=0.5)
    use(monkeypatch, root, openai_server.base_url)
    openai_server.enqueue(
        Fault.rate_limit(retry_after=0.01),
        Fault.server_error(),
        Fault.unavailable(retry_after=0.01),
        Fault.drop(),
        GOOD,
    )
    assert run() == 0
    (row,) = rows(run_files(root)[0])
    assert row["status"] == "pass" and row["error"] is None
    assert len(openai_server.chat_requests) == 5


def test_slow_reply_past_the_timeout_is_retried_then_scored(tmp_path, monkeypatch, openai_server):
    # 1 s: far below the 2 s fault, yet the retried reply arrives in time on a loaded machine.
    root = make_project(tmp_path, 1, max_retries=1, timeout_s=1.0)
    use(monkeypatch, root, openai_server.base_url)
    openai_server.enqueue(Fault.slow(2.0), GOOD)
    assert run() == 0
    assert rows(run_files(root)[0])[0]["status"] == "pass"


def test_a_fault_that_does_not_clear_is_an_error_row_and_the_run_goes_on(
    tmp_path, monkeypatch, openai_server
):
    root = make_project(tmp_path, 3, max_retries=1, concurrency=1)
    use(monkeypatch, root, openai_server.base_url)
    openai_server.responder = lambda body: GOOD
    openai_server.enqueue(Fault.server_error(), Fault.server_error())  # both tries of case 0
    assert run() == 3
    got = {r["case"]: r for r in rows(run_files(root)[0])}
    bad = got["case-000"]
    assert bad["status"] == "error" and bad["score"] is None and bad["checks"] == {}
    assert "HTTP 500 after 1 retries" in bad["error"]
    assert got["case-001"]["status"] == "pass" and got["case-002"]["status"] == "pass"


def test_timeouts_malformed_and_empty_bodies_are_error_rows_with_their_reason(
    tmp_path, monkeypatch, openai_server
):
    root = make_project(tmp_path, 3, max_retries=0, timeout_s=0.3, concurrency=1)
    use(monkeypatch, root, openai_server.base_url)
    openai_server.enqueue(Fault.slow(2.0), Fault.malformed(), Fault.no_choices())
    assert run() == 3
    reasons = [r["error"] for r in rows(run_files(root)[0])]
    assert all(r is not None for r in reasons)
    joined = " | ".join(reasons)
    assert "timed out" in joined
    assert "not JSON" in joined
    assert "no choices" in joined
    assert all(r["score"] is None for r in rows(run_files(root)[0]))


def test_a_wrong_answer_fails_and_is_not_an_error(tmp_path, monkeypatch, openai_server):
    root = make_project(tmp_path, 1)
    use(monkeypatch, root, openai_server.base_url)
    openai_server.responder = lambda body: WRONG
    assert run() == 1
    (row,) = rows(run_files(root)[0])
    assert row["status"] == "fail" and "mentions_expected" in row["failed_checks"]


def test_the_api_key_never_appears_in_run_file_cache_or_output(
    tmp_path, monkeypatch, openai_server, capsys
):
    root = make_project(tmp_path, 2, max_retries=0, concurrency=1)
    use(monkeypatch, root, openai_server.base_url)
    # A server that echoes the key back in its error message, as some gateways do.
    openai_server.enqueue(Fault.http(401, f"Incorrect API key provided: {API_KEY}"), GOOD)
    assert run() == 3
    out = capsys.readouterr()
    files = [*run_files(root), *(root / ".evals-cache").glob("*")]
    assert files
    for f in files:
        assert API_KEY.encode() not in f.read_bytes(), f
    assert API_KEY not in out.out and API_KEY not in out.err
    errs = [r["error"] for r in rows(run_files(root)[0]) if r["status"] == "error"]
    assert errs and "HTTP 401" in errs[0] and "***" in errs[0]


def test_user_message_lists_every_passage_with_its_ref():
    c = Case(
        {
            "id": "x",
            "question": "Q?",
            "retrieved": [{"ref": "a#1", "text": "alpha"}, {"ref": "b#2", "text": "beta"}],
        }
    )
    msg = user_message(c)
    assert re.search(r"\[doc:a#1\]\nalpha\n\n\[doc:b#2\]\nbeta", msg)
    assert "Context" not in msg


def test_every_line_of_the_run_file_is_json_with_stamped_rows(tmp_path, monkeypatch, openai_server):
    root = make_project(tmp_path, 2)
    use(monkeypatch, root, openai_server.base_url)
    openai_server.responder = lambda body: GOOD
    run()
    recs = records(run_files(root)[0])
    assert [r["kind"] for r in recs] == ["run", "case", "case", "summary"]
    assert all(r["prompt_sha"] == recs[0]["prompt_sha"] for r in recs[1:3])
    assert json.dumps(recs)


def test_timeout_and_retries_flags_override_the_project_settings(
    tmp_path, monkeypatch, openai_server
):
    root = make_project(tmp_path, 1, max_retries=3, timeout_s=30)
    use(monkeypatch, root, openai_server.base_url)
    openai_server.enqueue(Fault.slow(2.0))
    assert run(timeout_s=0.3, max_retries=0) == 3
    (row,) = rows(run_files(root)[0])
    assert "timed out (0.3s per request) after 0 retries" in row["error"]
    assert len(openai_server.chat_requests) == 1
    stamp = records(run_files(root)[0])[0]["settings"]["provider"]
    assert stamp["timeout_s"] == 0.3 and stamp["max_retries"] == 0


def test_a_malformed_body_that_clears_is_asked_again_and_the_case_scored(
    tmp_path, monkeypatch, openai_server
):
    # The SDK retries failed HTTP exchanges only; a 200 that is not a chat completion
    # (a proxy's error page, a truncated body) is asked again within the same retry budget.
    root = make_project(tmp_path, 1, max_retries=2)
    use(monkeypatch, root, openai_server.base_url)
    openai_server.enqueue(Fault.malformed(), Fault.no_choices(), GOOD)
    assert run() == 0
    (row,) = rows(run_files(root)[0])
    assert row["status"] == "pass" and row["error"] is None
    assert len(openai_server.chat_requests) == 3


def test_a_malformed_body_that_persists_is_an_error_after_the_retries(
    tmp_path, monkeypatch, openai_server
):
    root = make_project(tmp_path, 1, max_retries=1)
    use(monkeypatch, root, openai_server.base_url)
    openai_server.enqueue(Fault.malformed(), Fault.malformed(), GOOD)
    assert run() == 3
    (row,) = rows(run_files(root)[0])
    assert row["status"] == "error" and row["score"] is None
    assert "not JSON" in row["error"] and "after 1 retries" in row["error"]
    assert len(openai_server.chat_requests) == 2


def test_a_server_echoing_the_key_in_its_answer_gets_it_masked_in_every_file(
    tmp_path, monkeypatch, openai_server, capsys
):
    root = make_project(tmp_path, 1)
    use(monkeypatch, root, openai_server.base_url)
    openai_server.responder = lambda body: Scripted(
        f"{GOOD} (auth: Bearer {API_KEY})", model=f"proxy-{API_KEY}"
    )
    run()
    out = capsys.readouterr()
    files = [*run_files(root), *(root / ".evals-cache").glob("*")]
    for f in files:
        assert API_KEY.encode() not in f.read_bytes(), f
    assert API_KEY not in out.out and API_KEY not in out.err
    (row,) = rows(run_files(root)[0])
    assert "Bearer ***" in row["draft"] and row["resolved_model"] == "proxy-***"


def test_an_answer_cut_at_the_token_limit_is_scored_with_one_warning(
    tmp_path, monkeypatch, openai_server, capsys
):
    root = make_project(tmp_path, 2)
    use(monkeypatch, root, openai_server.base_url)
    openai_server.responder = lambda body: Scripted(GOOD[:25], finish_reason="length")
    assert run() in (0, 1)
    assert all(r["status"] in ("pass", "fail") for r in rows(run_files(root)[0]))
    assert capsys.readouterr().err.count('finish_reason "length"') == 1


def test_a_null_content_is_an_error_row_naming_the_finish_reason(
    tmp_path, monkeypatch, openai_server
):
    root = make_project(tmp_path, 1, max_retries=3)
    use(monkeypatch, root, openai_server.base_url)
    openai_server.responder = lambda body: Scripted(None, finish_reason="content_filter")
    assert run() == 3
    (row,) = rows(run_files(root)[0])
    assert row["score"] is None and "(finish_reason: content_filter)" in row["error"]
    assert len(openai_server.chat_requests) == 1  # a deliberate empty answer is not asked again


def test_bad_bodies_and_http_faults_share_one_retry_budget(tmp_path, monkeypatch, openai_server):
    root = make_project(tmp_path, 1, max_retries=2)
    use(monkeypatch, root, openai_server.base_url)
    # try 1: a bad body; try 2: a 500 retried by the SDK (try 3), which is the last one.
    openai_server.enqueue(
        Fault.malformed(), Fault.server_error(), Fault.server_error(), Fault.server_error(), GOOD
    )
    assert run() == 3
    (row,) = rows(run_files(root)[0])
    assert row["status"] == "error" and "HTTP 500" in row["error"]
    assert len(openai_server.chat_requests) == 3


def test_a_refused_request_is_not_said_to_be_retried(tmp_path, monkeypatch, openai_server):
    root = make_project(tmp_path, 1, max_retries=3)
    use(monkeypatch, root, openai_server.base_url)
    openai_server.enqueue(Fault.http(404, "no such model"), GOOD)
    assert run() == 3
    (row,) = rows(run_files(root)[0])
    assert row["error"].startswith("HTTP 404: ") and "retries" not in row["error"]
    assert len(openai_server.chat_requests) == 1  # the SDK does not retry a 404


def test_token_counts_that_are_not_counts_give_no_usage_and_no_cost(
    tmp_path, monkeypatch, openai_server
):
    root = make_project(tmp_path, 1, price=(1.0, 2.0))
    use(monkeypatch, root, openai_server.base_url)
    bad = {"prompt_tokens": -50, "completion_tokens": True, "total_tokens": "7"}
    openai_server.responder = lambda body: Scripted(GOOD, usage=bad)
    assert run() == 0
    (row,) = rows(run_files(root)[0])
    assert row["usage"] is None and row["cost_usd"] is None


def test_credentials_in_the_endpoint_url_never_reach_the_run_header():
    from evals.providers.openai_compat import redact_url

    assert redact_url("https://u:pw@gw.example/v1") == "https://gw.example/v1"
    assert redact_url("https://gw.example:8443/v1?api-key=s3cret&x=1") == (
        "https://gw.example:8443/v1?api-key=***&x=***"
    )
    assert redact_url("http://127.0.0.1:8000/v1") == "http://127.0.0.1:8000/v1"


def test_content_given_as_text_parts_is_joined_into_the_answer():
    from evals.providers.openai_compat import parse_completion

    body = {
        "model": "m",
        "choices": [
            {
                "message": {
                    "content": [
                        {"type": "text", "text": "One more seat "},
                        {"type": "image_url", "image_url": {"url": "x"}},
                        {"type": "text", "text": "costs 45 EUR."},
                    ]
                },
                "finish_reason": "stop",
            }
        ],
    }
    content, usage, model, finish = parse_completion(json.dumps(body).encode())
    assert (content, usage, model, finish) == ("One more seat costs 45 EUR.", None, "m", "stop")


def test_an_openai_id_requests_the_dated_snapshot(tmp_path, monkeypatch, openai_server):
    root = make_project(tmp_path, 1)
    use(monkeypatch, root, openai_server.base_url)
    openai_server.responder = lambda body: GOOD
    assert run(models=["openai/gpt-4o-mini@2024-07-18"]) == 0
    (req,) = openai_server.chat_requests
    assert req.body["model"] == "gpt-4o-mini-2024-07-18"
    header, row, _ = records(run_files(root)[0])
    assert header["model_date_is_label"] is False and row["model_date_is_label"] is False
    assert header["settings"]["provider"]["endpoint_model"] == "gpt-4o-mini-2024-07-18"


def test_a_clock_that_steps_back_gives_latency_zero_not_a_negative_row(
    tmp_path, monkeypatch, openai_server
):
    # perf_counter has been seen going backwards; a negative latency would fail the schema.
    from types import SimpleNamespace

    from evals.providers import openai_compat

    ticks = iter(range(10_000, 0, -1))
    monkeypatch.setattr(openai_compat, "time", SimpleNamespace(perf_counter=lambda: next(ticks)))
    root = make_project(tmp_path, 1)
    use(monkeypatch, root, openai_server.base_url)
    openai_server.responder = lambda body: GOOD
    assert run() == 0
    (row,) = rows(run_files(root)[0])
    assert row["latency_ms"] == 0.0
