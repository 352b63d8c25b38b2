"""The answer cache: unchanged requests are never sent twice; errors are never cached."""

from __future__ import annotations

import sqlite3

from openai_server import Fault
from runkit import GOOD, case, make_project, records, rows, run, run_files, summary, use, write_case

from evals.reply import Reply
from evals.run.cache import AnswerCache, cache_key


def test_rerun_of_an_unchanged_suite_makes_no_request(tmp_path, monkeypatch, openai_server):
    root = make_project(tmp_path, 4)
    use(monkeypatch, root, openai_server.base_url)
    openai_server.responder = lambda body: GOOD
    assert run() == 0
    assert len(openai_server.chat_requests) == 4
    assert run() == 0
    assert len(openai_server.chat_requests) == 4
    first, second = run_files(root)
    assert [r["cached"] for r in rows(first)] == [False] * 4
    assert [r["cached"] for r in rows(second)] == [True] * 4
    assert {r["draft"] for r in rows(second)} == {GOOD}
    s = summary(second)
    assert s["cached"] == 4 and s["spent_usd"] == 0 and s["cost_usd"] == summary(first)["cost_usd"]


def test_a_changed_case_or_prompt_or_epoch_is_a_new_request(tmp_path, monkeypatch, openai_server):
    root = make_project(tmp_path, 2)
    use(monkeypatch, root, openai_server.base_url)
    openai_server.responder = lambda body: GOOD
    run()
    write_case(root, case(0, question="A reworded question about Pro seats?"))
    run()
    assert len(openai_server.chat_requests) == 3  # only the changed case went out
    (root / "suite" / "prompt.txt").write_text("A new prompt.\n", encoding="utf-8")
    run()
    assert len(openai_server.chat_requests) == 5
    run(epochs=2)
    assert len(openai_server.chat_requests) == 7  # epoch 0 cached, epoch 1 is new


def test_no_cache_sends_every_request_and_stores_nothing(tmp_path, monkeypatch, openai_server):
    root = make_project(tmp_path, 2)
    use(monkeypatch, root, openai_server.base_url)
    openai_server.responder = lambda body: GOOD
    run(no_cache=True)
    run(no_cache=True)
    assert len(openai_server.chat_requests) == 4
    assert not (root / ".evals-cache" / "cache.sqlite").exists()
    assert all(r["cached"] is False for r in rows(run_files(root)[1]))


def test_errors_are_never_cached(tmp_path, monkeypatch, openai_server):
    root = make_project(tmp_path, 1, max_retries=0)
    use(monkeypatch, root, openai_server.base_url)
    openai_server.enqueue(Fault.server_error())
    openai_server.responder = lambda body: GOOD
    assert run() == 3
    db = sqlite3.connect(root / ".evals-cache" / "cache.sqlite")
    assert db.execute("SELECT count(*) FROM answers").fetchone()[0] == 0
    assert run() == 0  # asked again, not replayed from a cached failure
    assert len(openai_server.chat_requests) == 2
    assert rows(run_files(root)[1])[0]["cached"] is False


def test_cache_key_covers_endpoint_model_messages_settings_and_epoch():
    base = {
        "endpoint": "http://a/v1",
        "model": "m@2024-01-01",
        "body": {"model": "m", "messages": [{"role": "user", "content": "q"}], "temperature": 0.0},
    }
    k = cache_key(base, 0)
    assert k == cache_key(dict(base), 0)
    assert k != cache_key(base, 1)
    assert k != cache_key({**base, "endpoint": "http://b/v1"}, 0)
    assert k != cache_key({**base, "model": "m@2024-02-01"}, 0)
    assert k != cache_key({**base, "body": {**base["body"], "temperature": 0.7}}, 0)
    msgs = [{"role": "user", "content": "q2"}]
    assert k != cache_key({**base, "body": {**base["body"], "messages": msgs}}, 0)


def test_cache_folder_ignores_itself_in_git(tmp_path, monkeypatch, openai_server):
    root = make_project(tmp_path, 1)
    use(monkeypatch, root, openai_server.base_url)
    openai_server.responder = lambda body: GOOD
    run()
    assert (root / ".evals-cache" / ".gitignore").read_text() == "*\n"


def test_a_corrupt_cache_file_warns_and_the_run_goes_on(
    tmp_path, monkeypatch, openai_server, capsys
):
    root = make_project(tmp_path, 1)
    use(monkeypatch, root, openai_server.base_url)
    (root / ".evals-cache").mkdir()
    (root / ".evals-cache" / "cache.sqlite").write_bytes(b"not a database at all" * 100)
    openai_server.responder = lambda body: GOOD
    assert run() == 0
    assert "answer cache off" in capsys.readouterr().err


def test_a_damaged_cache_entry_is_a_miss_not_an_error(tmp_path, monkeypatch, openai_server):
    root = make_project(tmp_path, 2)
    use(monkeypatch, root, openai_server.base_url)
    openai_server.responder = lambda body: GOOD
    assert run() == 0
    db = sqlite3.connect(root / ".evals-cache" / "cache.sqlite")
    with db:
        db.execute("UPDATE answers SET reply = 'not json {'")
    db.close()
    assert run() == 0  # asked again: a damaged entry never becomes an error row
    last = run_files(root)[-1]
    assert all(r["status"] == "pass" and not r["cached"] for r in rows(last))
    assert len(openai_server.chat_requests) == 4


