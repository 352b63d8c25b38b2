"""The streamed diff (what `invoke diff` runs) against the in-memory pairing it replaced.

Every scenario writes two real run files (the committed example-suite run and variants of
it, or generated runs) and renders both comparisons in every format, with and without
`--all`, under every gate mode: the text must be the same to the byte, and so the verdict.
"""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path
from typing import Any

import pytest
from casekit import ROOT
from diffkit import row, sha, write_run

from evals.compare.command import build_report
from evals.compare.gate import MODES
from evals.compare.pairing import compare_runs
from evals.compare.render import RENDERERS
from evals.compare.streamed import stream_compare
from evals.errors import InputError
from evals.run.files import read_run

Rows = list[dict[str, Any]]
BASELINE = next((ROOT / "runs").glob("*.jsonl"))


def _records(path: Path) -> tuple[dict[str, Any], Rows, list[dict[str, Any]]]:
    recs = [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]
    rows = [r for r in recs if r["kind"] == "case"]
    return recs[0], rows, [r for r in recs if r["kind"] == "summary"]


def _write(path: Path, header: dict[str, Any], rows: Rows, tail: list[dict[str, Any]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [json.dumps(r) for r in (header, *rows, *tail)]
    path.write_text("\n".join(lines) + "\n", "utf-8")
    return path


def _fail(r: dict[str, Any], check: str) -> None:
    r["status"], r["score"] = "fail", 0.5
    r["failed_checks"] = [check]
    r["checks"][check] = {"status": "fail", "score": 0.0, "detail": "changed"}


def _mixed_b(tmp: Path) -> Path:
    """The example run again with what a real B has: breaks and fixes, errors, a review row,
    cases dropped and added, a changed case file, a repeated row, rows out of order."""
    header, rows, tail = _records(BASELINE)
    header = {**header, "run_id": "b-mixed"}
    rows = [{**copy.deepcopy(r), "run_id": "b-mixed"} for r in rows]
    by_status = {s: [r for r in rows if r["status"] == s] for s in ("pass", "fail", "review")}
    _fail(by_status["pass"][0], next(iter(by_status["pass"][0]["checks"])))
    _fail(by_status["pass"][1], next(iter(by_status["pass"][1]["checks"])))
    fixed = by_status["fail"][0]
    fixed["status"], fixed["score"], fixed["failed_checks"] = "pass", 1.0, []
    for r in by_status["fail"][1:3]:
        r["status"], r["score"], r["error"] = "error", None, "timeout after 60 s"
    by_status["fail"][3].update(status="review", score=None)
    by_status["review"][0].update(status="pass", score=1.0, failed_checks=[], error=None)
    by_status["fail"][4]["case_sha"] = sha("edited")
    by_status["fail"][5]["cluster"] = None  # a key-less case sharing documents
    by_status["fail"][6]["cluster"] = None
    repeated = {**copy.deepcopy(by_status["fail"][7]), "status": "pass", "score": 1.0}
    dropped = {by_status["fail"][8]["case"], by_status["fail"][9]["case"]}
    rows = [r for r in rows if r["case"] not in dropped] + [repeated]
    for i in range(2):
        extra = copy.deepcopy(rows[0])
        extra.update(case=f"zz-added-{i}", case_sha=sha(f"added{i}"), question="New?")
        rows.append(extra)
    random.Random(3).shuffle(rows)
    return _write(tmp / "runs" / "b-mixed.jsonl", header, rows, tail)


def _epoch_runs(tmp: Path, seed: int, b_errors: float) -> tuple[Path, Path]:
    """Two generated runs of 3 epochs a case: flaky cases, clusters, errors, review rows."""
    rng = random.Random(seed)
    paths = []
    for run_id, err in (("A", 0.02), ("B", b_errors)):
        rows = []
        for i in range(90):
            p = 0.5 if i % 4 == 0 else 0.9 if i % 4 == 1 else 0.1
            for epoch in range(3):
                x = rng.random()
                status = "error" if x < err else "review" if x < err + 0.02 else None
                status = status or ("pass" if rng.random() < p else "fail")
                r = row(run_id, f"c{i:03d}", status, epoch=epoch, cluster=f"doc{i // 6}")
                if status == "error":
                    r["error"] = "provider error"
                if status == "review":
                    r.update(score=None, failed_checks=[], error="facts_present could not decide")
                if i % 5 == 0:
                    r["category"] = "refunds"
                rows.append(r)
        if run_id == "B":
            rows = rows[: len(rows) - 6]  # a killed run: the last cases missing from B
        paths.append(write_run(tmp / "runs" / f"{run_id}-{seed}.jsonl", run_id, rows))
    return paths[0], paths[1]


def _same(pa: Path, pb: Path, modes: tuple[str, ...] = MODES) -> None:
    old_a, old_b = read_run(pa, slim=True), read_run(pb, slim=True)
    for mode in modes:
        old = compare_runs(old_a, old_b, fail_on=mode)
        for keep_all in (False, True):
            new = stream_compare(pa, pb, fail_on=mode, keep_all=keep_all)
            assert new.decision == old.decision
            assert new.stats == old.stats and new.epochs == old.epochs
            assert new.checks == old.checks and new.categories == old.categories
            assert new.clusters == old.clusters and (new.a, new.b) == (old.a, old.b)
            for fmt, render in RENDERERS.items():
                if fmt == "json" and not keep_all:
                    continue  # JSON lists every case: it always keeps them all
                for show_all in (False, True) if keep_all else (False,):
                    assert render(new, show_all=show_all) == render(old, show_all=show_all), (
                        mode,
                        fmt,
                        show_all,
                    )


def test_a_mixed_b_of_the_example_run_renders_as_the_in_memory_pairing_did(tmp_path):
    pb = _mixed_b(tmp_path)
    _same(BASELINE, pb)
    _same(pb, BASELINE, ("significant",))


def test_a_run_against_itself_renders_as_the_in_memory_pairing_did():
    _same(BASELINE, BASELINE, ("significant", "strict"))


@pytest.mark.parametrize(("seed", "b_errors"), [(1, 0.02), (2, 0.15), (5, 0.0)])
def test_epochs_flaky_cases_errors_and_missing_rows_render_alike(tmp_path, seed, b_errors):
    pa, pb = _epoch_runs(tmp_path, seed, b_errors)
    _same(pa, pb)


def test_b_erroring_more_reads_the_errored_attempts_at_their_worst_alike(tmp_path):
    rows_a = [row("A", f"c{i:03d}", "pass" if i % 3 else "fail") for i in range(40)]
    rows_b = [
        row(
            "B",
            f"c{i:03d}",
            "error" if i in (1, 2, 4, 5) else "pass" if i % 3 else "fail",
            error="timeout",
        )
        for i in range(40)
    ]
    pa = write_run(tmp_path / "a.jsonl", "A", rows_a)
    pb = write_run(tmp_path / "b.jsonl", "B", rows_b)
    old = compare_runs(read_run(pa), read_run(pb))
    assert old.decision.errors is not None and old.decision.errors.worse
    assert old.clusters.n_sharing == 36  # key-less cases retrieving one document
    _same(pa, pb)


def test_build_report_gives_the_in_memory_text_and_verdict(tmp_path):
    pb = _mixed_b(tmp_path)
    for fmt in RENDERERS:
        cmp, text = build_report(BASELINE, pb, fmt)
        old = compare_runs(read_run(BASELINE), read_run(pb))
        assert text == RENDERERS[fmt](old, show_all=fmt == "json")
        assert cmp.decision.verdict == old.decision.verdict


def test_the_streamed_diff_keeps_only_the_cases_a_report_lists(tmp_path):
    pb = _mixed_b(tmp_path)
    cmp = stream_compare(BASELINE, pb)
    assert cmp.cases and all(c.change != "same" or c.flaky for c in cmp.cases)
    assert cmp.steady_same() > 0
    assert len(stream_compare(BASELINE, pb, keep_all=True).cases) == cmp.stats.n_paired


def test_bad_rows_and_unrelated_runs_are_refused_with_the_same_message(tmp_path):
    header, rows, tail = _records(BASELINE)
    bad = copy.deepcopy(rows)
    bad[2]["score"] = 1.5
    bad[5]["status"] = "review"
    del bad[5]["checks"]
    pb = _write(tmp_path / "bad.jsonl", header, bad, tail)
    other = [{**r, "case": f"other-{i}"} for i, r in enumerate(rows)]
    po = _write(tmp_path / "other.jsonl", header, other, tail)
    for b in (pb, po):
        with pytest.raises(InputError) as old:
            compare_runs(read_run(BASELINE), read_run(b))
        with pytest.raises(InputError) as new:
            stream_compare(BASELINE, b)
        assert str(new.value) == str(old.value)


def test_no_temporary_file_is_left_behind(tmp_path, monkeypatch):
    monkeypatch.setenv("TMPDIR", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", None)
    stream_compare(BASELINE, _mixed_b(tmp_path))
    assert list((tmp_path / "tmp").iterdir()) == []
