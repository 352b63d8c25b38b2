"""Output files (`diff --out`, `export --out`) are written whole or not at all: a full disk,
a read-only place or a folder in the way is one line and exit 3, and leaves no 0-byte file
and no `.tmp` behind."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from casekit import good_case, invoke, make_project
from limitkit import invoke_with_file_limit


def leftovers(folder: Path) -> list[str]:
    return sorted(
        p.name for p in folder.iterdir() if p.name.endswith(".tmp") or p.stat().st_size == 0
    )


def one_line_exit_3(proc: subprocess.CompletedProcess[str], path: Path, code: int = 3) -> None:
    assert proc.returncode == code, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"could not write {path}"), proc.stderr


@pytest.fixture(scope="module")
def two_runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("outputs")
    make_project(root, [good_case("price-pro"), good_case("price-again")])
    for _ in range(2):
        assert invoke(root, "run").returncode in (0, 1), "the offline run failed"
    return root


def test_diff_out_on_a_full_disk_is_exit_4_and_leaves_no_file(two_runs: Path) -> None:
    # Not 3: for `diff` that means the gate could not decide this pair.
    runs = sorted((two_runs / "runs").glob("*.jsonl"))
    out = two_runs / "diff.md"
    proc = invoke_with_file_limit(
        two_runs, "diff", "--a", str(runs[0]), "--b", str(runs[1]), "--out", str(out), limit=64
    )
    one_line_exit_3(proc, out, 4)
    assert not out.exists() and leftovers(two_runs) == []


def test_diff_out_to_a_folder_or_an_unwritable_place_is_exit_4(two_runs: Path) -> None:
    runs = sorted((two_runs / "runs").glob("*.jsonl"))
    folder = two_runs / "a-folder"
    folder.mkdir()
    for out in (folder, Path("/proc/diff.md")):  # /proc takes no new files, even from root
        proc = invoke(two_runs, "diff", "--a", str(runs[0]), "--b", str(runs[1]), "--out", str(out))
        one_line_exit_3(proc, out, 4)
    assert folder.is_dir() and list(folder.iterdir()) == [] and leftovers(two_runs) == []


def test_export_out_on_a_full_disk_or_to_a_folder_is_exit_3_and_leaves_no_tmp(
    tmp_path: Path,
) -> None:
    make_project(tmp_path, [good_case("price-pro"), good_case("price-again")])
    out = tmp_path / "suite.jsonl"
    one_line_exit_3(invoke_with_file_limit(tmp_path, "export", "--out", str(out), limit=64), out)
    assert not out.exists() and leftovers(tmp_path) == []
    folder = tmp_path / "a-folder"
    folder.mkdir()
    for args in ((), ("--force",)):
        one_line_exit_3(invoke(tmp_path, "export", "--out", str(folder), *args), folder)
    one_line_exit_3(
        invoke(tmp_path, "export", "--out", "/proc/suite.jsonl"), Path("/proc/suite.jsonl")
    )
    assert leftovers(tmp_path) == []
