"""The git stamp: a run is dirty when tracked files changed or the suite holds untracked files."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from casekit import GIT_ENV

from evals.run.stamps import git_state


def git(repo: Path, *args: str) -> None:
    env = {**os.environ, **GIT_ENV}
    subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True)


def committed_repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    (repo / "suite" / "cases").mkdir(parents=True)
    (repo / "suite" / "cases" / "a.json").write_text("{}\n", encoding="utf-8")
    (repo / "suite" / "prompt.txt").write_text("Be exact.\n", encoding="utf-8")
    git(repo, "init", "-q")
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "suite")
    return repo


def test_a_clean_tree_is_not_dirty(tmp_path: Path) -> None:
    repo = committed_repo(tmp_path)
    state = git_state(repo, repo / "suite")
    assert state["commit"] and state["dirty"] is False


def test_an_untracked_case_file_in_the_suite_makes_the_run_dirty(tmp_path: Path) -> None:
    repo = committed_repo(tmp_path)
    (repo / "suite" / "cases" / "new-case.json").write_text("{}\n", encoding="utf-8")
    assert git_state(repo, repo / "suite")["dirty"] is True


def test_untracked_files_outside_the_suite_do_not(tmp_path: Path) -> None:
    repo = committed_repo(tmp_path)
    (repo / "runs").mkdir()
    (repo / "runs" / "2026-01-01_run.jsonl").write_text("{}\n", encoding="utf-8")
    assert git_state(repo, repo / "suite")["dirty"] is False


def test_an_edited_tracked_file_anywhere_is_dirty(tmp_path: Path) -> None:
    repo = committed_repo(tmp_path)
    (repo / "suite" / "prompt.txt").write_text("Be vague.\n", encoding="utf-8")
    assert git_state(repo, repo / "suite")["dirty"] is True


def test_outside_git_the_state_is_unknown(tmp_path: Path) -> None:
    assert git_state(tmp_path, tmp_path) == {"commit": None, "dirty": None}


def test_a_run_with_a_new_untracked_case_is_stamped_dirty(tmp_path: Path, monkeypatch) -> None:
    from runkit import case, make_project, records, run, run_files, use, write_case

    root = make_project(tmp_path, 2)
    git(root, "init", "-q")
    git(root, "add", ".")
    git(root, "commit", "-qm", "suite")
    write_case(root, case(7))  # a new case file, not yet added to git
    use(monkeypatch, root, None)
    run(models=["local/extractive@2026-11-01"])
    header = records(run_files(root)[0])[0]
    assert header["git"]["dirty"] is True
