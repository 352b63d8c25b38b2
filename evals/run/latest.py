"""`latest` as the commands mean it: the newest run of the suite in use.

`runs/` holds the runs of every suite of the project (the example suite, an imported one, one
made by `invoke init`), so the newest file there may be of another suite than the one a bare
`invoke diff` or `invoke show CASE` is about.
"""

from __future__ import annotations

from pathlib import Path

from evals.config import Settings
from evals.errors import InputError
from evals.run.files import _STAMPED, resolve_run
from evals.run.prompt_use import read_header
from evals.run.rows import project_path


def run_suite(path: Path) -> str | None:
    """The `suite` its header names, or None when the file has no readable header."""
    suite = read_header(path).get("suite")
    return suite if isinstance(suite, str) else None


def latest_of_suite(runs_dir: Path, suite: str) -> Path | None:
    """The newest run file in `runs_dir` of `suite` (a project path, as headers record it)."""
    files = sorted(runs_dir.glob("*.jsonl")) if runs_dir.is_dir() else []
    # Run files are named by their UTC start; hand-named ones (merged.jsonl) come first.
    ordered = [f for f in files if not _STAMPED.match(f.name)] + [
        f for f in files if _STAMPED.match(f.name)
    ]
    for path in reversed(ordered):
        if run_suite(path) == suite:
            return path
    return None


def resolve_in_suite(ref: str, runs_dir: Path, suite: Path, root: Path, how: str) -> Path:
    """`resolve_run`, with `latest` the newest run of `suite`; when there is none, the
    message says `how` to name a run of another suite (`--b RUN`)."""
    if ref != "latest" or Path(ref).is_file():
        return resolve_run(ref, runs_dir)
    name = project_path(suite, root)
    found = latest_of_suite(runs_dir, name)
    if found is not None:
        return found
    newest = resolve_run("latest", runs_dir)  # no run files at all: its own message
    raise InputError(
        f"no run of the suite {name} in {runs_dir} (the newest run, {newest.name}, is of "
        f"{run_suite(newest) or 'an unknown suite'}): name the run with {how}"
    )


def resolve_configured(ref: str, cfg: Settings, how: str) -> Path:
    """`resolve_in_suite` for the project's configured suite (commands without --suite)."""
    return resolve_in_suite(ref, cfg.runs_path, cfg.root / cfg.suite, cfg.root, how)
