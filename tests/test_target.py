"""`--target module:function`: your own application as the system under test."""

from __future__ import annotations

import textwrap

import pytest
from runkit import make_project, records, rows, run, run_files, use

APP = """
__version__ = "2.3.1"
SEEN = []

def answer(case):
    SEEN.append(case)
    return {
        "answer": "One more Pro seat costs 45 EUR per month [doc:pricing#plans].",
        "retrieved": [{"ref": "pricing#plans", "text": "..."}, "faq#seats"],
        "cited": ["pricing#plans"],
        "abstained": False,
    }
"""


def _module(root, name, source):
    (root / f"{name}.py").write_text(textwrap.dedent(source), encoding="utf-8")


def test_a_sync_target_is_called_with_the_question_context_and_turns_only(tmp_path, monkeypatch):
    root = make_project(tmp_path, 2)
    _module(root, "app_sync_a", APP)
    use(monkeypatch, root, None)
    assert run(target="app_sync_a:answer") == 0
    import app_sync_a

    assert sorted(c["id"] for c in app_sync_a.SEEN) == ["case-000", "case-001"]
    seen = app_sync_a.SEEN[0]
    assert set(seen) == {"id", "question", "context", "messages"}  # never the expectations
    # A single ticket is a conversation of one turn: a chat app passes `messages` on as is.
    assert seen["messages"] == [{"role": "user", "content": seen["question"]}]
    recs = records(run_files(root)[0])
    assert recs[0]["model"] == "target/app_sync_a:answer@2.3.1"
    assert recs[0]["target"] == {
        "spec": "app_sync_a:answer",
        "module": "app_sync_a",
        "function": "answer",
        "version": "2.3.1",
    }
    row = rows(run_files(root)[0])[0]
    assert row["model"] == "target/app_sync_a:answer@2.3.1"
    assert row["retrieved"] == ["pricing#plans", "faq#seats"]  # its own retrieval is measured
    assert row["checks"]["retrieval_recall"]["status"] == "pass"


def test_an_async_target_with_a_version_attribute(tmp_path, monkeypatch):
    root = make_project(tmp_path, 1)
    _module(
        root,
        "app_async_b",
        """
        async def answer(case):
            return {"answer": "I do not know.", "retrieved": [], "cited": [], "abstained": True}
        answer.version = "rag-7"
        """,
    )
    use(monkeypatch, root, None)
    assert run(target="app_async_b:answer") == 1  # it declined a question it should answer
    row = rows(run_files(root)[0])[0]
    assert row["model"] == "target/app_async_b:answer@rag-7"
    assert row["status"] == "fail" and row["abstained"] is True
    assert row["checks"]["retrieval_recall"]["score"] == 0


def test_wrong_shapes_and_exceptions_are_error_rows_with_the_reason(tmp_path, monkeypatch):
    root = make_project(tmp_path, 4, concurrency=1)
    _module(
        root,
        "app_bad_c",
        """
        def answer(case):
            n = int(case["id"].split("-")[1])
            if n == 0:
                return "just a string"
            if n == 1:
                return {"text": "no answer key"}
            if n == 2:
                raise RuntimeError("index offline")
            return {"answer": "ok", "cited": "pricing#plans"}
        """,
    )
    use(monkeypatch, root, None)
    assert run(target="app_bad_c:answer") == 3
    got = {r["case"]: r for r in rows(run_files(root)[0])}
    assert all(r["status"] == "error" and r["score"] is None for r in got.values())
    assert "not a dict" in got["case-000"]["error"]
    assert "no 'answer' string" in got["case-001"]["error"]
    assert "RuntimeError: index offline" in got["case-002"]["error"]
    assert "cited as str, not a list" in got["case-003"]["error"]
    assert records(run_files(root)[0])[0]["model"] == "target/app_bad_c:answer@unversioned"


def test_a_target_that_cannot_be_imported_is_bad_input(tmp_path, monkeypatch, capsys):
    root = make_project(tmp_path, 1)
    use(monkeypatch, root, None)
    assert run(target="no_such_module_d:answer") == 2
    assert "cannot import no_such_module_d" in capsys.readouterr().err
    assert run(target="missing-colon") == 2
    assert not run_files(root)


