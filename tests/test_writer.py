"""Output that cannot be written (a full disk, a file size limit, a folder in the way).

Tests run as root here, where a read-only folder does not stop a write; the failures below
are real ones that stop root too: a file size limit (RLIMIT_FSIZE, the same EFBIG a full
quota gives), a regular file where a folder should be, a folder where a file should be.
"""

from __future__ import annotations

import os
import resource
import subprocess
from pathlib import Path

from casekit import INVOKE, ROOT
from runkit import make_project, records, rows, run_files, summary

OFFLINE = "local/extractive@2026-11-01"


def invoke(
    root: Path, *args: str, max_file_bytes: int | None = None
) -> subprocess.CompletedProcess:
    """A real `invoke` task; with `max_file_bytes`, no file it writes may grow past that."""

    def limit() -> None:
        if max_file_bytes is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (max_file_bytes, max_file_bytes))

    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}
    return subprocess.run(
        [INVOKE, "-r", str(ROOT), *args],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        preexec_fn=limit,
    )


def _line_sizes(root: Path) -> list[int]:
    """Byte sizes of the lines of a complete run of the project (then removed)."""
    r = invoke(root, "run", "--model", OFFLINE, "--concurrency", "1")
    assert r.returncode in (0, 1), r.stdout + r.stderr
    (path,) = run_files(root)
    sizes = [len(line) for line in path.read_bytes().splitlines(keepends=True)]
    path.unlink()
    return sizes


def test_a_run_file_that_cannot_grow_keeps_the_rows_written_and_resumes(tmp_path: Path) -> None:
    root = make_project(tmp_path, 6)
    sizes = _line_sizes(root)
    # Room for the header and two rows, and half of the third.
    cap = sizes[0] + sizes[1] + sizes[2] + sizes[3] // 2
    r = invoke(root, "run", "--model", OFFLINE, "--concurrency", "1", max_file_bytes=cap)
    out = r.stdout + r.stderr
    assert r.returncode == 3, out
    assert "Traceback" not in out
    (path,) = run_files(root)
    assert f"could not write {path}: File too large" in out
    assert f"invoke run --resume {path.name}" in out
    # Only whole lines are left: the header and the two rows that fitted.
    assert path.read_bytes().endswith(b"\n") and path.stat().st_size <= cap
    assert [r["kind"] for r in records(path)] == ["run", "case", "case"]
    r = invoke(root, "run", "--resume", path.name)
    assert r.returncode in (0, 1), r.stdout + r.stderr
    assert sorted(x["case"] for x in rows(path)) == [f"case-{i:03d}" for i in range(6)]
    assert summary(path)["completed"] is True


def test_a_run_that_cannot_create_its_file_runs_nothing_and_exits_2(tmp_path: Path) -> None:
    root = make_project(tmp_path, 2)
    config = root / "pyproject.toml"
    config.write_text(
        config.read_text("utf-8").replace('runs_dir = "runs"', 'runs_dir = "blocker/runs"'),
        encoding="utf-8",
    )
    (root / "blocker").write_text("a file where the runs folder should be\n", encoding="utf-8")
    r = invoke(root, "run", "--model", OFFLINE)
    assert r.returncode == 2, r.stdout + r.stderr
    assert "Traceback" not in r.stderr
    assert f"{root / 'blocker' / 'runs'}" in r.stderr and "nothing was run" in r.stderr
    assert "PASS" not in r.stdout and "FAIL" not in r.stdout


def test_a_resume_that_cannot_rewrite_its_file_changes_nothing_and_exits_2(tmp_path: Path) -> None:
    root = make_project(tmp_path, 4)
    sizes = _line_sizes(root)
    cap = sizes[0] + sizes[1] + sizes[2] // 2
    assert (
        invoke(root, "run", "--model", OFFLINE, "--concurrency", "1", max_file_bytes=cap).returncode
        == 3
    )
    (path,) = run_files(root)
    before = path.read_bytes()
    r = invoke(root, "run", "--resume", path.name, max_file_bytes=sizes[0] // 2)
    assert r.returncode == 2, r.stdout + r.stderr
    assert "Traceback" not in r.stderr and "File too large" in r.stderr
    assert path.read_bytes() == before
    assert sorted(p.name for p in (root / "runs").iterdir()) == [path.name]


def test_baseline_html_report_and_merge_say_what_they_could_not_write_and_exit_3(
    tmp_path: Path,
) -> None:
    root = make_project(tmp_path, 2)
    assert invoke(root, "run", "--model", OFFLINE).returncode in (0, 1)
    (path,) = run_files(root)
    (root / "runs" / "BASELINE").mkdir()  # a folder where the pointer file goes
    r = invoke(root, "baseline", path.name)
    assert r.returncode == 3, r.stdout + r.stderr
    assert "Traceback" not in r.stderr
    assert f"could not write {root / 'runs' / 'BASELINE'}: Is a directory" in r.stderr
    assert sorted(p.name for p in (root / "runs").iterdir()) == sorted(["BASELINE", path.name])
    (root / "report.html").mkdir()
    r = invoke(root, "report", path.name, "--html", "report.html")
    assert r.returncode == 3, r.stdout + r.stderr
    assert "Traceback" not in r.stderr and "could not write report.html" in r.stderr
    assert f"run {path.stem}" in r.stdout  # the terminal report was still printed
    assert not list(root.glob("report.html.tmp"))
    (root / "not-a-folder").write_text("x\n", encoding="utf-8")
    for shard in ("1/2", "2/2"):
        assert invoke(root, "run", "--model", OFFLINE, "--shard", shard).returncode in (0, 1)
    shards = [str(p) for p in run_files(root) if p != path]
    r = invoke(root, "merge", ",".join(shards), "--out", "not-a-folder/merged.jsonl")
    assert r.returncode == 3, r.stdout + r.stderr
    assert "Traceback" not in r.stderr and "could not write not-a-folder/merged.jsonl" in r.stderr
