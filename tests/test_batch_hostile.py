"""`invoke run --batch` against a hostile batch endpoint: broken or deep output lines, raw
line separators in answers, a key echoed in any string it sends, a batch list it lacks."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from batch_server import BatchServer, LineFault
from openai_server import Scripted
from runkit import API_KEY, GOOD, MODEL, records, rows, run, run_files, summary, use
from test_batch import batch_project, by_case

from evals.cli import guarded
from evals.report.command import cmd_report


@pytest.fixture
def srv() -> Any:
    with BatchServer(polls_to_finish=2, responder=lambda body: GOOD) as s:
        yield s


def completion_line(cid: str, content: str, **extra: Any) -> str:
    """An output-file line answering `cid` with `content`, written as a provider may: raw
    UTF-8, nothing escaped that JSON does not require."""
    body = {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "model": "chat-small",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, **extra}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20},
    }
    resp = {"status_code": 200, "request_id": "r", "body": body}
    return json.dumps({"id": "r", "custom_id": cid, "response": resp}, ensure_ascii=False)


def test_a_line_nested_5000_deep_is_that_cases_error_and_every_other_answer_is_kept(
    tmp_path, monkeypatch, srv, capsys
):
    root = batch_project(tmp_path, 4)
    use(monkeypatch, root, srv.base_url)
    deep = '{"custom_id":"case-001#0","response":' + "[" * 5000 + "]" * 5000 + "}"
    srv.line_faults = {"case-001#0": LineFault.raw(deep)}
    assert run(batch=True) == 3
    (path,) = run_files(root)
    got = by_case(path)
    assert sorted(got) == ["case-000", "case-001", "case-002", "case-003"]
    assert [c for c, r in got.items() if r["status"] == "error"] == ["case-001"]
    assert "could not be read (nested more than 64 levels deep" in got["case-001"]["error"]
    out = capsys.readouterr()
    assert "warning: batch" in out.out and "line 2: nested more than 64 levels deep" in out.out
    assert "Traceback" not in out.err
    # The batch ended and was recorded: --resume sends only the broken one again.
    srv.line_faults = {}
    assert run(resume=path.name, models=[]) == 0
    assert srv.batches_created == 2 and srv.line_counts["case-001#0"] == 2
    assert sum(srv.line_counts.values()) == 5
    assert summary(path)["counts"]["pass"] == 4


def test_raw_line_separators_inside_an_answer_do_not_split_its_line(tmp_path, monkeypatch, srv):
    root = batch_project(tmp_path, 2)
    use(monkeypatch, root, srv.base_url)
    answer = GOOD.replace(" per month", "\u2028per month\u2029\x85")
    srv.line_faults = {"case-000#0": LineFault.raw(completion_line("case-000#0", answer))}
    assert run(batch=True) == 0
    (path,) = run_files(root)
    got = by_case(path)
    assert got["case-000"]["status"] == "pass" and got["case-000"]["draft"] == answer
    assert srv.line_counts["case-000#0"] == 1
    # The run file holds the separators raw too, and reads back whole.
    assert "\u2028" in path.read_text("utf-8")
    assert run(resume=path.name, models=[]) == 2  # complete: nothing to resume, nothing sent
    assert srv.batches_created == 1


def _no_key_anywhere(root: Path, out: str) -> None:
    files = [p for p in root.rglob("*") if p.is_file() and "suite" not in p.parts]
    assert files
    for f in files:
        data = f.read_bytes()
        for piece in (API_KEY, API_KEY[:12], API_KEY[-12:]):
            assert piece.encode() not in data, (f, piece)
    for piece in (API_KEY, API_KEY[:12], API_KEY[-12:]):
        assert piece not in out, piece


def test_every_string_a_batch_endpoint_sends_is_masked_in_rows_files_and_the_console(
    tmp_path, monkeypatch, srv, capsys
):
    root = batch_project(tmp_path, 6)
    use(monkeypatch, root, srv.base_url)
    partial = f"{API_KEY[:9]}****{API_KEY[-8:]}"  # "Incorrect API key provided: sk-te****..."

    def responder(body: dict[str, Any]) -> Scripted | str:
        if "Customer 0:" in body["messages"][1]["content"]:
            return Scripted(None, finish_reason=f"content_filter {API_KEY}")
        if "Customer 1:" in body["messages"][1]["content"]:
            return Scripted(GOOD, model=f"chat-small {partial}")
        return GOOD

    srv.responder = responder
    srv.line_faults = {
        "case-002#0": LineFault.error("invalid_api_key", f"Incorrect API key: {partial}"),
        "case-003#0": LineFault.status(401, f"key {API_KEY} refused"),
        "case-004#0": LineFault.raw(f'{{"custom_id":"case-004#0","echo":"{API_KEY}" ' + "[" * 99),
    }
    assert run(batch=True) == 3
    assert guarded(lambda: cmd_report("latest", html=str(root / "report.html"))) == 0
    out = capsys.readouterr()
    _no_key_anywhere(root, out.out + out.err)
    got = by_case(run_files(root)[0])
    assert "finish_reason: content_filter ***" in got["case-000"]["error"]
    assert got["case-001"]["resolved_model"] == "chat-small ***"
    assert "Incorrect API key: ***" in got["case-002"]["error"]
    assert "HTTP 401 in the batch: key *** refused" in got["case-003"]["error"]
    assert got["case-004"]["status"] == "error" and got["case-005"]["status"] == "pass"


def test_a_key_in_a_failed_batchs_errors_is_masked(tmp_path, monkeypatch, srv, capsys):
    root = batch_project(tmp_path, 2)
    use(monkeypatch, root, srv.base_url)
    srv.batch_errors = [{"code": "invalid_auth", "message": f"bad key {API_KEY}", "line": 1}]
    assert run(batch=True) == 3
    out = capsys.readouterr()
    _no_key_anywhere(root, out.out + out.err)
    errors = [r["error"] for r in rows(run_files(root)[0])]
    assert len(errors) == 2 and all("failed: invalid_auth: bad key ***" in e for e in errors)


def _kill_between_create_and_record(srv: BatchServer) -> None:
    """The create call makes the batch, but its answer never arrives (as when the process
    is killed before it records it)."""
    srv.create_faults = ["drop-after-create"]


def test_without_a_batch_list_a_batch_never_asked_for_is_created_on_resume(
    tmp_path, monkeypatch, srv
):
    root = batch_project(tmp_path, 3, max_retries=0)
    use(monkeypatch, root, srv.base_url)
    srv.can_list = False
    from openai_server import Fault

    srv.create_faults = [Fault.http(400, "input file still processing")]
    assert run(batch=True) == 3
    (path,) = run_files(root)
    events = [r["event"] for r in records(path) if r["kind"] == "batch"]
    assert events == ["uploaded", "creating", "not_created"] and srv.batches_created == 0
    # Refused for sure: --resume creates the batch from the uploaded file, once.
    assert run(resume=path.name, models=[]) == 0
    assert (srv.files_uploaded, srv.batches_created) == (1, 1)
    assert summary(path)["counts"]["pass"] == 3


def test_without_a_batch_list_a_batch_that_may_exist_is_not_created_twice(
    tmp_path, monkeypatch, srv, capsys
):
    root = batch_project(tmp_path, 3, max_retries=0)
    use(monkeypatch, root, srv.base_url)
    srv.can_list = False
    _kill_between_create_and_record(srv)
    assert run(batch=True) == 3
    (path,) = run_files(root)
    assert srv.batches_created == 1
    capsys.readouterr()
    for _ in range(2):
        assert run(resume=path.name, models=[]) == 3
        out = capsys.readouterr()
        assert srv.batches_created == 1  # never a second, paid batch
        assert "cannot list batches (GET /v1/batches: HTTP 404)" in out.out + out.err
        assert "Look for a batch of input file" in out.out + out.err
    (file_id,) = {r["input_file_id"] for r in records(path) if r["kind"] == "batch"}
    assert file_id in summary(path)["stopped_reason"]


def test_model_in_batch_project_is_pinned():
    assert "@" in MODEL


def test_a_run_file_that_fills_mid_batch_stops_with_exit_3_and_resume_collects_the_same_batch(
    tmp_path, monkeypatch, srv
):
    import os
    import resource
    import subprocess
    import sys

    from evals.run.files import read_run

    root = batch_project(tmp_path, 12)
    invoke = str(Path(sys.executable).with_name("invoke"))
    repo = Path(__file__).resolve().parent.parent
    limit = 8_000  # the header, the batch records and a few rows; no room for all twelve

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    env = {**os.environ, "OPENAI_BASE_URL": srv.base_url, "OPENAI_API_KEY": API_KEY}
    r = subprocess.run(
        [invoke, "-r", str(repo), "run", "--model", MODEL, "--batch"],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=cap,
    )
    assert r.returncode == 3, r.stdout + r.stderr
    assert "Traceback" not in r.stderr
    (path,) = run_files(root)
    assert f"could not write {path}: File too large" in r.stdout + r.stderr
    assert "invoke run --resume" in r.stderr
    written = read_run(path)  # every record on disk is whole
    kept = len(written.rows)
    assert 0 < kept < 12 and path.stat().st_size <= limit
    events = [b["event"] for b in written.batches]
    assert events == ["uploaded", "creating", "created"]  # never "ended": rows are missing
    use(monkeypatch, root, srv.base_url)
    assert run(resume=path.name, models=[]) == 0
    assert (srv.files_uploaded, srv.batches_created) == (1, 1)  # collected, never sent again
    assert len(rows(path)) == 12 and summary(path)["counts"]["pass"] == 12
