"""`invoke baseline RUN`: the committed pointer that `invoke diff` compares against by default."""

from __future__ import annotations

from pathlib import Path

import pytest
from casekit import invoke
from diffkit import project, row, write_run

OLD = "2026-11-01T10-00-00-000000Z_aaaaaaa"
NEW = "2026-11-02T10-00-00-000000Z_bbbbbbb"


@pytest.fixture
def proj(tmp_path: Path) -> Path:
    project(tmp_path)
    write_run(
        tmp_path / "runs" / f"{OLD}.jsonl", OLD, [row(OLD, f"c{i}", "pass") for i in range(5)]
    )
    rows = [row(NEW, f"c{i}", "fail" if i == 0 else "pass") for i in range(5)]
    write_run(tmp_path / "runs" / f"{NEW}.jsonl", NEW, rows, created="2026-11-02T10:00:00Z")
    return tmp_path


def test_baseline_writes_the_run_file_name_to_the_pointer(proj: Path) -> None:
    res = invoke(proj, "baseline", f"runs/{OLD}.jsonl")
    assert res.returncode == 0, res.stderr
    assert (proj / "runs" / "BASELINE").read_text("utf-8") == f"{OLD}.jsonl\n"
    # A run id works too, and a new baseline replaces the old pointer.
    assert invoke(proj, "baseline", NEW).returncode == 0
    assert (proj / "runs" / "BASELINE").read_text("utf-8") == f"{NEW}.jsonl\n"


def test_diff_without_arguments_compares_latest_against_the_baseline(proj: Path) -> None:
    assert invoke(proj, "baseline", OLD).returncode == 0
    res = invoke(proj, "diff")
    # c0 broke between the baseline and the newest run: one flip of five cases cannot be
    # significant, so the default gate says it cannot tell (3); the strict gate fails (1).
    assert res.returncode == 3, res.stderr
    assert invoke(proj, "diff", "--fail-on", "strict").returncode == 1
    assert f"`{OLD}` → `{NEW}`" in res.stdout
    assert "| `c0`" in res.stdout and "broken" in res.stdout


def test_diff_without_a_baseline_exits_2_and_says_how_to_set_one(proj: Path) -> None:
    res = invoke(proj, "diff")
    assert res.returncode == 2
    assert "invoke baseline" in res.stderr and "Traceback" not in res.stderr


def test_baseline_refuses_a_missing_file(proj: Path) -> None:
    res = invoke(proj, "baseline", "runs/nope.jsonl")
    assert res.returncode == 2
    assert "nope.jsonl" in res.stderr
    assert not (proj / "runs" / "BASELINE").exists()


def test_baseline_refuses_a_file_that_is_not_a_run_file(proj: Path) -> None:
    junk = proj / "runs" / "notes.jsonl"
    junk.write_text('{"kind": "case", "case": "x"}\n', encoding="utf-8")
    res = invoke(proj, "baseline", str(junk))
    assert res.returncode == 2
    assert "notes.jsonl" in res.stderr and "no run header" in res.stderr
    broken = proj / "runs" / "broken.jsonl"
    broken.write_text("not json at all\n", encoding="utf-8")
    res = invoke(proj, "baseline", str(broken))
    assert res.returncode == 2 and "not a run file" in res.stderr
    assert not (proj / "runs" / "BASELINE").exists()


def test_baseline_refuses_a_run_file_outside_runs(proj: Path) -> None:
    outside = write_run(proj / "elsewhere" / f"{OLD}.jsonl", OLD, [row(OLD, "c0", "pass")])
    res = invoke(proj, "baseline", str(outside))
    assert res.returncode == 2
    assert "must be a run file in" in res.stderr
    assert not (proj / "runs" / "BASELINE").exists()


def test_baseline_refuses_a_run_with_errors_or_that_stopped_early_unless_forced(
    proj: Path,
) -> None:
    errored = "2026-11-03T10-00-00-000000Z_ccccccc"
    rows = [row(errored, "c0", "error", error="provider error"), row(errored, "c1", "pass")]
    write_run(proj / "runs" / f"{errored}.jsonl", errored, rows)
    cut = "2026-11-04T10-00-00-000000Z_ddddddd"
    write_run(proj / "runs" / f"{cut}.jsonl", cut, [row(cut, "c0", "pass")], complete=False)
    for run_id, why in ((errored, "1 of its 2 row(s) errored"), (cut, "it stopped early")):
        res = invoke(proj, "baseline", run_id)
        assert res.returncode == 2, res.stderr
        assert why in res.stderr and "--force" in res.stderr, res.stderr
        assert not (proj / "runs" / "BASELINE").exists()
    res = invoke(proj, "baseline", errored, "--force")
    assert res.returncode == 0, res.stderr
    assert "although 1 of its 2 row(s) errored (--force)" in res.stderr
    assert (proj / "runs" / "BASELINE").read_text("utf-8") == f"{errored}.jsonl\n"