def test_a_cache_that_cannot_be_written_costs_requests_not_answers(
    tmp_path, monkeypatch, openai_server, capsys
):
    root = make_project(tmp_path, 3)
    use(monkeypatch, root, openai_server.base_url)
    (root / ".evals-cache").mkdir()
    db = sqlite3.connect(root / ".evals-cache" / "cache.sqlite")
    # A view by the table's name: reads work, every write fails.
    db.execute("CREATE VIEW answers AS SELECT '' AS key, '' AS model, 0 AS created, '' AS reply")
    db.close()
    openai_server.responder = lambda body: GOOD
    assert run() == 0
    assert all(r["status"] == "pass" for r in rows(run_files(root)[0]))
    assert capsys.readouterr().err.count("answer cache not written") == 1


def _traced(monkeypatch) -> list[str]:
    """Every SQL statement run on the answer cache file from now on."""
    statements: list[str] = []
    connect = sqlite3.connect

    def traced_connect(path, *args, **kwargs):
        db = connect(path, *args, **kwargs)
        if str(path).endswith("cache.sqlite"):
            db.set_trace_callback(statements.append)
        return db

    monkeypatch.setattr(sqlite3, "connect", traced_connect)
    return statements


def test_a_cached_rerun_reads_every_answer_in_one_query(tmp_path, monkeypatch, openai_server):
    root = make_project(tmp_path, 12)
    use(monkeypatch, root, openai_server.base_url)
    openai_server.responder = lambda body: GOOD
    assert run() == 0
    statements = _traced(monkeypatch)
    assert run() == 0
    reads = [s for s in statements if s.lstrip().upper().startswith("SELECT")]
    # One query for all the answers, one for all their stored check results.
    assert [s.split()[4] for s in reads] == ["answers", "grades"], reads
    assert [r["cached"] for r in rows(run_files(root)[-1])] == [True] * 12
    assert len(openai_server.chat_requests) == 12


def test_a_read_ahead_cache_still_hits_a_key_twice_and_finds_a_pending_write(tmp_path):
    cache = AnswerCache(tmp_path / "c" / "cache.sqlite")
    reply = Reply(answer="45 EUR [doc:pricing#plans]", usage={"prompt_tokens": 3})
    cache.put("stored", "m@2024-01-01", reply)
    cache.flush()
    cache.prefetch(["stored", "new", "absent"])
    assert cache.get("stored").answer == reply.answer
    assert cache.get("stored").answer == reply.answer  # two cases with one request
    assert cache.get("new") is None
    cache.put("new", "m@2024-01-01", reply)  # written after the read-ahead, not yet flushed
    assert cache.get("new").cached is True
    assert cache.get("absent") is None
    assert cache.get("never-asked") is None
    assert cache.hits == 3
    cache.close()


def test_endpoints_that_differ_only_in_a_masked_credential_do_not_share_answers(
    tmp_path, monkeypatch, openai_server
):
    root = make_project(tmp_path, 1)
    openai_server.responder = lambda body: GOOD

    def with_token(token: str) -> str:
        return openai_server.base_url.replace("http://", f"http://svc:{token}@")

    use(monkeypatch, root, with_token("tenant-one-secret"))
    assert run() == 0
    use(monkeypatch, root, with_token("tenant-two-secret"))
    assert run() == 0
    assert len(openai_server.chat_requests) == 2  # the second endpoint was asked
    use(monkeypatch, root, with_token("tenant-one-secret"))
    assert run() == 0
    assert len(openai_server.chat_requests) == 2  # the first endpoint's answer is cached
    headers = [records(p)[0]["settings"]["provider"]["base_url"] for p in run_files(root)]
    assert set(headers) == {openai_server.base_url}  # stored masked, keyed apart


def test_a_cache_locked_by_another_process_is_left_after_one_short_wait(
    tmp_path, monkeypatch, openai_server, capsys
):
    from evals.run.cache import BUSY_TIMEOUT_S

    root = make_project(tmp_path, 3)
    use(monkeypatch, root, openai_server.base_url)
    openai_server.responder = lambda body: GOOD
    assert run() == 0  # the cache file exists, in WAL mode
    write_case(root, case(0, question="A reworded question about Pro seats?"))
    write_case(root, case(1, question="Another reworded question about Pro seats?"))
    holder = sqlite3.connect(root / ".evals-cache" / "cache.sqlite", isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")  # another process writing, as long as it likes
    try:
        capsys.readouterr()
        assert run() == 0
    finally:
        holder.rollback()
        holder.close()
    err = capsys.readouterr().err
    # Said once, with the wait; the answers are not lost, only not stored.
    assert err.count("is locked by another process") == 1, err
    assert f"after {BUSY_TIMEOUT_S:g} s; this run goes on without it" in err
    last = run_files(root)[-1]
    assert [r["cached"] for r in sorted(rows(last), key=lambda r: r["case"])] == [
        False,
        False,
        True,
    ]
    assert len(openai_server.chat_requests) == 5
    assert run() == 0  # unlocked: the two new answers were never stored, so asked again
    assert len(openai_server.chat_requests) == 7