def test_a_sync_target_runs_as_many_calls_at_once_as_the_concurrency(tmp_path, monkeypatch):
    root = make_project(tmp_path, 12, concurrency=12)
    _module(
        root,
        "app_slow_e",
        """
        import threading, time
        LOCK = threading.Lock()
        NOW = [0]
        PEAK = [0]

        def answer(case):
            with LOCK:
                NOW[0] += 1
                PEAK[0] = max(PEAK[0], NOW[0])
            time.sleep(0.3)
            with LOCK:
                NOW[0] -= 1
            return {"answer": "45 EUR [doc:pricing#plans]", "cited": ["pricing#plans"]}
        """,
    )
    use(monkeypatch, root, None)
    run(target="app_slow_e:answer", concurrency=12)
    import app_slow_e

    assert app_slow_e.PEAK[0] == 12  # not capped by asyncio's small default thread pool


def test_a_target_calling_sys_exit_is_that_cases_error_and_the_run_goes_on(tmp_path, monkeypatch):
    root = make_project(tmp_path, 2, concurrency=1)
    _module(
        root,
        "app_exit_d",
        """
        import sys

        def answer(case):
            if case["id"] == "case-000":
                sys.exit(4)
            return {"answer": "x", "retrieved": [], "cited": [], "abstained": False}
        """,
    )
    use(monkeypatch, root, None)
    assert run(target="app_exit_d:answer") == 3
    got = {r["case"]: r for r in rows(run_files(root)[0])}
    assert got["case-000"]["status"] == "error" and got["case-000"]["score"] is None
    assert "SystemExit: 4" in got["case-000"]["error"]
    assert got["case-001"]["status"] in ("pass", "fail")


HANGING = """
import asyncio, threading, time

GOOD = {"answer": "45 EUR [doc:pricing#plans]", "retrieved": ["pricing#plans"],
        "cited": ["pricing#plans"], "abstained": False}

def answer(case):
    if case["id"] == "case-000":
        threading.Event().wait()  # never returns
    return GOOD

async def answer_async(case):
    if case["id"] == "case-001":
        await asyncio.Event().wait()  # never returns
    return GOOD
"""


def test_a_hung_sync_or_async_target_times_out_as_an_error_row_and_the_run_goes_on(
    tmp_path, monkeypatch
):
    import time

    root = make_project(tmp_path, 4, timeout_s=1.0, concurrency=2)
    _module(root, "app_hang_f", HANGING)
    use(monkeypatch, root, None)
    for fn, hung in (("answer", "case-000"), ("answer_async", "case-001")):
        started = time.monotonic()
        assert run(target=f"app_hang_f:{fn}") == 3
        assert time.monotonic() - started < 10  # a hung call would hold it forever
        path = max(run_files(root), key=lambda p: p.stat().st_mtime_ns)
        got = {r["case"]: r for r in rows(path)}
        assert len(got) == 4
        assert got[hung]["status"] == "error" and got[hung]["score"] is None
        assert got[hung]["error"] == "target timed out after 1 s"
        assert all(r["status"] == "pass" for c, r in got.items() if c != hung)
        recs = records(path)
        assert recs[0]["settings"]["provider"]["timeout_s"] == 1.0
        assert recs[-1]["completed"] is True and recs[-1]["counts"]["error"] == 1


def test_a_targets_own_timeout_error_is_not_reported_as_the_harness_timeout(tmp_path, monkeypatch):
    root = make_project(tmp_path, 1, timeout_s=5.0)
    _module(
        root,
        "app_own_timeout_g",
        """
        def answer(case):
            raise TimeoutError("vector store did not answer")
        """,
    )
    use(monkeypatch, root, None)
    assert run(target="app_own_timeout_g:answer") == 3
    (row,) = rows(run_files(root)[0])
    assert row["error"] == "target raised TimeoutError: vector store did not answer"


