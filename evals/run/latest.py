"""`latest` as the commands mean it: the newest run of the suite in use.

`runs/` holds the runs of every suite of the project (the example suite, an imported one, one
made by `invoke init`), so the newest file there may be of another suite than the one a bare
`invoke diff` or `invoke show CASE` is about. A run that stopped early (the endpoint refused
it, Ctrl-C, the budget) is passed over: its rates are of the cases it got to, so it is read
only when named (`invoke run --resume latest` alone takes it, being what resume is for).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from evals.config import Settings, load_settings
from evals.errors import InputError
from evals.run.files import _STAMPED, resolve_run
from evals.run.prompt_use import read_header
from evals.run.rows import project_path


def run_suite(path: Path) -> str | None:
    """The `suite` its header names, or None when the file has no readable header."""
    suite = read_header(path).get("suite")
    return suite if isinstance(suite, str) else None


#: The summary record is the last line; a row can be long, so this much of the end is read.
_TAIL_BYTES = 1 << 20


def stopped_early(path: Path) -> str | None:
    """Why the run in `path` did not run to its end, or None when its summary says it did.

    Only the file's end is read: a scan of `runs/` must not parse every row of every run."""
    try:
        with path.open("rb") as fh:
            fh.seek(0, 2)
            size = fh.tell()
            fh.seek(max(0, size - _TAIL_BYTES))
            tail = fh.read()
    except OSError as exc:
        return f"unreadable ({exc.strerror or exc})"
    lines = [line for line in tail.split(b"\n") if line.strip()]
    try:
        last = json.loads(lines[-1]) if lines else None
    except (ValueError, RecursionError):
        last = None
    if not isinstance(last, dict) or last.get("kind") != "summary":
        return "no summary (interrupted, or still running)"
    if last.get("completed") is True:
        return None
    reason = last.get("stopped_reason")
    if not reason:
        return "not completed"
    text = " ".join(str(reason).split())
    return text if len(text) <= 120 else text[:117].rstrip() + "..."


def _newest_first(runs_dir: Path) -> list[Path]:
    files = sorted(runs_dir.glob("*.jsonl")) if runs_dir.is_dir() else []
    # Run files are named by their UTC start; hand-named ones (merged.jsonl) come first.
    ordered = [f for f in files if not _STAMPED.match(f.name)] + [
        f for f in files if _STAMPED.match(f.name)
    ]
    return ordered[::-1]


def latest_of_suite(runs_dir: Path, suite: str) -> Path | None:
    """The newest run file in `runs_dir` of `suite` (a project path, as headers record it)."""
    return next((p for p in _newest_first(runs_dir) if run_suite(p) == suite), None)


def resolve_in_suite(
    ref: str,
    runs_dir: Path,
    suite: Path,
    root: Path,
    how: str,
    *,
    stopped_ok: bool = False,
    quiet: bool = False,
) -> Path:
    """`resolve_run`, with `latest` the newest run of `suite` that ran to its end (any newest
    run of it when `stopped_ok`); when there is none, the message says `how` to name one.

    Each newer run passed over because it stopped early is named on stderr (unless quiet)."""
    if ref != "latest" or Path(ref).is_file():
        return resolve_run(ref, runs_dir)
    name = project_path(suite, root)
    skipped: list[tuple[Path, str]] = []
    for path in _newest_first(runs_dir):
        if run_suite(path) != name:
            continue
        why = None if stopped_ok else stopped_early(path)
        if why is None:
            for other, reason in [] if quiet else skipped:
                print(
                    f"note: latest passes over {other.name}, which stopped early ({reason}); "
                    f"name it to read it",
                    file=sys.stderr,
                )
            return path
        skipped.append((path, why))
    if skipped:
        other, reason = skipped[0]
        raise InputError(
            f"no run of the suite {name} in {runs_dir} ran to its end (the newest, "
            f"{other.name}, stopped early: {reason}): name the run with {how}"
        )
    newest = resolve_run("latest", runs_dir)  # no run files at all: its own message
    raise InputError(
        f"no run of the suite {name} in {runs_dir} (the newest run, {newest.name}, is of "
        f"{run_suite(newest) or 'an unknown suite'}): name the run with {how}"
    )


def resolve_configured(ref: str, cfg: Settings, how: str) -> Path:
    """`resolve_in_suite` for the project's configured suite (commands without --suite)."""
    return resolve_in_suite(ref, cfg.runs_path, cfg.root / cfg.suite, cfg.root, how)


def resolve_for_suite(
    ref: str, suite_dir: str | None, how: str, *, stopped_ok: bool = False
) -> Path:
    """`resolve_in_suite` for the suite a command's `--suite` names (default: the configured
    one), in the runs/ of the project around the working directory."""
    cfg = load_settings(Path.cwd())
    suite = Path(suite_dir) if suite_dir else cfg.root / cfg.suite
    if suite_dir and not suite.is_dir():
        raise InputError(f"--suite {suite_dir}: no such folder")
    return resolve_in_suite(ref, cfg.runs_path, suite, cfg.root, how, stopped_ok=stopped_ok)
