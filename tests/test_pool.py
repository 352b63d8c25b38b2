"""Grading on several processes gives exactly one process's results, row by row."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from casekit import invoke

from evals.calibrate.checks import grade_answers
from evals.calibrate.grading import labelled_answers
from evals.errors import InputError
from evals.run.pool import check_workers, default_workers
from evals.suite.folder import open_suite

ROOT = Path(__file__).resolve().parent.parent
SUITE_DATA = ("cases", "labelled", "prompt.txt", "suite.toml", "synonyms.toml")


def test_two_workers_grade_every_labelled_answer_as_one_does() -> None:
    suite = open_suite(ROOT / "evals")
    cases, items = labelled_answers(suite, [])
    by_id = {c.id: c for c in cases}
    one = grade_answers(items, by_id, suite.settings, workers=1)
    two = grade_answers(items, by_id, suite.settings, workers=2)
    assert len(one) == len(two) == len(items) > 500
    for a, b in zip(one, two, strict=True):
        assert a.item == b.item
        assert list(a.results.items()) == list(b.results.items())


def example_project(tmp: Path) -> Path:
    shutil.copy(ROOT / "pyproject.toml", tmp / "pyproject.toml")
    for name in SUITE_DATA:
        src = ROOT / "evals" / name
        if src.is_dir():
            shutil.copytree(src, tmp / "evals" / name)
        elif src.is_file():
            (tmp / "evals").mkdir(exist_ok=True)
            shutil.copy(src, tmp / "evals" / name)
    return tmp


def rows_by_case(path: Path) -> list[dict[str, Any]]:
    """The run's rows in case order, without what differs between any two runs."""
    rows = [json.loads(x) for x in path.read_text("utf-8").splitlines()]
    rows = [r for r in rows if r["kind"] == "case"]
    for r in rows:
        r.pop("run_id")
        r.pop("latency_ms", None)
    return sorted(rows, key=lambda r: (r["case"], r["epoch"]))


@pytest.mark.slow
def test_a_run_graded_on_two_workers_writes_the_rows_of_one(tmp_path: Path) -> None:
    root = example_project(tmp_path)
    files = {}
    for w in ("1", "2"):
        # Two epochs of the example suite: 70 answers, enough for the run to start workers.
        done = invoke(root, "run", "--epochs", "2", "--workers", w, "--label", f"w{w}")
        assert done.returncode in (0, 1, 3), done.stderr
        (files[w],) = (root / "runs").glob(f"*_w{w}.jsonl")
    one, two = rows_by_case(files["1"]), rows_by_case(files["2"])
    assert len(one) == 70
    for a, b in zip(one, two, strict=True):
        assert a == b
    # Written whole: a header, every row, the summary last, with the same counts.
    lines = [json.loads(x) for x in files["2"].read_text("utf-8").splitlines()]
    assert lines[0]["kind"] == "run" and lines[-1]["kind"] == "summary"
    assert (
        lines[-1]["counts"] == json.loads(files["1"].read_text("utf-8").splitlines()[-1])["counts"]
    )


def test_workers_must_be_a_whole_number_from_one() -> None:
    assert check_workers(None) == default_workers() >= 1
    assert check_workers("3") == 3
    for bad in ("0", "-1", "two", "1.5"):
        with pytest.raises(InputError, match="--workers"):
            check_workers(bad)


def test_mutating_on_two_workers_gives_one_workers_report() -> None:
    from evals.checks.loading import load_cases
    from evals.mutate.engine import mutate_suite

    suite = open_suite(ROOT / "evals")
    cases = load_cases(suite)[0][:12]
    one = mutate_suite(suite, cases, workers=1)
    two = mutate_suite(suite, cases, workers=2)
    assert len(one.cases) == len(two.cases) == 12
    n = 0
    for a, b in zip(one.cases, two.cases, strict=True):
        assert a == b  # every good answer, variant, draft and each check's result
        n += len(a.variants)
    assert n > 50


def test_a_batch_is_cut_into_shrinking_chunks_that_cover_it() -> None:
    from evals.run.pool import CHUNK, chunk_sizes

    sizes = chunk_sizes(861, 2)
    assert sum(sizes) == 861
    assert sizes == sorted(sizes, reverse=True)  # large first, so the workers end together
    assert sizes[0] > 4 * CHUNK and all(s >= CHUNK for s in sizes[:-1])
    assert chunk_sizes(5, 4) == [5]
    assert chunk_sizes(0, 2) == []


def _answers(n: int) -> list[tuple[Any, Any]]:
    suite = open_suite(ROOT / "evals")
    cases, items = labelled_answers(suite, [])
    by_id = {c.id: c for c in cases}
    return [(by_id[i.case], i.reply()) for i in items[:n]], suite.settings


def test_answers_graded_in_a_running_event_loop_come_back_to_their_own_caller() -> None:
    import asyncio

    from evals.checks.grading import grade
    from evals.run.pool import GradePool

    jobs, settings = _answers(60)
    want = [grade(c, r, settings) for c, r in jobs]

    async def main() -> list[Any]:
        with GradePool(2, settings, jobs[0], warm_in_workers=True) as pool:
            # Some at once (one turn of the loop), some one by one while the workers are busy.
            first = await asyncio.gather(*(pool.grade(c, r) for c, r in jobs[:40]))
            rest = [await pool.grade(c, r) for c, r in jobs[40:]]
            return [*first, *rest]

    got = asyncio.run(main())
    assert [list(g.items()) for g in got] == [list(w.items()) for w in want]


def test_a_worker_that_dies_fails_the_batch_instead_of_hanging() -> None:
    import os
    import signal

    from evals.run.pool import GradePool, WorkerStopped

    jobs, settings = _answers(40)
    pool = GradePool(2, settings)
    try:
        os.kill(pool._pool[0].process.pid, signal.SIGKILL)
        pool._pool[0].process.join()
        with pytest.raises(WorkerStopped, match="stopped"):
            pool.grade_all(jobs)
        with pytest.raises(WorkerStopped):  # and every later call: the pool is broken
            pool.grade_all(jobs)
    finally:
        pool.close()


def test_a_worker_that_dies_fails_the_answers_a_run_awaits() -> None:
    import asyncio
    import os
    import signal

    from evals.run.pool import GradePool, WorkerStopped

    jobs, settings = _answers(20)

    async def main() -> list[Any]:
        with GradePool(2, settings) as pool:
            for w in pool._pool:
                os.kill(w.process.pid, signal.SIGKILL)
                w.process.join()
            return await asyncio.gather(
                *(pool.grade(c, r) for c, r in jobs), return_exceptions=True
            )

    got = asyncio.run(asyncio.wait_for(main(), timeout=60))
    assert len(got) == 20 and all(isinstance(g, WorkerStopped) for g in got)
