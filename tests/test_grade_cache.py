"""Stored check results: a cached re-run reuses them only while every input is unchanged."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from runkit import GOOD, case, make_project, rows, run, run_files, use, write_case

from evals.checks import CheckResult
from evals.run.grade_cache import decode, encode

# A suite check that leaves a line in calls.log each time it runs: how a test sees grading.
COUNTED = """
from pathlib import Path

from evals.checks import check, passed

@check()
def counted(inp):
    with open(Path(__file__).with_name("calls.log"), "a", encoding="utf-8") as f:
        f.write(inp.case.id + "\\n")
    return passed("counted {VERSION}")
"""


def counted_project(tmp_path: Path, n: int = 3) -> Path:
    root = make_project(tmp_path, 0)
    for i in range(n):
        data = case(i, checks=["mentions_expected", "facts_present", "counted"])
        data["expect"]["facts"] = ["45 EUR per month"]
        write_case(root, data)
    write_checks(root, "v1")
    return root


def write_checks(root: Path, version: str) -> None:
    (root / "suite" / "checks.py").write_text(COUNTED.replace("{VERSION}", version), "utf-8")


def graded(root: Path) -> list[str]:
    """The case ids graded since the last call (the check's log, then emptied)."""
    log = root / "suite" / "calls.log"
    if not log.exists():
        return []
    ids = sorted(log.read_text("utf-8").split())
    log.unlink()
    return ids


def checks_of(path: Path) -> dict[str, dict]:
    return {r["case"]: r["checks"] for r in rows(path)}


def test_a_cached_rerun_reuses_every_check_result_exactly(tmp_path, monkeypatch, openai_server):
    root = counted_project(tmp_path)
    use(monkeypatch, root, openai_server.base_url)
    openai_server.responder = lambda body: GOOD
    assert run() == 0
    assert graded(root) == ["case-000", "case-001", "case-002"]
    assert run() == 0
    assert graded(root) == []  # nothing graded again
    first, second = run_files(root)
    assert checks_of(second) == checks_of(first)
    assert [r["cached"] for r in rows(second)] == [True] * 3
    assert len(openai_server.chat_requests) == 3


def test_editing_a_case_regrades_that_case_only(tmp_path, monkeypatch, openai_server):
    root = counted_project(tmp_path)
    use(monkeypatch, root, openai_server.base_url)
    openai_server.responder = lambda body: GOOD
    assert run() == 0
    graded(root)
    # The expectation is not part of the request: the answer comes from the cache, but the
    # stored verdict no longer applies to the case.
    data = case(1, checks=["mentions_expected", "facts_present", "counted"])
    data["expect"]["facts"] = ["39 EUR per month"]
    write_case(root, data)
    assert run() == 1
    assert graded(root) == ["case-001"]
    last = {r["case"]: r for r in rows(run_files(root)[-1])}
    assert last["case-001"]["cached"] is True
    assert last["case-001"]["checks"]["facts_present"]["status"] != "pass"
    assert last["case-000"]["checks"]["facts_present"]["status"] == "pass"


def test_editing_synonyms_settings_or_a_check_regrades(tmp_path, monkeypatch, openai_server):
    root = counted_project(tmp_path, 2)
    use(monkeypatch, root, openai_server.base_url)
    openai_server.responder = lambda body: GOOD
    every = ["case-000", "case-001"]
    assert run() == 0
    assert graded(root) == every
    (root / "suite" / "synonyms.toml").write_text('groups = [["seat", "licence"]]\n', "utf-8")
    assert run() == 0
    assert graded(root) == every
    assert run() == 0
    assert graded(root) == []
    (root / "suite" / "suite.toml").write_text("figure_window = 120\n", "utf-8")
    assert run() == 0
    assert graded(root) == every
    write_checks(root, "v2")
    assert run() == 0
    assert graded(root) == every
    assert {r["checks"]["counted"]["detail"] for r in rows(run_files(root)[-1])} == {"counted v2"}
    assert len(openai_server.chat_requests) == 2  # every answer came from the cache


def test_a_check_that_errored_is_asked_again(tmp_path, monkeypatch, openai_server):
    root = counted_project(tmp_path, 1)
    flaky = (
        "\nimport os\n\n@check()\ndef flaky(inp):\n"
        "    if not os.path.exists(Path(__file__).with_name('ready')):\n"
        "        raise RuntimeError('lexicon not loaded')\n"
        "    return passed('ready')\n"
    )
    (root / "suite" / "checks.py").write_text(COUNTED.replace("{VERSION}", "v1") + flaky, "utf-8")
    write_case(root, case(0, checks=["mentions_expected", "counted", "flaky"]))
    use(monkeypatch, root, openai_server.base_url)
    openai_server.responder = lambda body: GOOD
    assert run() == 3
    (root / "suite" / "ready").write_text("", "utf-8")
    assert run() == 0  # not the stored error: the checks ran again
    assert graded(root) == ["case-000", "case-000"]


def test_a_damaged_stored_result_is_graded_again(tmp_path, monkeypatch, openai_server):
    root = counted_project(tmp_path, 2)
    use(monkeypatch, root, openai_server.base_url)
    openai_server.responder = lambda body: GOOD
    assert run() == 0
    graded(root)
    db = sqlite3.connect(root / ".evals-cache" / "cache.sqlite")
    with db:
        db.execute('UPDATE grades SET results = \'[["counted", "pass", 7, "x"]]\'')
    db.close()
    assert run() == 0
    assert graded(root) == ["case-000", "case-001"]
    assert checks_of(run_files(root)[-1]) == checks_of(run_files(root)[0])


def test_no_cache_stores_and_reuses_no_check_results(tmp_path, monkeypatch, openai_server):
    root = counted_project(tmp_path, 1)
    use(monkeypatch, root, openai_server.base_url)
    openai_server.responder = lambda body: GOOD
    assert run(no_cache=True) == 0
    assert run(no_cache=True) == 0
    assert graded(root) == ["case-000", "case-000"]


def test_stored_results_round_trip_status_score_and_detail_in_order():
    results = {
        "b": CheckResult("pass", 0.6666666666666666, "2 of 3 «found»"),
        "a": CheckResult("review", None, 'undecided: "30 days"'),
        "c": CheckResult("fail", 0, "none"),
        "d": CheckResult("skip", None, ""),
    }
    back = decode(encode(results))
    assert back == results and list(back) == ["b", "a", "c", "d"]
    assert decode("not json") is None
    assert decode('[["x", "error", null, "boom"]]') is None  # an error is never replayed


def test_the_code_digest_covers_the_checks_their_language_data_and_what_they_import():
    from evals.run.grade_cache import _harness_files

    names = {p.name for p in _harness_files()}
    assert {"language.py", "matching.py", "figures.py", "cldr.json", "case.py", "reply.py"} <= names
    assert {"it.toml", "nl.toml"} <= names  # the language files


def test_one_reply_object_prefetched_for_two_cases_is_keyed_per_case(tmp_path) -> None:
    import json as _json

    from evals.reply import Reply
    from evals.run.cache import open_cache_db
    from evals.run.grade_cache import GradeCache
    from evals.suite.case import Case
    from evals.suite.folder import SuiteSettings

    a, b = case(0), case(1)
    b["expect"] = {"facts": ["no such fact anywhere"]}
    cases = [Case(_json.loads(_json.dumps(d)), tmp_path / f"{d['id']}.json") for d in (a, b)]
    shared = Reply(GOOD)  # what the answer cache hands out for two identical requests
    db = open_cache_db(tmp_path / "c.sqlite")
    before = GradeCache(db, SuiteSettings())
    expected = [before.grade(c, shared, SuiteSettings()) for c in cases]
    before.flush()
    assert expected[0] != expected[1] and expected[1]["facts_present"].status == "fail"
    # A re-run: both stored, both prefetched for the same reply object.
    store = GradeCache(db, SuiteSettings())
    store.prefetch([(c, shared) for c in cases])
    assert [store.grade(c, shared, SuiteSettings()) for c in cases] == expected


# A suite check that reads a word list and a helper module of its own folder.
WITH_FILES = """
import importlib.util
from pathlib import Path

from evals.checks import check, passed

HERE = Path(__file__).parent
_spec = importlib.util.spec_from_file_location("suite_helper", HERE / "helper.py")
helper = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(helper)

@check()
def counted(inp):
    with open(HERE / "calls.log", "a", encoding="utf-8") as f:
        f.write(inp.case.id + "\\n")
    words = (HERE / "data" / "words.txt").read_text("utf-8").split()
    return passed(f"counted {helper.VERSION} {len(words)} words")
"""


def test_editing_a_module_or_a_data_file_of_the_suite_regrades(
    tmp_path, monkeypatch, openai_server
):
    root = counted_project(tmp_path, 2)
    suite = root / "suite"
    (suite / "checks.py").write_text(WITH_FILES, "utf-8")
    (suite / "helper.py").write_text('VERSION = "h1"\n', "utf-8")
    (suite / "data").mkdir()
    (suite / "data" / "words.txt").write_text("seat licence\n", "utf-8")
    use(monkeypatch, root, openai_server.base_url)
    openai_server.responder = lambda body: GOOD
    every = ["case-000", "case-001"]
    assert run() == 0
    assert graded(root) == every
    assert run() == 0
    assert graded(root) == []  # nothing changed: every result reused
    (suite / "helper.py").write_text('VERSION = "h2"\n', "utf-8")
    assert run() == 0
    assert graded(root) == every
    (suite / "data" / "words.txt").write_text("seat licence user\n", "utf-8")
    assert run() == 0
    assert graded(root) == every
    assert {r["checks"]["counted"]["detail"] for r in rows(run_files(root)[-1])} == {
        "counted h2 3 words"
    }
    assert run() == 0
    assert graded(root) == []


def test_a_check_registered_through_functools_partial_is_keyed_on_its_arguments() -> None:
    import functools

    from evals.checks import CheckInput, check, passed
    from evals.checks.base import REGISTRY
    from evals.run.grade_cache import code_digest

    def at_most(inp: CheckInput, n: int) -> CheckResult:
        return passed(f"at most {n}")

    try:
        check("partial_limit")(functools.partial(at_most, n=3))
        three = code_digest()
        assert code_digest() == three
        check("partial_limit")(functools.partial(at_most, n=4))
        assert code_digest() != three
        check("partial_limit")(functools.partial(functools.partial(at_most), n=3))
        assert code_digest() == three  # a partial of a partial: the same function and n
    finally:
        REGISTRY.pop("partial_limit", None)


def test_a_suite_with_its_own_checks_regrades_on_metadata_they_may_read(
    tmp_path, monkeypatch, openai_server
):
    import json as _json

    root = counted_project(tmp_path, 2)
    use(monkeypatch, root, openai_server.base_url)
    openai_server.responder = lambda body: GOOD
    assert run() == 0
    assert graded(root) == ["case-000", "case-001"]
    path = root / "suite" / "cases" / "case-001.json"
    data = _json.loads(path.read_text("utf-8"))
    write_case(root, {**data, "tags": ["vip"]})  # no built-in check reads tags; checks.py may
    assert run() == 0
    assert graded(root) == ["case-001"]
    # The content sha is the same (tags are not graded): only the suite's checks see the edit.
    first, last = ({r["case"]: r["case_sha"] for r in rows(p)} for p in run_files(root))
    assert first == last
