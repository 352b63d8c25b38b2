"""sealed/LEDGER.jsonl: hash-chained lines for each sealed run, and the query budget it spends.

A run reserves its place before it starts (a `reserved` line, appended while holding an
exclusive lock with the budget check, so two runs started at once cannot both take the
last slot) and records its outcome after (a `finished` line with the same `slot`). Lines
written before reservations existed have no `phase`: each is one finished run.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from evals.errors import Problem
from evals.run.files import OutputError, parse_record, run_headers, unwritable
from evals.suite.filelock import lock_current
from evals.suite.folder import Suite

LEDGER = "LEDGER.jsonl"
#: Held (flock) while a run checks the budget and appends; removed again when released.
LOCK = ".ledger.lock"
RESERVED = "reserved"
FINISHED = "finished"


def ledger_path(suite: Suite) -> Path:
    return suite.sealed_dir / LEDGER


def _lines(path: Path) -> list[str]:
    if not path.is_file():
        return []
    # Only \n ends a line: an entry may hold U+2028 raw, which splitlines() would cut.
    return [ln for ln in path.read_text("utf-8").split("\n") if ln.strip()]


def read_ledger(suite: Suite) -> list[dict[str, Any]]:
    """Every parseable ledger entry, oldest first."""
    out = []
    for line in _lines(ledger_path(suite)):
        try:
            rec = parse_record(line)
        except ValueError:
            continue
        if isinstance(rec, dict):
            out.append(rec)
    return out


def _sha(line: str) -> str:
    return hashlib.sha256(line.encode("utf-8")).hexdigest()


@contextlib.contextmanager
def ledger_lock(suite: Suite) -> Iterator[None]:
    """Hold the pile's ledger lock: one process at a time checks the budget and appends.

    The lock file is removed on release, so no stray file is left beside the pile. A
    process that waited on a file removed meanwhile locks the new one instead (the inode
    check), so removal never lets two holders in at once. The kernel releases the lock of
    a killed process.
    """
    path = suite.sealed_dir / LOCK
    fd = lock_current(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW)
    try:
        yield
    finally:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
        os.close(fd)


class LedgerUnwritten(OutputError):
    """A ledger line could not be written (a full disk, a file-size limit); the ledger was
    cut back to its last whole line, so it stays valid."""


def append_ledger(suite: Suite, entry: dict[str, Any]) -> dict[str, Any]:
    """Append one entry, chained to the previous line's hash; flushed to disk before returning.

    The line is written whole or not at all: when a write fails part-way, the ledger is cut
    back to where it ended, since half a line would break the chain and make every later
    run refuse the pile as tampered. Call it holding `ledger_lock`: two appends at once
    could chain to the same line.
    """
    path = ledger_path(suite)
    lines = _lines(path)
    rec = {**entry, "prev": _sha(lines[-1]) if lines else None}
    data = (json.dumps(rec, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    except OSError as exc:
        raise LedgerUnwritten(unwritable(path, exc)) from None
    try:
        size = os.fstat(fd).st_size
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            os.fsync(fd)
        except OSError as exc:
            with contextlib.suppress(OSError):  # cutting back frees space: it can succeed
                os.ftruncate(fd, size)
                os.fsync(fd)
            raise LedgerUnwritten(unwritable(path, exc)) from None
    finally:
        os.close(fd)
    return rec


def ledger_problems(suite: Suite) -> list[Problem]:
    """Malformed lines and a broken hash chain (an earlier line edited or deleted)."""
    from evals.suite.schemas import schema_problems

    path = ledger_path(suite)
    where = str(path)
    problems: list[Problem] = []
    prev: str | None = None
    for n, line in enumerate(_lines(path), 1):
        try:
            rec = parse_record(line)
        except ValueError as exc:
            problems.append(Problem(where, f"line {n}", str(exc)))
            prev = _sha(line)
            continue
        for p in schema_problems(rec, "ledger.schema.json", where):
            problems.append(Problem(where, f"line {n}{p.pointer}", p.message))
        if isinstance(rec, dict) and rec.get("prev") != prev:
            problems.append(
                Problem(where, f"line {n}", "ledger altered: an earlier line was edited or removed")
            )
        prev = _sha(line)
    return problems


def sealed_run_files(runs_dir: Path, pile_id: str) -> list[tuple[dict[str, Any], Path]]:
    """(header, path) of every run file in runs_dir that ran this pile, oldest first."""
    out = []
    for header, path in run_headers(runs_dir):
        sealed = header.get("sealed")
        if isinstance(sealed, dict) and sealed.get("pile_id") == pile_id:
            out.append((header, path))
    return sorted(out, key=lambda hp: (hp[0].get("created") or "", hp[1].name))


def ledger_count(suite: Suite, pile_id: str) -> int:
    """Sealed runs of this pile the ledger records: reserved ones (finished or not, a killed
    run still spent its slot) and lines from before reservations, one run each."""
    return sum(
        1 for e in read_ledger(suite) if e.get("pile_id") == pile_id and e.get("phase") != FINISHED
    )


def budget_used(suite: Suite, pile_id: str, runs_dir: Path) -> int:
    """Sealed runs spent on this pile: the ledger's count, or the run files' if that is larger.

    Counting both means deleting ledger lines does not give the budget back.
    """
    return max(ledger_count(suite, pile_id), len(sealed_run_files(runs_dir, pile_id)))
