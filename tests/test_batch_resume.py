"""`--resume` of a batch run: a batch in flight is collected, never sent twice; what an
expired batch did not answer goes out again as a new batch of only those requests."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from batch_server import BatchServer
from runkit import API_KEY, GOOD, MODEL, records, rows, run, run_files, summary, use
from test_batch import batch_project

ROOT = Path(__file__).resolve().parent.parent
INVOKE = str(Path(sys.executable).with_name("invoke"))


def batch_records(path: Path) -> list[dict]:
    return [r for r in records(path) if r["kind"] == "batch"]


def test_a_run_killed_while_its_batch_runs_resumes_the_same_batch(tmp_path, monkeypatch):
    root = batch_project(tmp_path, 40)
    # The batch answers a share of its lines at each status check and never ends on its own
    # while the first process polls it.
    with BatchServer(polls_to_finish=10_000, responder=lambda body: GOOD) as srv:
        env = {**os.environ, "OPENAI_BASE_URL": srv.base_url, "OPENAI_API_KEY": API_KEY}
        proc = subprocess.Popen(
            [INVOKE, "-r", str(ROOT), "run", "--model", MODEL, "--batch"],
            cwd=root,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline and sum(srv.polls.values()) < 3:
                time.sleep(0.01)
            proc.send_signal(signal.SIGKILL)
        finally:
            proc.wait(timeout=10)
        assert sum(srv.polls.values()) >= 3, "the first process never polled its batch"
        (path,) = run_files(root)
        before = batch_records(path)
        assert [r["event"] for r in before] == ["uploaded", "creating", "created"]
        batch_id = before[2]["batch_id"]
        assert rows(path) == [] and not any(r["kind"] == "summary" for r in records(path))
        # The batch goes on at the provider: it ends a few checks after the resume starts.
        srv.polls_to_finish = srv.batches[batch_id].polls + 3
        use(monkeypatch, root, srv.base_url)
        assert run(resume=path.name, models=[]) == 0
        assert (srv.files_uploaded, srv.batches_created) == (1, 1)
        assert len(srv.line_counts) == 40 and set(srv.line_counts.values()) == {1}
        assert srv.chat_requests == []
    assert run_files(root) == [path]
    got = rows(path)
    assert sorted(r["case"] for r in got) == [f"case-{i:03d}" for i in range(40)]
    assert {r["batch_id"] for r in got} == {batch_id}
    after = batch_records(path)
    assert [r["event"] for r in after] == ["uploaded", "creating", "created", "ended"]
    assert after[3]["batch_id"] == batch_id and after[3]["status"] == "completed"
    assert summary(path)["completed"] is True and len(records(path)[0]["resumes"]) == 1


@pytest.mark.parametrize("in_error_file", [False, True], ids=["left-out", "batch_expired-lines"])
def test_an_expired_batch_leaves_error_rows_that_resume_sends_as_a_new_batch(
    tmp_path, monkeypatch, capsys, in_error_file
):
    root = batch_project(tmp_path, 10)
    with BatchServer(
        polls_to_finish=2,
        expire_after=4,
        expired_in_error_file=in_error_file,
        responder=lambda body: GOOD,
    ) as srv:
        use(monkeypatch, root, srv.base_url)
        assert run(batch=True) == 3
        (path,) = run_files(root)
        first = rows(path)
        answered = sorted(r["case"] for r in first if r["status"] == "pass")
        unanswered = sorted(r["case"] for r in first if r["status"] == "error")
        assert len(answered) == 4 and len(unanswered) == 6
        for r in first:
            if r["status"] == "error":
                assert r["score"] is None
                assert ("batch_expired" if in_error_file else "expired before") in r["error"]
        assert "expired: 6 request(s) without an answer" in capsys.readouterr().out
        assert summary(path)["counts"]["error"] == 6

        srv.expire_after = None
        assert run(resume=path.name, models=[]) == 0
        assert (srv.files_uploaded, srv.batches_created) == (2, 2)
        second = [x["custom_id"] for x in srv.uploaded_lines[10:]]
        assert second == [f"{c}#0" for c in unanswered]
        # No request was answered (and paid for) twice.
        answers = [json.loads(x) for b in srv.batches.values() for x in b.output]
        assert len(answers) == 10 and len({a["custom_id"] for a in answers}) == 10
    got = rows(path)
    assert sorted(r["case"] for r in got) == [f"case-{i:03d}" for i in range(10)]
    assert all(r["status"] == "pass" for r in got)
    assert [r["status"] for r in batch_records(path) if r["event"] == "ended"] == [
        "expired",
        "completed",
    ]


def test_resume_of_a_live_run_refuses_batch_and_a_batch_run_stays_a_batch(
    tmp_path, monkeypatch, capsys
):
    root = batch_project(tmp_path, 2)
    with BatchServer(polls_to_finish=1, expire_after=1, responder=lambda body: GOOD) as srv:
        use(monkeypatch, root, srv.base_url)
        assert run(batch=True) == 3
        srv.expire_after = None
        assert run(resume="latest", models=[]) == 0  # no --batch given: still a batch
        assert srv.batches_created == 2 and srv.chat_requests == []
        srv.line_faults = {}
        assert run(no_cache=True) == 0  # a live run
        live = run_files(root)[-1]
        lines = live.read_text("utf-8").splitlines()
        live.write_text("\n".join(lines[:2]) + "\n", encoding="utf-8")  # cut it short
        assert run(resume=live.name, models=[], batch=True) == 2
        assert "/settings/batch: this run sent live requests" in capsys.readouterr().err
