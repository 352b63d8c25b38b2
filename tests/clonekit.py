"""A fresh copy of this project, as a clone would have it, to run the walk-throughs of the README
and docs/ verbatim."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from casekit import GIT_ENV

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent


def doc_block(page: str, heading: str, lang: str = "bash") -> list[str]:
    """The commands of the first fenced block after `heading` in `page` (README.md or a page
    under docs/), one per line."""
    text = (ROOT / page).read_text("utf-8")
    assert f"\n{heading}\n" in text, f"{page}: no heading {heading!r}"
    section = text.split(f"\n{heading}\n", 1)[1]
    block = re.search(rf"```{lang}\n(.*?)```", section, re.S)
    assert block is not None, f"{page}: {heading}"
    return [line for line in block.group(1).splitlines() if line.strip()]


def _tracked(rel: str) -> bool:
    proc = subprocess.run(
        ["git", "ls-files", "--error-unmatch", rel], cwd=ROOT, capture_output=True
    )
    return proc.returncode == 0


def fresh_copy(dest: Path) -> Path:
    """The project's files (the working tree's versions, new files included; run files only
    when committed), committed in a new repository at `dest`."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout.decode()
    for rel in filter(None, listed.split("\0")):
        src = ROOT / rel
        if src.is_file() and (not rel.startswith("runs/") or _tracked(rel)):
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            (dest / rel).write_bytes(src.read_bytes())
    env = {**os.environ, **GIT_ENV}
    for args in (["init", "-q"], ["add", "."], ["commit", "-qm", "clone"]):
        subprocess.run(["git", *args], cwd=dest, env=env, check=True, capture_output=True)
    # The README's first step makes .venv; this one stands in for it (.venv is git-ignored).
    (dest / ".venv").symlink_to(Path(sys.prefix), target_is_directory=True)
    return dest


def bash(script: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """`script` in bash with this venv's `invoke` first on PATH, as with the venv activated."""
    env = {**os.environ, **GIT_ENV, "PATH": f"{BIN}:{os.environ.get('PATH', '')}"}
    env.pop("EVAL_SEAL_KEY", None)
    env.pop("OPENAI_BASE_URL", None)
    return subprocess.run(
        ["bash", "-c", script], cwd=cwd, env=env, capture_output=True, text=True, timeout=300
    )


def run_lines(lines: list[str], cwd: Path) -> tuple[list[int], subprocess.CompletedProcess[str]]:
    """Run the lines in one shell, in order; the exit code of each, and the whole output."""
    script = "".join(f'{line}\necho "::rc $?"\n' for line in lines)
    done = bash(script, cwd)
    return [int(c) for c in re.findall(r"^::rc (\d+)$", done.stdout, re.M)], done
