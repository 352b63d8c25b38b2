"""A git repository with three committed baselines, for the history tests."""

from __future__ import annotations

import subprocess
from pathlib import Path

from diffkit import project, row, write_run

GIT_ENV = [
    "-c",
    "user.name=Release Bot",
    "-c",
    "user.email=bot@example.org",
    "-c",
    "commit.gpgsign=false",
]


def git(root: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *GIT_ENV, *args], cwd=root, check=True, capture_output=True, text=True, timeout=60
    ).stdout


def _rows(run_id: str, failing: set[int]) -> list[dict]:
    return [row(run_id, f"case-{i:03d}", "fail" if i in failing else "pass") for i in range(120)]


def commit(root: Path, message: str) -> None:
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", message)


def three_baselines(tmp_path: Path, top: Path | None = None) -> Path:
    """The project at `tmp_path` with three baselines set by commits among others; the
    repository is `top` (a folder above the project) when given."""
    tmp_path.mkdir(parents=True, exist_ok=True)
    project(tmp_path)
    git(top or tmp_path, "init", "-q")
    (tmp_path / "README.md").write_text("a suite\n", encoding="utf-8")
    commit(tmp_path, "start")
    runs = tmp_path / "runs"
    write_run(runs / "r1.jsonl", "r1", _rows("r1", set(range(0, 120, 10))), label="first")
    (runs / "BASELINE").write_text("r1.jsonl\n", encoding="utf-8")
    commit(tmp_path, "first release")
    (tmp_path / "README.md").write_text("a suite, edited\n", encoding="utf-8")
    commit(tmp_path, "unrelated edit")
    write_run(runs / "scratch.jsonl", "scratch", _rows("scratch", set()), label="scratch")
    commit(tmp_path, "a run that is no baseline")
    # The second release is much worse: 30 more cases fail.
    write_run(runs / "r2.jsonl", "r2", _rows("r2", set(range(0, 120, 10)) | set(range(1, 120, 4))))
    (runs / "BASELINE").write_text("r2.jsonl\n", encoding="utf-8")
    commit(tmp_path, "second release")
    # The third rewrites the baseline file in place (the pointer does not change).
    write_run(runs / "r2.jsonl", "r2", _rows("r2", set(range(0, 120, 10))))
    commit(tmp_path, "third release: the baseline re-run")
    return tmp_path