def test_the_process_exits_promptly_after_a_run_whose_sync_target_hung(tmp_path):
    import time

    from casekit import invoke

    root = make_project(tmp_path, 3, timeout_s=30.0)
    _module(root, "app_hang_h", HANGING)
    started = time.monotonic()
    out = invoke(root, "run", "--target", "app_hang_h:answer", "--timeout", "1", timeout=60)
    elapsed = time.monotonic() - started
    assert out.returncode == 3, out.stdout + out.stderr
    # Start-up plus the 1 s timeout, with room for a loaded machine; a joined thread would
    # never end (the 60 s limit above would stop it).
    assert elapsed < 45
    assert "target timed out after 1 s" in out.stdout
    recs = records(run_files(root)[0])
    assert recs[0]["settings"]["provider"]["timeout_s"] == 1.0  # --timeout beats timeout_s
    assert [r["status"] for r in recs if r["kind"] == "case"].count("pass") == 2


HOSTILE = """
import math

GOOD = {"answer": "45 EUR [doc:pricing#plans]", "retrieved": ["pricing#plans"],
        "cited": ["pricing#plans"], "abstained": False}


class Weird(BaseException):
    pass


def answer(case):
    n = int(case["id"][-1])
    if n == 0:
        raise KeyboardInterrupt("from the app")
    if n == 1:
        raise Weird("\\x1b[2J\\x1b]0;owned\\x07cleared \\x1b[31mred\\x1b[0m\\nsecond line")
    if n == 2:
        return {**GOOD, "usage": {"prompt_tokens": float("nan"), "completion_tokens": 3}}
    if n == 3:
        return {**GOOD, "usage": {"prompt_tokens": 10, "extra": {"cost": math.inf}}}
    if n == 4:
        return {**GOOD, "usage": {"prompt_tokens": 2.5}}
    return GOOD


async def answer_async(case):
    if case["id"] == "case-000":
        raise KeyboardInterrupt
    if case["id"] == "case-001":
        raise SystemExit("\\x1b[31mbye\\x1b[0m")
    return answer(case)
"""


def test_a_hostile_target_costs_only_its_cases_as_clean_error_rows(tmp_path, monkeypatch, capsys):
    import json

    root = make_project(tmp_path, 6, concurrency=2)
    _module(root, "app_hostile_i", HOSTILE)
    use(monkeypatch, root, None)
    for fn in ("answer", "answer_async"):
        capsys.readouterr()
        assert run(target=f"app_hostile_i:{fn}") == 3  # errors, not an abort (130)
        out = capsys.readouterr()
        path = max(run_files(root), key=lambda p: p.stat().st_mtime_ns)
        text = path.read_text("utf-8")
        for line in text.splitlines():
            json.loads(line, parse_constant=lambda c: pytest.fail(f"{c} in the run file"))
        assert "\x1b" not in text and "\x07" not in text
        assert "\x1b" not in out.out + out.err and "Traceback" not in out.err
        got = {r["case"]: r for r in rows(path)}
        assert len(got) == 6 and records(path)[-1]["completed"] is True
        assert got["case-000"]["status"] == "error"
        assert got["case-000"]["error"].startswith("target raised KeyboardInterrupt")
        for cid in ("case-001", "case-002", "case-003", "case-004"):
            assert got[cid]["status"] == "error" and got[cid]["score"] is None, cid
        assert got["case-005"]["status"] == "pass"
    sync_rows = {r["case"]: r for r in rows(min(run_files(root)))}
    assert sync_rows["case-001"]["error"] == "target raised Weird: cleared red second line"
    assert sync_rows["case-002"]["error"] == (
        "target returned usage with a number that is not finite (NaN or infinity) at /prompt_tokens"
    )
    assert "/extra/cost" in sync_rows["case-003"]["error"]
    assert "/prompt_tokens" in sync_rows["case-004"]["error"]
    async_rows = {r["case"]: r for r in rows(max(run_files(root)))}
    assert async_rows["case-001"]["error"] == "target raised SystemExit: bye"


