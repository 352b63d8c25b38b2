"""`--resume RUN`: continue an interrupted run file with the same stamps, no case twice.

The file is made whole again atomically: the header (with a `resumes` entry) and the
rows being kept are written to a temporary file that then replaces the run file in one
rename, and new rows are appended to it. At every moment the path holds either the old
file or a valid prefix of the new one, so a crash during a resume loses nothing. Rows
with status `error` are not kept: those cases run again, as do cases with no row.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evals.errors import InputError, Problem
from evals.run.files import RunFile, iso_z, read_run, resolve_run
from evals.run.plan import Resumed
from evals.run.stamps import git_state
from evals.run.writer import BatchedRunWriter
from evals.suite.case import Case
from evals.suite.folder import suite_digest


def open_for_resume(ref: str, runs_dir: Path) -> RunFile:
    """The run file to continue (a path, run id, or `latest`)."""
    return read_run(resolve_run(ref, runs_dir))


def selection(header: dict[str, Any]) -> dict[str, Any]:
    """The case selection the run was started with (re-applied on resume)."""
    return dict(header.get("settings", {}).get("selection") or {})


def _short(sha: str | None) -> str:
    return (sha or "?")[:7]


def check_resumable(
    run: RunFile,
    *,
    prompt_sha: str,
    model: str,
    provider_stamp: dict[str, Any],
    cases: list[Case],
    root: Path,
    suite: Path | None = None,
) -> Resumed:
    """The rows to keep; refuses, with every reason at once, when a stamp changed."""
    h, where = run.header, str(run.path)
    problems: list[Problem] = []
    if h.get("prompt_sha") != prompt_sha:
        problems.append(
            Problem(
                where,
                "/prompt_sha",
                f"the prompt changed since this run ({_short(h.get('prompt_sha'))} then, "
                f"{_short(prompt_sha)} now): start a new run",
            )
        )
    if h.get("model") != model:
        problems.append(
            Problem(where, "/model", f"the run used {h.get('model')!r}, this would use {model!r}")
        )
    old = h.get("settings", {}).get("provider") or {}
    if old.get("base_url") != provider_stamp.get("base_url"):
        # The rest of the run would go to another endpoint, into the same run file.
        problems.append(
            Problem(
                where,
                "/settings/provider/base_url",
                f"the run was sent to {old.get('base_url')!r}, this would send the rest to "
                f"{provider_stamp.get('base_url')!r}: set OPENAI_BASE_URL (or [tool.evals] "
                "base_url) to the run's endpoint, or start a new run",
            )
        )
    elif old.get("base_url_id") != provider_stamp.get("base_url_id"):
        # Same URL as shown, but its masked part (a token) differs: another endpoint.
        problems.append(
            Problem(
                where,
                "/settings/provider/base_url_id",
                f"the run was sent to {old.get('base_url')!r} with another secret part in the "
                "URL (its masked token or query value differs): set OPENAI_BASE_URL to the "
                "run's endpoint, or start a new run",
            )
        )
    for key in ("kind", "generation", "target", "endpoint_model"):
        if old.get(key) != provider_stamp.get(key):
            problems.append(
                Problem(
                    where,
                    f"/settings/provider/{key}",
                    f"was {old.get(key)!r}, now {provider_stamp.get(key)!r}",
                )
            )
    by_id = {c.id: c for c in cases}
    for row in run.rows:
        c = by_id.get(row["case"])
        if c is None:
            problems.append(Problem(where, f"case {row['case']}", "no longer in the suite"))
        elif c.sha != row.get("case_sha"):
            problems.append(
                Problem(where, f"case {row['case']}", "the case file changed since this run")
            )
    if h.get("suite_digest") != suite_digest(cases):
        problems.append(
            Problem(
                where,
                "/suite_digest",
                f"the selected cases differ from the run's ({len(cases)} now, "
                f"{h.get('n_cases')} then): a case was added, removed or changed",
            )
        )
    if problems:
        raise InputError(problems)
    kept: dict[tuple[str, int], dict[str, Any]] = {}
    for row in run.rows:
        if row.get("status") != "error":
            kept[(row["case"], row.get("epoch", 0))] = row  # the last row of a pair wins
    epochs = int(h.get("settings", {}).get("epochs", 1))
    if run.complete and len(kept) == len(cases) * epochs:
        raise InputError(f"{where}: the run is complete with no error rows: nothing to resume")
    header = dict(h)
    header["resumes"] = [
        *h.get("resumes", []),
        {
            "at": iso_z(),
            "kept": len(kept),
            "dropped_errors": sum(1 for r in run.rows if r.get("status") == "error"),
            "truncated_line": run.truncated,
            "git": git_state(root, suite),
        },
    ]
    return Resumed(run.path, header, list(kept.values()), list(run.batches))


def reopen(resumed: Resumed) -> BatchedRunWriter:
    """Replace the run file by header + kept rows in one rename, then open it for appending."""
    path = resumed.path
    tmp = path.with_name(path.name + ".resume-tmp")
    tmp.unlink(missing_ok=True)  # left by a resume that crashed before its rename
    try:
        with BatchedRunWriter(tmp, fsync_s=3600) as w:
            w.write(resumed.header)
            for rec in resumed.batches:  # a batch still running is collected from these
                w.write(rec)
            for row in resumed.rows:
                w.write(row)
        os.replace(tmp, path)
    except OSError:
        tmp.unlink(missing_ok=True)  # the run file itself was never touched
        raise
    try:
        fd = os.open(path.parent, os.O_RDONLY)
    except OSError:
        fd = None
    if fd is not None:
        try:
            os.fsync(fd)  # make the rename itself durable
        finally:
            os.close(fd)
    return BatchedRunWriter(path, resume=True)


@dataclass
class OpenBatch:
    """A batch input the run uploaded whose results were never read into rows."""

    input_file_id: str
    custom_ids: list[str]
    batch_id: str | None = None
    #: The batch was asked for and may exist although no `created` record says so.
    creating: bool = False


def open_batch(records: list[dict[str, Any]]) -> OpenBatch | None:
    """The run's batch that was uploaded but never ended (a run sends one at a time)."""
    by_file: dict[str, OpenBatch] = {}
    for rec in records:
        fid, event = rec.get("input_file_id"), rec.get("event")
        if not isinstance(fid, str):
            continue
        if event == "uploaded":
            by_file[fid] = OpenBatch(fid, [str(x) for x in rec.get("custom_ids") or []])
        elif event == "creating" and fid in by_file:
            by_file[fid].creating = True
        elif event == "not_created" and fid in by_file:
            by_file[fid].creating = False
        elif event == "created" and fid in by_file:
            by_file[fid].batch_id = rec.get("batch_id")
        elif event == "ended":
            by_file.pop(fid, None)
    return list(by_file.values())[-1] if by_file else None
