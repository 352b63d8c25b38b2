"""The pre-commit hook: `invoke install-hooks` and `.pre-commit-config.yaml`."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import yaml
from casekit import GIT_ENV, INVOKE, ROOT, good_case, invoke, make_project

from evals.review.hooks import MARKER


def git(repo: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", *args],
        cwd=repo,
        capture_output=True,
        text=True,
        env={**os.environ, **GIT_ENV},
        check=check,
        timeout=60,
    )


def scratch_repo(tmp_path: Path) -> tuple[Path, Path]:
    """A git repo with a suite and a `.venv/bin/invoke` that runs this project's tasks."""
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    suite = make_project(repo, [good_case("price-pro")])
    venv_invoke = repo / ".venv" / "bin" / "invoke"
    venv_invoke.parent.mkdir(parents=True)
    venv_invoke.write_text(f'#!/bin/sh\nexec "{INVOKE}" -r "{ROOT}" "$@"\n')
    venv_invoke.chmod(0o755)
    (repo / ".gitignore").write_text(".venv/\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base", "--no-verify")
    return repo, suite


def hook_path(repo: Path) -> Path:
    return repo / ".git" / "hooks" / "pre-commit"


def head(repo: Path) -> str:
    return git(repo, "rev-parse", "HEAD").stdout.strip()


def test_install_writes_an_executable_hook_and_is_idempotent(tmp_path):
    repo, _ = scratch_repo(tmp_path)
    proc = invoke(repo, "install-hooks")
    assert proc.returncode == 0, proc.stderr
    hook = hook_path(repo)
    assert hook.read_text().startswith("#!/bin/sh\n" + MARKER)
    assert os.access(hook, os.X_OK)
    again = invoke(repo, "install-hooks")
    assert again.returncode == 0 and "already installed" in again.stdout


def test_install_refuses_to_replace_a_different_hook_unless_forced(tmp_path):
    repo, _ = scratch_repo(tmp_path)
    hook = hook_path(repo)
    hook.write_text("#!/bin/sh\necho mine\n")
    proc = invoke(repo, "install-hooks")
    assert proc.returncode == 2
    assert "a different pre-commit hook exists; not replaced (use --force)" in proc.stderr
    assert hook.read_text() == "#!/bin/sh\necho mine\n"
    assert invoke(repo, "install-hooks", "--force").returncode == 0
    assert MARKER in hook.read_text()


def test_staged_broken_case_blocks_the_commit_and_a_good_one_passes(tmp_path):
    repo, suite = scratch_repo(tmp_path)
    assert invoke(repo, "install-hooks").returncode == 0
    before = head(repo)

    broken = suite / "cases" / "broken.json"
    broken.write_text(json.dumps({"id": "not-the-stem", "question": "Q?"}, indent=2) + "\n")
    git(repo, "add", str(broken))
    proc = git(repo, "commit", "-m", "broken case", check=False)
    assert proc.returncode != 0
    assert "must equal the file stem" in proc.stderr + proc.stdout
    assert head(repo) == before

    git(repo, "rm", "-q", "--cached", str(broken))
    broken.unlink()
    ugly = suite / "cases" / "ugly.json"
    ugly.write_text(json.dumps(good_case("ugly")))  # valid, not canonical
    git(repo, "add", str(ugly))
    proc = git(repo, "commit", "-m", "ugly case", check=False)
    assert proc.returncode != 0
    assert "not in canonical form" in proc.stderr + proc.stdout
    assert head(repo) == before

    assert invoke(repo, "fmt").returncode == 0
    git(repo, "add", str(ugly))
    proc = git(repo, "commit", "-m", "good case", check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert head(repo) != before


def test_commits_without_case_files_skip_the_checks(tmp_path):
    repo, suite = scratch_repo(tmp_path)
    assert invoke(repo, "install-hooks").returncode == 0
    (suite / "cases" / "wip.json").write_text("{ not yet json")  # unstaged work in progress
    (repo / "notes.txt").write_text("hello\n")
    git(repo, "add", "notes.txt")
    proc = git(repo, "commit", "-m", "notes", check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "pre-commit: checking" not in proc.stdout


def test_pre_commit_config_runs_validate_and_fmt_check_on_case_files():
    config = yaml.safe_load((ROOT / ".pre-commit-config.yaml").read_text("utf-8"))
    (repo,) = config["repos"]
    assert repo["repo"] == "local"
    entries = {h["entry"] for h in repo["hooks"]}
    assert entries == {".venv/bin/invoke validate", ".venv/bin/invoke fmt --check"}
    for h in repo["hooks"]:
        assert h["pass_filenames"] is False and h["language"] == "system"
        files = re.compile(h["files"])
        assert files.search("evals/cases/price-pro.json")
        assert files.search("cases/a.json")
        assert not files.search("evals/sealed/MANIFEST.json")
        assert not files.search("evals/cases/sub/x.json")
        assert not files.search("runs/x.jsonl")


def test_a_staged_case_with_a_non_ascii_file_name_is_checked_too(tmp_path):
    repo, suite = scratch_repo(tmp_path)
    assert invoke(repo, "install-hooks").returncode == 0
    before = head(repo)
    # git quotes such names ("gr\303\266\303\237e.json") unless told not to.
    broken = suite / "cases" / "größe.json"
    broken.write_text(json.dumps({"id": "größe", "question": "Q?"}, indent=2) + "\n")
    git(repo, "add", str(broken))
    proc = git(repo, "commit", "-m", "unicode name", check=False)
    assert proc.returncode != 0, proc.stdout + proc.stderr
    assert "pre-commit: checking suite suite" in proc.stdout + proc.stderr
    assert head(repo) == before
