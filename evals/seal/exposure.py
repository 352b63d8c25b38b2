"""Where a case's text may already be readable: other files in the project, and git history."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from evals.suite.case import Case
from evals.suite.folder import Suite

# Folders never searched for leaked case text: tools' own files, not the project's.
_SKIP_DIRS = {
    ".git",
    ".venv",
    "venv",
    "node_modules",
    "__pycache__",
    ".ruff_cache",
    ".pytest_cache",
}
_SCAN_MAX_BYTES = 50_000_000
# Shorter texts match too much by chance to mean anything.
_MIN_NEEDLE = 16


def git_top(path: Path) -> Path | None:
    """The top of the git work tree holding `path`, or None."""
    try:
        out = subprocess.run(
            ["git", "rev-parse", "--show-toplevel"],
            cwd=path,
            capture_output=True,
            text=True,
            timeout=10,
            check=True,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return Path(out.stdout.strip()).resolve() if out.stdout.strip() else None


def _needles(case: Case) -> list[bytes]:
    texts = [case.question, case.data.get("reference") or ""]
    out: set[bytes] = set()
    for t in texts:
        if len(t.strip()) < _MIN_NEEDLE:
            continue
        for form in (t, json.dumps(t, ensure_ascii=False)[1:-1], json.dumps(t)[1:-1]):
            out.add(form.encode("utf-8"))
    return sorted(out)


def _scan_files(root: Path, skip: set[Path]) -> list[Path]:
    out = []
    for here, dirs, files in os.walk(root):
        # Prune in place so tool folders (a virtualenv, .git) are never walked.
        dirs[:] = sorted(d for d in dirs if d not in _SKIP_DIRS and not d.endswith(".egg-info"))
        for f in sorted(files):
            path = Path(here) / f
            try:
                small = path.is_file() and path.stat().st_size < _SCAN_MAX_BYTES
            except OSError:
                continue
            if small and path.resolve() not in skip:
                out.append(path)
    return out


def exposed_in(root: Path, cases: list[Case]) -> dict[str, list[Path]]:
    """Per case id, the files under `root` (other than the case's own) holding its question or reference."""
    skip = {c.path.resolve() for c in cases if c.path}
    needles = {c.id: _needles(c) for c in cases}
    found: dict[str, list[Path]] = {}
    for path in _scan_files(root, skip):
        try:
            raw = path.read_bytes()
        except OSError:
            continue
        for cid, ns in needles.items():
            if any(n in raw for n in ns):
                found.setdefault(cid, []).append(path)
    return found


def in_git_history(suite: Suite, cases: list[Case]) -> int:
    """How many of the cases' files were ever committed (their text stays in history)."""
    top = git_top(suite.path.resolve())
    if top is None:
        return 0
    try:
        out = subprocess.run(
            [
                "git",
                "log",
                "--all",
                "--format=",
                "--name-only",
                "--",
                str(suite.cases_dir.resolve()),
            ],
            cwd=top,
            capture_output=True,
            text=True,
            timeout=30,
            check=True,
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return 0
    committed = {(top / line.strip()).resolve() for line in out.splitlines() if line.strip()}
    return sum(1 for c in cases if c.path and c.path.resolve() in committed)
