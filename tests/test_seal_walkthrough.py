"""The README's sealed-pile walkthrough, run verbatim on a fresh copy of this project."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from casekit import GIT_ENV

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent


def walkthrough() -> list[str]:
    """The commands of the README's "Try it on the example suite" block, one per line."""
    text = (ROOT / "README.md").read_text("utf-8")
    section = text.split("### Try it on the example suite", 1)[1]
    block = re.search(r"```bash\n(.*?)```", section, re.S)
    assert block is not None
    return [line for line in block.group(1).splitlines() if line.strip()]


def fresh_copy(dest: Path) -> Path:
    """The project's files as a clone would have them (the working tree's versions), committed."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout.decode()
    for rel in filter(None, listed.split("\0")):
        src = ROOT / rel
        tracked_run = (
            not rel.startswith("runs/")
            or subprocess.run(
                ["git", "ls-files", "--error-unmatch", rel], cwd=ROOT, capture_output=True
            ).returncode
            == 0
        )
        if src.is_file() and tracked_run:
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            (dest / rel).write_bytes(src.read_bytes())
    env = {**os.environ, **GIT_ENV}
    for args in (["init", "-q"], ["add", "."], ["commit", "-qm", "clone"]):
        subprocess.run(["git", *args], cwd=dest, env=env, check=True, capture_output=True)
    return dest


def bash(script: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, **GIT_ENV, "PATH": f"{BIN}:{os.environ.get('PATH', '')}"}
    env.pop("EVAL_SEAL_KEY", None)
    return subprocess.run(
        ["bash", "-c", script], cwd=cwd, env=env, capture_output=True, text=True, timeout=300
    )


def test_the_seal_walkthrough_works_verbatim_on_a_fresh_clone(tmp_path: Path) -> None:
    repo = fresh_copy(tmp_path / "clone")
    lines = walkthrough()
    assert lines[0].startswith("export EVAL_SEAL_KEY=")
    assert any(" --allow-exposed" in line for line in lines)

    # Without the flag the seal is refused, naming the run file and the way forward.
    plain = [line.replace(" --allow-exposed", "") for line in lines[:2]]
    refused = bash("\n".join(plain), repo)
    assert refused.returncode == 2
    err = refused.stderr.splitlines()
    assert any("_baseline-offline.jsonl" in e and "a run file" in e for e in err)
    assert err[-1].endswith("invoke seal --fraction 0.2 --seed 7 --allow-exposed")
    assert not (repo / "evals" / "sealed").exists()

    script = "".join(f'{line}\necho "::rc $?"\n' for line in lines)
    done = bash(script, repo)
    codes = [int(c) for c in re.findall(r"^::rc (\d+)$", done.stdout, re.M)]
    assert len(codes) == len(lines), done.stdout + done.stderr
    assert codes[:2] == [0, 0], done.stdout + done.stderr
    assert all(c in (0, 1) for c in codes[2:]), done.stdout + done.stderr  # 1: cases failed
    manifest = json.loads((repo / "evals" / "sealed" / "MANIFEST.json").read_text("utf-8"))
    assert manifest["exposed"] == manifest["n"] > 0
    assert "gap: visible" in done.stdout
