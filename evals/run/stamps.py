"""What stamps a run: git revision, package versions."""

from __future__ import annotations

import platform
import subprocess
from importlib import metadata
from pathlib import Path
from typing import Any

import evals

_PACKAGES = ("openai", "httpx", "jsonschema", "invoke", "regex", "rich", "cryptography")


def git_state(root: Path, suite: Path | None = None) -> dict[str, Any]:
    """The commit and whether the work tree has uncommitted changes (None outside git).

    Untracked files count only inside the suite: a new case file changes what ran, while
    the run files a run leaves in runs/ do not."""

    def git(*args: str) -> str | None:
        try:
            out = subprocess.run(
                ["git", *args], cwd=root, capture_output=True, text=True, timeout=10, check=True
            )
        except (OSError, subprocess.SubprocessError):
            return None
        return out.stdout.strip()

    commit = git("rev-parse", "HEAD")
    status = git("status", "--porcelain", "--untracked-files=no") if commit else None
    if status == "" and suite is not None:
        # `--` and an absolute path: the suite may be named like an option or lie anywhere.
        status = git("status", "--porcelain", "--untracked-files=all", "--", str(suite.resolve()))
    return {"commit": commit, "dirty": None if status is None else bool(status)}


def versions() -> dict[str, str | None]:
    """The harness's version, Python's, and the versions of the packages that shape results."""
    out: dict[str, str | None] = {"evals": evals.__version__, "python": platform.python_version()}
    for name in _PACKAGES:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = None
    return out
