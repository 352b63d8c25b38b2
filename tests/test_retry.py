"""`invoke run` sends an attempt again after a transient error, counts it, and stops there.

Real HTTP on loopback: the official client against tests/openai_server.py with injected
faults. The SDK's own retries are off here (max_retries = 0), so every fault reaches the
run and each re-send is one request the server sees.
"""

from __future__ import annotations

import io
from contextlib import redirect_stdout

from openai_server import Fault
from runkit import GOOD, make_project, rows, run, run_files, summary, use

from evals.reply import ProviderError
from evals.run.retry import retry_counts, transient

FAST = "resend_wait_s = 0.01"


def _project(tmp_path, n: int, extra: str = FAST):
    return make_project(
        tmp_path, n, concurrency=1, max_retries=0, resend=2, timeout_s=0.5, extra=extra, price=None
    )


def test_transient_faults_are_sent_again_and_counted_in_the_rows_and_the_summary(
    tmp_path, monkeypatch, openai_server
) -> None:
    root = _project(tmp_path, 4)
    use(monkeypatch, root, openai_server.base_url)
    openai_server.responder = lambda body: GOOD
    openai_server.enqueue(
        Fault.rate_limit(retry_after=0.3),  # case-000: 429, then 500, then an answer
        Fault.server_error(),
        GOOD,
        Fault.slow(2.0),  # case-001: times out (0.5 s), then an answer
        GOOD,
        Fault.drop(),  # case-002: the connection is dropped, then an answer
        GOOD,
    )
    out = io.StringIO()
    with redirect_stdout(out):
        assert run(no_cache=True) == 0
    (path,) = run_files(root)
    tries = {r["case"]: r["tries"] for r in rows(path)}
    assert tries == {"case-000": 3, "case-001": 2, "case-002": 2, "case-003": 1}
    assert all(r["status"] == "pass" for r in rows(path))
    assert summary(path)["retries"] == {"resent": 4, "rows": 3, "still_error": 0}
    assert "retried: 4 re-send(s) of a transient error on 3 attempt(s); 0 still an error" in (
        out.getvalue()
    )
    first, second = openai_server.chat_requests[:2]
    assert second.at - first.at >= 0.3  # the 429's Retry-After was waited for


def test_a_fault_that_persists_becomes_an_error_row_after_two_resends(
    tmp_path, monkeypatch, openai_server
) -> None:
    root = _project(tmp_path, 1)
    use(monkeypatch, root, openai_server.base_url)
    openai_server.enqueue(*[Fault.server_error() for _ in range(5)])
    assert run(no_cache=True) == 3
    (path,) = run_files(root)
    (row,) = rows(path)
    assert row["status"] == "error" and row["tries"] == 3 and "HTTP 500" in row["error"]
    assert len(openai_server.chat_requests) == 3
    assert summary(path)["retries"] == {"resent": 2, "rows": 1, "still_error": 1}


def test_a_refusal_is_never_sent_again(tmp_path, monkeypatch, openai_server) -> None:
    root = _project(tmp_path, 1)
    use(monkeypatch, root, openai_server.base_url)
    openai_server.enqueue(Fault.http(401, "bad key"), GOOD)
    assert run(no_cache=True) == 3
    (path,) = run_files(root)
    assert rows(path)[0]["tries"] == 1 and len(openai_server.chat_requests) == 1


def test_resend_is_configurable_and_zero_sends_once(tmp_path, monkeypatch, openai_server) -> None:
    root = make_project(tmp_path, 1, concurrency=1, max_retries=0, resend=0, extra=FAST, price=None)
    use(monkeypatch, root, openai_server.base_url)
    openai_server.enqueue(Fault.server_error(), GOOD)
    assert run(no_cache=True) == 3
    (path,) = run_files(root)
    assert rows(path)[0]["tries"] == 1 and len(openai_server.chat_requests) == 1
    openai_server.reset()
    openai_server.enqueue(Fault.server_error(), GOOD)
    assert run(no_cache=True, resend=1) == 0  # the flag wins over [tool.evals]
    newest = run_files(root)[-1]
    assert rows(newest)[0]["tries"] == 2


def test_only_failures_another_try_can_change_are_transient() -> None:
    for kind in ("timeout", "connection failed", "HTTP 429", "HTTP 500", "HTTP 503", "HTTP 408"):
        assert transient(ProviderError("x", kind)), kind
    for kind in ("HTTP 400", "HTTP 422", "malformed reply", "target raised ValueError"):
        assert not transient(ProviderError("x", kind)), kind


def test_retry_counts_read_the_rows_tries() -> None:
    got = retry_counts(
        [
            {"status": "pass", "tries": 3},
            {"status": "error", "tries": 2},
            {"status": "pass", "tries": 1},
            {"status": "pass"},  # a cached answer: not asked in this run
        ]
    )
    assert got == {"resent": 3, "rows": 2, "still_error": 1}
