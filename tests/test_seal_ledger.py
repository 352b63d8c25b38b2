"""The sealed pile's ledger under a full disk and without a usable git: it stays whole, and
its committed history cannot be switched off."""

from __future__ import annotations

import os
import resource
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from casekit import GIT_ENV, INVOKE, ROOT, invoke  # noqa: E402
from sealkit import run_sealed  # noqa: E402
from test_sealed_run import run_files, sealed_project  # noqa: E402

LEDGER = Path("suite") / "sealed" / "LEDGER.jsonl"


@pytest.fixture(scope="module")
def template(tmp_path_factory) -> tuple[Path, str, list[dict]]:
    """One sealed project per module; tests work on copies of it."""
    return sealed_project(tmp_path_factory.mktemp("template"))


@pytest.fixture
def sealed(template, tmp_path: Path) -> tuple[Path, str, list[dict]]:
    proj, key, chosen = template
    copy = tmp_path / "proj"
    shutil.copytree(proj, copy)
    return copy, key, chosen


def _sealed_with_limit(proj: Path, key: str, limit: int) -> subprocess.CompletedProcess[str]:
    """`invoke run --sealed` with no file allowed past `limit` bytes (as a full disk would
    stop it); Python ignores SIGXFSZ, so a write past it fails with EFBIG."""

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    env = {**os.environ, "EVAL_SEAL_KEY": key}
    return subprocess.run(
        [INVOKE, "-r", str(ROOT), "run", "--sealed"],
        cwd=proj,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=cap,
    )


@pytest.mark.parametrize("fails", ["reservation", "outcome"])
def test_a_ledger_line_that_cannot_be_written_is_cut_back_and_named(sealed, fails: str) -> None:
    proj, key, _ = sealed
    assert run_sealed(proj, key).returncode in (0, 1)
    ledger = proj / LEDGER
    before = ledger.read_bytes()
    # The next reservation is the first one plus the hash of the line before it (64 hex
    # digits where the first had null); its outcome line is as long again.
    reservation = len(before.split(b"\n")[0]) + 1 + 62
    room = 40 if fails == "reservation" else reservation + 20
    r = _sealed_with_limit(proj, key, len(before) + room)
    assert r.returncode in (2, 3), r.stdout + r.stderr
    assert "Traceback" not in r.stderr
    if fails == "reservation":
        assert r.returncode == 3
        assert "reservation was not recorded, so nothing was run" in r.stderr
        assert ledger.read_bytes() == before
    else:
        assert "was not recorded in the ledger" in r.stderr
        assert ledger.read_bytes().endswith(b"\n")
    assert "could not write" in r.stderr and "LEDGER.jsonl: File too large" in r.stderr
    # Whole lines only: the pile is not "tampered", and the next run goes on normally.
    v = invoke(proj, "validate")
    assert v.returncode == 0, v.stderr
    assert run_sealed(proj, key).returncode in (0, 1)


def _git(proj: Path, *args: str) -> None:
    subprocess.run(
        ["git", *args], cwd=proj, check=True, capture_output=True, env={**os.environ, **GIT_ENV}
    )


@pytest.fixture
def emptied(sealed) -> tuple[Path, str]:
    """A pile whose committed ledger (two runs) was emptied along with its run files."""
    proj, key, _ = sealed
    _git(proj, "init", "-q")
    _git(proj, "add", "-A")
    _git(proj, "commit", "-qm", "pile")
    for _ in range(2):
        assert run_sealed(proj, key).returncode in (0, 1)
    _git(proj, "add", "-A")
    _git(proj, "commit", "-qm", "two sealed runs")
    (proj / LEDGER).write_text("", encoding="utf-8")
    for f in run_files(proj):
        f.unlink()
    return proj, key


@pytest.mark.parametrize("env", ["GIT_DIR", "GIT_WORK_TREE"])
def test_git_variables_in_the_environment_cannot_switch_the_history_check_off(
    emptied, env: str, tmp_path: Path
) -> None:
    proj, key = emptied
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    value = "/nonexistent" if env == "GIT_DIR" else str(elsewhere)
    r = run_sealed(proj, key, env_extra={env: value})
    assert r.returncode == 2 and "ledger rewritten" in r.stderr, r.stderr
    assert not run_files(proj)


def test_no_git_on_path_in_a_repository_refuses_the_run(emptied, tmp_path: Path) -> None:
    proj, key = emptied
    bare = tmp_path / "bin"
    bare.mkdir()
    r = run_sealed(proj, key, env_extra={"PATH": str(bare)})
    assert r.returncode == 2, r.stdout + r.stderr
    assert f"the suite is in the git repository {proj.resolve()}" in r.stderr
    assert "git could not be run" in r.stderr and "refused" in r.stderr
    assert "Traceback" not in r.stderr and not run_files(proj)
    env = {**os.environ, "PATH": str(bare)}
    v = subprocess.run(
        [INVOKE, "-r", str(ROOT), "validate"], cwd=proj, env=env, capture_output=True, text=True
    )
    assert v.returncode == 2 and "git could not be run" in v.stderr


def test_outside_any_repository_git_missing_is_still_only_a_note(sealed, tmp_path: Path) -> None:
    proj, key, _ = sealed
    bare = tmp_path / "bin"
    bare.mkdir()
    assert shutil.which("git")
    r = run_sealed(proj, key, env_extra={"PATH": str(bare)})
    assert r.returncode in (0, 1), r.stderr
    assert "no git repository" in r.stderr
