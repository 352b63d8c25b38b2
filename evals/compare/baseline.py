"""The release baseline: `runs/BASELINE` names the committed run file that diffs compare against."""

from __future__ import annotations

import sys
from pathlib import Path

from evals.cli import EXIT_ERROR, EXIT_OK, settings
from evals.errors import InputError
from evals.run.files import OutputError, read_run, resolve_run, write_whole

POINTER = "BASELINE"


def set_baseline(ref: str, runs_dir: Path) -> Path:
    """Point runs/BASELINE at a readable run file inside `runs_dir`; returns the run file."""
    path = resolve_run(ref, runs_dir).resolve()
    run = read_run(path)  # refuses a missing or unreadable file with the reason
    runs = runs_dir.resolve()
    if path.parent != runs:
        raise InputError(
            f"{path}: a baseline must be a run file in {runs_dir}/ (committed with the code); copy it there first"
        )
    if not run.header.get("run_id"):
        raise InputError(f"{path}: line 1: the header has no run_id; not a run file")
    write_whole(runs / POINTER, path.name + "\n")  # never a half-written pointer
    for warning in run.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    if not run.complete:
        print(f"warning: {path.name} is an incomplete run (no completed summary)", file=sys.stderr)
    return path


def cmd_baseline(ref: str) -> int:
    """The `invoke baseline` command: point runs/BASELINE at RUN and say what to commit."""
    runs_dir = settings().runs_path
    try:
        path = set_baseline(ref, runs_dir)
    except OutputError as exc:
        print(f"{exc}; the baseline is unchanged", file=sys.stderr)
        return EXIT_ERROR
    print(f"{runs_dir / POINTER} -> {path.name}; commit both files so reviewers see the change")
    return EXIT_OK