def test_the_run_file_writer_refuses_a_record_that_is_not_json(tmp_path):
    from evals.run.files import RunWriter

    with RunWriter(tmp_path / "r.jsonl") as w:
        with pytest.raises(ValueError, match="not finite"):
            w.write({"kind": "case", "cost_usd": float("nan")})
        w.write({"kind": "case", "cost_usd": 0.5})
    assert (tmp_path / "r.jsonl").read_text("utf-8") == '{"kind":"case","cost_usd":0.5}\n'


def test_a_row_that_is_not_json_becomes_an_error_row_and_the_file_stays_json(tmp_path, monkeypatch):
    import json

    from runkit import case, write_case

    root = make_project(tmp_path, 1)
    (root / "suite" / "checks.py").write_text(
        "from evals.checks import check, passed\n\n"
        "@check('odd_detail')\n"
        "def odd_detail(inp):\n"
        "    return passed({float('nan')})\n",
        encoding="utf-8",
    )
    write_case(root, case(0, checks=["odd_detail"]))
    _module(root, "app_nan_j", APP)
    use(monkeypatch, root, None)
    assert run(target="app_nan_j:answer") == 3
    text = run_files(root)[0].read_text("utf-8")
    for line in text.splitlines():
        json.loads(line, parse_constant=lambda c: pytest.fail(f"{c} in the run file"))
    (row,) = rows(run_files(root)[0])
    assert row["status"] == "error" and row["score"] is None
    assert row["error"].startswith("row not written: the record holds a value of no JSON type")


STUBBORN = """
import asyncio

GOOD = {"answer": "45 EUR [doc:pricing#plans]", "retrieved": ["pricing#plans"],
        "cited": ["pricing#plans"], "abstained": False}
LATE = []

async def answer(case):
    if case["id"] == "case-000":
        loop = asyncio.get_running_loop()
        end = loop.time() + 12
        while loop.time() < end:  # swallows every cancellation, then answers well
            try:
                await asyncio.sleep(end - loop.time())
            except asyncio.CancelledError:
                pass
        LATE.append(case["id"])
    return GOOD
"""


def test_an_async_target_that_swallows_its_cancellation_is_an_error_row_not_a_late_score(
    tmp_path, monkeypatch
):
    import time

    root = make_project(tmp_path, 3, timeout_s=1.0, concurrency=3)
    _module(root, "app_stubborn_j", STUBBORN)
    use(monkeypatch, root, None)
    started = time.monotonic()
    assert run(target="app_stubborn_j:answer") == 3
    assert time.monotonic() - started < 10  # the run does not wait for the late answer
    got = {r["case"]: r for r in rows(run_files(root)[0])}
    assert got["case-000"]["status"] == "error" and got["case-000"]["score"] is None
    assert got["case-000"]["error"] == "target timed out after 1 s"
    assert got["case-001"]["status"] == got["case-002"]["status"] == "pass"


def test_a_sync_target_raising_generatorexit_or_stopiteration_is_that_cases_error(
    tmp_path, monkeypatch
):
    import time

    root = make_project(tmp_path, 3, timeout_s=30.0, concurrency=1)
    _module(
        root,
        "app_generator_k",
        """
        GOOD = {"answer": "45 EUR [doc:pricing#plans]", "retrieved": ["pricing#plans"],
                "cited": ["pricing#plans"], "abstained": False}

        def answer(case):
            if case["id"] == "case-000":
                raise GeneratorExit("closed")
            if case["id"] == "case-001":
                raise StopIteration
            return GOOD
        """,
    )
    use(monkeypatch, root, None)
    started = time.monotonic()
    assert run(target="app_generator_k:answer") == 3
    assert time.monotonic() - started < 20  # StopIteration does not wait out the 30 s timeout
    got = {r["case"]: r for r in rows(run_files(root)[0])}
    assert got["case-000"]["error"] == "target raised GeneratorExit: closed"
    assert got["case-001"]["error"] == "target raised StopIteration"
    assert got["case-000"]["status"] == got["case-001"]["status"] == "error"
    assert got["case-002"]["status"] == "pass"
