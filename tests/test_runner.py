"""Running many cases: concurrency, epochs, several models, budget, progress, fault tolerance."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

import jsonschema
from openai_server import OpenAIServer, Scripted
from runkit import API_KEY, GOOD, MODEL, WRONG, make_project, records, rows, run, run_files, use

from evals.run.plan import RunResult
from evals.run.progress import RunProgress

ROOT = Path(__file__).resolve().parent.parent
INVOKE = str(Path(sys.executable).with_name("invoke"))
SCHEMA = json.loads((ROOT / "schemas" / "run.schema.json").read_text("utf-8"))


def _valid(path: Path) -> None:
    for rec in records(path):
        jsonschema.validate(rec, SCHEMA)


def test_concurrency_bounds_requests_in_flight(tmp_path, monkeypatch, openai_server):
    root = make_project(tmp_path, 9, concurrency=3)
    use(monkeypatch, root, openai_server.base_url)
    lock, now, peak = threading.Lock(), [0], [0]

    def slow(body):
        with lock:
            now[0] += 1
            peak[0] = max(peak[0], now[0])
        time.sleep(0.25)
        with lock:
            now[0] -= 1
        return GOOD

    openai_server.responder = slow
    assert run() == 0
    assert peak[0] == 3
    assert run(concurrency=1, no_cache=True) == 0
    assert peak[0] == 3  # never more than asked


def test_epochs_give_per_case_pass_rates_and_flag_flipping_cases(
    tmp_path, monkeypatch, openai_server
):
    root = make_project(tmp_path, 2, concurrency=1)
    use(monkeypatch, root, openai_server.base_url)
    calls: Counter[str] = Counter()

    def flaky(body):
        q = body["messages"][1]["content"]
        calls[q] += 1
        # case-000 answers right once and wrong once; case-001 is always right.
        return WRONG if "Customer 0:" in q and calls[q] == 2 else GOOD

    openai_server.responder = flaky
    assert run(epochs=3) == 1
    (path,) = run_files(root)
    got = rows(path)
    assert sorted((r["case"], r["epoch"]) for r in got) == [
        (c, e) for c in ("case-000", "case-001") for e in range(3)
    ]
    ep = records(path)[-1]["epochs"]
    assert ep["n"] == 3 and ep["flipping"] == ["case-000"]
    assert ep["per_case"]["case-000"]["pass"] == 2 and ep["per_case"]["case-000"]["n_scored"] == 3
    assert ep["per_case"]["case-001"]["rate"] == 1.0
    _valid(path)


def test_several_models_write_one_run_file_each(tmp_path, monkeypatch, openai_server):
    root = make_project(tmp_path, 2)
    use(monkeypatch, root, openai_server.base_url)
    openai_server.responder = lambda body: GOOD if body["model"] == "chat-small" else WRONG
    other = "acme/chat-tiny@2024-05-01"
    assert run(models=[MODEL, other]) == 1  # the worst of the two runs
    files = run_files(root)
    assert sorted(records(f)[0]["model"] for f in files) == sorted([MODEL, other])
    for f in files:
        assert {r["model"] for r in rows(f)} == {records(f)[0]["model"]}
        assert len(rows(f)) == 2


def test_max_cost_needs_a_known_price(tmp_path, monkeypatch, openai_server, capsys):
    root = make_project(tmp_path, 2, price=None)
    use(monkeypatch, root, openai_server.base_url)
    assert run(max_cost=1.0) == 2
    assert "no price for 'acme/chat-small@2024-07-18'" in capsys.readouterr().err
    assert not openai_server.chat_requests


def test_unknown_price_is_null_cost_never_zero(tmp_path, monkeypatch, openai_server):
    root = make_project(tmp_path, 1, price=None)
    use(monkeypatch, root, openai_server.base_url)
    openai_server.responder = lambda body: GOOD
    run()
    (path,) = run_files(root)
    assert rows(path)[0]["cost_usd"] is None and rows(path)[0]["usage"]
    assert records(path)[-1]["cost_usd"] is None


def test_fifteen_percent_faults_every_case_scored_or_an_error_with_its_reason(
    tmp_path, monkeypatch
):
    root = make_project(tmp_path, 40, timeout_s=0.4, max_retries=2, concurrency=8)
    with OpenAIServer(fault_rate=0.15, seed=11, slow_s=1.0, responder=lambda b: GOOD) as srv:
        use(monkeypatch, root, srv.base_url)
        code = run(no_cache=True)
        faults = sum(srv.faults.values())
    (path,) = run_files(root)
    got = rows(path)
    assert faults > 5
    assert sorted(r["case"] for r in got) == [f"case-{i:03d}" for i in range(40)]
    for r in got:
        if r["status"] == "error":
            assert r["score"] is None and r["error"]
        else:
            assert r["status"] == "pass" and r["score"] == 1.0
    s = records(path)[-1]
    assert s["counts"]["error"] == sum(r["status"] == "error" for r in got)
    assert s["counts"]["total"] == 40 and s["completed"] is True
    assert code == (3 if s["counts"]["error"] else 0)
    _valid(path)


def test_plain_progress_lines_when_not_a_terminal():
    out = io.StringIO()
    p = RunProgress(4, stream=out, tty=False)
    for i, status in enumerate(["pass", "fail", "error", "pass"]):
        p.row(
            {
                "case": f"c{i}",
                "status": status,
                "failed_checks": ["x"],
                "error": "boom",
                "cost_usd": None if status == "error" else 0.5,
                "usage": None if status == "error" else {},
            }
        )
    p.close()
    text = out.getvalue()
    assert "PASS  c0" in text and "FAIL  c1  failed: x" in text and "ERROR c2  boom" in text
    assert "progress: 4/4 done, 1 errors, cost $1.5000" in text  # the error row had no cost


def test_a_bar_with_errors_and_cost_on_a_terminal():
    out = io.StringIO()
    p = RunProgress(2, stream=out, tty=True)
    p.row({"case": "c0", "status": "error", "error": "boom", "cost_usd": None, "usage": None})
    assert p.errors == 1 and p.done == 1
    p.close()
    assert "ERROR c0  boom" in out.getvalue()


def test_invoke_run_takes_model_twice_and_epochs_from_the_command_line(tmp_path, openai_server):
    root = make_project(tmp_path, 1)
    openai_server.responder = lambda body: GOOD
    env = {**os.environ, "OPENAI_BASE_URL": openai_server.base_url, "OPENAI_API_KEY": API_KEY}
    p = subprocess.run(
        [INVOKE, "-r", str(ROOT), "run", "--model", MODEL, "--model", "acme/b@2024-01-01"]
        + ["--epochs", "2", "--concurrency", "2"],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert p.returncode == 0, p.stderr
    assert "PASS  case-000 (epoch 1)" in p.stdout
    assert len(run_files(root)) == 2
    for f in run_files(root):
        _valid(f)
    bad = subprocess.run(
        [INVOKE, "-r", str(ROOT), "run", "--model", "gpt-4o"],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert bad.returncode == 2 and "not date-pinned" in bad.stderr


def test_max_cost_charges_replies_without_usage_at_the_mean_and_still_stops(
    tmp_path, monkeypatch, openai_server, capsys
):
    root = make_project(tmp_path, 8, concurrency=1, price=(1000.0, 1000.0))
    use(monkeypatch, root, openai_server.base_url)
    # The first reply reports its tokens (~$0.05); the rest report none, as some servers do.
    openai_server.enqueue(GOOD)
    openai_server.responder = lambda body: Scripted(GOOD, usage={})
    assert run(max_cost=0.12) == 3
    (path,) = run_files(root)
    s = records(path)[-1]
    assert s["completed"] is False and "without token usage" in s["stopped_reason"]
    assert 2 <= len(rows(path)) <= 3
    assert s["cost_usd"] is None  # the true cost is unknown: never a silent undercount
    assert s["n_no_usage"] == len(rows(path)) - 1
    out = capsys.readouterr().out
    assert "came without token usage" in out and "no price" not in out


def test_an_answer_without_usage_whose_check_errored_still_makes_the_cost_unknown():
    from evals.run.summary import summarise

    def row(status, usage, cost, checks):
        return {
            "case": "c",
            "status": status,
            "score": None if status == "error" else 1.0,
            "usage": usage,
            "cost_usd": cost,
            "checks": checks,
        }

    usage = {"prompt_tokens": 10, "completion_tokens": 5}
    judged_error = {"judge": {"status": "error", "score": None, "detail": "no verdict"}}
    rows_ = [
        row("pass", usage, 0.01, {"x": {"status": "pass", "score": 1.0, "detail": ""}}),
        row("error", None, None, judged_error),  # answered (no usage reported), judge failed
        row("error", None, None, {}),  # the endpoint failed: nothing was answered
    ]
    s = summarise(rows_, completed=True)
    assert s["cost_usd"] is None and s["n_no_usage"] == 1
    s = summarise([rows_[0], rows_[2]], completed=True)
    assert s["cost_usd"] == 0.01 and s["n_no_usage"] == 0


# -- an endpoint that refuses every request stops the run early -----------------------------

REFUSED = "the endpoint refused every request: "


def _refusing(server: OpenAIServer, status: int, n: int = 40, message: str = "nope") -> None:
    from openai_server import Fault

    server.enqueue(*[Fault.http(status, message) for _ in range(n)])


def test_a_bad_key_stops_the_run_after_its_first_requests_and_resume_finishes_it(
    tmp_path, monkeypatch, openai_server, capsys
):
    root = make_project(tmp_path, 10, concurrency=1, max_retries=2)
    use(monkeypatch, root, openai_server.base_url)
    _refusing(
        openai_server, 401, message=f"Incorrect API key provided: {API_KEY[:7]}***{API_KEY[-4:]}"
    )
    assert run() == 3
    out = capsys.readouterr().out
    path = run_files(root)[0]
    s = records(path)[-1]
    assert s["completed"] is False
    assert s["stopped_reason"].startswith(REFUSED + "HTTP 401: ")
    assert "OPENAI_API_KEY" in s["stopped_reason"]
    assert API_KEY[:7] not in s["stopped_reason"] and API_KEY[-4:] not in s["stopped_reason"]
    assert API_KEY[:7] not in path.read_text("utf-8")
    assert len(openai_server.chat_requests) == 3  # a 401 is not retried; no 4th case started
    assert [r["status"] for r in rows(path)] == ["error"] * 3  # the other 7 have no row
    assert "check OPENAI_BASE_URL, OPENAI_API_KEY and the model name" in out
    assert f"invoke run --resume {path.name}" in out
    _valid(path)
    # The key is fixed: the resumed run answers every case, each exactly once.
    openai_server.reset()
    openai_server.responder = lambda body: GOOD
    assert run(resume=path.name, models=[]) == 0
    got = rows(path)
    assert sorted(r["case"] for r in got) == [f"case-{i:03d}" for i in range(10)]
    assert {r["status"] for r in got} == {"pass"} and records(path)[-1]["completed"] is True


def test_an_unknown_model_stops_the_run_with_in_flight_requests_accounted_for(
    tmp_path, monkeypatch, openai_server
):
    root = make_project(tmp_path, 20, concurrency=4)
    use(monkeypatch, root, openai_server.base_url)
    _refusing(openai_server, 404, message="The model does not exist")
    assert run() == 3
    path = run_files(root)[0]
    s = records(path)[-1]
    assert s["stopped_reason"].startswith(REFUSED + "HTTP 404: The model does not exist")
    assert "check the model name ('chat-small')" in s["stopped_reason"]
    got = rows(path)
    # The requests in flight when the first refusal came (4 at most) finish as error rows;
    # no other case starts while they decide, nor after.
    assert 3 <= len(got) == len(openai_server.chat_requests) <= 4
    assert s["counts"] == {"pass": 0, "fail": 0, "review": 0, "error": len(got), "total": len(got)}


def test_a_closed_port_stops_the_run_after_the_sdk_retries(tmp_path, monkeypatch):
    import socket

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()  # nothing listens there now: every connection is refused
    root = make_project(tmp_path, 12, concurrency=2, max_retries=1)
    use(monkeypatch, root, f"http://127.0.0.1:{port}/v1")
    started = time.monotonic()
    assert run() == 3
    assert time.monotonic() - started < 10
    path = run_files(root)[0]
    s = records(path)[-1]
    assert s["completed"] is False
    assert s["stopped_reason"].startswith(REFUSED + "connection failed after 1 retries")
    assert f"connection refused (http://127.0.0.1:{port}/v1)" in s["stopped_reason"]
    assert "check OPENAI_BASE_URL" in s["stopped_reason"]
    assert len(rows(path)) == 3  # 2 in flight, then 1 more to make the quorum


def test_a_run_with_fewer_cases_than_the_quorum_stops_when_all_are_refused(
    tmp_path, monkeypatch, openai_server
):
    root = make_project(tmp_path, 2)
    use(monkeypatch, root, openai_server.base_url)
    _refusing(openai_server, 403, message="This key may not use this model")
    assert run() == 3
    s = records(run_files(root)[0])[-1]
    assert s["completed"] is False and s["stopped_reason"].startswith(REFUSED + "HTTP 403")


def test_transient_mixed_or_partly_answered_failures_never_stop_the_run(
    tmp_path, monkeypatch, openai_server
):
    from openai_server import Fault

    root = make_project(tmp_path, 6, concurrency=1, max_retries=0)
    use(monkeypatch, root, openai_server.base_url)
    scripts = {
        "5xx and 429": [Fault.server_error(), Fault.unavailable(), Fault.rate_limit()] * 2,
        "an answer first": [GOOD, *[Fault.http(401, "bad key")] * 5],
        "different refusals": [Fault.http(401), Fault.http(404), *[Fault.http(401)] * 4],
    }
    for what, script in scripts.items():
        openai_server.reset()
        openai_server.enqueue(*script)
        assert run(no_cache=True) == 3, what
        path = max(run_files(root), key=lambda p: p.stat().st_mtime_ns)
        s = records(path)[-1]
        assert s["completed"] is True and s["stopped_reason"] is None, what
        assert len(rows(path)) == 6, what


def test_a_finished_runs_result_reprs_in_a_line_whatever_its_size():
    """asyncio repr()s the run's task, result included, when it restores the Ctrl-C handler:
    the repr of a thousand-row result must not print every row."""
    rows = [{"kind": "case", "case": f"c-{i}", "draft": "x" * 500} for i in range(1000)]
    result = RunResult(Path("runs/r.jsonl"), {"kind": "run"}, rows, {"kind": "summary"})
    assert len(repr(result)) < 200 and "r.jsonl" in repr(result)
