"""`--resume`: an interrupted run continues with the same stamps; no case twice, none lost."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from casekit import invoke
from openai_server import Fault
from reviewkit import review_suite, run_review
from reviewkit import run_file as review_run_file
from runkit import (
    API_KEY,
    GOOD,
    MODEL,
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

ROOT = Path(__file__).resolve().parent.parent
INVOKE = str(Path(sys.executable).with_name("invoke"))


def _ids(path: Path) -> list[tuple[str, int]]:
    return sorted((r["case"], r["epoch"]) for r in rows(path))


def test_a_killed_run_resumes_with_every_case_exactly_once(tmp_path, monkeypatch, openai_server):
    root = make_project(tmp_path, 10, concurrency=1)
    openai_server.latency_ms = 150
    openai_server.responder = lambda body: GOOD
    env = {**os.environ, "OPENAI_BASE_URL": openai_server.base_url, "OPENAI_API_KEY": API_KEY}
    proc = subprocess.Popen(
        [INVOKE, "-r", str(ROOT), "run", "--model", MODEL, "--no-cache"],
        cwd=root,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            files = run_files(root)
            if files and len(rows(files[0])) >= 3:
                break
            time.sleep(0.02)
        proc.send_signal(signal.SIGKILL)
    finally:
        proc.wait(timeout=10)
    (path,) = run_files(root)
    before = path.read_text("utf-8").splitlines()
    kept = [json.loads(x) for x in before if x.strip() and json.loads(x)["kind"] == "case"]
    assert 3 <= len(kept) < 10
    assert not any(json.loads(x)["kind"] == "summary" for x in before)
    use(monkeypatch, root, openai_server.base_url)
    assert run(resume=path.name, models=[], no_cache=True) == 0
    assert run_files(root) == [path]  # continued in place, no second file
    assert _ids(path) == [(f"case-{i:03d}", 0) for i in range(10)]
    after = path.read_text("utf-8").splitlines()
    assert after[1 : 1 + len(kept)] == before[1 : 1 + len(kept)]  # kept rows untouched
    s = summary(path)
    assert s["completed"] is True and s["counts"]["total"] == 10
    assert len(records(path)[0]["resumes"]) == 1


def _chop(path: Path, keep_rows: int, tail: str = "") -> None:
    lines = path.read_text("utf-8").splitlines(keepends=True)
    path.write_text("".join(lines[: 1 + keep_rows]) + tail, encoding="utf-8")


def test_a_truncated_last_line_is_dropped_and_that_case_run_again(
    tmp_path, monkeypatch, openai_server
):
    root = make_project(tmp_path, 5)
    use(monkeypatch, root, openai_server.base_url)
    openai_server.responder = lambda body: GOOD
    run(no_cache=True)
    (path,) = run_files(root)
    _chop(path, 2, tail='{"kind":"case","case":"case-0')
    n = len(openai_server.chat_requests)
    assert run(resume=str(path), models=[], no_cache=True) == 0
    assert len(openai_server.chat_requests) == n + 3
    assert _ids(path) == [(f"case-{i:03d}", 0) for i in range(5)]
    assert records(path)[0]["resumes"][0]["truncated_line"] is True


def test_error_rows_are_run_again_on_resume(tmp_path, monkeypatch, openai_server, capsys):
    root = make_project(tmp_path, 3, max_retries=0, concurrency=1)
    use(monkeypatch, root, openai_server.base_url)
    openai_server.responder = lambda body: GOOD
    openai_server.enqueue(Fault.server_error())
    assert run() == 3
    (path,) = run_files(root)
    assert summary(path)["counts"]["error"] == 1
    capsys.readouterr()
    assert run(resume="latest", models=[]) == 0
    # A resumed run ends like any run: its exit code and what it means.
    assert capsys.readouterr().out.splitlines()[-1] == "exit 0: every case passed"
    assert len(openai_server.chat_requests) == 4  # the two good ones came from the cache
    assert summary(path)["counts"] == {"pass": 3, "fail": 0, "review": 0, "error": 0, "total": 3}
    assert len(rows(path)) == 3


def test_resume_refuses_a_changed_prompt_case_or_model(
    tmp_path, monkeypatch, openai_server, capsys
):
    root = make_project(tmp_path, 3, concurrency=1)
    use(monkeypatch, root, openai_server.base_url)
    openai_server.responder = lambda body: GOOD
    run()
    (path,) = run_files(root)
    _chop(path, 1)  # keeps case-000's row: one worker writes rows in case order
    original = path.read_bytes()
    write_case(root, case(0, question="Changed after the run?"))
    (root / "suite" / "prompt.txt").write_text("Another prompt.\n", encoding="utf-8")
    assert run(resume=str(path), models=[]) == 2
    err = capsys.readouterr().err
    assert "/prompt_sha: the prompt changed since this run" in err
    assert "case case-000: the case file changed since this run" in err
    assert "/suite_digest: the selected cases differ" in err
    assert path.read_bytes() == original  # nothing written on refusal
    assert run(resume=str(path), models=["acme/other@2024-01-01"]) == 2
    assert "not 'acme/other@2024-01-01'" in capsys.readouterr().err


def test_resume_refuses_a_complete_run(tmp_path, monkeypatch, openai_server, capsys):
    root = make_project(tmp_path, 2)
    use(monkeypatch, root, openai_server.base_url)
    openai_server.responder = lambda body: GOOD
    run()
    assert run(resume="latest", models=[]) == 2
    assert "nothing to resume" in capsys.readouterr().err


def test_rows_in_review_are_kept_on_resume_not_run_again(tmp_path):
    review_suite(tmp_path)
    assert run_review(tmp_path).returncode == 1
    path = review_run_file(tmp_path)
    lines = path.read_text("utf-8").splitlines(keepends=True)
    # The run was cut off after two rows: no summary, price-pass never written.
    keep = [x for x in lines if '"price-pass"' not in x and '"summary"' not in x]
    path.write_text("".join(keep), "utf-8")
    cut = [json.loads(x) for x in keep]
    res = invoke(tmp_path, "run", "--resume", str(path))
    assert res.returncode == 1, res.stdout + res.stderr
    assert "2 row(s) kept, 1 to run" in res.stdout
    assert "PASS  price-pass" in res.stdout and "REVIEW price-review" not in res.stdout
    after = [json.loads(x) for x in path.read_text("utf-8").splitlines()]
    kept = [r for r in after if r.get("case") == "price-review"]
    assert kept == [r for r in cut if r.get("case") == "price-review"]  # the same row, once
    assert after[-1]["counts"] == {"pass": 1, "fail": 1, "review": 1, "error": 0, "total": 3}


def test_budget_stop_is_recorded_and_resume_finishes_the_run(tmp_path, monkeypatch, openai_server):
    root = make_project(tmp_path, 8, concurrency=1, price=(1000.0, 1000.0))
    use(monkeypatch, root, openai_server.base_url)
    openai_server.responder = lambda body: GOOD
    # Each reply costs ~ (prompt+completion words) * 1000 / 1e6 ~ $0.05.
    assert run(max_cost=0.12) == 3
    (path,) = run_files(root)
    s = summary(path)
    assert s["completed"] is False and s["stopped_reason"].startswith("budget:")
    done = len(rows(path))
    assert 1 <= done < 8
    assert s["cost_usd"] <= 0.12
    assert run(resume="latest", models=[]) == 0
    assert _ids(path) == [(f"case-{i:03d}", 0) for i in range(8)]
    assert summary(path)["completed"] is True


def test_resume_refuses_a_changed_case_that_had_no_row_yet(
    tmp_path, monkeypatch, openai_server, capsys
):
    root = make_project(tmp_path, 3, concurrency=1)
    use(monkeypatch, root, openai_server.base_url)
    openai_server.responder = lambda body: GOOD
    run()
    (path,) = run_files(root)
    _chop(path, 1)  # case-001 and case-002 have no row
    write_case(root, case(2, question="Changed before it ever ran?"))
    assert run(resume=str(path), models=[]) == 2
    assert "/suite_digest: the selected cases differ" in capsys.readouterr().err


def test_a_run_started_with_no_cache_stays_uncached_when_resumed(
    tmp_path, monkeypatch, openai_server
):
    root = make_project(tmp_path, 6, concurrency=1, price=(1000.0, 1000.0))
    use(monkeypatch, root, openai_server.base_url)
    openai_server.responder = lambda body: GOOD
    assert run() == 0  # fills the cache with every answer
    assert run(no_cache=True, max_cost=0.12) == 3  # fresh answers, stopped by the budget
    path = run_files(root)[-1]
    kept = len(rows(path))
    before = len(openai_server.chat_requests)
    assert run(resume=str(path), models=[]) == 0
    assert _ids(path) == [(f"case-{i:03d}", 0) for i in range(6)]
    assert not any(r["cached"] for r in rows(path))
    assert len(openai_server.chat_requests) - before == 6 - kept


def test_ctrl_c_prints_the_exact_resume_command_and_it_works(tmp_path, openai_server):
    # 27 cases still to go when Ctrl-C is sent (4 s at least): a loaded machine that stalls
    # this test for a second must not let the run finish first.
    root = make_project(tmp_path, 30, concurrency=1)
    openai_server.latency_ms = 150
    openai_server.responder = lambda body: GOOD
    env = {**os.environ, "OPENAI_BASE_URL": openai_server.base_url, "OPENAI_API_KEY": API_KEY}
    proc = subprocess.Popen(
        [INVOKE, "-r", str(ROOT), "run", "--model", MODEL, "--no-cache"],
        cwd=root,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            files = run_files(root)
            if files and len(rows(files[0])) >= 3:
                break
            time.sleep(0.02)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=10)
    assert proc.returncode == 130
    (path,) = run_files(root)
    line = err.strip().splitlines()[-1]
    assert line == (
        f"interrupted; every finished row is kept in {path}; "
        f"continue with `invoke run --resume {path.name}`"
    )
    command = line.split("`")[1].split()
    assert command[:3] == ["invoke", "run", "--resume"]
    done = subprocess.run(
        [INVOKE, "-r", str(ROOT), *command[1:]],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert _ids(path) == [(f"case-{i:03d}", 0) for i in range(30)]


def test_resuming_a_run_without_retries_keeps_its_retries(
    tmp_path, monkeypatch, openai_server, capsys
):
    # The project's own setting is 2 retries; the run says 0, and so must its new rows.
    root = make_project(tmp_path, 2, concurrency=1, max_retries=2)
    use(monkeypatch, root, openai_server.base_url)
    openai_server.enqueue(Fault.server_error(), GOOD)
    assert run(max_retries=0) == 3
    (path,) = run_files(root)
    assert records(path)[0]["settings"]["provider"]["max_retries"] == 0
    openai_server.reset()
    openai_server.enqueue(Fault.server_error())
    assert run(resume=str(path), models=[]) == 3
    assert len(openai_server.chat_requests) == 1  # no retry: the run's own 0
    header = records(path)[0]
    assert header["settings"]["provider"]["max_retries"] == 0
    errors = [r["error"] for r in rows(path) if r["status"] == "error"]
    assert errors and not any("after 2 retries" in e for e in errors)
    assert run(resume=str(path), models=[], max_retries=3) == 2
    assert "--retries 3 cannot be used with --resume: the run's own (0) is kept" in (
        capsys.readouterr().err
    )


def test_resume_refuses_to_send_the_rest_of_a_run_to_another_endpoint(
    tmp_path, monkeypatch, openai_server, capsys
):
    root = make_project(tmp_path, 3, max_retries=0, concurrency=1)
    use(monkeypatch, root, openai_server.base_url)
    openai_server.responder = lambda body: GOOD
    openai_server.enqueue(Fault.server_error())
    assert run() == 3
    (path,) = run_files(root)
    original = path.read_bytes()
    sent = len(openai_server.chat_requests)
    monkeypatch.delenv("OPENAI_BASE_URL")  # the key alone would mean api.openai.com
    assert run(resume=path.name, models=[]) == 2
    err = capsys.readouterr().err
    assert f"the run was sent to '{openai_server.base_url}'" in err
    assert "this would send the rest to 'https://api.openai.com/v1'" in err
    assert path.read_bytes() == original and len(openai_server.chat_requests) == sent
    # Back on the run's endpoint, it goes on.
    monkeypatch.setenv("OPENAI_BASE_URL", openai_server.base_url)
    assert run(resume=path.name, models=[]) == 0


def test_epochs_are_bounded(tmp_path, monkeypatch, openai_server, capsys):
    root = make_project(tmp_path, 1)
    use(monkeypatch, root, openai_server.base_url)
    assert run(epochs=1_000_000_000) == 2
    assert "--epochs 1000000000: at most 100" in capsys.readouterr().err
    assert run_files(root) == [] and openai_server.chat_requests == []


def test_resume_tells_apart_two_urls_that_differ_only_in_their_masked_part(
    tmp_path, monkeypatch, openai_server, capsys
):
    # The test server answers no URL with a query (404): every case is an error row, which
    # is all a resume needs; what matters is which endpoint the rest would go to.
    root = make_project(tmp_path, 2, max_retries=0, concurrency=1)
    first = f"{openai_server.base_url}?tenant=k7f3Qm9ZpL2x"
    use(monkeypatch, root, first)
    assert run() == 3
    (path,) = run_files(root)
    original = path.read_bytes()
    stamp = records(path)[0]["settings"]["provider"]
    assert "k7f3Qm9ZpL2x" not in path.read_text("utf-8")
    assert stamp["base_url"].endswith("?tenant=***") and len(stamp["base_url_id"]) == 32
    # Shown the same ("?tenant=***"), but another tenant's endpoint: refused.
    monkeypatch.setenv("OPENAI_BASE_URL", f"{openai_server.base_url}?tenant=R2d8Wv4NcJ6y")
    assert run(resume=path.name, models=[]) == 2
    err = capsys.readouterr().err
    assert "another secret part in the URL" in err and "R2d8Wv4NcJ6y" not in err
    assert path.read_bytes() == original
    # The run's own endpoint: resumed (its cases are asked again and fail again, exit 3).
    monkeypatch.setenv("OPENAI_BASE_URL", first)
    assert run(resume=path.name, models=[]) == 3
    assert "another secret part" not in capsys.readouterr().err
