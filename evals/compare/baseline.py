"""The release baseline: `runs/BASELINE` names the committed run file that diffs compare against."""

from __future__ import annotations

import sys
from pathlib import Path

from evals.cli import EXIT_ERROR, EXIT_OK, settings
from evals.errors import InputError
from evals.run.files import OutputError, RunFile, read_run, resolve_run, write_whole
from evals.run.latest import resolve_for_suite

POINTER = "BASELINE"


def unfit(run: RunFile) -> list[str]:
    """Why a run should not be what later runs are gated against: it stopped early (its
    rates are of the cases it got to), or some case errored (no verdict to compare with)."""
    why = []
    if not run.complete:
        reason = (run.summary or {}).get("stopped_reason") or (
            "no completed summary" if run.summary else "no summary: interrupted or still running"
        )
        why.append(f"it stopped early ({reason})")
    errors = sum(1 for r in run.rows if r.get("status") == "error")
    if errors:
        why.append(f"{errors} of its {len(run.rows)} row(s) errored")
    return why


def set_baseline(ref: str, runs_dir: Path, *, force: bool = False) -> Path:
    """Point runs/BASELINE at a readable run file inside `runs_dir`; returns the run file.

    A run that stopped early or has error rows is refused unless `force`."""
    path = resolve_run(ref, runs_dir).resolve()
    run = read_run(path)  # refuses a missing or unreadable file with the reason
    runs = runs_dir.resolve()
    if path.parent != runs:
        raise InputError(
            f"{path}: a baseline must be a run file in {runs_dir}/ (committed with the code); copy it there first"
        )
    if not run.header.get("run_id"):
        raise InputError(f"{path}: line 1: the header has no run_id; not a run file")
    if (why := unfit(run)) and not force:
        raise InputError(
            f"{path}: not made the baseline: {'; '.join(why)}; run again, or give --force "
            "to make it the baseline anyway"
        )
    write_whole(runs / POINTER, path.name + "\n")  # never a half-written pointer
    for warning in run.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    for reason in why:
        print(f"warning: {path.name} is the baseline although {reason} (--force)", file=sys.stderr)
    return path


def cmd_baseline(ref: str, suite: str | None = None, force: bool = False) -> int:
    """The `invoke baseline` command: point runs/BASELINE at RUN (`latest`: the newest run
    of `suite` that ran to its end) and say what to commit."""
    runs_dir = settings().runs_path
    if ref == "latest":
        ref = str(resolve_for_suite(ref, suite, "`invoke baseline RUN`"))
    try:
        path = set_baseline(ref, runs_dir, force=force)
    except OutputError as exc:
        print(f"{exc}; the baseline is unchanged", file=sys.stderr)
        return EXIT_ERROR
    print(f"{runs_dir / POINTER} -> {path.name}; commit both files so reviewers see the change")
    return EXIT_OK
